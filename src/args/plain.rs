//! A JS value read as plain data: own enumerable properties only (a
//! polluted prototype changes nothing), each property read once, strings
//! read as UTF-16 and refused when they are not valid Unicode, and anything
//! that runs code while it is read (a getter that throws, a Proxy) refused.

use hashline::{Error, Value};
use napi::bindgen_prelude::*;
use napi::sys;
use napi::JsValue;
use std::cell::RefCell;
use std::ffi::CStr;
use std::ptr;

/// Requests are a few levels deep; anything deeper is a mistake or refers
/// to itself.
const MAX_DEPTH: usize = 64;

/// Where a value sits inside an argument: a field name or an array index.
enum Step {
    Key(String),
    Index(usize),
}

/// Reads one argument, keeping the path to the value being read for
/// messages (`operations[2].content`).
pub(super) struct Reader {
    env: sys::napi_env,
    /// The argument's own name (`options`), or `None` for the request,
    /// whose fields are named on their own.
    root: Option<&'static str>,
    path: Vec<Step>,
    is_proxy: Option<sys::napi_value>,
}

/// Why a napi call failed: the JS code it ran threw, or it failed.
enum Failure {
    Threw(Option<String>),
    Failed,
}

impl Reader {
    pub(super) fn new(env: &Env, root: Option<&'static str>) -> Reader {
        let env = env.raw();
        Reader {
            env,
            root,
            path: Vec::new(),
            is_proxy: is_proxy_function(env),
        }
    }

    /// The value being read, as messages name it.
    fn here(&self) -> String {
        let mut name = String::new();
        if let Some(root) = self.root {
            name.push_str(root);
        }
        for step in &self.path {
            match step {
                Step::Key(key) if name.is_empty() => name.push_str(key),
                Step::Key(key) => {
                    name.push('.');
                    name.push_str(key);
                }
                Step::Index(i) => {
                    name.push('[');
                    name.push_str(&i.to_string());
                    name.push(']');
                }
            }
        }
        if name.is_empty() {
            "the request".into()
        } else {
            format!("`{name}`")
        }
    }

    pub(super) fn refuse(&self, why: impl std::fmt::Display) -> Error {
        refusal(&self.here(), why)
    }

    /// Checks a napi call, taking any exception it left pending so that it
    /// does not escape past the error this call answers with.
    fn check(&self, status: sys::napi_status) -> std::result::Result<(), Failure> {
        if status == sys::Status::napi_ok {
            return Ok(());
        }
        Err(take_exception(self.env).map_or(Failure::Failed, Failure::Threw))
    }

    fn failed(&self, failure: Failure) -> Error {
        match failure {
            Failure::Threw(Some(message)) => self.refuse(format_args!(
                "could not be read: reading it threw {}. Pass plain data (objects, arrays, strings, numbers, booleans, null).",
                hashline::excerpt(&message)
            )),
            Failure::Threw(None) => self.refuse(
                "could not be read: reading it threw. Pass plain data (objects, arrays, strings, numbers, booleans, null).",
            ),
            Failure::Failed => self.refuse("could not be read."),
        }
    }

    fn call(&self, status: sys::napi_status) -> hashline::Result<()> {
        self.check(status).map_err(|f| self.failed(f))
    }

    pub(super) fn type_of(&self, value: sys::napi_value) -> hashline::Result<sys::napi_valuetype> {
        let mut kind = 0;
        // SAFETY: `value` is a live handle of this call; `kind` outlives it.
        self.call(unsafe { sys::napi_typeof(self.env, value, &mut kind) })?;
        Ok(kind)
    }

    fn flag(
        &self,
        test: unsafe fn(sys::napi_env, sys::napi_value, *mut bool) -> sys::napi_status,
        value: sys::napi_value,
    ) -> hashline::Result<bool> {
        let mut answer = false;
        // SAFETY: `test` is one of napi's `napi_is_*` checks, which only
        // inspect the live handle `value`.
        self.call(unsafe { test(self.env, value, &mut answer) })?;
        Ok(answer)
    }

