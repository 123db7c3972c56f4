//! Recent versions of each file, keyed by REV, with the lines each version
//! was shown with: what lets refs from an earlier view be remapped provably
//! and lets an edit on lines nobody saw be caught.
//!
//! Versions kept on disk are data anyone able to write there may have
//! changed: the folder is made private, entries the current user does not
//! own (or that are not plain files) are ignored, and an entry that does not
//! parse, whose text does not hash to its REV, or whose line map or seen
//! lines do not fit its text is skipped and reported once. A line map read
//! back is only a hint (see `LineMap::hint`).
//!
//! On disk a version is two files named by the file's key and its REV: the
//! text (`.hlt`), written once, and a small header (`.hlv`: path, seen lines,
//! parent) rewritten when more of the version is shown. Reading or searching
//! an unchanged file therefore writes no copy of it. The folder as a whole
//! is kept under a byte cap shared by every process using it: versions last
//! used longest ago (by their files' times, which a use refreshes) go first.

use crate::document::Document;
use crate::hash::rev;
use crate::remap::LineMap;
use sha1::{Digest, Sha1};
use std::collections::{HashMap, HashSet};
use std::fs;
use std::io::{Read, Write};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::Arc;

mod disk;
mod stored_doc;
#[cfg(test)]
mod tests;

pub use stored_doc::StoredDoc;

use disk::{
    add_written, file_key, load, save, set_now, set_written, sweep, DISK_SUFFIX, SWEEP_SHARE,
    TEXT_SUFFIX,
};
pub use disk::{clear, Cleared};

/// The store folder's default byte cap.
pub const DEFAULT_MAX_DISK_BYTES: u64 = 256 << 20;

/// How much the version store keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StoreLimits {
    /// Versions kept, least recently used evicted first.
    pub max_versions: usize,
    /// Bytes of text kept in all.
    pub max_bytes: usize,
    /// Larger documents are not kept at all.
    pub max_version_bytes: usize,
    /// The most the store folder may hold, across every process using it.
    pub max_disk_bytes: u64,
}

impl Default for StoreLimits {
    fn default() -> Self {
        StoreLimits {
            max_versions: 64,
            max_bytes: 128 << 20,
            max_version_bytes: 32 << 20,
            max_disk_bytes: DEFAULT_MAX_DISK_BYTES,
        }
    }
}

/// One stored version of a file.
#[derive(Debug, Clone)]
pub struct Version {
    pub rev: String,
    pub doc: StoredDoc,
    /// Lines (0-based, end exclusive) some view of this version displayed,
    /// sorted and merged (`add_ranges`), so that `saw` can search them.
    pub seen: Vec<Range<usize>>,
    /// Lines a view of an earlier version displayed that the edits since
    /// left as they were, at their numbers here: the model knows their text,
    /// but no view showed them with these numbers and refs.
    pub carried: Vec<Range<usize>>,
    /// When a view the model asked for (a read, a search) last displayed
    /// lines of this version, in microseconds since the Unix epoch (strictly
    /// rising within a process; 0 for a version never read), so that a
    /// version the model read later is known from one it read before, in
    /// this process or another. Lines an edit result or a rejection shows
    /// count as seen, but not as read: they come unasked.
    pub read_at: u64,
    /// The version this one was made from by an edit, and where that edit
    /// moved each unchanged line: exactly, when this process made the edit;
    /// as a hint to be checked, when read back from disk.
    pub parent: Option<Parent>,
}

/// How the model came to know lines of a version: what the store records
/// with them, and what the stale-ref policy weighs (`docs/format.md` §6).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sight {
    /// A view the model asked for showed them (a read, a search, a host's
    /// read the engine tagged): they are shown, and the version is read.
    Asked,
    /// A result showed them unasked (an edit's result, a rejection): they
    /// are shown.
    Unasked,
    /// An edit left them unchanged from a version where they were seen: they
    /// are carried.
    Carried,
}

impl Sight {
    /// The lines of `version` known this way.
    fn ranges(self, version: &mut Version) -> &mut Vec<Range<usize>> {
        match self {
            Sight::Carried => &mut version.carried,
            Sight::Asked | Sight::Unasked => &mut version.seen,
        }
    }
}

