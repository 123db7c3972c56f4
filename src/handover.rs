//! A write's result made into its JS value while nothing is written yet:
//! if the conversion fails, the call fails with every file as it was.

use crate::recorder::Recorded;
use hashline::telemetry::Record;
use napi::bindgen_prelude::*;

/// `result` as a JS value; what it hands over fills `record`, if the call
/// is recorded. `what` names the result in the error (`the edit`), and
/// `path` is the error's, where the result is of one file.
pub(crate) fn hand_over<'env, R: Recorded + ToNapiValue>(
    env: &'env Env,
    result: R,
    record: Option<&mut Record>,
    what: &str,
    path: Option<String>,
) -> hashline::Result<Unknown<'env>> {
    if let Some(record) = record {
        result.observe(record);
    }
    result.into_unknown(env).map_err(|e| {
        let err = hashline::Error::new(
            hashline::ErrorCode::Internal,
            format!(
                "The result of {what} could not be handed over ({}); nothing was written.",
                e.reason
            ),
        );
        match &path {
            Some(path) => err.with_path(path),
            None => err,
        }
    })
}