    /// The value, or `None` for `undefined`.
    pub(super) fn value(
        &mut self,
        value: sys::napi_value,
        depth: usize,
    ) -> hashline::Result<Option<Value>> {
        Ok(Some(match self.type_of(value)? {
            sys::ValueType::napi_undefined => return Ok(None),
            sys::ValueType::napi_null => Value::Null,
            sys::ValueType::napi_boolean => {
                let mut b = false;
                // SAFETY: `value` is a live boolean handle.
                self.call(unsafe { sys::napi_get_value_bool(self.env, value, &mut b) })?;
                Value::Bool(b)
            }
            sys::ValueType::napi_number => {
                let mut n = 0.0;
                // SAFETY: `value` is a live number handle.
                self.call(unsafe { sys::napi_get_value_double(self.env, value, &mut n) })?;
                Value::Number(n)
            }
            sys::ValueType::napi_string => Value::String(self.string(value, None)?),
            sys::ValueType::napi_object => {
                if depth >= MAX_DEPTH {
                    return Err(self.refuse(format_args!(
                        "is nested more than {MAX_DEPTH} levels deep, or contains itself."
                    )));
                }
                if self.proxy(value)? {
                    return Err(self.refuse(
                        "is a Proxy. Pass plain data (objects, arrays, strings, numbers, booleans, null), not a Proxy.",
                    ));
                }
                if self.flag(sys::napi_is_array, value)? {
                    self.array(value, depth)?
                } else if self.flag(sys::napi_is_typedarray, value)?
                    || self.flag(sys::napi_is_arraybuffer, value)?
                    || self.flag(sys::napi_is_dataview, value)?
                {
                    return Err(self.refuse(
                        "is binary data (a typed array or buffer); give text as a string.",
                    ));
                } else {
                    self.object(value, depth)?
                }
            }
            other => {
                let what = match other {
                    sys::ValueType::napi_function => "a function",
                    sys::ValueType::napi_symbol => "a symbol",
                    sys::ValueType::napi_bigint => "a bigint",
                    _ => "not plain data",
                };
                return Err(self.refuse(format_args!(
                    "is {what}. Pass plain data (objects, arrays, strings, numbers, booleans, null)."
                )));
            }
        }))
    }

    fn proxy(&self, value: sys::napi_value) -> hashline::Result<bool> {
        let Some(is_proxy) = self.is_proxy else {
            return Ok(false);
        };
        let mut undefined = ptr::null_mut();
        let mut answer = ptr::null_mut();
        // SAFETY: `is_proxy` is `util.types.isProxy`, a live function handle
        // of this environment, called with one live argument.
        unsafe {
            self.call(sys::napi_get_undefined(self.env, &mut undefined))?;
            self.call(sys::napi_call_function(
                self.env,
                undefined,
                is_proxy,
                1,
                &value,
                &mut answer,
            ))?;
        }
        let mut b = false;
        // SAFETY: `answer` is the live result of the call.
        self.call(unsafe { sys::napi_get_value_bool(self.env, answer, &mut b) })?;
        Ok(b)
    }

    /// The own enumerable string-keyed properties, in the object's order.
    fn keys(&self, object: sys::napi_value) -> hashline::Result<Vec<sys::napi_value>> {
        let mut keys = ptr::null_mut();
        // SAFETY: `object` is a live object handle.
        self.call(unsafe {
            sys::napi_get_all_property_names(
                self.env,
                object,
                sys::KeyCollectionMode::own_only,
                sys::KeyFilter::enumerable | sys::KeyFilter::skip_symbols,
                sys::KeyConversion::keep_numbers,
                &mut keys,
            )
        })?;
        let count = self.length(keys)?;
        (0..count).map(|i| self.element(keys, i)).collect()
    }

