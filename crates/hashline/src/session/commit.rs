//! Writing a plan: this session's lock of each file it writes, the
//! transaction, then the store told what was written.

use super::*;

/// How long a wait for a file's lock goes on without a look at the call's
/// cancellation: as long as the longest pause between two tries of a
/// folder's lock.
const CANCEL_SEEN_WITHIN: Duration = Duration::from_millis(50);

impl Hashline {
    /// Writes a plan, refusing with `BASE_CHANGED` if the file changed
    /// since it was planned.
    pub fn commit(&self, plan: &EditPlan) -> Result<EditResult> {
        self.commit_then(plan, |result| Ok(result.clone()))
    }

    /// Writes a plan like `commit`; `last_step` runs after every check and
    /// before the file is replaced, so a host can build what it returns
    /// there: if that fails, nothing is written. Its value is returned.
    pub fn commit_then<T>(
        &self,
        plan: &EditPlan,
        last_step: impl FnOnce(&EditResult) -> Result<T>,
    ) -> Result<T> {
        self.commit_with(plan, &Cancel::new(), last_step)
    }

    /// Commits a plan of any kind (an [`EditPlan`], a
    /// [`BatchPlan`](crate::BatchPlan), a [`PatchPlan`](crate::PatchPlan))
    /// as its own `commit…_then` does, and stops once `cancel` is
    /// cancelled wherever nothing is written yet, a wait for a lock
    /// included: then it fails with `CANCELLED`.
    ///
    /// This is the one way every plan is committed: only by the session
    /// that made it, with its files locked for this session, as one
    /// transaction, then recorded.
    pub fn commit_with<P: Committable, T>(
        &self,
        plan: &P,
        cancel: &Cancel,
        last_step: impl FnOnce(&P::Result) -> Result<T>,
    ) -> Result<T> {
        if plan.owner() != self.id {
            return Err(plan.foreign());
        }
        let changes = plan.changes();
        let targets: Vec<&Target> = changes.iter().map(Change::target).collect();
        let _guards = self.path_locks(&targets, cancel)?;
        self.write_changes(plan, &changes, cancel, last_step)
    }

    /// Writes a plan whose files this session holds locked already.
    pub(crate) fn write<P: Plan, T>(
        &self,
        plan: &P,
        cancel: &Cancel,
        last_step: impl FnOnce(&P::Result) -> Result<T>,
    ) -> Result<T> {
        self.write_changes(plan, &plan.changes(), cancel, last_step)
    }

    fn write_changes<P: Plan, T>(
        &self,
        plan: &P,
        changes: &[Change<'_>],
        cancel: &Cancel,
        last_step: impl FnOnce(&P::Result) -> Result<T>,
    ) -> Result<T> {
        let out = self.transact(changes, cancel, || last_step(plan.result()))?;
        for edit in plan.edits() {
            self.written(edit);
        }
        Ok(out)
    }

    /// Records a plan that was written. The file is written: what follows
    /// only records it, and a bug there must not turn a written edit into
    /// an error.
    fn written(&self, plan: &EditPlan) {
        let _ = catch_unwind(AssertUnwindSafe(|| self.record_write(plan)));
    }

    fn record_write(&self, plan: &EditPlan) {
        if let Some(tree) = &plan.tree {
            self.trees
                .put(&plan.target.real, &plan.result.rev, tree.clone());
        }
        let written = plan.recorded();
        let path = written.path;
        let mut store = lock(&self.store);
        if let Some(from) = written.remapped_from {
            store.touch(path, from);
        }
        // Lines a view showed and the edit left alone stay known in the new
        // version, wherever they moved; the lines the result shows are shown.
        let seen_before = store.seen(path, written.old_rev);
        if let Some(old) = written.old {
            store.record(path, written.old_rev, old, 0..0);
        }
        store.record_all(
            path,
            written.new_rev,
            written.new,
            written.shown,
            Sight::Unasked,
        );
        store.record_all(
            path,
            written.new_rev,
            written.new,
            &written.map.ranges(&seen_before),
            Sight::Carried,
        );
        store.link(
            path,
            written.new_rev,
            Parent {
                rev: written.old_rev.to_owned(),
                map: Arc::clone(written.map),
            },
        );
    }

    /// The locks of several files, taken in the order of their paths so
    /// that two calls of this session never wait on each other.
    pub(crate) fn path_locks(
        &self,
        targets: &[&Target],
        cancel: &Cancel,
    ) -> Result<Vec<ArcMutexGuard<RawMutex, ()>>> {
        let mut sorted: Vec<&Target> = targets.to_vec();
        sorted.sort_by(|a, b| a.real.cmp(&b.real));
        sorted.dedup_by(|a, b| a.real == b.real);
        sorted.iter().map(|t| self.path_lock(t, cancel)).collect()
    }

    /// The lock of one file, for the edits of this session; waits at most
    /// the lock timeout, and fails with `CANCELLED` once `cancel` is.
    pub(crate) fn path_lock(
        &self,
        target: &Target,
        cancel: &Cancel,
    ) -> Result<ArcMutexGuard<RawMutex, ()>> {
        let mutex = Arc::clone(lock(&self.locks).entry(target.real.clone()).or_default());
        let timeout = self.options.lock_timeout;
        let start = Instant::now();
        loop {
            let left = timeout.saturating_sub(start.elapsed());
            if let Some(guard) = mutex.try_lock_arc_for(left.min(CANCEL_SEEN_WITHIN)) {
                return Ok(guard);
            }
            cancel.check()?;
            if start.elapsed() >= timeout {
                return Err(locked(
                    &target.display,
                    "another edit of it in this process",
                    timeout,
                )
                .with_path(&target.display));
            }
        }
    }
}

/// A plan [`Hashline::commit_with`] commits: an [`EditPlan`], a
/// [`BatchPlan`](crate::BatchPlan) or a [`PatchPlan`](crate::PatchPlan).
pub trait Committable: Plan {}

impl<P: Plan> Committable for P {}

/// What a kind of plan (an edit's, a batch's, a patch's) gives the one
/// path that commits plans; everything else about a commit is the same.
/// Public in name only, so that [`Committable`] may require it: the
/// module it is in is private, so no other crate implements it.
pub trait Plan {
    /// What committing the plan gives.
    type Result;
    /// The session that made the plan, the only one that may commit it.
    fn owner(&self) -> u64;
    /// The refusal of a commit by another session.
    fn foreign(&self) -> Error;
    /// What the plan changes, file by file, for the transaction.
    fn changes(&self) -> Vec<Change<'_>>;
    /// The result the plan will have once committed.
    fn result(&self) -> &Self::Result;
    /// The edits the store is told of once the plan is written.
    fn edits(&self) -> impl Iterator<Item = &EditPlan>;
}

impl Plan for EditPlan {
    type Result = EditResult;

    fn owner(&self) -> u64 {
        self.owner
    }

    fn foreign(&self) -> Error {
        Error::invalid_request(format!(
            "This plan for {} was made by another Hashline instance; only that one can commit it. Plan the edit again with this one.",
            self.result.path
        ))
        .with_path(&self.result.path)
    }

    fn changes(&self) -> Vec<Change<'_>> {
        vec![self.change()]
    }

    fn result(&self) -> &EditResult {
        &self.result
    }

    fn edits(&self) -> impl Iterator<Item = &EditPlan> {
        std::iter::once(self)
    }
}
