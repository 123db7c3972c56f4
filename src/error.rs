//! Engine errors as JS errors: `code` and the structured fields on a real
//! `Error`, and a panic turned into `INTERNAL` instead of a crash of the
//! host process.

use crate::check;
use hashline::ErrorCode;
use napi::bindgen_prelude::*;
use napi_derive::napi;
use std::panic::{catch_unwind, AssertUnwindSafe};

/// Runs `f`, turning an engine error into a JS `Error` with `code` and
/// structured fields, and a panic into an `INTERNAL` error rather than a
/// crash of the host process.
pub(crate) fn guard<T>(env: &Env, f: impl FnOnce() -> hashline::Result<T>) -> Result<T> {
    caught(f).map_err(|err| to_js_error(env, err))
}

/// Runs `f`, a panic turned into an `INTERNAL` engine error: on any thread,
/// the JS error made later on the JS thread.
pub(crate) fn caught<T>(f: impl FnOnce() -> hashline::Result<T>) -> hashline::Result<T> {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|panic| {
        let what = panic
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".into());
        Err(hashline::Error::new(
            ErrorCode::Internal,
            format!("Internal error in hashline ({what}). Please report it."),
        ))
    })
}

/// A cited ref whose line is no longer what it was.
#[napi(object, js_name = "Mismatch", object_from_js = false)]
pub struct BindingMismatch {
    /// The line the ref names, 1-based.
    pub line: f64,
    /// The ref as it was sent.
    pub expected: String,
    /// The line's ref now; none past the end of the file.
    pub actual: Option<String>,
}

/// The error of one entry of a batch (`err.errors` of a rejected batch):
/// the fields of a thrown error, for that entry.
#[napi(object, js_name = "EntryError", object_from_js = false)]
pub struct BindingEntryError {
    /// The entry's index in the batch.
    pub index: u32,
    pub code: String,
    pub message: String,
    pub path: Option<String>,
    pub mismatches: Vec<BindingMismatch>,
    pub suggestion: Option<String>,
    pub problems: Option<Vec<check::BindingProblem>>,
}

/// What every error the binding throws carries beside its `message` (and,
/// for a cancelled call, the `name` `AbortError`), declared once: the
/// binding sets these on the `Error`, and hosts read them by this type.
#[napi(object, js_name = "ErrorFields", object_from_js = false)]
pub struct BindingErrorFields {
    /// The stable code, `HASH_MISMATCH` style; `errorCodes()` lists them.
    pub code: String,
    /// The file the error is about, as the request named it.
    pub path: Option<String>,
    /// The cited refs whose lines changed.
    pub mismatches: Vec<BindingMismatch>,
    /// The ref or request the model most likely meant.
    pub suggestion: Option<String>,
    /// What the refused version would have broken (`SYNTAX_ERROR`).
    pub problems: Option<Vec<check::BindingProblem>>,
    /// The error of each refused entry of a batch.
    pub errors: Option<Vec<BindingEntryError>>,
}

fn mismatches(err: &hashline::Error) -> Vec<BindingMismatch> {
    err.mismatches
        .iter()
        .map(|m| BindingMismatch {
            line: m.line as f64,
            expected: m.expected.clone(),
            actual: m.actual.clone(),
        })
        .collect()
}

/// Problems, or none where there are none: the field is then left out.
fn problems(err: &hashline::Error) -> Option<Vec<check::BindingProblem>> {
    (!err.problems.is_empty()).then(|| check::problems(&err.problems))
}

impl From<&hashline::Error> for BindingErrorFields {
    fn from(err: &hashline::Error) -> Self {
        BindingErrorFields {
            code: err.code.as_str().to_owned(),
            path: err.path.clone(),
            mismatches: mismatches(err),
            suggestion: err.suggestion.clone(),
            problems: problems(err),
            errors: (!err.entries.is_empty()).then(|| {
                err.entries
                    .iter()
                    .map(|(index, e)| BindingEntryError {
                        index: u32::try_from(*index).unwrap_or(u32::MAX),
                        code: e.code.as_str().to_owned(),
                        message: e.message.clone(),
                        path: e.path.clone(),
                        mismatches: mismatches(e),
                        suggestion: e.suggestion.clone(),
                        problems: problems(e),
                    })
                    .collect()
            }),
        }
    }
}

pub(crate) fn to_js_error(env: &Env, err: hashline::Error) -> Error {
    let build = || -> Result<Error> {
        let mut object =
            env.create_error(Error::new(Status::GenericFailure, err.message.clone()))?;
        // The fields as napi converts the declared struct, copied onto the
        // error: a field added to `BindingErrorFields` reaches every host.
        // SAFETY: `env` is the live environment of this call, and the value
        // is read as an object only, which a converted struct is.
        let fields = Object::from_raw(env.raw(), unsafe {
            BindingErrorFields::to_napi_value(env.raw(), BindingErrorFields::from(&err))?
        });
        for key in Object::keys(&fields)? {
            if let Some(value) = fields.get::<Unknown>(&key)? {
                object.set(&key, value)?;
            }
        }
        // Hosts tell a stopped call by its name, as for `fetch` and timers.
        if err.code == ErrorCode::Cancelled {
            object.set("name", "AbortError")?;
        }
        Ok(Error::from(object.to_unknown()))
    };
    build().unwrap_or_else(|_| {
        Error::new(
            Status::GenericFailure,
            format!("{}: {}", err.code, err.message),
        )
    })
}

/// One error code as the engine declares it.
#[napi(object, js_name = "ErrorCodeInfo")]
pub struct BindingErrorCode {
    /// The code, `HASH_MISMATCH` style (`err.code`).
    pub code: String,
    /// Its class: `stale`, `request`, `file`, `refused` or `other`.
    pub class: String,
    /// The exit status of a command that fails with it.
    pub exit_status: u32,
    /// What it means, one sentence.
    pub description: String,
}

/// Every error code the engine raises, with its class and exit status:
/// the one table hosts derive theirs from.
#[napi]
pub fn error_codes() -> Vec<BindingErrorCode> {
    ErrorCode::ALL
        .iter()
        .map(|&code| BindingErrorCode {
            code: code.as_str().to_owned(),
            class: code.class().as_str().to_owned(),
            exit_status: u32::from(code.class().exit_status()),
            description: code.description().to_owned(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_of_codes_lists_every_engine_code_once_with_its_class_and_exit_status() {
        let table = error_codes();
        assert_eq!(table.len(), ErrorCode::ALL.len());
        for (row, code) in table.iter().zip(ErrorCode::ALL) {
            assert_eq!(row.code, code.as_str());
            assert_eq!(row.class, code.class().as_str());
            assert_eq!(row.exit_status, u32::from(code.class().exit_status()));
            assert!(!row.description.is_empty(), "{}", row.code);
        }
        let status = |name: &str| table.iter().find(|r| r.code == name).unwrap().exit_status;
        assert_eq!(status("HASH_MISMATCH"), 1);
        assert_eq!(status("AMBIGUOUS_ECHO"), 2);
        assert_eq!(status("NOT_UTF8"), 3);
        assert_eq!(status("OUTSIDE_ROOT"), 4);
        assert_eq!(status("LOCKED"), 5);
    }
}