    fn length(&self, array: sys::napi_value) -> hashline::Result<u32> {
        let mut count = 0;
        // SAFETY: `array` is a live array handle.
        self.call(unsafe { sys::napi_get_array_length(self.env, array, &mut count) })?;
        Ok(count)
    }

    fn element(&self, array: sys::napi_value, index: u32) -> hashline::Result<sys::napi_value> {
        let mut item = ptr::null_mut();
        // SAFETY: `array` is a live object handle.
        self.call(unsafe { sys::napi_get_element(self.env, array, index, &mut item) })?;
        Ok(item)
    }

    fn object(&mut self, object: sys::napi_value, depth: usize) -> hashline::Result<Value> {
        let keys = self.keys(object)?;
        let mut fields = Vec::with_capacity(keys.len());
        for key in keys {
            let name = match self.type_of(key)? {
                sys::ValueType::napi_string => self.string(key, Some("a field name in"))?,
                _ => self.number_key(key)?,
            };
            let mut item = ptr::null_mut();
            let mark = self.path.len();
            self.path.push(Step::Key(name.clone()));
            // SAFETY: `object` and `key` are live handles; the key is one of
            // the object's own, so nothing is read from its prototypes.
            let read = self
                .call(unsafe { sys::napi_get_property(self.env, object, key, &mut item) })
                .and_then(|()| self.value(item, depth + 1));
            self.path.truncate(mark);
            if let Some(value) = read? {
                fields.push((name, value));
            }
        }
        Ok(Value::Object(fields))
    }

    fn number_key(&self, key: sys::napi_value) -> hashline::Result<String> {
        let mut n = 0.0;
        // SAFETY: `key` is a live number handle (an integer index).
        self.call(unsafe { sys::napi_get_value_double(self.env, key, &mut n) })?;
        Ok(format!("{n}"))
    }

    /// The elements, a hole (in a sparse array) read as `null` as JSON has
    /// it, never from the prototypes.
    fn array(&mut self, array: sys::napi_value, depth: usize) -> hashline::Result<Value> {
        let length = self.length(array)?;
        let dense = self.dense(array, length)?;
        let mut items = Vec::with_capacity(length as usize);
        for i in 0..length {
            let mark = self.path.len();
            self.path.push(Step::Index(i as usize));
            let read = match dense || self.own_element(array, i)? {
                true => self
                    .element(array, i)
                    .and_then(|item| self.value(item, depth + 1)),
                false => Ok(None),
            };
            self.path.truncate(mark);
            items.push(read?.unwrap_or(Value::Null));
        }
        Ok(Value::Array(items))
    }

    /// Whether every index below `length` is an own property. Own keys list
    /// integer indices first, in ascending order, so when the key at
    /// `length - 1` is that index, all the indices before it are there too.
    /// (Node gives index keys as numbers, Bun as strings.)
    fn dense(&self, array: sys::napi_value, length: u32) -> hashline::Result<bool> {
        if length == 0 {
            return Ok(true);
        }
        let keys = self.keys(array)?;
        let Some(&last) = keys.get(length as usize - 1) else {
            return Ok(false);
        };
        let wanted = length - 1;
        Ok(match self.type_of(last)? {
            sys::ValueType::napi_number => self.number_key(last)? == wanted.to_string(),
            sys::ValueType::napi_string => self.string(last, None)? == wanted.to_string(),
            _ => false,
        })
    }

    fn own_element(&self, array: sys::napi_value, index: u32) -> hashline::Result<bool> {
        let name = index.to_string();
        let mut key = ptr::null_mut();
        let mut own = false;
        // SAFETY: `array` is a live object handle and `key` a string made
        // here from `name`, which outlives the call.
        unsafe {
            self.call(sys::napi_create_string_utf8(
                self.env,
                name.as_ptr().cast(),
                name.len() as isize,
                &mut key,
            ))?;
            self.call(sys::napi_has_own_property(self.env, array, key, &mut own))?;
        }
        Ok(own)
    }

