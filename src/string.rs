//! Text handed back to JS. A large ASCII text (a view, an edited file) is
//! given to the engine as an external Latin-1 string: V8 reads the Rust
//! buffer in place instead of decoding a copy of it, which is most of the
//! cost of returning a multi-megabyte view. Anything else, and any host
//! without external strings, gets the ordinary UTF-8 copy.

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
        if text.len() < EXTERNAL_MIN_BYTES || !text.is_ascii() || !external_strings() {
            // SAFETY: the caller's `env` is live for this call.
            return unsafe { String::to_napi_value(env, text) };
        }
        // SAFETY: as above; the bytes are ASCII, hence Latin-1.
        match unsafe { external_latin1(env, text.into_bytes()) } {
            Ok(value) => Ok(value),
            Err(bytes) => {
                // A host that has the function but refuses it once will
                // refuse it again: stop trying.
                EXTERNAL.store(NO, Ordering::Relaxed);
                // SAFETY: the bytes came from a `String`, unchanged.
                let text = unsafe { String::from_utf8_unchecked(bytes) };
                // SAFETY: the caller's `env` is live for this call.
                unsafe { String::to_napi_value(env, text) }
            }
        }
    }
}

const UNKNOWN: u8 = 0;
const YES: u8 = 1;
const NO: u8 = 2;
static EXTERNAL: AtomicU8 = AtomicU8::new(UNKNOWN);

/// Whether the host exports `node_api_create_external_string_latin1`
/// (Node ≥ 18.18 and 20.4, Bun ≥ 1.2). The addon loads its Node-API
/// functions by name, and one the host lacks is a stub that complains on
/// stderr, so it is looked up here first.
fn external_strings() -> bool {
    match EXTERNAL.load(Ordering::Relaxed) {
        YES => true,
        NO => false,
        _ => {
            let found = host_exports(c"node_api_create_external_string_latin1");
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

/// An external Latin-1 string over `bytes`, which V8 then owns until it
/// drops the string (or at once, if it chose to copy them); the bytes back
/// if the host refused.
///
/// Hand-written over napi-sys rather than napi's `JsStringLatin1::from_data`,
/// which drops the buffer when the call fails, leaving nothing to fall back
/// to without copying every large text first.
unsafe fn external_latin1(
    env: sys::napi_env,
    bytes: Vec<u8>,
) -> std::result::Result<sys::napi_value, Vec<u8>> {
    let mut bytes = ManuallyDrop::new(bytes);
    let (data, len, cap) = (bytes.as_mut_ptr(), bytes.len(), bytes.capacity());
    let hint = Box::into_raw(Box::new((len, cap)));
    let mut value = ptr::null_mut();
    let mut copied = false;
    // SAFETY: `data` holds `len` initialised bytes that stay valid until
    // `release` runs; on success the finalizer owns them and the hint.
    let status = unsafe {
        sys::node_api_create_external_string_latin1(
            env,
            data.cast(),
            len as isize,
            Some(release),
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
        Err(ManuallyDrop::into_inner(bytes))
    }
}

unsafe extern "C" fn release(_: sys::node_api_basic_env, data: *mut c_void, hint: *mut c_void) {
    // SAFETY: `hint` and `data` are what `external_latin1` handed over,
    // released once, here.
    unsafe {
        let (len, cap) = *Box::from_raw(hint.cast::<(usize, usize)>());
        drop(Vec::from_raw_parts(data.cast::<u8>(), len, cap));
    }
}
