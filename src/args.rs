//! Arguments as the caller passed them, read as plain data (`plain`). Every
//! refusal is `INVALID_REQUEST` naming the field, never a JS exception
//! passed through or a value quietly changed.

mod plain;

use hashline::{Error, Request, Value};
use napi::bindgen_prelude::*;
use napi::sys;
use plain::{data, is_absent, take_exception, Reader};

/// The edit request.
pub fn request(env: &Env, value: Option<Unknown>) -> hashline::Result<Request> {
    Request::from_value(&request_value(env, value)?)
}

/// The request as plain data, as the model sent it.
pub fn request_value(env: &Env, value: Option<Unknown>) -> hashline::Result<Value> {
    let missing = || {
        Error::invalid_request(
            "The request must be an object with `operations` (or `oldString` and `newString`); none was given.",
        )
    };
    if value
        .as_ref()
        .is_none_or(|v| matches!(v.get_type(), Ok(ValueType::Undefined)))
    {
        return Err(missing());
    }
    let value = value.ok_or_else(missing)?;
    let read = Reader::new(env, None).value(value.raw(), 0)?;
    Ok(read.unwrap_or(Value::Null))
}

/// A batch of edits, read whole as plain data for the engine to check.
pub fn batch(env: &Env, value: Option<Unknown>) -> hashline::Result<Value> {
    Ok(data(env, value, Some("batch"))?.unwrap_or(Value::Null))
}

/// A string argument, or `None` when it is missing, `undefined` or `null`.
pub fn string(
    env: &Env,
    value: Option<Unknown>,
    name: &'static str,
) -> hashline::Result<Option<String>> {
    if is_absent(&value) {
        return Ok(None);
    }
    let Some(value) = value else { return Ok(None) };
    let reader = Reader::new(env, Some(name));
    match reader.type_of(value.raw())? {
        sys::ValueType::napi_string => reader.string(value.raw(), None).map(Some),
        _ => Err(reader.refuse(format_args!(
            "must be a string, not {}.",
            type_name(value.get_type().ok())
        ))),
    }
}

/// A string argument that must be given.
pub fn required_string(
    env: &Env,
    value: Option<Unknown>,
    name: &'static str,
    what: &str,
) -> hashline::Result<String> {
    string(env, value, name)?
        .ok_or_else(|| Error::invalid_request(format!("`{name}` is missing: give {what}.")))
}

pub fn path(env: &Env, value: Option<Unknown>) -> hashline::Result<String> {
    required_string(env, value, "path", "the path of a file, as a string")
}

fn type_name(kind: Option<ValueType>) -> &'static str {
    match kind {
        Some(ValueType::Undefined) => "undefined",
        Some(ValueType::Null) => "null",
        Some(ValueType::Boolean) => "a boolean",
        Some(ValueType::Number) => "a number",
        Some(ValueType::String) => "a string",
        Some(ValueType::Object) => "an object",
        Some(ValueType::Function) => "a function",
        Some(ValueType::Symbol) => "a symbol",
        Some(ValueType::BigInt) => "a bigint",
        _ => "not plain data",
    }
}

/// The fields of an options object, read as plain data; a field left out,
/// `undefined` or `null` is absent, and unknown fields are ignored.
pub struct Fields {
    name: String,
    fields: Vec<(String, Value)>,
}

impl Fields {
    pub fn read(env: &Env, value: Option<Unknown>, name: &'static str) -> hashline::Result<Fields> {
        let fields = match data(env, value, Some(name))? {
            None => Vec::new(),
            Some(Value::Object(fields)) => fields,
            Some(other) => {
                return Err(Error::invalid_request(format!(
                    "`{name}` must be an object, not {}.",
                    other.type_name()
                )))
            }
        };
        Ok(Fields {
            name: name.into(),
            fields,
        })
    }

    fn from_value(value: Value, name: String) -> hashline::Result<Fields> {
        match value {
            Value::Object(fields) => Ok(Fields { name, fields }),
            other => Err(Error::invalid_request(format!(
                "`{name}` must be an object, not {}.",
                other.type_name()
            ))),
        }
    }