#[derive(Debug, Clone)]
pub struct Parent {
    pub rev: String,
    pub map: Arc<LineMap>,
}

impl Version {
    /// Whether the model knows line `index` of this version: a view showed
    /// it, here or, unchanged, in an earlier version.
    pub fn saw(&self, index: usize) -> bool {
        self.showed(index) || {
            let at = self.carried.partition_point(|r| r.end <= index);
            self.carried.get(at).is_some_and(|r| r.start <= index)
        }
    }

    /// Whether a view of this version showed line `index`, with its number
    /// and ref here.
    pub fn showed(&self, index: usize) -> bool {
        let at = self.seen.partition_point(|r| r.end <= index);
        self.seen.get(at).is_some_and(|r| r.start <= index)
    }
}

#[derive(Debug)]
struct Entry {
    path: PathBuf,
    version: Version,
    last_used: u64,
}

#[derive(Debug, Default)]
pub struct Store {
    limits: StoreLimits,
    entries: Vec<Entry>,
    clock: u64,
    /// The last time a version was read (`Version::read_at`).
    read_clock: u64,
    /// Where versions are also written, so that a later process (a command
    /// line run per edit) can remap refs from an earlier one's view.
    dir: Option<PathBuf>,
    /// Paths whose versions on disk were read already: once per process is
    /// enough, since every version this process makes is in memory.
    loaded: HashSet<PathBuf>,
    /// Damaged versions found on disk per path, not yet reported.
    damaged: HashMap<PathBuf, usize>,
    /// Versions on disk whose time this process refreshed already.
    refreshed: HashSet<(PathBuf, String)>,
}

impl Store {
    pub fn new(limits: StoreLimits) -> Self {
        Store {
            limits,
            entries: Vec::new(),
            clock: 0,
            read_clock: 0,
            dir: None,
            loaded: HashSet::new(),
            damaged: HashMap::new(),
            refreshed: HashSet::new(),
        }
    }

    /// A store that also keeps its versions in `dir`.
    pub fn persistent(limits: StoreLimits, dir: PathBuf) -> Self {
        Store {
            dir: Some(dir),
            ..Store::new(limits)
        }
    }

    /// Records that `lines` of this version of `path` were displayed,
    /// unasked (an empty range records the version alone).
    pub fn record(
        &mut self,
        path: &Path,
        rev: &str,
        doc: impl Into<StoredDoc>,
        lines: Range<usize>,
    ) {
        self.record_all(path, rev, doc, &[lines], Sight::Unasked);
    }

    /// Records how the model came to know several ranges of one version at
    /// once, so that a store on disk writes the version once rather than
    /// once per range.
    pub fn record_all(
        &mut self,
        path: &Path,
        rev: &str,
        doc: impl Into<StoredDoc>,
        ranges: &[Range<usize>],
        sight: Sight,
    ) {
        let doc = doc.into();
        if !self.keeps(doc.text_len()) {
            return;
        }
        self.clock += 1;
        let clock = self.clock;
        let read_at = if sight == Sight::Asked {
            self.stamp()
        } else {
            0
        };
        self.load(path);
        let index = match self
            .entries
            .iter()
            .position(|e| e.version.rev == rev && e.path == path)
        {
            Some(index) => {
                let entry = &mut self.entries[index];
                entry.last_used = clock;
                let read_before = entry.version.read_at;
                entry.version.read_at = read_at.max(read_before);
                let before = sight.ranges(&mut entry.version).clone();
                add_ranges(sight.ranges(&mut entry.version), ranges);
                // The time it was read matters on disk only beside another
                // version of the file, to tell which one the model read last.
                let alone = !self
                    .entries
                    .iter()
                    .any(|e| e.path == path && e.version.rev != rev);
                let entry = &mut self.entries[index];
                if *sight.ranges(&mut entry.version) == before
                    && (alone || entry.version.read_at == read_before)
                {
                    self.refresh(path, rev);
                    return;
                }
                index
            }
            None => {
                let mut version = Version {
                    rev: rev.to_owned(),
                    doc,
                    seen: Vec::new(),
                    carried: Vec::new(),
                    parent: None,
                    read_at,
                };
                add_ranges(sight.ranges(&mut version), ranges);
                self.entries.push(Entry {
                    path: path.to_owned(),
                    version,
                    last_used: clock,
                });
                self.entries.len() - 1
            }
        };
        self.save(index);
        self.evict();
    }

