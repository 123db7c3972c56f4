//! Text handed back to JS. A large text (a view, an edited file) is given
//! to the engine as an external string: V8 reads the Rust buffer in place
//! instead of decoding a UTF-8 copy of it, which is most of the cost of
//! returning a multi-megabyte view. ASCII goes as Latin-1, as it is, and a
//! document's text is lent in place, the document kept alive until V8
//! drops the string; other text whose characters all fit Latin-1 (most
//! European text) is converted to Latin-1, and the rest to UTF-16 (V8
//! would hold either so anyway). Small texts, and any host without
//! external strings, get a copy: as Latin-1 where the text fits it, since
//! the host decodes UTF-8 holding other than ASCII a character at a time,
//! and as UTF-8 otherwise.

use hashline::Document;
use napi::bindgen_prelude::*;
use napi::sys;
use std::ffi::c_void;
use std::ptr;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::Arc;

/// Below this a copy costs less than the external string's bookkeeping
/// (a finalizer, and a GC object holding the buffer alive).
const EXTERNAL_MIN_BYTES: usize = 64 << 10;

/// A string result: `string` in JS.
pub struct Text(Owner);

/// What holds a string's bytes while V8 reads them.
enum Owner {
    Utf8(String),
    /// A document whose canonical text is its file's text.
    Document(Arc<Document>),
    Latin1(Vec<u8>),
    Utf16(Vec<u16>),
}

impl Owner {
    fn text(&self) -> &str {
        match self {
            Owner::Utf8(text) => text,
            Owner::Document(doc) => doc.text(),
            Owner::Latin1(_) | Owner::Utf16(_) => unreachable!("converted text is never read back"),
        }
    }

    /// The string's units as handed over: Latin-1 made so, text left in
    /// UTF-8 (ASCII by then, so Latin-1 as it is), or UTF-16.
    fn units(&self) -> Units<'_> {
        match self {
            Owner::Latin1(bytes) => Units::One(bytes),
            Owner::Utf16(units) => Units::Two(units),
            Owner::Utf8(_) | Owner::Document(_) => Units::One(self.text().as_bytes()),
        }
    }
}

/// A string's units: one byte (Latin-1) or two (UTF-16) a unit.
enum Units<'a> {
    One(&'a [u8]),
    Two(&'a [u16]),
}

impl From<String> for Text {
    fn from(text: String) -> Text {
        Text(Owner::Utf8(text))
    }
}

impl Text {
    /// The text of `doc`, a document whose bytes are its canonical text
    /// (`Document::bytes_are_canonical`), lent without a copy.
    pub fn of_document(doc: Arc<Document>) -> Text {
        debug_assert!(doc.bytes_are_canonical());
        Text(Owner::Document(doc))
    }

    /// The text's length in UTF-8 bytes, before it is handed over.
    pub fn utf8_len(&self) -> usize {
        self.0.text().len()
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
        let owner = val.0;
        let text = owner.text();
        let lent = text.len() >= EXTERNAL_MIN_BYTES && external_strings();
        let owner = if text.is_ascii() {
            // ASCII bytes are Latin-1.
            owner
        } else if is_latin1(text) {
            Owner::Latin1(to_latin1(text))
        } else if !lent {
            // SAFETY: the caller's `env` is live for this call.
            return unsafe { <&str>::to_napi_value(env, text) };
        } else {
            // A UTF-16 text has at most as many units as its UTF-8 has bytes.
            let mut units = vec![0u16; text.len()];
            let written = encoding_rs::mem::convert_str_to_utf16(text, &mut units);
            units.truncate(written);
            Owner::Utf16(units)
        };
        // A text copied is handed over as Latin-1 too: the host copies
        // the bytes as they are, where from UTF-8 it decodes them one
        // character at a time once one is not ASCII.
        if !lent {
            // SAFETY: the caller's `env` is live for this call.
            return unsafe { copied(env, &owner) };
        }
        // SAFETY: as above.
        match unsafe { external(env, owner) } {
            Ok(value) => Ok(value),
            Err(owner) => {
                refused();
                // SAFETY: as above.
                unsafe { copied(env, &owner) }
            }
        }
    }
}

// The checks and the Latin-1 conversion are written here rather than
// taken from `encoding_rs::mem`, whose loops go a word at a time on stable
// Rust (its SIMD needs a nightly feature): std's `is_ascii` and a maximum
// over the bytes are vectorised, and for 225 KB of source with a few
// accented lines the three passes took 21 µs here against 56 µs.

/// Whether every character of `text` is at most U+00FF: in UTF-8, no byte
/// is a lead byte above 0xC3 (0xC4 and up lead U+0100 and beyond).
fn is_latin1(text: &str) -> bool {
    text.bytes().fold(0, u8::max) < 0xC4
}

/// `text`, whose characters are all Latin-1 (`is_latin1`), as Latin-1.
fn to_latin1(text: &str) -> Vec<u8> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut at = 0;
    while at < bytes.len() {
        let end = (at + 32).min(bytes.len());
        if bytes[at..end].is_ascii() {
            out.extend_from_slice(&bytes[at..end]);
            at = end;
            continue;
        }
        while at < end {
            let lead = bytes[at];
            if lead < 0x80 {
                out.push(lead);
                at += 1;
            } else {
                // A two-byte sequence, 0xC2 or 0xC3 and a continuation.
                out.push((lead & 0x1F) << 6 | (bytes[at + 1] & 0x3F));
                at += 2;
            }
        }
    }
    out
}

