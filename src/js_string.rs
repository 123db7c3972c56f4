//! Text handed back to JS. A large text (a view, an edited file) is given
//! to the engine as an external string: V8 reads the Rust buffer in place
//! instead of decoding a UTF-8 copy of it, which is most of the cost of
//! returning a multi-megabyte view. ASCII goes as Latin-1, as it is; other
//! text is transcoded to UTF-16 first (V8 would hold it as UTF-16 anyway).
//! Small texts, and any host without external strings, get the ordinary
//! UTF-8 copy.

use napi::bindgen_prelude::*;
use napi::sys;
use std::ffi::c_void;
use std::mem::ManuallyDrop;
use std::ptr;
use std::sync::atomic::{AtomicU8, Ordering};

/// Below this a copy costs less than the external string's bookkeeping
/// (a finalizer, and a GC object holding the buffer alive).
const EXTERNAL_MIN_BYTES: usize = 64 << 10;

/// A string result: `string` in JS.
pub struct Text(pub String);

impl From<String> for Text {
    fn from(text: String) -> Text {
        Text(text)
    }
}

impl TypeName for Text {
    fn type_name() -> &'static str {
        "String"
    }

    fn value_type() -> ValueType {
        ValueType::String
    }
}

impl ToNapiValue for Text {
    unsafe fn to_napi_value(env: sys::napi_env, val: Self) -> Result<sys::napi_value> {
        let text = val.0;
        if text.len() < EXTERNAL_MIN_BYTES || !external_strings() {
            // SAFETY: the caller's `env` is live for this call.
            return unsafe { String::to_napi_value(env, text) };
        }
        if text.is_ascii() {
            // SAFETY: as above; ASCII bytes are Latin-1.
            return match unsafe { external(env, text.into_bytes(), latin1) } {
                Ok(value) => Ok(value),
                Err(bytes) => {
                    refused();
                    // SAFETY: the bytes came from a `String`, unchanged.
                    let text = unsafe { String::from_utf8_unchecked(bytes) };
                    // SAFETY: the caller's `env` is live for this call.
                    unsafe { String::to_napi_value(env, text) }
                }
            };
        }
        // A UTF-16 text has at most as many units as its UTF-8 has bytes.
        let mut units = vec![0u16; text.len()];
        let written = encoding_rs::mem::convert_str_to_utf16(&text, &mut units);
        units.truncate(written);
        drop(text);
        // SAFETY: as above.
        match unsafe { external(env, units, utf16) } {
            Ok(value) => Ok(value),
            Err(units) => {
                refused();
                let mut value = ptr::null_mut();
                // SAFETY: `units` holds `units.len()` UTF-16 units.
                check_status!(unsafe {
                    sys::napi_create_string_utf16(
                        env,
                        units.as_ptr(),
                        units.len() as isize,
                        &mut value,
                    )
                })?;
                Ok(value)
            }
        }
    }
}

/// A host that has the functions but refuses them once will refuse them
/// again: stop trying.
fn refused() {
    EXTERNAL.store(NO, Ordering::Relaxed);
}

/// One of napi's `node_api_create_external_string_*` functions.
type Create<T> = unsafe fn(
    sys::napi_env,
    *const T,
    isize,
    sys::node_api_basic_finalize,
    *mut c_void,
    *mut sys::napi_value,
    *mut bool,
) -> sys::napi_status;

unsafe fn latin1(
    env: sys::napi_env,
    data: *const u8,
    len: isize,
    finalize: sys::node_api_basic_finalize,
    hint: *mut c_void,
    value: *mut sys::napi_value,
    copied: *mut bool,
) -> sys::napi_status {
    // SAFETY: the caller's contract is this function's.
    unsafe {
        sys::node_api_create_external_string_latin1(
            env,
            data.cast(),
            len,
            finalize,
            hint,
            value,
            copied,
        )
    }
}

unsafe fn utf16(
    env: sys::napi_env,
    data: *const u16,
    len: isize,
    finalize: sys::node_api_basic_finalize,
    hint: *mut c_void,
    value: *mut sys::napi_value,
    copied: *mut bool,
) -> sys::napi_status {
    // SAFETY: the caller's contract is this function's.
    unsafe {
        sys::node_api_create_external_string_utf16(env, data, len, finalize, hint, value, copied)
    }
}

const UNKNOWN: u8 = 0;
const YES: u8 = 1;
const NO: u8 = 2;
static EXTERNAL: AtomicU8 = AtomicU8::new(UNKNOWN);

/// Whether the host exports `node_api_create_external_string_latin1` and
/// `_utf16` (Node ≥ 18.18 and 20.4, Bun ≥ 1.2). The addon loads its Node-API
/// functions by name, and one the host lacks is a stub that complains on
/// stderr, so it is looked up here first.
fn external_strings() -> bool {
    match EXTERNAL.load(Ordering::Relaxed) {
        YES => true,
        NO => false,
        _ => {
            let found = host_exports(c"node_api_create_external_string_latin1")
                && host_exports(c"node_api_create_external_string_utf16");
            EXTERNAL.store(if found { YES } else { NO }, Ordering::Relaxed);
            found
        }
    }
}

#[cfg(unix)]
fn host_exports(name: &std::ffi::CStr) -> bool {
    // SAFETY: only looks the name up in the process's own symbols; the
    // result is never called through this pointer.
    unsafe {
        libloading::os::unix::Library::this()
            .get::<*const c_void>(name.to_bytes_with_nul())
            .is_ok()
    }
}

/// Elsewhere the host library is found by napi itself; the first failed
/// call turns external strings off.
#[cfg(not(unix))]
fn host_exports(_: &std::ffi::CStr) -> bool {
    true
}

/// An external string over `data`, which V8 then owns until it drops the
/// string (or at once, if it chose to copy it); the data back if the host
/// refused.
///
/// Hand-written over napi-sys rather than napi's `JsStringLatin1::from_data`
/// and `JsStringUtf16::from_data`, which drop the buffer when the call
/// fails, leaving nothing to fall back to without copying every large text
/// first.
unsafe fn external<T>(
    env: sys::napi_env,
    data: Vec<T>,
    create: Create<T>,
) -> std::result::Result<sys::napi_value, Vec<T>> {
    let mut data = ManuallyDrop::new(data);
    let (ptr, len, cap) = (data.as_mut_ptr(), data.len(), data.capacity());
    let hint = Box::into_raw(Box::new((len, cap)));
    let mut value = ptr::null_mut();
    let mut copied = false;
    // SAFETY: `ptr` holds `len` initialised units that stay valid until
    // `release::<T>` runs; on success the finalizer owns them and the hint.
    let status = unsafe {
        create(
            env,
            ptr,
            len as isize,
            Some(release::<T>),
            hint.cast(),
            &mut value,
            &mut copied,
        )
    };
    if status == sys::Status::napi_ok {
        return Ok(value);
    }
    // SAFETY: on failure the finalizer never runs: both are still ours.
    unsafe {
        drop(Box::from_raw(hint));
        Err(ManuallyDrop::into_inner(data))
    }
}

unsafe extern "C" fn release<T>(_: sys::node_api_basic_env, data: *mut c_void, hint: *mut c_void) {
    // SAFETY: `hint` and `data` are what `external` handed over, released
    // once, here.
    unsafe {
        let (len, cap) = *Box::from_raw(hint.cast::<(usize, usize)>());
        drop(Vec::from_raw_parts(data.cast::<T>(), len, cap));
    }
}
