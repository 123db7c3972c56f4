//! The binding of the store folder's upkeep.

use crate::error::guard;
use hashline::ErrorCode;
use napi::bindgen_prelude::*;
use napi_derive::napi;

#[napi(object)]
pub struct StoreCleared {
    /// Files removed.
    pub files: f64,
    /// Bytes they held.
    pub bytes: f64,
    /// Files named as the store's that hashline did not write (their
    /// content does not prove it): left as they are.
    pub skipped: f64,
}

/// Empties a store folder (a `storeDir`) of the versions kept there; nothing
/// else in it is touched, and files named as versions that hashline did not
/// write are counted as skipped. A missing folder is already empty.
#[napi]
pub fn clear_store(env: Env, dir: String) -> Result<StoreCleared> {
    guard(&env, || {
        let cleared = hashline::clear_store(std::path::Path::new(&dir)).map_err(|e| {
            hashline::Error::new(
                ErrorCode::Io,
                format!("The store folder {dir} cannot be emptied: {e}"),
            )
        })?;
        Ok(StoreCleared {
            files: cleared.files as f64,
            bytes: cleared.bytes as f64,
            skipped: cleared.skipped as f64,
        })
    })
}