    /// A JS string as Rust text. A lone surrogate has no UTF-8 form: napi's
    /// own conversion would put U+FFFD in its place, so it is refused
    /// instead, naming the value read (or, after `part_of`, a part of it
    /// such as a field name).
    ///
    /// A UTF-16 unit takes at most three UTF-8 bytes (a surrogate pair,
    /// two units, takes four), so a buffer of three bytes a unit holds any
    /// string, copied as UTF-8 in one call with no pass to measure it first
    /// (V8 copies a one-byte string at memory speed). As many bytes as
    /// units means every unit was ASCII. Other text is taken as copied
    /// unless it holds U+FFFD, which may stand for a lone surrogate: such a
    /// string is read again as UTF-16, and converted once.
    pub(super) fn string(
        &self,
        value: sys::napi_value,
        part_of: Option<&str>,
    ) -> hashline::Result<String> {
        let mut length = 0;
        // SAFETY: `value` is a live string handle; with no buffer napi only
        // reports the length, in UTF-16 units.
        unsafe {
            self.call(sys::napi_get_value_string_utf16(
                self.env,
                value,
                ptr::null_mut(),
                0,
                &mut length,
            ))?;
        }
        let room = 3 * length + 1;
        let mut bytes: Vec<u8> = Vec::with_capacity(room);
        let mut copied = 0;
        // SAFETY: the buffer has room for `room` bytes, the terminating NUL
        // napi writes included; `copied` says how many it holds.
        unsafe {
            self.call(sys::napi_get_value_string_utf8(
                self.env,
                value,
                bytes.as_mut_ptr().cast(),
                room,
                &mut copied,
            ))?;
            bytes.set_len(copied.min(room - 1));
        }
        if bytes.len() == length {
            bytes.shrink_to_fit();
            // SAFETY: one byte a UTF-16 unit: every unit was ASCII.
            return Ok(unsafe { String::from_utf8_unchecked(bytes) });
        }
        if memchr::memmem::find(&bytes, "\u{FFFD}".as_bytes()).is_none() {
            if let Ok(mut text) = String::from_utf8(bytes) {
                text.shrink_to_fit();
                return Ok(text);
            }
        }
        let mut units: Vec<u16> = Vec::with_capacity(length + 1);
        let mut copied = 0;
        // SAFETY: the buffer has room for `length` units and the terminating
        // NUL napi writes; `copied` says how many units it holds after.
        unsafe {
            self.call(sys::napi_get_value_string_utf16(
                self.env,
                value,
                units.as_mut_ptr(),
                length + 1,
                &mut copied,
            ))?;
            units.set_len(copied.min(length));
        }
        utf16_to_string(&units).map_err(|index| {
            let unit = units.get(index).copied().unwrap_or_default();
            let subject = match part_of {
                Some(part) => format!("{part} {}", self.here()),
                None => self.here(),
            };
            refusal(&subject, format_args!(
                "holds a lone UTF-16 surrogate (\\u{unit:04X}) at index {index}, which is not valid Unicode: surrogates come in pairs. Remove it or complete the pair."
            ))
        })
    }
}

/// `{subject} {why}`, as a sentence.
fn refusal(subject: &str, why: impl std::fmt::Display) -> Error {
    let mut message = format!("{subject} {why}");
    if let Some(first) = message.get_mut(0..1) {
        first.make_ascii_uppercase();
    }
    Error::invalid_request(message)
}

