//! A `Hashline` session: a root, options, and the store of versions its
//! views and edits have produced. Everything that touches files goes
//! through here.

use crate::document::Document;
use crate::edit::{prepare, EditInput, Edited};
use crate::error::{Error, ErrorCode, Result};
use crate::file::{load, load_for_view, Base, Found, Loaded, Root, Target, DEFAULT_MAX_FILE_BYTES};
use crate::lock::{locked, DEFAULT_LOCK_TIMEOUT};
use crate::problem::Problem;
use crate::recovery;
use crate::reference::Ref;
use crate::remap::LineMap;
use crate::request::Request;
use crate::store::{Parent, Store, StoreLimits, Version};
use crate::syntax::{KeptTree, SyntaxCheck, Trees};
use crate::transaction::{self, Change, Settings};
use crate::view::{render, View, ViewStyle};
use parking_lot::lock_api::ArcMutexGuard;
use parking_lot::RawMutex;
use sha1::{Digest, Sha1};
use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::fmt::Write;
use std::ops::Range;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

/// Past this many bytes the output and the diff of an edit are cut, with a
/// note: every result must fit a host's string (V8 refuses strings of about
/// 512 MiB and more), so that no edit can fail after it was written.
pub const MAX_RESULT_BYTES: usize = 16 << 20;

/// How a session works.
#[derive(Debug, Clone)]
pub struct Options {
    /// The folder the session may read and write in.
    pub root: PathBuf,
    /// Larger files are refused with `TOO_LARGE`.
    pub max_file_bytes: u64,
    /// Allow paths outside the root (the host asked its user).
    pub allow_outside_root: bool,
    /// Strip echoed view prefixes and boundary echoes from content.
    pub cleanup: bool,
    /// Refuse edits anchored on lines no view displayed.
    pub seen_guard: bool,
    /// How many versions, and how many bytes, the version store keeps.
    pub store: StoreLimits,
    /// Keep versions on disk here too, for hosts that live one call long.
    pub store_dir: Option<PathBuf>,
    /// How long a write waits for another write of the same folder or file
    /// before it fails with `LOCKED`.
    pub lock_timeout: Duration,
    /// How views, edit results and rejections show refs; refs of either
    /// style are accepted whatever this is.
    pub view: ViewStyle,
    /// What an edit that breaks a file's parse gets: a warning with the
    /// result, a refusal, or no parse at all.
    pub syntax: SyntaxCheck,
}

impl Options {
    /// The defaults, confined to `root`.
    pub fn new(root: impl Into<PathBuf>) -> Options {
        Options {
            root: root.into(),
            max_file_bytes: DEFAULT_MAX_FILE_BYTES,
            allow_outside_root: false,
            cleanup: true,
            seen_guard: true,
            store: StoreLimits::default(),
            store_dir: None,
            lock_timeout: DEFAULT_LOCK_TIMEOUT,
            view: ViewStyle::default(),
            syntax: SyntaxCheck::default(),
        }
    }
}

/// What a read shows: lines `offset..offset + limit` (1-based; the first
/// 2,000 lines by default), in `view` (the session's style by default).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ReadOptions {
    /// The first line to show, 1-based.
    pub offset: Option<usize>,
    /// How many lines to show.
    pub limit: Option<usize>,
    /// Allow a path outside the root (the host asked its user).
    pub allow_outside: bool,
    /// The style of the view; the session's when not given.
    pub view: Option<ViewStyle>,
}

/// The options of a call on a path.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CallOptions {
    /// Allow a path outside the root (the host asked its user).
    pub allow_outside: bool,
}

/// A line another viewer displayed, to be given its ref.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShownLine {
    /// 1-based.
    pub line: usize,
    /// The line as shown (cut when long).
    pub text: String,
    /// The viewer cut the line: `text` is a prefix of it.
    pub truncated: bool,
}

/// Refs for lines a host displays itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tagged {
    /// The REV of the file.
    pub rev: String,
    /// Lines in the file.
    pub total_lines: usize,
    /// The ref of each shown line, `None` where the text shown is not the
    /// file's line (the file changed, or the viewer altered it).
    pub refs: Vec<Option<String>>,
}

/// A view of a file, recorded in the session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadResult {
    /// The path as the model knows it.
    pub path: String,
    /// The view.
    pub view: View,
}

