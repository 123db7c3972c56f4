//! Engine errors as JS errors: `code` and the structured fields on a real
//! `Error`, and a panic turned into `INTERNAL` instead of a crash of the
//! host process.

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

#[napi(object, js_name = "Mismatch")]
pub struct BindingMismatch {
    pub line: f64,
    pub expected: String,
    pub actual: Option<String>,
}

/// The error of one entry of a batch (`err.errors` of a rejected batch).
#[napi(object, js_name = "EntryError")]
pub struct BindingEntryError {
    /// The entry's index in the batch.
    pub index: u32,
    pub code: String,
    pub message: String,
    pub path: Option<String>,
    pub mismatches: Vec<BindingMismatch>,
    pub suggestion: Option<String>,
}

pub(crate) fn to_js_error(env: &Env, err: hashline::Error) -> Error {
    let build = || -> Result<Error> {
        let mut object =
            env.create_error(Error::new(Status::GenericFailure, err.message.clone()))?;
        object.set("code", err.code.as_str())?;
        // Hosts tell a stopped call by its name, as for `fetch` and timers.
        if err.code == ErrorCode::Cancelled {
            object.set("name", "AbortError")?;
        }
        let mismatches: Vec<BindingMismatch> = err
            .mismatches
            .iter()
            .map(|m| BindingMismatch {
                line: m.line as f64,
                expected: m.expected.clone(),
                actual: m.actual.clone(),
            })
            .collect();
        object.set("mismatches", mismatches)?;
        if let Some(suggestion) = &err.suggestion {
            object.set("suggestion", suggestion.as_str())?;
        }
        if let Some(path) = &err.path {
            object.set("path", path.as_str())?;
        }
        if !err.problems.is_empty() {
            object.set("problems", crate::check::problems(&err.problems))?;
        }
        if !err.entries.is_empty() {
            let entries: Vec<BindingEntryError> = err
                .entries
                .iter()
                .map(|(index, e)| BindingEntryError {
                    index: *index as u32,
                    code: e.code.as_str().to_owned(),
                    message: e.message.clone(),
                    path: e.path.clone(),
                    mismatches: e
                        .mismatches
                        .iter()
                        .map(|m| BindingMismatch {
                            line: m.line as f64,
                            expected: m.expected.clone(),
                            actual: m.actual.clone(),
                        })
                        .collect(),
                    suggestion: e.suggestion.clone(),
                })
                .collect();
            object.set("errors", entries)?;
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