/// UTF-16 as UTF-8, or the index of the first lone surrogate.
///
/// encoding_rs (Firefox's converter, pure Rust, SIMD over ASCII runs) at
/// about twice the speed of the standard library's conversion on large
/// texts; not the simdutf crate, which compiles C++ into the addon, which
/// would then need libstdc++ at load time (missing from minimal musl
/// images).
fn utf16_to_string(units: &[u16]) -> std::result::Result<String, usize> {
    let valid = encoding_rs::mem::utf16_valid_up_to(units);
    if valid < units.len() {
        return Err(valid);
    }
    // Each unit of valid UTF-16 takes at most three UTF-8 bytes.
    let mut text = "\0".repeat(units.len() * 3);
    let written = encoding_rs::mem::convert_utf16_to_str(units, &mut text);
    text.truncate(written);
    Ok(text)
}

/// Takes the pending exception, if any, and its message when it has one
/// that is a string.
pub(super) fn take_exception(env: sys::napi_env) -> Option<Option<String>> {
    let mut pending = false;
    let mut exception = ptr::null_mut();
    // SAFETY: plain queries of the environment's exception state.
    unsafe {
        if sys::napi_is_exception_pending(env, &mut pending) != sys::Status::napi_ok || !pending {
            return None;
        }
        if sys::napi_get_and_clear_last_exception(env, &mut exception) != sys::Status::napi_ok {
            return Some(None);
        }
    }
    let reader = Reader {
        env,
        root: Some("exception"),
        path: Vec::new(),
        is_proxy: None,
    };
    let message = match reader.type_of(exception) {
        Ok(sys::ValueType::napi_string) => reader.string(exception, None).ok(),
        Ok(sys::ValueType::napi_object) => {
            let mut message = ptr::null_mut();
            // SAFETY: `exception` is a live object handle; a getter that
            // throws here leaves an exception that is taken and dropped.
            let status = unsafe {
                sys::napi_get_named_property(env, exception, c"message".as_ptr(), &mut message)
            };
            if status == sys::Status::napi_ok
                && matches!(reader.type_of(message), Ok(sys::ValueType::napi_string))
            {
                reader.string(message, None).ok()
            } else {
                take_exception(env);
                None
            }
        }
        _ => None,
    };
    Some(message)
}

thread_local! {
    /// `util.types.isProxy` of the environment on this thread, looked up
    /// once; each environment (the main one, each worker) has its own thread.
    static IS_PROXY: RefCell<Option<(usize, sys::napi_ref)>> = const { RefCell::new(None) };
}

/// `util.types.isProxy`, through `process.getBuiltinModule` (Node 20.16,
/// Bun). Node-API itself cannot tell a Proxy from its target; where the
/// lookup fails a Proxy is read like any object, through its traps, each
/// property once, and a trap that throws is still refused.
fn is_proxy_function(env: sys::napi_env) -> Option<sys::napi_value> {
    let cached = IS_PROXY.with(|cell| {
        cell.borrow()
            .filter(|(owner, _)| *owner == env as usize)
            .map(|(_, reference)| reference)
    });
    let reference = match cached {
        Some(reference) => reference,
        None => {
            let reference = look_up_is_proxy(env);
            if reference.is_none() {
                take_exception(env);
            }
            let reference = reference?;
            IS_PROXY.with(|cell| *cell.borrow_mut() = Some((env as usize, reference)));
            reference
        }
    };
    let mut function = ptr::null_mut();
    // SAFETY: `reference` was made in this environment and is never deleted.
    let status = unsafe { sys::napi_get_reference_value(env, reference, &mut function) };
    (status == sys::Status::napi_ok && !function.is_null()).then_some(function)
}