/// What an edit did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EditResult {
    /// What the model reads: fresh refs around every change.
    pub output: String,
    /// The first sentence of `output` (see [`crate::Summary::headline`]).
    pub headline: String,
    /// The path as the model knows it.
    pub path: String,
    /// The REV written.
    pub rev: String,
    /// The REV edited.
    pub previous_rev: String,
    /// A unified diff, for hosts and UIs.
    pub diff: String,
    /// Lines added.
    pub additions: usize,
    /// Lines removed.
    pub deletions: usize,
    /// What the edit broke that was not broken before, on the lines it wrote.
    pub problems: Vec<Problem>,
}

/// An edit computed but not written; `commit` writes it if the file is
/// still what it was planned against. It holds the folder the file is in
/// (a handle, not a path), so the write goes where the plan looked.
#[derive(Debug, Clone)]
pub struct EditPlan {
    /// The session that made it, the only one that may write it.
    owner: u64,
    target: Target,
    base: Base,
    /// The version edited, when the store is to keep it: recorded once the
    /// edit is written, so that refs to it remap.
    old: Option<Arc<Document>>,
    new: Arc<Document>,
    /// The new version's parse tree (or why it has none), kept for the next
    /// edit once written.
    tree: Option<KeptTree>,
    shown: Vec<Range<usize>>,
    map: Arc<LineMap>,
    remapped_from: Option<String>,
    result: EditResult,
}

impl EditPlan {
    /// The result the edit will have once committed.
    pub fn result(&self) -> &EditResult {
        &self.result
    }

    pub(crate) fn target(&self) -> &Target {
        &self.target
    }

    /// What the plan writes.
    pub(crate) fn bytes(&self) -> Cow<'_, [u8]> {
        self.new.file_bytes()
    }

    /// The change the plan makes, for a transaction.
    pub(crate) fn change(&self) -> Change<'_> {
        Change::Write {
            target: &self.target,
            base: &self.base,
            bytes: self.bytes(),
        }
    }
}

/// A session confined to one root folder: reads record the versions
/// shown, so that edits can check and remap refs; writes are atomic and
/// serialised per folder.
pub struct Hashline {
    /// Tells this session's plans from those of others.
    pub(crate) id: u64,
    pub(crate) options: Options,
    pub(crate) root: Root,
    store: Mutex<Store>,
    /// One lock per file, held from plan to write; an owned guard needs
    /// parking_lot's `lock_arc`.
    locks: Mutex<HashMap<PathBuf, Arc<parking_lot::Mutex<()>>>>,
    /// The parse trees of versions this session read or wrote.
    trees: Arc<Trees>,
    /// The new contents (by file and SHA-1) whose view prefixes were too
    /// doubtful to remove, most recent last: sent again, one is written as
    /// it is.
    refused: Mutex<Vec<(PathBuf, [u8; 20])>>,
    /// What the recovery of changes other processes left unfinished did,
    /// for the next result.
    notes: Mutex<Vec<String>>,
    /// Every note of a recovery this session told or will tell: a record
    /// left as it is is told once, not in every result.
    told: Mutex<HashSet<String>>,
}

/// How many refused contents a session remembers for a resend.
const REFUSED_CONTENTS: usize = 16;

/// A file's new content after the clean-up of copied view prefixes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stripped {
    /// The content to write.
    pub text: String,
    /// How many lines the clean-up changed: a view prefix removed, a view's
    /// header left out, a line a view cut written whole.
    pub stripped: usize,
    /// What the clean-up did, when it did anything.
    pub note: Option<String>,
}

