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

/// Versions of one file kept on disk; older ones are pruned.
const DISK_VERSIONS_PER_FILE: usize = 16;
const DISK_MAGIC: &str = "hashline-version 3";
/// Versions written before texts were kept apart, or before the time a
/// version was last shown was kept: ignored, and left to the byte cap to
/// remove.
const OLD_DISK_MAGICS: [&str; 2] = ["hashline-version 1", "hashline-version 2"];
const DISK_SUFFIX: &str = ".hlv";
const TEXT_SUFFIX: &str = ".hlt";
/// The store folder is swept for its byte cap once this share of the cap has
/// been written since the last sweep, so that a grep writing many versions
/// lists the folder a few times, not once per file; the folder can pass its
/// cap by about this share between sweeps.
const SWEEP_SHARE: usize = 16;
/// The file in the store folder that counts the bytes every process wrote
/// since the folder's last sweep. A sweep lists and measures every file of
/// the folder; without a count shared between processes, each command-line
/// call would have to sweep at its first write.
const LEDGER: &str = "written-since-sweep";

/// A file larger than this is no store file: the store keeps no text of
/// this size, nor a header for one.
const MAX_PROOF_BYTES: u64 = 1 << 36;

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
    pub doc: Arc<Document>,
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
    pub fn record(&mut self, path: &Path, rev: &str, doc: &Arc<Document>, lines: Range<usize>) {
        self.record_all(path, rev, doc, &[lines], Sight::Unasked);
    }

    /// Records how the model came to know several ranges of one version at
    /// once, so that a store on disk writes the version once rather than
    /// once per range.
    pub fn record_all(
        &mut self,
        path: &Path,
        rev: &str,
        doc: &Arc<Document>,
        ranges: &[Range<usize>],
        sight: Sight,
    ) {
        if !self.keeps(doc.text().len()) {
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
                    doc: Arc::clone(doc),
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
                && version.doc.text().len() <= self.limits.max_version_bytes
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
            .filter(|e| e.path == path && e.version.doc.text().len() == doc.text().len())
            .filter(|e| e.version.doc.same_file(doc))
            .max_by_key(|e| e.last_used)
            .map(|e| Arc::clone(&e.version.doc))
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
            let bytes: usize = self
                .entries
                .iter()
                .map(|e| e.version.doc.text().len())
                .sum();
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

fn file_key(path: &Path) -> String {
    hex::encode(&Sha1::digest(path.to_string_lossy().as_bytes())[..8])
}

/// Whether the current user owns what `meta` describes: only what it wrote
/// itself is read back, so another user cannot plant a version.
#[cfg(unix)]
fn owned(meta: &fs::Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    meta.uid() == rustix::process::geteuid().as_raw()
}

#[cfg(not(unix))]
fn owned(_: &fs::Metadata) -> bool {
    true
}

/// Whether `dir` is a folder of the current user's, creating it private
/// (0700, with any missing parents) when `create` and it is missing.
fn usable_dir(dir: &Path, create: bool) -> bool {
    match fs::metadata(dir) {
        Ok(meta) => meta.is_dir() && owned(&meta),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound && create => {
            let mut builder = fs::DirBuilder::new();
            builder.recursive(true);
            #[cfg(unix)]
            std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
            builder.create(dir).is_ok() && usable_dir(dir, false)
        }
        Err(_) => false,
    }
}

/// One version as two files: its text, written only if missing (a REV
/// names one text), and a header (magic, path, seen ranges, parent). Each is
/// written to a temporary file and renamed, so concurrent processes never
/// read half of one; both are the user's alone (0600, as temporary files are
/// made). Returns the bytes written.
fn save(dir: &Path, path: &Path, version: &Version) -> std::io::Result<u64> {
    if !usable_dir(dir, true) {
        return Err(std::io::Error::new(
            std::io::ErrorKind::PermissionDenied,
            "the store folder is not the current user's",
        ));
    }
    let key = file_key(path);
    let stem = format!("{key}-{}", version.rev);
    let mut written = 0;
    let text_file = dir.join(format!("{stem}{TEXT_SUFFIX}"));
    let text = version.doc.text();
    // A damaged text is caught by its hash when read back; one that is
    // there with the right length is kept rather than written again.
    let present = fs::symlink_metadata(&text_file)
        .is_ok_and(|m| m.is_file() && owned(&m) && m.len() == text.len() as u64);
    if present {
        let _ = set_now(&text_file);
    } else {
        write_atomic(dir, &text_file, text.as_bytes())?;
        written += text.len() as u64;
    }
    let ranges = |list: &[Range<usize>]| -> String {
        list.iter()
            .map(|r| format!("{}-{}", r.start, r.end))
            .collect::<Vec<_>>()
            .join(",")
    };
    let parent = match &version.parent {
        Some(p) => {
            let runs: Vec<String> = p
                .map
                .runs()
                .iter()
                .map(|(o, n, l)| format!("{o}:{n}:{l}"))
                .collect();
            format!("{} {}", p.rev, runs.join(","))
        }
        None => String::new(),
    };
    let header = format!(
        "{DISK_MAGIC}\n{}\n{}\n{}\n{parent}\n{}\n",
        path.to_string_lossy(),
        ranges(&version.seen),
        ranges(&version.carried),
        version.read_at
    );
    write_atomic(
        dir,
        &dir.join(format!("{stem}{DISK_SUFFIX}")),
        header.as_bytes(),
    )?;
    written += header.len() as u64;
    prune(dir, &key);
    Ok(written)
}

fn write_atomic(dir: &Path, file: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut temp = tempfile::NamedTempFile::new_in(dir)?;
    temp.write_all(bytes)?;
    temp.persist(file).map_err(|e| e.error)?;
    Ok(())
}

/// Sets a store file's modification time to now: the time the byte cap
/// orders versions by. The file is opened without following a link.
fn set_now(file: &Path) -> std::io::Result<()> {
    #[cfg(unix)]
    let handle = {
        use rustix::fs::{Mode, OFlags};
        let flags = OFlags::WRONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC;
        fs::File::from(rustix::fs::open(file, flags, Mode::empty())?)
    };
    #[cfg(not(unix))]
    let handle = fs::OpenOptions::new().write(true).open(file)?;
    let meta = handle.metadata()?;
    if !meta.is_file() || !owned(&meta) {
        return Ok(());
    }
    handle.set_modified(std::time::SystemTime::now())
}

/// The store's own files in `dir` whose names start with `prefix`: plain
/// files of the current user's with a store suffix (a link, a pipe, another
/// user's file or anything else is never looked at, counted or removed).
/// Names are matched before anything is asked of the file system, so that
/// looking up one path's versions costs no call per other file.
fn store_files(dir: &Path, prefix: &str) -> Vec<(PathBuf, fs::Metadata)> {
    let Ok(entries) = fs::read_dir(dir) else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter(|e| {
            let name = e.file_name();
            let name = name.to_string_lossy();
            name.starts_with(prefix) && (name.ends_with(DISK_SUFFIX) || name.ends_with(TEXT_SUFFIX))
        })
        .filter_map(|e| {
            // The entry's own metadata: a link is not followed.
            let meta = e.metadata().ok()?;
            (meta.is_file() && owned(&meta)).then_some((e.path(), meta))
        })
        .collect()
}

/// Adds `bytes` to the folder's count of bytes written since its last sweep
/// and returns the new count, or `None` when there is no count to trust (none
/// yet, or a damaged one), which calls for a sweep. Processes that add at the
/// same moment may lose one another's bytes: the folder then passes its cap
/// by that much more before a sweep, which a cache can afford.
fn add_written(dir: &Path, bytes: u64) -> Option<u64> {
    let count = std::str::from_utf8(&read_owned(&dir.join(LEDGER), 64)?)
        .ok()?
        .trim()
        .parse::<u64>()
        .ok()?
        .saturating_add(bytes);
    set_written(dir, count).ok()?;
    Some(count)
}

fn set_written(dir: &Path, count: u64) -> std::io::Result<()> {
    write_atomic(dir, &dir.join(LEDGER), format!("{count}\n").as_bytes())
}

/// Removes the versions used longest ago until the folder's store files
/// hold at most `max` bytes. A version's header and text go together, and
/// its time is the later of theirs. Another process may remove the same
/// files at the same time: a file already gone is simply skipped.
fn sweep(dir: &Path, max: u64) {
    if !usable_dir(dir, false) {
        return;
    }
    let mut versions: HashMap<String, (std::time::SystemTime, u64, Vec<PathBuf>)> = HashMap::new();
    let mut total = 0u64;
    for (file, meta) in store_files(dir, "") {
        let name = file.file_name().unwrap_or_default().to_string_lossy();
        let stem = name
            .strip_suffix(DISK_SUFFIX)
            .or_else(|| name.strip_suffix(TEXT_SUFFIX))
            .unwrap_or(&name)
            .to_owned();
        let time = meta.modified().unwrap_or(std::time::UNIX_EPOCH);
        let version = versions
            .entry(stem)
            .or_insert((std::time::UNIX_EPOCH, 0, Vec::new()));
        version.0 = version.0.max(time);
        version.1 += meta.len();
        version.2.push(file);
        total += meta.len();
    }
    if total <= max {
        return;
    }
    let mut oldest_first: Vec<_> = versions.into_values().collect();
    oldest_first.sort_by_key(|(time, _, _)| *time);
    for (_, bytes, files) in oldest_first {
        if total <= max {
            break;
        }
        for file in files {
            if written_by_store(&file) {
                let _ = fs::remove_file(file);
            }
        }
        total = total.saturating_sub(bytes);
    }
}

/// Whether `file`, named as a store file, is one the store wrote, as its
/// content proves: a header starts with the magic line, a text hashes to
/// the REV in its name, the ledger holds a count. Only such files are ever
/// removed, so that a folder given as the store by mistake loses nothing
/// of its own.
fn written_by_store(file: &Path) -> bool {
    let name = file
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    if name == LEDGER {
        return read_owned(file, 64)
            .and_then(|b| String::from_utf8(b).ok())
            .is_some_and(|t| {
                t.strip_suffix('\n')
                    .is_some_and(|n| n.parse::<u64>().is_ok())
            });
    }
    let Some((stem, suffix)) = name.rsplit_once('.') else {
        return false;
    };
    let Some((key, file_rev)) = stem.split_once('-') else {
        return false;
    };
    let hex = |t: &str, n: usize| t.len() == n && t.bytes().all(|b| b.is_ascii_hexdigit());
    if !hex(key, 16) || !hex(file_rev, 8) {
        return false;
    }
    match suffix {
        "hlv" => read_owned(file, MAX_PROOF_BYTES).is_some_and(|header| {
            std::iter::once(DISK_MAGIC)
                .chain(OLD_DISK_MAGICS)
                .any(|magic| header.starts_with(format!("{magic}\n").as_bytes()))
        }),
        "hlt" => read_owned(file, MAX_PROOF_BYTES)
            .and_then(|text| String::from_utf8(text).ok())
            .is_some_and(|text| rev(&text) == file_rev),
        _ => false,
    }
}

/// What `clear` removed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Cleared {
    /// Files removed.
    pub files: usize,
    /// Bytes they held.
    pub bytes: u64,
    /// Files named as the store's whose content does not prove the store
    /// wrote them: left as they are.
    pub skipped: usize,
}

/// Empties the store folder `dir` of the current user's versions (nothing
/// else in it is touched: a file named as a version is removed only if its
/// content proves the store wrote it, and counted as skipped otherwise). A
/// folder that is missing is already empty; one that is not the user's is
/// refused.
pub fn clear(dir: &Path) -> std::io::Result<Cleared> {
    match fs::symlink_metadata(dir) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Cleared::default()),
        Err(e) => return Err(e),
        Ok(meta) if !meta.is_dir() || !owned(&meta) => {
            return Err(std::io::Error::new(
                std::io::ErrorKind::PermissionDenied,
                "the store folder is not a folder of the current user's",
            ))
        }
        Ok(_) => {}
    }
    let mut cleared = Cleared::default();
    let ledger = dir.join(LEDGER);
    let ledger = fs::symlink_metadata(&ledger)
        .ok()
        .filter(|meta| meta.is_file() && owned(meta))
        .map(|meta| (ledger, meta));
    for (file, meta) in store_files(dir, "").into_iter().chain(ledger) {
        if !written_by_store(&file) {
            cleared.skipped += 1;
        } else if fs::remove_file(&file).is_ok() {
            cleared.files += 1;
            cleared.bytes += meta.len();
        }
    }
    Ok(cleared)
}

