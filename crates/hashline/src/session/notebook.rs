//! Where a session reads and edits a notebook through its cells
//! (`docs/format.md` §10) rather than as text: its view, recorded under
//! the name the store keeps its cells by, and the plan of an edit of its
//! cells, written as any plan is.

use super::*;
use crate::edit::Edited;
use crate::file::Loaded;
use crate::notebook;

/// What the store is told of a notebook edited through its cells, once the
/// edit is written: the cells before and after, as it keeps them.
#[derive(Debug, Clone)]
pub(crate) struct CellsRecord {
    key: PathBuf,
    old: Arc<Document>,
    new: Arc<Document>,
    shown: Vec<Range<usize>>,
    map: Arc<LineMap>,
    remapped_from: Option<String>,
}

/// The file's own text, as a notebook is parsed from it.
fn file_text(doc: &Document) -> String {
    String::from_utf8_lossy(&doc.file_bytes()).into_owned()
}

impl Hashline {
    /// The notebook view of the file `doc` holds, whose lines are recorded
    /// as shown.
    pub(super) fn read_notebook(
        &self,
        real: &Path,
        display: String,
        doc: Document,
        options: &ReadOptions,
    ) -> Result<ReadResult> {
        let style = options.view.unwrap_or(self.options.view);
        let (mut view, cells) = notebook::read(
            &file_text(&doc),
            doc.rev(),
            &display,
            options.offset,
            options.limit,
            style,
        )?;
        let kept = notebook::kept(&cells, doc.rev());
        let shown = view.start_line.saturating_sub(1)..view.end_line;
        self.remember(
            &notebook::key(real),
            kept.rev(),
            &kept,
            &[shown],
            Sight::Asked,
        );
        self.tell_recoveries(&mut view.text);
        Ok(ReadResult {
            path: display,
            view,
        })
    }

    /// The plan of an edit of a notebook's cells.
    pub(super) fn plan_notebook(
        &self,
        target: Target,
        loaded: Loaded,
        request: &Request,
    ) -> Result<EditPlan> {
        let key = notebook::key(&target.real);
        let (stored, others) = {
            let mut store = lock(&self.store);
            let others = if self.options.cleanup && request.may_hold_prefixes() {
                store.shown_elsewhere(&key)
            } else {
                Vec::new()
            };
            (store.versions(&key), others)
        };
        let text = file_text(&loaded.doc);
        let input = notebook::Input {
            text: &text,
            rev: loaded.doc.rev(),
            path: &target.display,
            stored,
            others: &others,
            cleanup: self.options.cleanup,
            seen_guard: self.options.seen_guard,
            style: self.options.view,
        };
        let output = match notebook::edit(input, request) {
            Ok(output) => output,
            Err((err, cells)) => {
                if let Some(cells) = cells.filter(|_| !err.shown.is_empty()) {
                    self.remember(&key, cells.rev(), &cells, &err.shown, Sight::Unasked);
                }
                return Err(err);
            }
        };
        let doc = Document::from_vec(output.text.into_bytes())?;
        let edited = Edited {
            doc,
            rev: output.rev,
            previous_rev: loaded.doc.rev().to_owned(),
            summary: output.summary,
            map: LineMap::from_changes(0, []),
            remapped_from: None,
            outcome: output.outcome,
            problems: Vec::new(),
            tree: None,
            replaced: None,
        };
        let shown = edited.summary.shown.clone();
        let mut plan = self.plan_edited(
            target,
            loaded.found(),
            None,
            false,
            edited,
            output.had_history,
        )?;
        plan.cells = Some(Box::new(CellsRecord {
            key,
            old: output.old,
            new: output.new,
            shown,
            map: Arc::new(output.map),
            remapped_from: output.remapped_from,
        }));
        Ok(plan)
    }
}

impl EditPlan {
    /// What the store records of the plan once written: the version edited
    /// and the new one under the name the store keeps them by, the lines
    /// the result showed, and where the edit moved the others.
    pub(super) fn recorded(&self) -> Recorded<'_> {
        match &self.cells {
            Some(cells) => Recorded {
                path: &cells.key,
                old_rev: cells.old.rev(),
                new_rev: cells.new.rev(),
                old: Some(StoredDoc::from(Arc::clone(&cells.old))),
                new: &cells.new,
                shown: &cells.shown,
                map: &cells.map,
                remapped_from: cells.remapped_from.as_deref(),
            },
            None => Recorded {
                path: &self.target.real,
                old_rev: &self.result.previous_rev,
                new_rev: &self.result.rev,
                old: self.old.clone(),
                new: &self.new,
                shown: &self.shown,
                map: &self.map,
                remapped_from: self.remapped_from.as_deref(),
            },
        }
    }
}

/// What the store records of a written plan (see [`EditPlan::recorded`]).
pub(super) struct Recorded<'p> {
    pub path: &'p Path,
    pub old_rev: &'p str,
    pub new_rev: &'p str,
    pub old: Option<StoredDoc>,
    pub new: &'p Arc<Document>,
    pub shown: &'p [Range<usize>],
    pub map: &'p Arc<LineMap>,
    pub remapped_from: Option<&'p str>,
}
