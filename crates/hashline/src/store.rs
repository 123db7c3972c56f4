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

use crate::hash::rev;
use crate::remap::LineMap;
use crate::text::Document;
use sha1::{Digest, Sha1};
use std::collections::{HashMap, HashSet};
use std::fs;
use std::io::{Read, Write};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Versions of one file kept on disk; older ones are pruned.
const DISK_VERSIONS_PER_FILE: usize = 16;
const DISK_MAGIC: &str = "hashline-version 1";
const DISK_SUFFIX: &str = ".hlv";

/// How much the version store keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StoreLimits {
    /// Versions kept, least recently used evicted first.
    pub max_versions: usize,
    /// Bytes of text kept in all.
    pub max_bytes: usize,
    /// Larger documents are not kept at all.
    pub max_version_bytes: usize,
}

impl Default for StoreLimits {
    fn default() -> Self {
        StoreLimits {
            max_versions: 64,
            max_bytes: 128 << 20,
            max_version_bytes: 32 << 20,
        }
    }
}

/// One stored version of a file.
#[derive(Debug, Clone)]
pub struct Version {
    pub rev: String,
    pub doc: Arc<Document>,
    /// Lines (0-based, end exclusive) some view of this version displayed.
    pub seen: Vec<Range<usize>>,
    /// The version this one was made from by an edit, and where that edit
    /// moved each unchanged line: exactly, when this process made the edit;
    /// as a hint to be checked, when read back from disk.
    pub parent: Option<Parent>,
}

#[derive(Debug, Clone)]
pub struct Parent {
    pub rev: String,
    pub map: Arc<LineMap>,
}

impl Version {
    pub fn saw(&self, index: usize) -> bool {
        self.seen.iter().any(|r| r.contains(&index))
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
    /// Where versions are also written, so that a later process (a command
    /// line run per edit) can remap refs from an earlier one's view.
    dir: Option<PathBuf>,
    /// Paths whose versions on disk were read already: once per process is
    /// enough, since every version this process makes is in memory.
    loaded: HashSet<PathBuf>,
    /// Damaged versions found on disk per path, not yet reported.
    damaged: HashMap<PathBuf, usize>,
}

impl Store {
    pub fn new(limits: StoreLimits) -> Self {
        Store {
            limits,
            entries: Vec::new(),
            clock: 0,
            dir: None,
            loaded: HashSet::new(),
            damaged: HashMap::new(),
        }
    }

    /// A store that also keeps its versions in `dir`.
    pub fn persistent(limits: StoreLimits, dir: PathBuf) -> Self {
        Store {
            dir: Some(dir),
            ..Store::new(limits)
        }
    }

    /// Records that `lines` of this version of `path` were displayed (an
    /// empty range records the version alone).
    pub fn record(&mut self, path: &Path, rev: &str, doc: &Arc<Document>, lines: Range<usize>) {
        self.record_all(path, rev, doc, &[lines]);
    }

    /// Records several displayed ranges of one version at once, so that a
    /// store on disk writes the version once rather than once per range.
    pub fn record_all(
        &mut self,
        path: &Path,
        rev: &str,
        doc: &Arc<Document>,
        ranges: &[Range<usize>],
    ) {
        let size = doc.text().len();
        if size > self.limits.max_version_bytes || self.limits.max_versions == 0 {
            return;
        }
        self.clock += 1;
        let clock = self.clock;
        self.load(path);
        let index = match self
            .entries
            .iter()
            .position(|e| e.version.rev == rev && e.path == path)
        {
            Some(index) => {
                let entry = &mut self.entries[index];
                entry.last_used = clock;
                let before = entry.version.seen.clone();
                for lines in ranges {
                    add_range(&mut entry.version.seen, lines.clone());
                }
                if entry.version.seen == before {
                    return;
                }
                index
            }
            None => {
                let mut seen = Vec::new();
                for lines in ranges {
                    add_range(&mut seen, lines.clone());
                }
                self.entries.push(Entry {
                    path: path.to_owned(),
                    version: Version {
                        rev: rev.to_owned(),
                        doc: Arc::clone(doc),
                        seen,
                        parent: None,
                    },
                    last_used: clock,
                });
                self.entries.len() - 1
            }
        };
        if let Some(dir) = &self.dir {
            let entry = &self.entries[index];
            // The store is a cache: a version that cannot be written only
            // means fewer refs can be recovered later, never a wrong edit.
            let _ = save(dir, &entry.path, &entry.version);
        }
        self.evict();
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
    }

