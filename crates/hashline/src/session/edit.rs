//! Planning an edit of one file: loaded within the size limit, checked
//! against the versions the store keeps, described; and planning and
//! writing in one step.

use super::*;

impl Hashline {
    /// Computes an edit without writing it.
    pub fn plan(&self, path: &str, request: &Request) -> Result<EditPlan> {
        self.plan_with(path, request, &CallOptions::default())
    }

    /// `plan`, with the call's options.
    pub fn plan_with(
        &self,
        path: &str,
        request: &Request,
        options: &CallOptions,
    ) -> Result<EditPlan> {
        self.recover();
        let target = self.target(path, options.allow_outside)?;
        let mut plan = self.plan_target(target, request)?;
        self.tell_recoveries(&mut plan.result.output);
        Ok(plan)
    }

    pub(crate) fn plan_target(&self, target: Target, request: &Request) -> Result<EditPlan> {
        let loaded = self.load(&target, request.creates())?;
        if crate::notebook::is_notebook(&target.display) && crate::notebook::edits_cells(request) {
            if loaded.base == Base::Missing {
                return Err(crate::notebook::missing(&target.display));
            }
            return self.plan_notebook(target, loaded, request);
        }
        let found = loaded.found();
        let old = loaded.doc;
        let (history, others, store_note, keeps_old) = {
            let mut store = lock(&self.store);
            let history = store.versions(&target.real);
            // Only content with lines in a view prefix's form needs the
            // versions of other files, whose lines may prove them copies.
            let others = if self.options.cleanup && request.may_hold_prefixes() {
                store.shown_elsewhere(&target.real)
            } else {
                Vec::new()
            };
            let keeps_old = store.keeps(old.text().len());
            (
                history,
                others,
                store.take_damage_note(&target.real),
                keeps_old,
            )
        };
        let input = EditInput {
            doc: &old,
            path: &target.display,
            exists: loaded.base != Base::Missing,
            history: &history,
            others: &others,
            caller_text: false,
            cleanup: self.options.cleanup,
            seen_guard: self.options.seen_guard,
            syntax: self.options.syntax,
            old_tree: self.kept_tree(&target, &old),
            store_note: store_note.as_deref(),
            style: self.options.view,
        };
        let prepared = match prepare(&input, request) {
            Ok(prepared) => prepared,
            Err(err) => return Err(self.after_rejection(&target, &Arc::new(old), err)),
        };
        // Past this point the document becomes the new version in its own
        // buffer, and no error shows lines of the old one. The store's copy
        // of the old version, or else the old version itself if the store
        // is to keep it, goes with the plan: recorded once the edit is
        // written, refs to it remap after the edit even if the store let it
        // go meanwhile. The old version is kept as the new one and the lines
        // the edit took out; one that is not its file's bytes (a BOM, other
        // line endings) is copied now, since those are not kept with them.
        let stored = history
            .iter()
            .find(|v| v.rev == old.rev())
            .map(|v| v.doc.clone());
        let copied = (stored.is_none() && keeps_old && !old.bytes_are_canonical())
            .then(|| StoredDoc::from(Arc::new(old.clone())));
        let kept = stored.or(copied);
        let keep_replaced = kept.is_none() && keeps_old;
        let edited = prepared
            .apply(old)
            .inspect_err(|err| debug_assert!(err.shown.is_empty(), "{err:?}"))?;
        let had_history = !history.is_empty();
        self.plan_edited(target, found, kept, keep_replaced, edited, had_history)
    }