    /// A time for a version shown now: the clock's, or one more than the
    /// last given out if the clock has not moved on (or went back).
    fn stamp(&mut self) -> u64 {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_micros() as u64);
        self.read_clock = now.max(self.read_clock + 1);
        self.read_clock
    }

    /// Writes the entry at `index` to disk, if this store has a folder.
    fn save(&mut self, index: usize) {
        let Some(dir) = &self.dir else {
            return;
        };
        let entry = &self.entries[index];
        // The store is a cache: a version that cannot be written only means
        // fewer refs can be recovered later, never a wrong edit.
        let written = save(dir, &entry.path, &entry.version).unwrap_or(0);
        self.refreshed
            .insert((entry.path.clone(), entry.version.rev.clone()));
        if written == 0 {
            return;
        }
        let max = self.limits.max_disk_bytes;
        if add_written(dir, written).is_none_or(|since| since >= max / SWEEP_SHARE as u64) {
            sweep(dir, max);
            let _ = set_written(dir, 0);
        }
    }

    /// Marks the version `rev` of `path` on disk as just used (once per
    /// process), so that the byte cap removes versions nobody uses first.
    fn refresh(&mut self, path: &Path, rev: &str) {
        let Some(dir) = &self.dir else {
            return;
        };
        if self.refreshed.insert((path.to_owned(), rev.to_owned())) {
            let stem = format!("{}-{rev}", file_key(path));
            for suffix in [DISK_SUFFIX, TEXT_SUFFIX] {
                let _ = set_now(&dir.join(format!("{stem}{suffix}")));
            }
        }
    }

    /// Whether a version of `bytes` bytes of text would be kept.
    pub fn keeps(&self, bytes: usize) -> bool {
        bytes <= self.limits.max_version_bytes && self.limits.max_versions > 0
    }

    /// Marks a version as just used, so that the version a model read stays
    /// while it keeps editing from it.
    pub fn touch(&mut self, path: &Path, rev: &str) {
        self.clock += 1;
        let clock = self.clock;
        if let Some(entry) = self
            .entries
            .iter_mut()
            .find(|e| e.version.rev == rev && e.path == path)
        {
            entry.last_used = clock;
        }
        self.refresh(path, rev);
    }

    /// Records that version `rev` of `path` was made from `parent` by an
    /// edit (the version must be recorded already).
    pub fn link(&mut self, path: &Path, rev: &str, parent: Parent) {
        let Some(index) = self
            .entries
            .iter()
            .position(|e| e.version.rev == rev && e.path == path)
        else {
            return;
        };
        self.entries[index].version.parent = Some(parent);
        self.save(index);
    }

    /// Brings the versions of `path` kept on disk into memory (as least
    /// recently used), once per version.
    fn load(&mut self, path: &Path) {
        let Some(dir) = &self.dir else {
            return;
        };
        if !self.loaded.insert(path.to_owned()) {
            return;
        }
        let (mut loaded, mut damaged) = load(dir, path, self.limits.max_version_bytes);
        // A line map must also fit the text it maps from, where that text
        // is known; elsewhere the plan checks it before use.
        let line_counts: HashMap<String, usize> = loaded
            .iter()
            .chain(
                self.entries
                    .iter()
                    .filter(|e| e.path == path)
                    .map(|e| &e.version),
            )
            .map(|v| (v.rev.clone(), v.doc.line_count()))
            .collect();
        loaded.retain(|v| {
            let fits = v.parent.as_ref().is_none_or(|p| {
                line_counts
                    .get(&p.rev)
                    .is_none_or(|&lines| p.map.fits(lines))
            });
            damaged += usize::from(!fits);
            fits
        });
        if damaged > 0 {
            *self.damaged.entry(path.to_owned()).or_default() += damaged;
        }
        let mut added = false;
        for version in loaded {
            if !self
                .entries
                .iter()
                .any(|e| e.path == path && e.version.rev == version.rev)
                && version.doc.text_len() <= self.limits.max_version_bytes
            {
                self.entries.push(Entry {
                    path: path.to_owned(),
                    version,
                    last_used: 0,
                });
                added = true;
            }
        }
        if added {
            self.evict();
        }
    }

    /// The stored versions of `path`, most recently used first.
    pub fn versions(&mut self, path: &Path) -> Vec<Version> {
        self.load(path);
        let mut found: Vec<&Entry> = self.entries.iter().filter(|e| e.path == path).collect();
        found.sort_by_key(|e| std::cmp::Reverse(e.last_used));
        found.into_iter().map(|e| e.version.clone()).collect()
    }

    /// The stored version of `path` that holds the same file as `doc`, the
    /// one used last if several do: its document has its REV and the
    /// digests of the lines views hashed, which a view of `doc` can take
    /// instead of hashing them again.
    pub fn same_version(&mut self, path: &Path, doc: &Document) -> Option<Arc<Document>> {
        self.load(path);
        self.entries
            .iter()
            .filter(|e| e.path == path && e.version.doc.text_len() == doc.text().len())
            .filter(|e| e.version.doc.same_file(doc))
            .max_by_key(|e| e.last_used)
            .map(|e| Arc::clone(e.version.doc.whole()))
    }

    /// The versions of files other than `path` kept in memory with lines
    /// shown, most recently used first.
    pub fn shown_elsewhere(&self, path: &Path) -> Vec<Version> {
        let mut found: Vec<&Entry> = self
            .entries
            .iter()
            .filter(|e| e.path != path && !e.version.seen.is_empty())
            .collect();
        found.sort_by_key(|e| std::cmp::Reverse(e.last_used));
        found.into_iter().map(|e| e.version.clone()).collect()
    }

    /// A note for the next result about `path`, once, if damaged versions of
    /// it were found on disk and ignored.
    pub fn take_damage_note(&mut self, path: &Path) -> Option<String> {
        let count = self.damaged.remove(path)?;
        Some(if count == 1 {
            "a stored version of this file was damaged and was ignored; no ref was remapped through it.".to_owned()
        } else {
            format!("{count} stored versions of this file were damaged and were ignored; no ref was remapped through them.")
        })
    }

    /// The lines of version `rev` of `path` the model knows: shown there,
    /// or carried there unchanged from an earlier version.
    pub fn seen(&self, path: &Path, rev: &str) -> Vec<Range<usize>> {
        self.entries
            .iter()
            .find(|e| e.path == path && e.version.rev == rev)
            .map(|e| {
                let mut all = e.version.seen.clone();
                add_ranges(&mut all, &e.version.carried);
                all
            })
            .unwrap_or_default()
    }

    fn evict(&mut self) {
        loop {
            let bytes: usize = self.entries.iter().map(|e| e.version.doc.text_len()).sum();
            if self.entries.len() <= self.limits.max_versions && bytes <= self.limits.max_bytes {
                return;
            }
            let oldest = self
                .entries
                .iter()
                .enumerate()
                .min_by_key(|(_, e)| e.last_used)
                .map(|(i, _)| i);
            match oldest {
                Some(i) => {
                    self.entries.swap_remove(i);
                }
                None => return,
            }
        }
    }
}

/// Adds `new` to the sorted, merged `ranges`, keeping them so: one sort of
/// them all, so that a view of many separate lines (a search's hits) is
/// recorded in `n log n`, not one merge per line.
fn add_ranges(ranges: &mut Vec<Range<usize>>, new: &[Range<usize>]) {
    ranges.extend(new.iter().filter(|r| !r.is_empty()).cloned());
    ranges.sort_unstable_by_key(|r| r.start);
    let mut merged: Vec<Range<usize>> = Vec::with_capacity(ranges.len());
    for r in ranges.drain(..) {
        match merged.last_mut() {
            Some(last) if r.start <= last.end => last.end = last.end.max(r.end),
            _ => merged.push(r),
        }
    }
    *ranges = merged;
}
