//! A `Hashline` session: a root, options, and the store of versions its
//! views and edits have produced. Everything that touches files goes
//! through here.

use crate::check::Problem;
use crate::edit::{edit, EditInput, Edited};
use crate::error::{Error, ErrorCode, Result};
use crate::file::{load, replace_atomically, Base, Loaded, Root, Target, DEFAULT_MAX_FILE_BYTES};
use crate::reference::Ref;
use crate::remap::LineMap;
use crate::request::Request;
use crate::store::{Parent, Store, StoreLimits, Version};
use crate::text::Document;
use crate::view::{render, View};
use parking_lot::lock_api::ArcMutexGuard;
use parking_lot::RawMutex;
use std::collections::HashMap;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};

#[derive(Debug, Clone)]
pub struct Options {
    pub root: PathBuf,
    pub max_file_bytes: u64,
    pub allow_outside_root: bool,
    /// Strip echoed view prefixes and boundary echoes from content.
    pub cleanup: bool,
    /// Refuse edits anchored on lines no view displayed.
    pub seen_guard: bool,
    pub store: StoreLimits,
    /// Keep versions on disk here too, for hosts that live one call long.
    pub store_dir: Option<PathBuf>,
}

impl Options {
    pub fn new(root: impl Into<PathBuf>) -> Options {
        Options {
            root: root.into(),
            max_file_bytes: DEFAULT_MAX_FILE_BYTES,
            allow_outside_root: false,
            cleanup: true,
            seen_guard: true,
            store: StoreLimits::default(),
            store_dir: None,
        }
    }
}

