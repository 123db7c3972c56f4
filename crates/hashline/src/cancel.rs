//! A request to stop a call, made by a host while the call runs on another
//! thread (its user pressed stop). The engine looks at it only where
//! stopping leaves nothing half done: before a call begins, between the
//! files of a search, and as the last step before a write, never once a
//! write has begun. A call stopped there fails with `CANCELLED` and has
//! written nothing.

use crate::error::{Error, ErrorCode, Result};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// Shared by the host that may cancel and the call that honours it;
/// clones are the same token. The default is never cancelled.
#[derive(Debug, Clone, Default)]
pub struct Cancel(Arc<AtomicBool>);

impl Cancel {
    /// A token not cancelled yet.
    pub fn new() -> Cancel {
        Cancel::default()
    }

    /// Asks every call holding this token to stop at its next safe point.
    pub fn cancel(&self) {
        self.0.store(true, Ordering::Release);
    }

    /// Whether the token was cancelled.
    pub fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::Acquire)
    }

    /// `CANCELLED` once the token was cancelled; for a safe point.
    ///
    /// ```
    /// let cancel = hashline::Cancel::new();
    /// assert!(cancel.check().is_ok());
    /// cancel.clone().cancel();
    /// assert_eq!(cancel.check().unwrap_err().code, hashline::ErrorCode::Cancelled);
    /// ```
    pub fn check(&self) -> Result<()> {
        if self.is_cancelled() {
            return Err(Error::new(
                ErrorCode::Cancelled,
                "Cancelled before anything was written: the call was stopped, and the files are as they were.",
            ));
        }
        Ok(())
    }
}
