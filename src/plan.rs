//! What a JS plan object holds. A plan keeps the folder handle it was made
//! from and both versions of the file until it is written; a JS object is
//! freed only when the garbage collector gets to it, which a process making
//! little garbage may put off indefinitely. So once written, a plan keeps
//! only its result, and the handle and the texts go at once.

use std::cell::RefCell;

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

enum Stage<P: Plan> {
    Planned(P),
    Written(P::Result),
}

pub(crate) struct Held<P: Plan> {
    stage: RefCell<Stage<P>>,
}

impl<P: Plan> Held<P> {
    pub fn new(plan: P) -> Held<P> {
        Held {
            stage: RefCell::new(Stage::Planned(plan)),
        }
    }

    /// Reads the plan's result, written or not.
    pub fn read<T>(&self, f: impl FnOnce(&P::Result) -> T) -> T {
        match &*self.stage.borrow() {
            Stage::Planned(plan) => f(plan.result()),
            Stage::Written(result) => f(result),
        }
    }

    /// Runs `write` on the plan; once it succeeds the plan is spent and a
    /// second write is refused.
    pub fn write<T>(&self, write: impl FnOnce(&P) -> hashline::Result<T>) -> hashline::Result<T> {
        let mut stage = self.stage.borrow_mut();
        let Stage::Planned(plan) = &*stage else {
            // The file is no longer the version the plan was made on: it
            // holds what the plan wrote.
            return Err(hashline::Error::new(
                hashline::ErrorCode::BaseChanged,
                "Nothing written: this plan was written already, so the file is no longer the version it was planned on. Plan the change again to make it once more.",
            ));
        };
        let out = write(plan)?;
        let result = plan.result().clone();
        *stage = Stage::Written(result);
        Ok(out)
    }
}
