//! Arrays handed back to JS. napi-rs converts a `Vec` inside the one handle
//! scope of the call, so every element's handles stay live until the call
//! returns, and each garbage collection V8 runs meanwhile walks all of
//! them: a search showing 50,000 hits took eight times as long as one
//! showing 12,500. Here each element is converted in a handle scope of its
//! own, closed once it is in the array.

use napi::bindgen_prelude::*;
use napi::sys;
use std::ptr;

/// An array result: `Array<T>` in JS.
pub struct List<T>(pub Vec<T>);

impl<T> From<Vec<T>> for List<T> {
    fn from(items: Vec<T>) -> List<T> {
        List(items)
    }
}

impl<T> TypeName for List<T> {
    fn type_name() -> &'static str {
        "Array"
    }

    fn value_type() -> ValueType {
        ValueType::Object
    }
}

impl<T: ToNapiValue> ToNapiValue for List<T> {
    unsafe fn to_napi_value(env: sys::napi_env, val: Self) -> Result<sys::napi_value> {
        let mut array = ptr::null_mut();
        // SAFETY: the caller's `env` is live for this call.
        check_status!(unsafe { sys::napi_create_array_with_length(env, val.0.len(), &mut array) })?;
        for (i, item) in val.0.into_iter().enumerate() {
            let mut scope = ptr::null_mut();
            // SAFETY: as above; the scope is closed below on every path,
            // after the element is held by the array made outside it.
            check_status!(unsafe { sys::napi_open_handle_scope(env, &mut scope) })?;
            let set = unsafe { T::to_napi_value(env, item) }.and_then(|value| {
                check_status!(unsafe { sys::napi_set_element(env, array, i as u32, value) })
            });
            // SAFETY: `scope` was opened above, in this environment.
            unsafe { sys::napi_close_handle_scope(env, scope) };
            set?;
        }
        Ok(array)
    }
}