/// A panic while a lock was held leaves data that is still consistent
/// (every update is a single insert or replace), so keep going.
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl Hashline {
    /// A session; fails when the root cannot be opened.
    pub fn new(options: Options) -> Result<Hashline> {
        static SESSIONS: AtomicU64 = AtomicU64::new(0);
        let root = Root::new(&options.root)?;
        let session = Hashline {
            id: SESSIONS.fetch_add(1, Ordering::Relaxed),
            store: Mutex::new(match &options.store_dir {
                Some(dir) => Store::persistent(options.store, dir.clone()),
                None => Store::new(options.store),
            }),
            options,
            root,
            locks: Mutex::new(HashMap::new()),
            trees: Arc::default(),
            refused: Mutex::new(Vec::new()),
            notes: Mutex::new(Vec::new()),
            told: Mutex::new(HashSet::new()),
        };
        session.recover();
        Ok(session)
    }

    /// Finishes or undoes the changes of several files that processes
    /// which died left in the root; what it did goes into the next result.
    /// Run when the session opens and before each call that may write, so
    /// that nothing is planned on a half-made change. A record naming
    /// folders outside the root is acted on only if the session may reach
    /// outside it.
    pub(crate) fn recover(&self) {
        let notes = recovery::recover(
            &self.root,
            self.options.allow_outside_root,
            self.options.lock_timeout,
        );
        if notes.is_empty() {
            return;
        }
        let mut told = lock(&self.told);
        let fresh = notes.into_iter().filter(|note| told.insert(note.clone()));
        lock(&self.notes).extend(fresh);
    }

    /// Adds the notes of recoveries not told yet to a result's text.
    pub(crate) fn tell_recoveries(&self, output: &mut String) {
        let notes = std::mem::take(&mut *lock(&self.notes));
        for note in notes {
            if !output.is_empty() && !output.ends_with('\n') {
                output.push('\n');
            }
            let _ = writeln!(output, "Note: {note}");
        }
    }

    /// Applies changes of files whole or not at all, as one transaction;
    /// `last_step` runs once every file is checked, before any is written.
    pub(crate) fn transact<T>(
        &self,
        changes: &[Change<'_>],
        last_step: impl FnOnce() -> Result<T>,
    ) -> Result<T> {
        transaction::commit(changes, &self.settings(), last_step)
    }

    /// What a transaction of this session needs.
    pub(crate) fn settings(&self) -> Settings<'_> {
        Settings {
            root: &self.root,
            lock_timeout: self.options.lock_timeout,
        }
    }

    /// The root folder.
    pub fn root(&self) -> &Path {
        self.root.path()
    }

    pub(crate) fn target(&self, path: &str, allow_outside: bool) -> Result<Target> {
        self.root.resolve(path, self.outside(allow_outside))
    }

    /// A file's canonical path, display and text, for a view.
    fn load_for_view(
        &self,
        path: &str,
        allow_outside: bool,
    ) -> Result<(PathBuf, String, Document)> {
        let max = self.options.max_file_bytes;
        load_for_view(&self.root, path, self.outside(allow_outside), max)
    }

    /// Whether a call may reach outside the root: the call or the session
    /// allows it.
    fn outside(&self, allow_outside: bool) -> bool {
        allow_outside || self.options.allow_outside_root
    }

    /// Records that `lines` of this version of the file at `real` (its
    /// canonical path) were shown; `read` when the model asked for them.
    pub(crate) fn remember(
        &self,
        real: &Path,
        rev: &str,
        doc: &Arc<Document>,
        lines: &[Range<usize>],
        read: bool,
    ) {
        lock(&self.store).record_all(real, rev, doc, lines, read);
        if let Some(parse) = self.options.syntax.parse_of(&real.to_string_lossy(), None) {
            Trees::parse_later(&self.trees, real, rev, doc, parse.language);
        }
    }

    /// A tagged view of the first lines of the file at `path`, in the
    /// session's view style.
    pub fn read(&self, path: &str) -> Result<ReadResult> {
        self.read_with(path, &ReadOptions::default())
    }

    /// A tagged view of the lines `options` name, in its style.
    pub fn read_with(&self, path: &str, options: &ReadOptions) -> Result<ReadResult> {
        let (real, display, doc) = self.load_for_view(path, options.allow_outside)?;
        let doc = self.stored(&real, doc);
        let style = options.view.unwrap_or(self.options.view);
        let view = render(&doc, &display, options.offset, options.limit, style)
            .map_err(|e| e.with_path(&display))?;
        let shown = view.start_line.saturating_sub(1)..view.end_line;
        self.remember(&real, &view.rev, &doc, &[shown], true);
        let mut view = view;
        self.tell_recoveries(&mut view.text);
        Ok(ReadResult {
            path: display,
            view,
        })
    }

    /// The store's document of the same file as `doc`, if it keeps one,
    /// with its REV and the digests of the lines hashed before; else `doc`,
    /// keeping the digests of the lines its view hashes when the store is to
    /// keep it.
    fn stored(&self, real: &Path, doc: Document) -> Arc<Document> {
        let mut store = lock(&self.store);
        if let Some(same) = store.same_version(real, &doc) {
            return same;
        }
        if store.keeps(doc.text().len()) {
            doc.keep_tags();
        }
        Arc::new(doc)
    }

    /// Refs for lines another viewer displayed, computed from the file
    /// itself; the lines count as seen.
    pub fn tag(&self, path: &str, shown: &[ShownLine]) -> Result<Tagged> {
        self.tag_with(path, shown, &CallOptions::default())
    }

    /// `tag`, with the call's options.
    pub fn tag_with(
        &self,
        path: &str,
        shown: &[ShownLine],
        options: &CallOptions,
    ) -> Result<Tagged> {
        let (real, _, doc) = self.load_for_view(path, options.allow_outside)?;
        let doc = Arc::new(doc);
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
                    match self.options.view {
                        ViewStyle::Lean => Ref::pair_of_line(&doc, index),
                        ViewStyle::Full => Ref::of_line(&doc, index),
                    }
                    .to_string()
                })
            })
            .collect();
        self.remember(&real, &rev, &doc, &seen, true);
        Ok(Tagged {
            rev,
            total_lines: n,
            refs,
        })
    }

    /// Removes the view prefixes a model copied into `text`, the new
    /// content of the file at `path` (a host's `write`), where the versions
    /// this session showed, or the lines themselves, prove them copies.
    /// Content whose prefixes nothing vouches for comes back as sent. Content
    /// in between is refused with `AMBIGUOUS_ECHO`; the same content sent
    /// again for the same file is then returned as sent, since sending it
    /// again after that refusal is how a model says it means it.
    pub fn strip_view_prefixes(&self, path: &str, text: &str) -> Result<Stripped> {
        self.strip_view_prefixes_with(path, text, &CallOptions::default())
    }

    /// `strip_view_prefixes`, with the call's options.
    pub fn strip_view_prefixes_with(
        &self,
        path: &str,
        text: &str,
        options: &CallOptions,
    ) -> Result<Stripped> {
        let target = self.target(path, options.allow_outside)?;
        if !self.options.cleanup {
            return Ok(Stripped {
                text: text.to_owned(),
                stripped: 0,
                note: None,
            });
        }
        let key = (target.real.clone(), Sha1::digest(text.as_bytes()).into());
        {
            let mut refused = lock(&self.refused);
            if let Some(at) = refused.iter().position(|k| *k == key) {
                refused.remove(at);
                return Ok(Stripped {
                    text: text.to_owned(),
                    stripped: 0,
                    note: None,
                });
            }
        }
        let lines: Vec<&str> = text.lines().collect();
        let (history, others) = if crate::prefix::may_hold(&lines) {
            let mut store = lock(&self.store);
            (
                store.versions(&target.real),
                store.shown_elsewhere(&target.real),
            )
        } else {
            (Vec::new(), Vec::new())
        };
        let stripped = crate::prefix::strip_text(
            text,
            &target.display,
            crate::prefix::Shown::new(&target.display, &history, &others),
            "send the same content again: sent again after this refusal, it is written exactly as sent",
        );
        match stripped {
            Ok((text, stripped, note)) => Ok(Stripped {
                text,
                stripped,
                note,
            }),
            Err(err) => {
                let mut refused = lock(&self.refused);
                if refused.len() == REFUSED_CONTENTS {
                    refused.remove(0);
                }
                refused.push(key);
                Err(err)
            }
        }
    }

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

    /// The parse tree of `doc`, the file at `target` now, if this session
    /// wrote that version and the check is on.
    pub(crate) fn kept_tree(&self, target: &Target, doc: &Document) -> Option<KeptTree> {
        if self.options.syntax == SyntaxCheck::Off {
            return None;
        }
        self.trees.get(&target.real, doc.rev())
    }

    pub(crate) fn plan_target(&self, target: Target, request: &Request) -> Result<EditPlan> {
        let loaded = self.load(&target, request.creates())?;
        let found = loaded.found();
        let old = loaded.doc;
        let (history, others, store_note, keeps_old) = {
            let mut store = lock(&self.store);
            let history = store.versions(&target.real);
            // Only content with lines in a view prefix's form needs the
            // versions of other files, whose lines may vouch for them.
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
        // of the old version, or else one of its own if the store is to keep
        // it, goes with the plan: recorded once the edit is written, refs
        // to it remap after the edit even if the store let it go meanwhile.
        let kept = match history.iter().find(|v| v.rev == old.rev()) {
            Some(stored) => Some(Arc::clone(&stored.doc)),
            None => keeps_old.then(|| Arc::new(old.clone())),
        };
        let edited = prepared
            .apply(old)
            .inspect_err(|err| debug_assert!(err.shown.is_empty(), "{err:?}"))?;
        let had_history = !history.is_empty();
        self.plan_edited(target, found, kept, edited, had_history)
    }

    /// The plan for a new version, of the file at `target` when it was
    /// `base`; `old`, the version edited, is recorded once the plan is
    /// written if given; `had_history` says refs from earlier views exist.
    pub(crate) fn plan_edited(
        &self,
        target: Target,
        found: Found,
        old: Option<Arc<Document>>,
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
            },
            shown: edited.summary.shown,
            map: Arc::new(edited.map),
            remapped_from: edited.remapped_from,
            new: Arc::new(edited.doc),
            tree: edited.tree,
            old,
            base: found.base,
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
            self.remember(&target.real, doc.rev(), doc, &err.shown, false);
        }
        err
    }

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
        if plan.owner != self.id {
            return Err(Error::invalid_request(format!(
                "This plan for {} was made by another Hashline instance; only that one can commit it. Plan the edit again with this one.",
                plan.result.path
            ))
            .with_path(&plan.result.path));
        }
        let _guard = self.path_lock(&plan.target)?;
        self.write(plan, last_step)
    }

    pub(crate) fn write<T>(
        &self,
        plan: &EditPlan,
        last_step: impl FnOnce(&EditResult) -> Result<T>,
    ) -> Result<T> {
        let out = self.transact(&[plan.change()], || last_step(&plan.result))?;
        self.written(plan);
        Ok(out)
    }

    /// Records a plan that was written. The file is written: what follows
    /// only records it, and a bug there must not turn a written edit into
    /// an error.
    pub(crate) fn written(&self, plan: &EditPlan) {
        let _ = catch_unwind(AssertUnwindSafe(|| self.record_write(plan)));
    }

    fn record_write(&self, plan: &EditPlan) {
        let path = &plan.target.real;
        if let Some(tree) = &plan.tree {
            self.trees.put(path, &plan.result.rev, tree.clone());
        }
        let mut store = lock(&self.store);
        if let Some(from) = &plan.remapped_from {
            store.touch(path, from);
        }
        // Lines a view showed and the edit left alone stay known in the new
        // version, wherever they moved; the lines the result shows are shown.
        let seen_before = store.seen(path, &plan.result.previous_rev);
        if let Some(old) = &plan.old {
            store.record(path, &plan.result.previous_rev, old, 0..0);
        }
        store.record_all(path, &plan.result.rev, &plan.new, &plan.shown, false);
        store.carry(
            path,
            &plan.result.rev,
            &plan.new,
            &plan.map.ranges(&seen_before),
        );
        store.link(
            path,
            &plan.result.rev,
            Parent {
                rev: plan.result.previous_rev.clone(),
                map: Arc::clone(&plan.map),
            },
        );
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
        let _guard = self.path_lock(&target)?;
        let mut plan = self.plan_target(target, request)?;
        self.tell_recoveries(&mut plan.result.output);
        self.write(&plan, last_step)
    }

    /// The locks of several files, taken in the order of their paths so
    /// that two calls of this session never wait on each other.
    pub(crate) fn path_locks(
        &self,
        targets: &[&Target],
    ) -> Result<Vec<ArcMutexGuard<RawMutex, ()>>> {
        let mut sorted: Vec<&Target> = targets.to_vec();
        sorted.sort_by(|a, b| a.real.cmp(&b.real));
        sorted.dedup_by(|a, b| a.real == b.real);
        sorted.iter().map(|t| self.path_lock(t)).collect()
    }

    /// The lock of one file, for the edits of this session; waits at most
    /// the lock timeout.
    pub(crate) fn path_lock(&self, target: &Target) -> Result<ArcMutexGuard<RawMutex, ()>> {
        let mutex = Arc::clone(lock(&self.locks).entry(target.real.clone()).or_default());
        let timeout = self.options.lock_timeout;
        mutex.try_lock_arc_for(timeout).ok_or_else(|| {
            locked(
                &target.display,
                "another edit of it in this process",
                timeout,
            )
            .with_path(&target.display)
        })
    }
}