/// A copy of the string `owner` holds, made by the host; text left in
/// UTF-8 is ASCII.
unsafe fn copied(env: sys::napi_env, owner: &Owner) -> Result<sys::napi_value> {
    let mut value = ptr::null_mut();
    // SAFETY: each buffer holds its `len()` units, and `env` is live.
    check_status!(unsafe {
        match owner.units() {
            Units::One(bytes) => sys::napi_create_string_latin1(
                env,
                bytes.as_ptr().cast(),
                bytes.len() as isize,
                &mut value,
            ),
            Units::Two(units) => {
                sys::napi_create_string_utf16(env, units.as_ptr(), units.len() as isize, &mut value)
            }
        }
    })?;
    Ok(value)
}

/// A host that has the functions but refuses them once will refuse them
/// again: stop trying.
fn refused() {
    EXTERNAL.store(NO, Ordering::Relaxed);
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

/// An external string over the text `owner` holds, which V8 then owns
/// until it drops the string (or at once, if it chose to copy it); the
/// owner back if the host refused.
///
/// Hand-written over napi-sys rather than napi's `JsStringLatin1::from_data`
/// and `JsStringUtf16::from_data`, which drop the buffer when the call
/// fails, leaving nothing to fall back to without copying every large text
/// first, and which cannot lend a buffer something else owns.
unsafe fn external(
    env: sys::napi_env,
    owner: Owner,
) -> std::result::Result<sys::napi_value, Owner> {
    let owner = Box::new(owner);
    let hint: *mut Owner = Box::into_raw(owner);
    let mut value = ptr::null_mut();
    let mut copied = false;
    // SAFETY: the owner's buffer holds its initialised units and stays
    // valid, unmoved, until `release` drops the owner; on success the
    // finalizer owns it.
    let status = unsafe {
        match (*hint).units() {
            Units::One(bytes) => sys::node_api_create_external_string_latin1(
                env,
                bytes.as_ptr().cast_mut().cast(),
                bytes.len() as isize,
                Some(release),
                hint.cast(),
                &mut value,
                &mut copied,
            ),
            Units::Two(units) => sys::node_api_create_external_string_utf16(
                env,
                units.as_ptr(),
                units.len() as isize,
                Some(release),
                hint.cast(),
                &mut value,
                &mut copied,
            ),
        }
    };
    if status == sys::Status::napi_ok {
        return Ok(value);
    }
    // SAFETY: on failure the finalizer never runs: the owner is still ours.
    Err(*unsafe { Box::from_raw(hint) })
}

unsafe extern "C" fn release(_: sys::node_api_basic_env, _: *mut c_void, hint: *mut c_void) {
    // SAFETY: `hint` is the owner `external` handed over, released once,
    // here.
    drop(unsafe { Box::from_raw(hint.cast::<Owner>()) });
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        #[test]
        fn latin1_is_told_and_converted_as_encoding_rs_does(
            chars in proptest::collection::vec(
                proptest::prop_oneof![
                    proptest::char::range('\0', '\u{7F}'),
                    proptest::char::range('\u{80}', '\u{FF}'),
                    proptest::char::range('\u{100}', '\u{10FFFF}'),
                ],
                0..200,
            )
        ) {
            let text: String = chars.iter().collect();
            // The same characters less those past U+00FF: Latin-1 text of
            // every length.
            let latin1: String = chars.iter().filter(|&&c| c <= '\u{FF}').collect();
            for text in [text, latin1] {
                proptest::prop_assert_eq!(is_latin1(&text), encoding_rs::mem::is_str_latin1(&text));
                if is_latin1(&text) {
                    proptest::prop_assert_eq!(
                        to_latin1(&text),
                        encoding_rs::mem::encode_latin1_lossy(&text).into_owned()
                    );
                }
            }
        }
    }
}