/// A line another viewer displayed, to be given its ref.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShownLine {
    /// 1-based.
    pub line: usize,
    pub text: String,
    /// The viewer cut the line: `text` is a prefix of it.
    pub truncated: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tagged {
    pub rev: String,
    pub total_lines: usize,
    /// The ref of each shown line, `None` where the text shown is not the
    /// file's line (the file changed, or the viewer altered it).
    pub refs: Vec<Option<String>>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadResult {
    pub path: String,
    pub view: View,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EditResult {
    pub output: String,
    pub path: String,
    pub rev: String,
    pub previous_rev: String,
    pub diff: String,
    pub additions: usize,
    pub deletions: usize,
    /// What the edit broke that was not broken before, on the lines it wrote.
    pub problems: Vec<Problem>,
}

/// An edit computed but not written; `commit` writes it if the file is
/// still what it was planned against.
#[derive(Debug, Clone)]
pub struct EditPlan {
    target: Target,
    base: Base,
    old: Arc<Document>,
    new: Arc<Document>,
    shown: Vec<Range<usize>>,
    map: Arc<LineMap>,
    remapped_from: Option<String>,
    result: EditResult,
}

impl EditPlan {
    pub fn result(&self) -> &EditResult {
        &self.result
    }

    pub(crate) fn target(&self) -> &Target {
        &self.target
    }

    pub(crate) fn base(&self) -> &Base {
        &self.base
    }
}

pub struct Hashline {
    options: Options,
    root: Root,
    store: Mutex<Store>,
    /// One lock per file, held from plan to write; an owned guard needs
    /// parking_lot's `lock_arc`.
    locks: Mutex<HashMap<PathBuf, Arc<parking_lot::Mutex<()>>>>,
}

/// A panic while a lock was held leaves data that is still consistent
/// (every update is a single insert or replace), so keep going.
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl Hashline {
    pub fn new(options: Options) -> Result<Hashline> {
        let root = Root::new(&options.root)?;
        Ok(Hashline {
            store: Mutex::new(match &options.store_dir {
                Some(dir) => Store::persistent(options.store, dir.clone()),
                None => Store::new(options.store),
            }),
            options,
            root,
            locks: Mutex::new(HashMap::new()),
        })
    }

    pub fn root(&self) -> &Path {
        self.root.path()
    }

    pub(crate) fn target(&self, path: &str, allow_outside: bool) -> Result<Target> {
        self.root
            .resolve(path, allow_outside || self.options.allow_outside_root)
    }

    fn remember(&self, target: &Target, rev: &str, doc: &Arc<Document>, lines: &[Range<usize>]) {
        let mut store = lock(&self.store);
        if lines.is_empty() {
            store.record(&target.real, rev, doc, 0..0);
        }
        for range in lines {
            store.record(&target.real, rev, doc, range.clone());
        }
    }

    /// A tagged view of lines `offset..offset+limit` (1-based).
    pub fn read(
        &self,
        path: &str,
        offset: Option<usize>,
        limit: Option<usize>,
        allow_outside: bool,
    ) -> Result<ReadResult> {
        let target = self.target(path, allow_outside)?;
        let doc = Arc::new(load(&target, self.options.max_file_bytes, false)?.doc);
        let view = render(&doc, &target.display, offset, limit)
            .map_err(|e| e.with_path(&target.display))?;
        let shown = view.start_line.saturating_sub(1)..view.end_line;
        self.remember(&target, &view.rev, &doc, &[shown]);
        Ok(ReadResult {
            path: target.display,
            view,
        })
    }

    /// Refs for lines another viewer displayed, computed from the file
    /// itself; the lines count as seen.
    pub fn tag(&self, path: &str, shown: &[ShownLine], allow_outside: bool) -> Result<Tagged> {
        let target = self.target(path, allow_outside)?;
        let doc = Arc::new(load(&target, self.options.max_file_bytes, false)?.doc);
        let rev = doc.rev().to_owned();
        let n = doc.line_count();
        let mut seen = Vec::new();
        let refs = shown
            .iter()
            .map(|s| {
                let index = s.line.checked_sub(1).filter(|&i| i < n)?;
                let line = doc.line(index);
                let same = if s.truncated {
                    line.starts_with(s.text.as_str())
                } else {
                    line == s.text
                };
                same.then(|| {
                    seen.push(index..index + 1);
                    Ref::of_line(&doc, index).to_string()
                })
            })
            .collect();
        self.remember(&target, &rev, &doc, &seen);
        Ok(Tagged {
            rev,
            total_lines: n,
            refs,
        })
    }

    /// Computes an edit without writing it.
    pub fn plan(&self, path: &str, request: &Request, allow_outside: bool) -> Result<EditPlan> {
        self.plan_target(self.target(path, allow_outside)?, request)
    }

    /// The file at `target` as text (a missing one as empty text when
    /// `missing_ok`), within the size limit.
    pub(crate) fn load(&self, target: &Target, missing_ok: bool) -> Result<Loaded> {
        load(target, self.options.max_file_bytes, missing_ok)
    }

    pub(crate) fn options(&self) -> &Options {
        &self.options
    }

    /// The stored versions of the file, most recently used first.
    pub(crate) fn history(&self, target: &Target) -> Vec<Version> {
        lock(&self.store).versions(&target.real)
    }

    pub(crate) fn store(&self) -> MutexGuard<'_, Store> {
        lock(&self.store)
    }

    fn plan_target(&self, target: Target, request: &Request) -> Result<EditPlan> {
        let loaded = self.load(&target, request.creates())?;
        let old = Arc::new(loaded.doc);
        let history = self.history(&target);
        let input = EditInput {
            doc: &old,
            path: &target.display,
            exists: loaded.base != Base::Missing,
            history: &history,
            cleanup: self.options.cleanup,
            seen_guard: self.options.seen_guard,
        };
        let edited: Edited = match edit(&input, request) {
            Ok(edited) => edited,
            Err(err) => return Err(self.after_rejection(&target, &old, err)),
        };
        self.plan_edited(target, loaded.base, old, edited, !history.is_empty())
    }

    /// The plan for a new version computed from `old`, the file at `target`
    /// when it was `base`; `had_history` says refs from earlier views exist.
    pub(crate) fn plan_edited(
        &self,
        target: Target,
        base: Base,
        old: Arc<Document>,
        edited: Edited,
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
        if had_history {
            output.push_str("Refs from earlier views of this file stay usable for lines outside the changed regions.\n");
        }
        Ok(EditPlan {
            result: EditResult {
                output,
                path: target.display.clone(),
                rev: edited.rev,
                previous_rev: edited.previous_rev,
                diff: edited.summary.diff,
                additions: edited.summary.additions,
                deletions: edited.summary.deletions,
                problems: edited.problems,
            },
            shown: edited.summary.shown,
            map: Arc::new(edited.map),
            remapped_from: edited.remapped_from,
            new: Arc::new(edited.doc),
            old,
            base,
            target,
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
            self.remember(target, doc.rev(), doc, &err.shown);
        }
        err
    }

    /// Writes a plan, refusing with `BASE_CHANGED` if the file changed
    /// since it was planned.
    pub fn commit(&self, plan: &EditPlan) -> Result<EditResult> {
        let _guard = self.path_lock(&plan.target.real);
        self.write(plan)
    }

    pub(crate) fn write(&self, plan: &EditPlan) -> Result<EditResult> {
        replace_atomically(&plan.target, &plan.base, &plan.new.file_bytes())?;
        let path = &plan.target.real;
        let mut store = lock(&self.store);
        if let Some(from) = &plan.remapped_from {
            store.touch(path, from);
        }
        // Lines a view showed and the edit left alone stay seen in the new
        // version, wherever they moved.
        let seen_before = store.seen(path, &plan.result.previous_rev);
        store.record(path, &plan.result.previous_rev, &plan.old, 0..0);
        let mut seen = plan.map.ranges(&seen_before);
        seen.extend(plan.shown.iter().cloned());
        if seen.is_empty() {
            seen.push(0..0);
        }
        for range in seen {
            store.record(path, &plan.result.rev, &plan.new, range);
        }
        store.link(
            path,
            &plan.result.rev,
            Parent {
                rev: plan.result.previous_rev.clone(),
                map: Arc::clone(&plan.map),
            },
        );
        Ok(plan.result.clone())
    }

    /// Plans and writes in one step, holding the file's lock across both so
    /// concurrent edits from this process each see the one before.
    pub fn edit(&self, path: &str, request: &Request, allow_outside: bool) -> Result<EditResult> {
        let target = self.target(path, allow_outside)?;
        let _guard = self.path_lock(&target.real);
        let plan = self.plan_target(target, request)?;
        self.write(&plan)
    }

    pub(crate) fn path_lock(&self, path: &Path) -> ArcMutexGuard<RawMutex, ()> {
        let mutex = Arc::clone(lock(&self.locks).entry(path.to_owned()).or_default());
        mutex.lock_arc()
    }
}