/// Cuts `text` to `MAX_RESULT_BYTES` at a line end, and says so.
fn bound(text: &mut String, what: &str) {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::request::{OpKind, Operation};
    use std::fs;

    fn append(text: &str) -> Request {
        Request::Operations {
            operations: vec![Operation::new(OpKind::Append, None, None, text)],
            rev: None,
        }
    }

    #[test]
    fn a_view_takes_a_stored_version_only_when_it_holds_the_same_file() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("f.txt");
        let mut options = Options::new(dir.path());
        options.view = ViewStyle::Full;
        let hl = Hashline::new(options).unwrap();
        let read = |bytes: &str| {
            fs::write(&file, bytes).unwrap();
            let shown = hl.read("f.txt").unwrap().view;
            let fresh = crate::format_view_with(
                bytes,
                "f.txt",
                &crate::FormatViewOptions {
                    view: ViewStyle::Full,
                    ..Default::default()
                },
            )
            .unwrap();
            assert_eq!(shown.text, fresh.text, "{bytes:?}");
            assert_eq!(shown.rev, crate::Document::from_text(bytes).rev());
        };
        let lines: String = (0..3000).map(|i| format!("line {}\n", i % 50)).collect();
        read(&lines);
        read(&lines);
        // Other text of the same length, the same text with other line
        // endings, and back.
        read(&lines.replacen("line 7", "line X", 1));
        read(&lines.replace('\n', "\r\n"));
        read(&lines);
    }

    #[test]
    fn a_plan_is_committed_only_by_the_session_that_made_it() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("f.txt"), "a\n").unwrap();
        let a = Hashline::new(Options::new(dir.path())).unwrap();
        let b = Hashline::new(Options::new(dir.path())).unwrap();
        let plan = a.plan("f.txt", &append("b")).unwrap();
        assert_eq!(b.commit(&plan).unwrap_err().code, ErrorCode::InvalidRequest);
        assert_eq!(fs::read_to_string(dir.path().join("f.txt")).unwrap(), "a\n");
        a.commit(&plan).unwrap();
        assert_eq!(
            fs::read_to_string(dir.path().join("f.txt")).unwrap(),
            "a\nb\n"
        );
    }

    #[test]
    fn an_edit_waits_for_the_lock_of_its_file_a_bounded_time() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("f.txt"), "a\n").unwrap();
        let mut options = Options::new(dir.path());
        options.lock_timeout = Duration::from_millis(20);
        let hl = Hashline::new(options).unwrap();
        let target = hl.target("f.txt", false).unwrap();
        let held = hl.path_lock(&target).unwrap();
        let err =
            std::thread::scope(|s| s.spawn(|| hl.edit("f.txt", &append("b"))).join().unwrap())
                .unwrap_err();
        assert_eq!(err.code, ErrorCode::Locked);
        assert!(err.message.contains("another edit of it in this process"));
        drop(held);
        hl.edit("f.txt", &append("b")).unwrap();
        assert_eq!(
            fs::read_to_string(dir.path().join("f.txt")).unwrap(),
            "a\nb\n"
        );
    }

    #[test]
    fn a_failing_last_step_leaves_the_file_as_it_was() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("f.txt"), "a\n").unwrap();
        let hl = Hashline::new(Options::new(dir.path())).unwrap();
        let err = hl
            .edit_then(
                "f.txt",
                &append("b"),
                &crate::CallOptions {
                    ..Default::default()
                },
                |_| Err::<(), _>(Error::new(ErrorCode::Internal, "cannot convert")),
            )
            .unwrap_err();
        assert_eq!(err.message, "cannot convert");
        assert_eq!(fs::read_to_string(dir.path().join("f.txt")).unwrap(), "a\n");
        let names: Vec<_> = fs::read_dir(dir.path()).unwrap().flatten().collect();
        assert_eq!(names.len(), 1);
    }

    #[test]
    fn a_long_result_is_cut_at_a_line_end_with_a_note() {
        let mut text = format!(
            "{}\n{}\n",
            "a".repeat(MAX_RESULT_BYTES - 10),
            "b".repeat(20)
        );
        let total = text.len();
        bound(&mut text, "diff");
        assert_eq!(
            text,
            format!(
                "{}\n… (diff cut at {} of {total} bytes)\n",
                "a".repeat(MAX_RESULT_BYTES - 10),
                MAX_RESULT_BYTES - 9
            )
        );
        let mut short = "x\n".to_string();
        bound(&mut short, "diff");
        assert_eq!(short, "x\n");
    }
}