/// The version headers of one path.
fn versions_on_disk(dir: &Path, key: &str) -> Vec<(PathBuf, std::time::SystemTime)> {
    store_files(dir, key)
        .into_iter()
        .filter(|(file, _)| file.to_string_lossy().ends_with(DISK_SUFFIX))
        .filter_map(|(file, meta)| Some((file, meta.modified().ok()?)))
        .collect()
}

fn prune(dir: &Path, key: &str) {
    let mut files = versions_on_disk(dir, key);
    if files.len() <= DISK_VERSIONS_PER_FILE {
        return;
    }
    files.sort_by_key(|(_, modified)| std::cmp::Reverse(*modified));
    for (file, _) in files.into_iter().skip(DISK_VERSIONS_PER_FILE) {
        for file in [file.with_extension(&TEXT_SUFFIX[1..]), file] {
            if written_by_store(&file) {
                let _ = fs::remove_file(file);
            }
        }
    }
}

/// What reading one version file gave.
enum Loaded {
    Version(Version),
    /// Not the current user's plain file, or larger than a version kept:
    /// not looked at.
    Ignored,
    Damaged,
}

/// Opens a version file without following a link or waiting on a pipe,
/// and reads it if it is still a plain file of the current user's of at
/// most `max` bytes (checked on the open file, so a swap after listing
/// changes nothing).
fn read_owned(file: &Path, max: u64) -> Option<Vec<u8>> {
    #[cfg(unix)]
    let handle = {
        use rustix::fs::{Mode, OFlags};
        let flags = OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC;
        fs::File::from(rustix::fs::open(file, flags, Mode::empty()).ok()?)
    };
    #[cfg(not(unix))]
    let handle = fs::File::open(file).ok()?;
    let meta = handle.metadata().ok()?;
    if !meta.is_file() || !owned(&meta) || meta.len() > max {
        return None;
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    handle.take(max + 1).read_to_end(&mut bytes).ok()?;
    (bytes.len() as u64 <= max).then_some(bytes)
}

/// Reads one version of `path`: its header and its text.
fn read_version(file: &Path, wanted: &str, max_text: usize) -> Loaded {
    // Room for the path, seen ranges and a line map of a text of up to
    // `max_text` bytes.
    let max = (max_text as u64).saturating_mul(2).saturating_add(1 << 20);
    let Some(header) = read_owned(file, max) else {
        return Loaded::Ignored;
    };
    if OLD_DISK_MAGICS
        .iter()
        .any(|m| header.starts_with(m.as_bytes()))
    {
        return Loaded::Ignored;
    }
    let text_file = file.with_extension(&TEXT_SUFFIX[1..]);
    // A text removed by the byte cap (perhaps by another process just now)
    // leaves a version that is simply gone.
    if fs::symlink_metadata(&text_file).is_err() {
        return Loaded::Ignored;
    }
    let Some(text) = read_owned(&text_file, max_text as u64) else {
        return Loaded::Ignored;
    };
    match parse_version(file, &header, &text, wanted) {
        Some(version) => Loaded::Version(version),
        None => Loaded::Damaged,
    }
}

/// A version from its header and text, or `None` if anything in it is
/// damaged: the header, a text that does not hash to the REV in the file's
/// name, seen ranges or a line map that do not fit the text.
fn parse_version(file: &Path, header: &[u8], text: &[u8], wanted: &str) -> Option<Version> {
    let name = file.file_name()?.to_string_lossy().into_owned();
    let file_rev = name
        .strip_suffix(DISK_SUFFIX)?
        .rsplit('-')
        .next()?
        .to_owned();
    let header = std::str::from_utf8(header).ok()?;
    let mut parts = header.splitn(7, '\n');
    if parts.next()? != DISK_MAGIC || parts.next()? != wanted {
        return None;
    }
    let seen_line = parts.next()?;
    let carried_line = parts.next()?;
    let parent_line = parts.next()?;
    let read_at = parts.next()?.parse().ok()?;
    if !parts.next()?.is_empty() {
        return None;
    }
    let text = std::str::from_utf8(text).ok()?;
    if rev(text) != file_rev {
        return None;
    }
    let doc = Document::from_text(text);
    let lines = doc.line_count();
    let ranges = |line: &str| {
        let listed = line
            .split(',')
            .filter(|s| !s.is_empty())
            .map(|r| {
                let (a, b) = r.split_once('-')?;
                let range: Range<usize> = a.parse().ok()?..b.parse().ok()?;
                (range.start < range.end && range.end <= lines).then_some(range)
            })
            .collect::<Option<Vec<Range<usize>>>>()?;
        let mut merged = Vec::new();
        add_ranges(&mut merged, &listed);
        Some(merged)
    };
    let seen = ranges(seen_line)?;
    let carried = ranges(carried_line)?;
    let parent = parse_parent(parent_line, lines)?;
    Some(Version {
        rev: file_rev,
        doc: Arc::new(doc),
        seen,
        carried,
        parent,
        read_at,
    })
}

/// The versions of `path` on disk, and how many were damaged; see
/// `read_version` for what is skipped.
fn load(dir: &Path, path: &Path, max_text: usize) -> (Vec<Version>, usize) {
    if !usable_dir(dir, false) {
        return (Vec::new(), 0);
    }
    let key = file_key(path);
    let wanted = path.to_string_lossy();
    let mut versions = Vec::new();
    let mut damaged = 0;
    for (file, _) in versions_on_disk(dir, &key) {
        match read_version(&file, &wanted, max_text) {
            Loaded::Version(version) => versions.push(version),
            Loaded::Ignored => {}
            Loaded::Damaged => damaged += 1,
        }
    }
    (versions, damaged)
}

/// `Some(None)` for no parent, `None` for a damaged line: runs that do not
/// parse or do not fit a text of `lines` lines.
fn parse_parent(line: &str, lines: usize) -> Option<Option<Parent>> {
    if line.is_empty() {
        return Some(None);
    }
    let (rev, runs) = line.split_once(' ').unwrap_or((line, ""));
    let runs = runs
        .split(',')
        .filter(|s| !s.is_empty())
        .map(|run| {
            let mut n = run.split(':').map(|x| x.parse::<usize>().ok());
            let parsed = (n.next()??, n.next()??, n.next()??);
            n.next().is_none().then_some(parsed)
        })
        .collect::<Option<Vec<_>>>()?;
    Some(Some(Parent {
        rev: rev.to_owned(),
        map: Arc::new(LineMap::hint(runs, lines)?),
    }))
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

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// Ranges recorded in any order, overlapping or not, are found by
        /// the search `saw` makes as by a look at each of them.
        #[test]
        fn a_line_is_seen_exactly_when_some_recorded_range_holds_it(
            batches in proptest::collection::vec(
                proptest::collection::vec((0usize..40, 0usize..6), 0..6),
                1..5,
            ),
        ) {
            let mut store = Store::new(StoreLimits::default());
            let text: String = (0..50).map(|i| format!("{i}\n")).collect();
            let d = doc(&text);
            let p = Path::new("/r/a");
            let mut all = Vec::new();
            for batch in &batches {
                let ranges: Vec<Range<usize>> = batch.iter().map(|&(s, l)| s..s + l).collect();
                store.record_all(p, "R", &d, &ranges, Sight::Asked);
                all.extend(ranges);
            }
            let version = &store.versions(p)[0];
            for i in 0..50 {
                proptest::prop_assert_eq!(version.saw(i), all.iter().any(|r| r.contains(&i)), "line {}", i);
            }
        }
    }

    fn doc(text: &str) -> Arc<Document> {
        Arc::new(Document::from_text(text))
    }

    #[test]
    fn records_versions_per_path_most_recent_first_and_merges_seen_lines() {
        let mut store = Store::new(StoreLimits::default());
        let a = Path::new("/r/a");
        store.record(a, "R1", &doc("x\n"), 0..1);
        store.record(a, "R2", &doc("y\n"), 0..1);
        store.record(Path::new("/r/b"), "R3", &doc("z\n"), 0..1);
        store.record(a, "R1", &doc("x\n"), 3..5);
        store.record(a, "R1", &doc("x\n"), 1..3);
        let versions = store.versions(a);
        assert_eq!(
            versions.iter().map(|v| v.rev.as_str()).collect::<Vec<_>>(),
            ["R1", "R2"]
        );
        assert_eq!(versions[0].seen, vec![0..5]);
        assert!(versions[0].saw(4) && !versions[0].saw(5));
    }

    #[test]
    fn a_persistent_store_gives_a_new_process_the_versions_and_seen_lines_of_an_earlier_one() {
        let dir = tempfile::tempdir().unwrap();
        let p = Path::new("/r/a.txt");
        let text = "x\ny\n";
        let r = rev(text);
        {
            let mut store = Store::persistent(StoreLimits::default(), dir.path().to_owned());
            store.record(p, &r, &doc(text), 0..1);
            store.record(p, &r, &doc(text), 1..2);
            store.link(
                p,
                &r,
                Parent {
                    rev: "OLD".into(),
                    map: Arc::new(LineMap::from_changes(1, [(0..0, 0..1)])),
                },
            );
        }
        let mut later = Store::persistent(StoreLimits::default(), dir.path().to_owned());
        let versions = later.versions(p);
        assert_eq!(versions.len(), 1);
        assert_eq!(versions[0].rev, r);
        assert_eq!(versions[0].seen, vec![0..2]);
        assert_eq!(versions[0].doc.text(), text);
        let parent = versions[0].parent.as_ref().unwrap();
        assert_eq!(parent.rev, "OLD");
        assert_eq!(parent.map.line(0), Some(1));
        assert!(later.versions(Path::new("/r/other")).is_empty());
    }

    #[test]
    fn a_damaged_version_file_is_ignored() {
        let dir = tempfile::tempdir().unwrap();
        let p = Path::new("/r/a.txt");
        let mut store = Store::persistent(StoreLimits::default(), dir.path().to_owned());
        store.record(p, &rev("x\n"), &doc("x\n"), 0..1);
        for entry in fs::read_dir(dir.path()).unwrap().flatten() {
            fs::write(
                entry.path(),
                "hashline-version 1\n/r/a.txt\n0-1\ntampered\n",
            )
            .unwrap();
        }
        let mut later = Store::persistent(StoreLimits::default(), dir.path().to_owned());
        assert!(later.versions(p).is_empty());
    }

    #[test]
    fn evicts_least_recently_used_past_the_limits() {
        let mut store = Store::new(StoreLimits {
            max_versions: 2,
            max_bytes: 1 << 20,
            max_version_bytes: 4,
            ..StoreLimits::default()
        });
        let p = Path::new("/r/a");
        store.record(p, "R1", &doc("1\n"), 0..1);
        store.record(p, "R2", &doc("2\n"), 0..1);
        store.record(p, "R1", &doc("1\n"), 0..1);
        store.record(p, "R3", &doc("3\n"), 0..1);
        store.record(p, "BIG", &doc("too large\n"), 0..1);
        let revs: Vec<String> = store.versions(p).into_iter().map(|v| v.rev).collect();
        assert_eq!(revs, ["R3", "R1"]);
    }

    fn disk_files(dir: &Path) -> Vec<(String, u64)> {
        let mut files: Vec<(String, u64)> = fs::read_dir(dir)
            .unwrap()
            .flatten()
            .filter(|e| e.file_name() != LEDGER)
            .map(|e| {
                let meta = e.metadata().unwrap();
                (e.file_name().to_string_lossy().into_owned(), meta.len())
            })
            .collect();
        files.sort();
        files
    }

    #[cfg(unix)]
    fn inode(file: &Path) -> u64 {
        use std::os::unix::fs::MetadataExt;
        fs::metadata(file).unwrap().ino()
    }

    fn persistent(dir: &Path, max_disk_bytes: u64) -> Store {
        Store::persistent(
            StoreLimits {
                max_disk_bytes,
                ..StoreLimits::default()
            },
            dir.to_owned(),
        )
    }

    #[cfg(unix)]
    #[test]
    fn showing_an_unchanged_version_again_writes_no_copy_of_its_text() {
        let dir = tempfile::tempdir().unwrap();
        let p = Path::new("/r/a.txt");
        let text = "x\n".repeat(1000);
        let r = rev(&text);
        persistent(dir.path(), 1 << 30).record(p, &r, &doc(&text), 0..10);
        let before = disk_files(dir.path());
        let text_file = dir.path().join(format!("{}-{r}{TEXT_SUFFIX}", file_key(p)));
        let text_inode = inode(&text_file);

        // The same lines in a later process: nothing is written.
        persistent(dir.path(), 1 << 30).record(p, &r, &doc(&text), 0..10);
        assert_eq!(disk_files(dir.path()), before);
        assert_eq!(inode(&text_file), text_inode);

        // More lines shown: only the small header is rewritten.
        persistent(dir.path(), 1 << 30).record(p, &r, &doc(&text), 10..20);
        assert_eq!(inode(&text_file), text_inode);
        let after = disk_files(dir.path());
        assert_eq!(after.len(), 2);
        let header = after
            .iter()
            .find(|(n, _)| n.ends_with(DISK_SUFFIX))
            .unwrap();
        assert!(header.1 < 100, "{after:?}");
        assert_eq!(
            persistent(dir.path(), 1 << 30).versions(p)[0].seen,
            vec![0..20]
        );
    }

    #[test]
    fn the_store_folder_stays_under_its_byte_cap_across_processes_least_recently_used_out_first() {
        let dir = tempfile::tempdir().unwrap();
        let cap = 64 << 10;
        let text = |i: usize| format!("{i}\n{}", "y".repeat(4000));
        let keep = Path::new("/r/keep.txt");
        let kept = text(0);
        persistent(dir.path(), cap).record(keep, &rev(&kept), &doc(&kept), 0..1);
        for i in 1..60 {
            let p = PathBuf::from(format!("/r/{i}.txt"));
            let t = text(i);
            // A separate process per file, as command-line runs are.
            persistent(dir.path(), cap).record(&p, &rev(&t), &doc(&t), 0..1);
            // The kept file is read again now and then.
            if i % 5 == 0 {
                std::thread::sleep(std::time::Duration::from_millis(5));
                persistent(dir.path(), cap).record(keep, &rev(&kept), &doc(&kept), 0..1);
            }
        }
        let total: u64 = disk_files(dir.path()).iter().map(|(_, n)| n).sum();
        assert!(total <= cap + cap / SWEEP_SHARE as u64 + 8192, "{total}");
        assert_eq!(persistent(dir.path(), cap).versions(keep).len(), 1);
        assert!(persistent(dir.path(), cap)
            .versions(Path::new("/r/1.txt"))
            .is_empty());
    }

    #[test]
    fn a_write_sweeps_the_folder_once_the_writes_of_all_processes_since_the_last_sweep_add_up_to_a_share_of_its_cap(
    ) {
        let dir = tempfile::tempdir().unwrap();
        let cap = 64 << 10;
        // Versions other processes left, over the cap in all, used long ago.
        let old = |dir: &Path| {
            for i in 0..20 {
                let text = format!("{i}\n{}", "z".repeat(10_000));
                let stem = format!("{:016x}-{}", i, rev(&text));
                fs::write(dir.join(format!("{stem}{TEXT_SUFFIX}")), &text).unwrap();
                fs::write(
                    dir.join(format!("{stem}{DISK_SUFFIX}")),
                    format!("{DISK_MAGIC}\n"),
                )
                .unwrap();
            }
        };
        let stored = |dir: &Path| disk_files(dir).iter().map(|(_, n)| n).sum::<u64>();
        let olds = |dir: &Path| {
            disk_files(dir)
                .iter()
                .filter(|(n, _)| n.starts_with("00000000000000"))
                .count()
        };
        let write = |i: usize| {
            let t = format!("{i}\n{}", "y".repeat(300));
            let p = PathBuf::from(format!("/r/{i}.txt"));
            persistent(dir.path(), cap).record(&p, &rev(&t), &doc(&t), 0..1);
        };
        old(dir.path());
        fs::write(dir.path().join(LEDGER), "0\n").unwrap();
        // Small writes from separate processes, each far under the share.
        for i in 0..5 {
            write(i);
        }
        assert_eq!(olds(dir.path()), 40, "swept too early");
        // Together they pass it: one of them sweeps, the versions used
        // longest ago first.
        for i in 5..20 {
            write(i);
        }
        assert!(olds(dir.path()) < 40);
        assert!(
            stored(dir.path()) <= cap + cap / SWEEP_SHARE as u64,
            "{}",
            stored(dir.path())
        );

        // Without a count to trust, the first write sweeps.
        for (i, ledger) in [(100, None), (101, Some("not a number"))] {
            old(dir.path());
            match ledger {
                Some(text) => fs::write(dir.path().join(LEDGER), text).unwrap(),
                None => fs::remove_file(dir.path().join(LEDGER)).unwrap(),
            }
            write(i);
            assert!(stored(dir.path()) <= cap, "{ledger:?}");
            assert_eq!(fs::read_to_string(dir.path().join(LEDGER)).unwrap(), "0\n");
        }
    }

    #[test]
    fn a_version_whose_text_was_removed_is_gone_without_a_damage_note() {
        let dir = tempfile::tempdir().unwrap();
        let p = Path::new("/r/a.txt");
        persistent(dir.path(), 1 << 30).record(p, &rev("x\n"), &doc("x\n"), 0..1);
        for (name, _) in disk_files(dir.path()) {
            if name.ends_with(TEXT_SUFFIX) {
                fs::remove_file(dir.path().join(name)).unwrap();
            }
        }
        let mut later = persistent(dir.path(), 1 << 30);
        assert!(later.versions(p).is_empty());
        assert!(later.take_damage_note(p).is_none());
    }

    #[test]
    fn files_named_as_versions_that_the_store_did_not_write_are_never_removed() {
        let dir = tempfile::tempdir().unwrap();
        let big = "x".repeat(100_000);
        let mine = [
            ("0123456789abcdef-0BADF00D.hlv", "my notes\n"),
            ("0123456789abcdef-0BADF00D.hlt", big.as_str()),
            ("fedcba9876543210-0BADF00D.hlt", "hashline-version 2\n"),
        ];
        for (name, text) in mine {
            fs::write(dir.path().join(name), text).unwrap();
        }
        // Every write of a store far over its cap sweeps it.
        for i in 0..5 {
            let text = format!("{i}\n");
            let p = PathBuf::from(format!("/r/{i}.txt"));
            persistent(dir.path(), 1024).record(&p, &rev(&text), &doc(&text), 0..1);
        }
        let cleared = clear(dir.path()).unwrap();
        assert_eq!(cleared.skipped, mine.len());
        assert!(cleared.files > 0);
        for (name, text) in mine {
            assert_eq!(fs::read_to_string(dir.path().join(name)).unwrap(), text);
        }
    }

    #[test]
    fn clear_removes_the_store_files_alone_and_counts_them() {
        let dir = tempfile::tempdir().unwrap();
        persistent(dir.path(), 1 << 30).record(Path::new("/r/a"), &rev("x\n"), &doc("x\n"), 0..1);
        persistent(dir.path(), 1 << 30).record(Path::new("/r/b"), &rev("y\n"), &doc("y\n"), 0..1);
        fs::write(dir.path().join("notes.txt"), "mine").unwrap();
        // The two versions' texts and headers, and the count of bytes written.
        let bytes: u64 = fs::read_dir(dir.path())
            .unwrap()
            .flatten()
            .filter(|e| e.file_name() != "notes.txt")
            .map(|e| e.metadata().unwrap().len())
            .sum();
        assert!(dir.path().join(LEDGER).exists());
        assert_eq!(
            clear(dir.path()).unwrap(),
            Cleared {
                files: 5,
                bytes,
                skipped: 0
            }
        );
        assert_eq!(disk_files(dir.path()), [("notes.txt".to_owned(), 4)]);
        assert!(!dir.path().join(LEDGER).exists());
        assert_eq!(
            clear(&dir.path().join("missing")).unwrap(),
            Cleared::default()
        );
    }
}