    /// The plan for a new version, of the file at `target` when it was
    /// `base`; `old`, the version edited, is recorded once the plan is
    /// written if given, or else, with `keep_replaced`, the version the
    /// edit replaced; `had_history` says refs from earlier views exist.
    pub(crate) fn plan_edited(
        &self,
        target: Target,
        found: Found,
        old: Option<StoredDoc>,
        keep_replaced: bool,
        mut edited: Edited,
        had_history: bool,
    ) -> Result<EditPlan> {
        let size = edited.doc.file_bytes().len() as u64;
        if size > self.options.max_file_bytes {
            return Err(Error::new(
                ErrorCode::TooLarge,
                format!(
                    "Edit refused, nothing written: it would make {} {size} bytes, over the limit of {} bytes.",
                    target.display, self.options.max_file_bytes
                ),
            )
            .with_path(&target.display));
        }
        let mut output = edited.summary.output;
        if found.links > 1 {
            let others = found.links - 1;
            let _ = writeln!(
                output,
                "Note: {} is one of {} names of the same file (hard links). The edit gave this name a new file, as every write here does, so the other {} still {} the old version.",
                target.display,
                found.links,
                if others == 1 { "name".to_owned() } else { format!("{others} names") },
                if others == 1 { "holds" } else { "hold" },
            );
        }
        if had_history {
            output.push_str("Refs from earlier views of this file stay usable for lines outside the changed regions.\n");
        }
        let mut diff = edited.summary.diff;
        bound(&mut output, "output");
        bound(&mut diff, "diff");
        // A version whose lines views hashed passes the digests of the
        // lines the edit kept to the new one, so that a view after the edit
        // hashes only what it changed.
        if let Some(old) = old
            .as_ref()
            .and_then(StoredDoc::built)
            .filter(|old| old.known().kept())
        {
            edited.doc.keep_tags_from(old, edited.map.runs());
        }
        let replaced = edited.replaced.take();
        let new = Arc::new(edited.doc);
        let old = old.or_else(|| {
            keep_replaced
                .then(|| replaced?.stored(&new, &edited.previous_rev))
                .flatten()
        });
        Ok(EditPlan {
            owner: self.id,
            result: EditResult {
                output,
                headline: edited.summary.headline,
                path: target.display.clone(),
                rev: edited.rev,
                previous_rev: edited.previous_rev,
                diff,
                additions: edited.summary.additions,
                deletions: edited.summary.deletions,
                problems: edited.problems,
                outcome: edited.outcome,
            },
            shown: edited.summary.shown,
            map: Arc::new(edited.map),
            remapped_from: edited.remapped_from,
            new,
            tree: edited.tree,
            old,
            base: found.base,
            target,
            cells: None,
        })
    }

    /// A rejection shows current lines with refs; record them as seen so
    /// that a retry citing them passes.
    pub(crate) fn after_rejection(
        &self,
        target: &Target,
        doc: &Arc<Document>,
        err: Error,
    ) -> Error {
        if !err.shown.is_empty() {
            self.remember(&target.real, doc.rev(), doc, &err.shown, Sight::Unasked);
        }
        err
    }

    /// Plans and writes in one step, holding the file's lock across both so
    /// concurrent edits from this process each see the one before.
    pub fn edit(&self, path: &str, request: &Request) -> Result<EditResult> {
        self.edit_with(path, request, &CallOptions::default())
    }

    /// `edit`, with the call's options.
    pub fn edit_with(
        &self,
        path: &str,
        request: &Request,
        options: &CallOptions,
    ) -> Result<EditResult> {
        self.edit_then(path, request, options, |result| Ok(result.clone()))
    }

    /// `edit_with`, with a last step as in `commit_then`.
    pub fn edit_then<T>(
        &self,
        path: &str,
        request: &Request,
        options: &CallOptions,
        last_step: impl FnOnce(&EditResult) -> Result<T>,
    ) -> Result<T> {
        self.recover();
        let target = self.target(path, options.allow_outside)?;
        let _guard = self.path_lock(&target, &options.cancel)?;
        let mut plan = self.plan_target(target, request)?;
        self.tell_recoveries(&mut plan.result.output);
        self.write(&plan, &options.cancel, last_step)
    }
}

/// Cuts `text` to `MAX_RESULT_BYTES` at a line end, and says so.
pub(super) fn bound(text: &mut String, what: &str) {
    let total = text.len();
    if total <= MAX_RESULT_BYTES {
        return;
    }
    let mut cut = MAX_RESULT_BYTES;
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    if let Some(end) = text[..cut].rfind('\n') {
        cut = end + 1;
    }
    text.truncate(cut);
    if !text.ends_with('\n') {
        text.push('\n');
    }
    let _ = writeln!(text, "… ({what} cut at {cut} of {total} bytes)");
}