    /// Records that version `rev` of `path` was made from `parent` by an
    /// edit (the version must be recorded already).
    pub fn link(&mut self, path: &Path, rev: &str, parent: Parent) {
        let Some(entry) = self
            .entries
            .iter_mut()
            .find(|e| e.version.rev == rev && e.path == path)
        else {
            return;
        };
        entry.version.parent = Some(parent);
        if let Some(dir) = &self.dir {
            let _ = save(dir, &entry.path, &entry.version);
        }
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

    /// The lines shown of version `rev` of `path`.
    pub fn seen(&self, path: &Path, rev: &str) -> Vec<Range<usize>> {
        self.entries
            .iter()
            .find(|e| e.path == path && e.version.rev == rev)
            .map(|e| e.version.seen.clone())
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

/// One version per file: a header (magic, path, seen ranges) and the
/// canonical text. Written to a temporary file and renamed, so concurrent
/// processes never read half a version; the file is the user's alone
/// (0600, as temporary files are made).
fn save(dir: &Path, path: &Path, version: &Version) -> std::io::Result<()> {
    if !usable_dir(dir, true) {
        return Err(std::io::Error::new(
            std::io::ErrorKind::PermissionDenied,
            "the store folder is not the current user's",
        ));
    }
    let key = file_key(path);
    let seen: Vec<String> = version
        .seen
        .iter()
        .map(|r| format!("{}-{}", r.start, r.end))
        .collect();
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
    let mut temp = tempfile::NamedTempFile::new_in(dir)?;
    write!(
        temp,
        "{DISK_MAGIC}\n{}\n{}\n{parent}\n",
        path.to_string_lossy(),
        seen.join(",")
    )?;
    temp.write_all(version.doc.text().as_bytes())?;
    temp.persist(dir.join(format!("{key}-{}{DISK_SUFFIX}", version.rev)))
        .map_err(|e| e.error)?;
    prune(dir, &key);
    Ok(())
}

/// The version files of one path: plain files of the current user's (a
/// link, a pipe or another user's file is not looked at).
fn versions_on_disk(dir: &Path, key: &str) -> Vec<(PathBuf, std::time::SystemTime)> {
    let Ok(entries) = fs::read_dir(dir) else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter(|e| {
            let name = e.file_name();
            let name = name.to_string_lossy();
            name.starts_with(key) && name.ends_with(DISK_SUFFIX)
        })
        .filter_map(|e| {
            // The entry's own metadata: a link is not followed.
            let meta = e.metadata().ok()?;
            (meta.is_file() && owned(&meta)).then_some((e.path(), meta.modified().ok()?))
        })
        .collect()
}

fn prune(dir: &Path, key: &str) {
    let mut files = versions_on_disk(dir, key);
    if files.len() <= DISK_VERSIONS_PER_FILE {
        return;
    }
    files.sort_by_key(|(_, modified)| std::cmp::Reverse(*modified));
    for (file, _) in files.into_iter().skip(DISK_VERSIONS_PER_FILE) {
        let _ = fs::remove_file(file);
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

/// Reads one version file of `path`.
fn read_version(file: &Path, wanted: &str, max_text: usize) -> Loaded {
    // Room for the header: the path, seen ranges and a line map of a text
    // of up to `max_text` bytes.
    let max = (max_text as u64).saturating_mul(3).saturating_add(1 << 20);
    let Some(bytes) = read_owned(file, max) else {
        return Loaded::Ignored;
    };
    match parse_version(file, &bytes, wanted) {
        Some(version) if version.doc.text().len() <= max_text => Loaded::Version(version),
        Some(_) => Loaded::Ignored,
        None => Loaded::Damaged,
    }
}

/// A version file's contents, or `None` if anything in it is damaged: the
/// header, a text that does not hash to the REV in the file's name, seen
/// ranges or a line map that do not fit the text.
fn parse_version(file: &Path, bytes: &[u8], wanted: &str) -> Option<Version> {
    let name = file.file_name()?.to_string_lossy().into_owned();
    let file_rev = name
        .strip_suffix(DISK_SUFFIX)?
        .rsplit('-')
        .next()?
        .to_owned();
    let content = std::str::from_utf8(bytes).ok()?;
    let mut parts = content.splitn(5, '\n');
    if parts.next()? != DISK_MAGIC || parts.next()? != wanted {
        return None;
    }
    let seen_line = parts.next()?;
    let parent_line = parts.next()?;
    let text = parts.next().unwrap_or("");
    if rev(text) != file_rev {
        return None;
    }
    let doc = Document::from_text(text);
    let lines = doc.line_count();
    let seen = seen_line
        .split(',')
        .filter(|s| !s.is_empty())
        .map(|r| {
            let (a, b) = r.split_once('-')?;
            let range: Range<usize> = a.parse().ok()?..b.parse().ok()?;
            (range.start < range.end && range.end <= lines).then_some(range)
        })
        .collect::<Option<Vec<Range<usize>>>>()?;
    let parent = parse_parent(parent_line, lines)?;
    Some(Version {
        rev: file_rev,
        doc: Arc::new(doc),
        seen,
        parent,
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

fn add_range(ranges: &mut Vec<Range<usize>>, new: Range<usize>) {
    if new.is_empty() {
        return;
    }
    ranges.push(new);
    ranges.sort_by_key(|r| r.start);
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
}
