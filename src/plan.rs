//! What a JS plan object holds. A plan keeps the folder handle it was made
//! from and both versions of the file until it is written; a JS object is
//! freed only when the garbage collector gets to it, which a process making
//! little garbage may put off indefinitely. So once written, a plan keeps
//! only its result, and the handle and the texts go at once. The plan is
//! shared with an asynchronous commit running on another thread; its result
//! is kept apart, so that reading it never waits for that commit.

use std::sync::{Arc, Mutex};

/// An engine plan that can show the result it will have.
pub(crate) trait Plan {
    type Result: Clone;
    fn result(&self) -> &Self::Result;
}

impl Plan for hashline::EditPlan {
    type Result = hashline::EditResult;
    fn result(&self) -> &hashline::EditResult {
        hashline::EditPlan::result(self)
    }
}

impl Plan for hashline::BatchPlan {
    type Result = hashline::BatchResult;
    fn result(&self) -> &hashline::BatchResult {
        hashline::BatchPlan::result(self)
    }
}

impl Plan for hashline::PatchPlan {
    type Result = hashline::PatchResult;
    fn result(&self) -> &hashline::PatchResult {
        hashline::PatchPlan::result(self)
    }
}

pub(crate) struct Held<P: Plan> {
    result: P::Result,
    /// The plan until it is written.
    plan: Arc<Mutex<Option<P>>>,
}

/// The plan of a `Held`, for a write on any thread.
pub(crate) struct Shared<P>(Arc<Mutex<Option<P>>>);

impl<P: Plan> Held<P> {
    pub fn new(plan: P) -> Held<P> {
        Held {
            result: plan.result().clone(),
            plan: Arc::new(Mutex::new(Some(plan))),
        }
    }

    /// Reads the plan's result, written or not.
    pub fn read<T>(&self, f: impl FnOnce(&P::Result) -> T) -> T {
        f(&self.result)
    }

    /// The plan, to write on another thread.
    pub fn share(&self) -> Shared<P> {
        Shared(Arc::clone(&self.plan))
    }

    /// Runs `write` on the plan; once it succeeds the plan is spent and a
    /// second write is refused.
    pub fn write<T>(&self, write: impl FnOnce(&P) -> hashline::Result<T>) -> hashline::Result<T> {
        self.share().write(write)
    }
}

impl<P> Shared<P> {
    /// As `Held::write`; two writes of one plan take turns, and the second
    /// finds it spent.
    pub fn write<T>(&self, write: impl FnOnce(&P) -> hashline::Result<T>) -> hashline::Result<T> {
        let mut held = self.0.lock().unwrap_or_else(|p| p.into_inner());
        let Some(plan) = held.as_ref() else {
            // The file is no longer the version the plan was made on: it
            // holds what the plan wrote.
            return Err(hashline::Error::new(
                hashline::ErrorCode::BaseChanged,
                "Nothing written: this plan was written already, so the file is no longer the version it was planned on. Plan the change again to make it once more.",
            ));
        };
        let out = write(plan)?;
        *held = None;
        Ok(out)
    }
}