fn look_up_is_proxy(env: sys::napi_env) -> Option<sys::napi_ref> {
    let named = |object: sys::napi_value, name: &CStr| {
        let mut value = ptr::null_mut();
        // SAFETY: `object` is a live handle; `name` a NUL-terminated name.
        let status =
            unsafe { sys::napi_get_named_property(env, object, name.as_ptr(), &mut value) };
        let mut kind = 0;
        // SAFETY: `value` is the live result of the lookup above.
        let typed = status == sys::Status::napi_ok
            && unsafe { sys::napi_typeof(env, value, &mut kind) } == sys::Status::napi_ok;
        typed.then_some((value, kind))
    };
    let mut global = ptr::null_mut();
    // SAFETY: a plain query of the environment.
    if unsafe { sys::napi_get_global(env, &mut global) } != sys::Status::napi_ok {
        return None;
    }
    let (process, _) =
        named(global, c"process").filter(|(_, k)| *k == sys::ValueType::napi_object)?;
    let (get_builtin, _) =
        named(process, c"getBuiltinModule").filter(|(_, k)| *k == sys::ValueType::napi_function)?;
    let mut specifier = ptr::null_mut();
    let mut util = ptr::null_mut();
    // SAFETY: `get_builtin` is a live function handle, called with one
    // string made here.
    unsafe {
        let name = c"node:util";
        if sys::napi_create_string_utf8(env, name.as_ptr(), 9, &mut specifier)
            != sys::Status::napi_ok
            || sys::napi_call_function(env, process, get_builtin, 1, &specifier, &mut util)
                != sys::Status::napi_ok
        {
            return None;
        }
    }
    let (types, _) = named(util, c"types").filter(|(_, k)| *k == sys::ValueType::napi_object)?;
    let (is_proxy, _) =
        named(types, c"isProxy").filter(|(_, k)| *k == sys::ValueType::napi_function)?;
    let mut reference = ptr::null_mut();
    // SAFETY: `is_proxy` is a live function handle.
    let status = unsafe { sys::napi_create_reference(env, is_proxy, 1, &mut reference) };
    (status == sys::Status::napi_ok).then_some(reference)
}

pub(super) fn is_absent(value: &Option<Unknown>) -> bool {
    value
        .as_ref()
        .is_none_or(|v| matches!(v.get_type(), Ok(ValueType::Undefined | ValueType::Null)))
}

/// An argument read whole as plain data, or `None` when it is missing,
/// `undefined` or `null`.
pub(super) fn data(
    env: &Env,
    value: Option<Unknown>,
    root: Option<&'static str>,
) -> hashline::Result<Option<Value>> {
    if is_absent(&value) {
        return Ok(None);
    }
    let Some(value) = value else { return Ok(None) };
    Reader::new(env, root).value(value.raw(), 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The first unit that is a surrogate without its pair, counted in
    /// UTF-16 units from what `char::decode_utf16` decodes before it.
    fn first_lone(units: &[u16]) -> Option<usize> {
        let mut at = 0;
        for decoded in char::decode_utf16(units.iter().copied()) {
            match decoded {
                Ok(c) => at += c.len_utf16(),
                Err(_) => return Some(at),
            }
        }
        None
    }

    #[test]
    fn converts_every_kind_of_character_and_finds_lone_surrogates() {
        let text = "a é € 🚀 \u{10FFFF} \0 end";
        let units: Vec<u16> = text.encode_utf16().collect();
        assert_eq!(utf16_to_string(&units).as_deref(), Ok(text));
        assert_eq!(utf16_to_string(&[0x61, 0xD800]), Err(1));
        assert_eq!(utf16_to_string(&[0xDC00, 0xD800]), Err(0));
        assert_eq!(utf16_to_string(&[0xD83D, 0xDE80, 0xDE80]), Err(2));
        assert_eq!(utf16_to_string(&[]).as_deref(), Ok(""));
    }

    proptest::proptest! {
        #[test]
        fn converts_like_the_standard_library(
            units in proptest::collection::vec(
                proptest::prop_oneof![0u16..0x80, 0x80u16..0x800, 0xD7F0u16..0xE010, 0xE010u16..=0xFFFF],
                0..64,
            )
        ) {
            match String::from_utf16(&units) {
                Ok(text) => proptest::prop_assert_eq!(utf16_to_string(&units), Ok(text)),
                Err(_) => proptest::prop_assert_eq!(utf16_to_string(&units).err(), first_lone(&units)),
            }
        }
    }
}
