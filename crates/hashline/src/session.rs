//! A `Hashline` session: a root, options, and the store of versions its
//! views and edits have produced. Everything that touches files goes
//! through here.

use crate::cancel::Cancel;
use crate::document::Document;
use crate::edit::{prepare, EditInput, EditOutcome, Edited};
use crate::error::{Error, ErrorCode, Result};
use crate::file::{load, load_for_view, Base, Found, Loaded, Root, Target, DEFAULT_MAX_FILE_BYTES};
use crate::lock::{locked, DEFAULT_LOCK_TIMEOUT};
use crate::problem::Problem;
use crate::recovery;
use crate::reference::Ref;
use crate::remap::LineMap;
use crate::request::Request;
use crate::store::{Parent, Sight, Store, StoreLimits, StoredDoc, Version};
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
use std::time::{Duration, Instant};

mod commit;
mod edit;
mod notebook;
mod read;

pub use commit::Committable;
pub(crate) use commit::Plan;
#[cfg(test)]
mod tests;

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
    /// Show the file's own text, even of a notebook, whose view is its
    /// cells otherwise (`docs/format.md` §10).
    pub raw: bool,
}

/// The options of a call on a path.
#[derive(Debug, Clone, Default)]
pub struct CallOptions {
    /// Allow a path outside the root (the host asked its user).
    pub allow_outside: bool,
    /// The host's request to stop the call: a call that writes stops at
    /// its next safe point, a wait for a lock included, with `CANCELLED`
    /// and nothing written.
    pub cancel: Cancel,
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
    /// What the stale-ref policy and the clean-up did.
    pub outcome: EditOutcome,
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
    old: Option<StoredDoc>,
    new: Arc<Document>,
    /// The new version's parse tree (or why it has none), kept for the next
    /// edit once written.
    tree: Option<KeptTree>,
    shown: Vec<Range<usize>>,
    map: Arc<LineMap>,
    remapped_from: Option<String>,
    result: EditResult,
    /// A notebook edited through its cells: what the store keeps of it,
    /// the cells, in place of the version's text.
    cells: Option<Box<notebook::CellsRecord>>,
}

impl EditPlan {
    /// The result the edit will have once committed.
    pub fn result(&self) -> &EditResult {
        &self.result
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
    /// The same content was refused for this file before, and is now
    /// handed back as sent: sent again, it is meant as it is.
    pub resent: bool,
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
    /// A wait for a lock ends, with `CANCELLED`, once `cancel` is.
    pub(crate) fn transact<T>(
        &self,
        changes: &[Change<'_>],
        cancel: &Cancel,
        last_step: impl FnOnce() -> Result<T>,
    ) -> Result<T> {
        transaction::commit(changes, &self.settings(cancel), last_step)
    }

    /// What a transaction of this session needs.
    pub(crate) fn settings(&self, cancel: &Cancel) -> Settings<'_> {
        Settings {
            root: &self.root,
            lock_timeout: self.options.lock_timeout,
            cancel: cancel.clone(),
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
    /// canonical path) were shown, asked for or not.
    pub(crate) fn remember(
        &self,
        real: &Path,
        rev: &str,
        doc: &Arc<Document>,
        lines: &[Range<usize>],
        sight: Sight,
    ) {
        lock(&self.store).record_all(real, rev, doc, lines, sight);
        if let Some(parse) = self.options.syntax.parse_of(&real.to_string_lossy(), None) {
            Trees::parse_later(&self.trees, real, rev, doc, parse.language);
        }
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
}