    fn get(&self, key: &str) -> Option<&Value> {
        self.fields
            .iter()
            .rev()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v)
            .filter(|v| **v != Value::Null)
    }

    fn wrong(&self, key: &str, want: &str, got: &Value) -> Error {
        Error::invalid_request(format!(
            "`{}.{key}` must be {want}, not {}.",
            self.name,
            got.type_name()
        ))
    }

    pub fn string(&self, key: &str) -> hashline::Result<Option<String>> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(other) => Err(self.wrong(key, "a string", other)),
        }
    }

    pub fn bool(&self, key: &str) -> hashline::Result<Option<bool>> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(*b)),
            Some(other) => Err(self.wrong(key, "true or false", other)),
        }
    }

    pub fn number(&self, key: &str) -> hashline::Result<Option<f64>> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::Number(n)) => Ok(Some(*n)),
            Some(other) => Err(self.wrong(key, "a number", other)),
        }
    }

    /// A string or an array of strings; blank ones are dropped.
    pub fn strings(&self, key: &str) -> hashline::Result<Vec<String>> {
        let items = match self.get(key) {
            None => return Ok(Vec::new()),
            Some(Value::String(s)) => vec![s.clone()],
            Some(Value::Array(items)) => items
                .iter()
                .map(|item| match item {
                    Value::String(s) => Ok(s.clone()),
                    other => Err(self.wrong(key, "a string or an array of strings", other)),
                })
                .collect::<hashline::Result<Vec<_>>>()?,
            Some(other) => return Err(self.wrong(key, "a string or an array of strings", other)),
        };
        Ok(items.into_iter().filter(|s| !s.trim().is_empty()).collect())
    }

    /// A whole number of at least `min`.
    pub fn count(&self, key: &str, min: f64) -> hashline::Result<Option<usize>> {
        count(self.number(key)?, &format!("{}.{key}", self.name), min)
    }
}

/// A JS number that must be a whole count of at least `min`.
pub fn count(value: Option<f64>, name: &str, min: f64) -> hashline::Result<Option<usize>> {
    match value {
        None => Ok(None),
        Some(v) if v.is_finite() && v.fract() == 0.0 && v >= min && v <= 9.0e15 => {
            Ok(Some(v as usize))
        }
        Some(v) => Err(Error::invalid_request(format!(
            "`{name}` must be a whole number of at least {min}, not {v}."
        ))),
    }
}

/// The lines another viewer displayed, for `tag`.
pub fn shown_lines(
    env: &Env,
    value: Option<Unknown>,
) -> hashline::Result<Vec<hashline::ShownLine>> {
    let items = match data(env, value, Some("lines"))? {
        Some(Value::Array(items)) => items,
        other => {
            return Err(Error::invalid_request(format!(
                "`lines` must be an array of {{ line, text, truncated? }}, not {}.",
                other.as_ref().map_or("undefined", Value::type_name)
            )))
        }
    };
    items
        .into_iter()
        .enumerate()
        .map(|(i, item)| {
            let fields = Fields::from_value(item, format!("lines[{i}]"))?;
            let missing =
                |what: &str| Error::invalid_request(format!("`lines[{i}]` has no {what}."));
            Ok(hashline::ShownLine {
                line: fields
                    .count("line", 1.0)?
                    .ok_or_else(|| missing("`line` (the 1-based line number)"))?,
                text: fields
                    .string("text")?
                    .ok_or_else(|| missing("`text` (the text shown)"))?,
                truncated: fields.bool("truncated")?.unwrap_or(false),
            })
        })
        .collect()
}

/// An instance of a class of this binding, such as the plan a commit
/// takes; anything else, a look-alike included, is `INVALID_REQUEST`
/// saying `expected`.
pub fn instance<'env, T: 'static>(
    env: &Env,
    value: Option<Unknown<'env>>,
    expected: &str,
) -> hashline::Result<ClassInstance<'env, T>>
where
    ClassInstance<'env, T>: FromNapiValue,
{
    let what = type_name(value.as_ref().and_then(|v| v.get_type().ok()));
    let wrong = || {
        Error::invalid_request(format!(
            "{expected}; it was given {what}, which is not one."
        ))
    };
    let value = value.ok_or_else(wrong)?;
    // SAFETY: `value` is a live handle of this call; the conversion checks
    // that it wraps a `T` (by its type tag) before handing it out.
    let found = unsafe { ClassInstance::<T>::from_napi_value(env.raw(), value.raw()) };
    found.map_err(|_| {
        take_exception(env.raw());
        wrong()
    })
}
