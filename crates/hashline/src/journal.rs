//! The intent record of a transaction, and the recovery of one whose
//! process died before it was done.
//!
//! A transaction writes its record before it stages anything: every file
//! it will touch (the folder, the name, the versions before and after), and
//! every name it will use beside them. The record is flushed to disk before
//! the first file trades names, and removed once the transaction is done
//! or undone. While its writer lives, the record is locked; a record whose
//! lock is free is a dead writer's, and the next session of the root puts
//! things right from it, under the folder locks: it looks where each new
//! version is, finishes the change if every file took its new version (and
//! no old version changed since), else undoes it, and removes what the
//! transaction left beside the files.
//!
//! The records live in a folder of the root, `.hashline-journal`, because
//! the root is the one thing every session that may touch the files shares:
//! hosts keep their versions in different store folders or none, so a
//! record there would be missed by the next host to open the root. The
//! folder exists only while a transaction is under way or waits for
//! recovery, holds a `.gitignore` of `*` so that `git add` never takes it,
//! and is private (0700, files 0600). A record is data on disk, so it is
//! trusted no further than it can be checked: the folder and the record
//! must be the user's own, every name it gives beside a file must be one a
//! transaction makes, a folder inside the root is reached from the root's
//! handle and must still be the folder the record names (device and inode),
//! and a file is only ever given back a version whose bytes the record
//! gives.

use crate::error::Result;
use crate::file::{
    is_transaction_name, names, reading, remove_dead_temporaries, rename, write_locked, Base,
    Current,
};
use crate::lock::{try_lock, FolderLock};
use crate::sandbox::{io_error, Root};
use cap_fs_ext::{DirExt, FollowSymlinks};
use cap_std::fs::Dir;
use std::ffi::{OsStr, OsString};
use std::fmt::Write as _;
use std::fs;
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The folder of the root that holds the records.
pub(crate) const FOLDER: &str = ".hashline-journal";
const MAGIC: &str = "hashline-journal 1";
const SUFFIX: &str = ".journal";
const IGNORE: &str = ".gitignore";
const IGNORE_TEXT: &[u8] =
    b"# hashline keeps the record of a change of several files here while it is under way.\n*\n";
/// Larger records are not read: a transaction of this many bytes of names
/// is not one this engine wrote.
const MAX_RECORD_BYTES: u64 = 64 << 20;

/// What a transaction does to one file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// A new version replaces the file.
    Replace,
    /// A new file takes a free name.
    Create,
    /// The file goes.
    Remove,
}

impl Kind {
    fn word(self) -> &'static str {
        match self {
            Kind::Replace => "replace",
            Kind::Create => "create",
            Kind::Remove => "remove",
        }
    }
}

/// A folder a transaction writes in, as the record keeps it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Location {
    /// Below the root, reached from the root's handle.
    Inside(PathBuf),
    /// Outside the root (the host allowed it), by its absolute path.
    Outside(PathBuf),
}

/// Tells one folder from every other on the machine, whatever path names
/// it: the order in which transactions take folder locks.
pub(crate) type FolderId = (u64, u64);

/// What the record says about one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Entry {
    pub kind: Kind,
    /// The deepest folder on the file's path that existed when the
    /// transaction began, and its identity then.
    pub folder: Location,
    pub folder_id: FolderId,
    /// Folders below it the transaction creates, outermost first.
    pub missing: Vec<OsString>,
    pub name: OsString,
    /// The name beside the file: the new version before it takes the file's
    /// name, and the old version after it (by trading names); or the old
    /// version of a removed file.
    pub staged: OsString,
    /// Where the old version is kept instead where the file system cannot
    /// trade names (a replaced file only).
    pub kept: Option<OsString>,
    pub base: Base,
    pub new: Base,
}

impl Entry {
    /// The file as the model knows it, for notes.
    pub fn display(&self) -> String {
        let mut path = match &self.folder {
            Location::Inside(rel) | Location::Outside(rel) => rel.clone(),
        };
        path.extend(&self.missing);
        path.push(&self.name);
        let names: Vec<String> = path
            .iter()
            .map(|n| n.to_string_lossy().into_owned())
            .collect();
        names.join("/")
    }
}

/// The record of one transaction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Record {
    /// The process that wrote it, for the note of a recovery.
    pub pid: u32,
    pub entries: Vec<Entry>,
}

impl Record {
    fn to_text(&self) -> String {
        let mut text = format!("{MAGIC}\n{}\n", self.pid);
        for e in &self.entries {
            let (place, folder) = match &e.folder {
                Location::Inside(p) => ("in", p),
                Location::Outside(p) => ("out", p),
            };
            let missing = if e.missing.is_empty() {
                "-".to_owned()
            } else {
                e.missing
                    .iter()
                    .map(|n| hex::encode(bytes_of(n)))
                    .collect::<Vec<_>>()
                    .join(",")
            };
            let _ = writeln!(
                text,
                "{} {place} {} {} {} {missing} {} {} {} {} {}",
                e.kind.word(),
                hex::encode(bytes_of(folder.as_os_str())),
                e.folder_id.0,
                e.folder_id.1,
                hex::encode(bytes_of(&e.name)),
                e.staged.to_string_lossy(),
                e.kept.as_deref().map_or("-".into(), OsStr::to_string_lossy),
                base_text(&e.base),
                base_text(&e.new),
            );
        }
        text
    }

    /// The record in `text`, or `None` if anything in it is not what a
    /// transaction writes.
    fn parse(text: &str) -> Option<Record> {
        let mut lines = text.lines();
        if lines.next()? != MAGIC {
            return None;
        }
        let pid = lines.next()?.parse().ok()?;
        let mut entries = Vec::new();
        for line in lines {
            let f: Vec<&str> = line.split(' ').collect();
            let [kind, place, folder, dev, ino, missing, name, staged, kept, base, new] = f[..]
            else {
                return None;
            };
            let kind = match kind {
                "replace" => Kind::Replace,
                "create" => Kind::Create,
                "remove" => Kind::Remove,
                _ => return None,
            };
            let folder = PathBuf::from(os_of(hex::decode(folder).ok()?)?);
            let folder = match place {
                "in" if folder.is_relative() && !has_parent(&folder) => Location::Inside(folder),
                "out" if folder.is_absolute() => Location::Outside(folder),
                _ => return None,
            };
            let missing = if missing == "-" {
                Vec::new()
            } else {
                missing
                    .split(',')
                    .map(|n| plain_name(os_of(hex::decode(n).ok()?)?))
                    .collect::<Option<Vec<_>>>()?
            };
            let name = plain_name(os_of(hex::decode(name).ok()?)?)?;
            let staged = OsString::from(staged);
            if !is_transaction_name(&staged) {
                return None;
            }
            let kept = match kept {
                "-" => None,
                k if is_transaction_name(OsStr::new(k)) && kind == Kind::Replace => {
                    Some(OsString::from(k))
                }
                _ => return None,
            };
            let (base, new) = (parse_base(base)?, parse_base(new)?);
            let fits = match kind {
                Kind::Replace => base != Base::Missing && new != Base::Missing,
                Kind::Create => base == Base::Missing && new != Base::Missing,
                Kind::Remove => base != Base::Missing && new == Base::Missing,
            };
            if !fits {
                return None;
            }
            entries.push(Entry {
                kind,
                folder,
                folder_id: (dev.parse().ok()?, ino.parse().ok()?),
                missing,
                name,
                staged,
                kept,
                base,
                new,
            });
        }
        (!entries.is_empty()).then_some(Record { pid, entries })
    }
}

fn has_parent(path: &Path) -> bool {
    path.components()
        .any(|c| !matches!(c, std::path::Component::Normal(_)))
}

/// A name of one component, as a folder's entry is.
fn plain_name(name: OsString) -> Option<OsString> {
    let path = Path::new(&name);
    let mut components = path.components();
    match (components.next(), components.next()) {
        (Some(std::path::Component::Normal(n)), None) if n == name.as_os_str() => Some(name),
        _ => None,
    }
}

fn base_text(base: &Base) -> String {
    match base {
        Base::Missing => "-".to_owned(),
        Base::Bytes { len, digest } => format!("{len}:{}", hex::encode(digest)),
    }
}

fn parse_base(text: &str) -> Option<Base> {
    if text == "-" {
        return Some(Base::Missing);
    }
    let (len, digest) = text.split_once(':')?;
    Some(Base::Bytes {
        len: len.parse().ok()?,
        digest: hex::decode(digest).ok()?.try_into().ok()?,
    })
}

#[cfg(unix)]
fn bytes_of(name: &OsStr) -> &[u8] {
    std::os::unix::ffi::OsStrExt::as_bytes(name)
}

#[cfg(unix)]
fn os_of(bytes: Vec<u8>) -> Option<OsString> {
    Some(std::os::unix::ffi::OsStringExt::from_vec(bytes))
}

/// Elsewhere names are kept as UTF-8; a name that is not cannot be found
/// again, and its file counts as missing.
#[cfg(not(unix))]
fn bytes_of(name: &OsStr) -> &[u8] {
    name.to_str().map_or(&[], str::as_bytes)
}

#[cfg(not(unix))]
fn os_of(bytes: Vec<u8>) -> Option<OsString> {
    String::from_utf8(bytes).ok().map(OsString::from)
}

/// The identity of an open folder.
pub(crate) fn folder_id(dir: &Dir) -> io::Result<FolderId> {
    let meta = dir.dir_metadata()?;
    #[cfg(unix)]
    {
        use cap_std::fs::MetadataExt;
        Ok((meta.dev(), meta.ino()))
    }
    #[cfg(not(unix))]
    {
        let _ = meta;
        Ok((0, 0))
    }
}

/// Whether the current user owns what `meta` describes, and only they may
/// enter it.
#[cfg(unix)]
fn private(meta: &cap_std::fs::Metadata) -> bool {
    use cap_std::fs::MetadataExt;
    meta.uid() == rustix::process::geteuid().as_raw() && meta.mode() & 0o077 == 0
}

#[cfg(not(unix))]
fn private(_meta: &cap_std::fs::Metadata) -> bool {
    true
}

#[cfg(unix)]
fn owned(meta: &fs::Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    meta.uid() == rustix::process::geteuid().as_raw()
}

#[cfg(not(unix))]
fn owned(_meta: &fs::Metadata) -> bool {
    true
}

/// The records' folder, open and locked, if it exists (or, with `create`,
/// once made). A folder that another process removes while this one waits
/// for its lock is made again.
fn open_folder(root: &Dir, create: bool, timeout: Duration) -> Result<Option<(Dir, FolderLock)>> {
    let failed = |e: io::Error| {
        let shown = format!("{FOLDER} (the record of a change of several files)");
        io_error(&e, &shown).with_path(FOLDER)
    };
    let deadline = Instant::now() + timeout;
    for _ in 0..16 {
        if create {
            let mut builder = cap_std::fs::DirBuilder::new();
            #[cfg(unix)]
            cap_std::fs::DirBuilderExt::mode(&mut builder, 0o700);
            match root.create_dir_with(FOLDER, &builder) {
                Ok(()) => {}
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
                Err(e) => return Err(failed(e)),
            }
        }
        let dir = match root.open_dir_nofollow(FOLDER) {
            Ok(dir) => dir,
            Err(e) if e.kind() == io::ErrorKind::NotFound && !create => return Ok(None),
            Err(e) if e.kind() == io::ErrorKind::NotFound => continue,
            Err(e) => return Err(failed(e)),
        };
        if !dir.dir_metadata().is_ok_and(|m| private(&m)) {
            return Err(failed(io::Error::new(
                io::ErrorKind::PermissionDenied,
                "the folder is not a private folder of the current user's, so its records are not trusted",
            )));
        }
        let left = deadline.saturating_duration_since(Instant::now());
        let lock = FolderLock::acquire(&dir, left, FOLDER)?;
        let same = match (folder_id(&dir), root.open_dir_nofollow(FOLDER)) {
            (Ok(held), Ok(named)) => folder_id(&named).is_ok_and(|id| id == held),
            _ => false,
        };
        if same {
            return Ok(Some((dir, lock)));
        }
    }
    Err(failed(io::Error::other(
        "the folder kept being removed and made again",
    )))
}

/// Removes the records' folder if it holds nothing but its `.gitignore`;
/// called with its lock held.
fn tidy(root: &Dir, dir: &Dir) {
    let Ok(entries) = dir.entries() else {
        return;
    };
    if entries.flatten().any(|e| e.file_name() != IGNORE) {
        return;
    }
    let _ = dir.remove_file(IGNORE);
    let _ = root.remove_dir(FOLDER);
}

/// A record on disk, for as long as its transaction runs: locked, so that
/// nobody takes it for a dead writer's.
pub(crate) struct Journal {
    root: Arc<Dir>,
    name: OsString,
    _file: fs::File,
}

impl Journal {
    /// Writes `record` in the root's records folder and flushes it (and
    /// the folder) to disk.
    pub(crate) fn begin(root: &Root, record: &Record, timeout: Duration) -> Result<Journal> {
        let failed = |e: io::Error| {
            let shown = format!("{FOLDER} (the record of a change of several files)");
            io_error(&e, &shown).with_path(FOLDER)
        };
        let root_dir = root.dir().map_err(failed)?;
        let Some((dir, lock)) = open_folder(&root_dir, true, timeout)? else {
            return Err(failed(io::ErrorKind::NotFound.into()));
        };
        if dir.symlink_metadata(IGNORE).is_err() {
            // Not flushed: after a power cut a lost `.gitignore` costs
            // nothing that the next transaction does not write again.
            let mut options = cap_std::fs::OpenOptions::new();
            options.write(true).create_new(true);
            if let Ok(mut file) = dir.open_with(IGNORE, &options) {
                let _ = std::io::Write::write_all(&mut file, IGNORE_TEXT);
            }
        }
        let id = crate::file::transaction_name().map_err(failed)?;
        let mut name = id.to_string_lossy().trim_start_matches('.').to_owned();
        name.truncate(name.find('.').unwrap_or(name.len()));
        name.push_str(SUFFIX);
        let name = OsString::from(name);
        let file = write_locked(&dir, &name, record.to_text().as_bytes()).map_err(failed)?;
        lock.sync();
        Ok(Journal {
            root: root_dir,
            name,
            _file: file,
        })
    }

    /// Removes the record (and its folder once it holds no other): the
    /// transaction is done or undone.
    pub(crate) fn end(self, timeout: Duration) {
        if let Ok(Some((dir, _lock))) = open_folder(&self.root, false, timeout) {
            let _ = dir.remove_file(&self.name);
            tidy(&self.root, &dir);
        }
    }
}

/// A record whose writer died, claimed (locked) by this process.
struct Claimed {
    name: OsString,
    record: Option<Record>,
    _file: fs::File,
}

/// What became of the records dead writers left in the root: one note
/// per record, for the next result. Records of live transactions are left
/// alone; so is everything when the records' folder is missing, the common
/// case, which costs one look.
pub(crate) fn recover(root: &Root, timeout: Duration) -> Vec<String> {
    if let Err(e) = fs::symlink_metadata(root.path().join(FOLDER)) {
        if e.kind() == io::ErrorKind::NotFound {
            return Vec::new();
        }
    }
    let mut notes = Vec::new();
    let Ok(root_dir) = root.dir() else {
        return notes;
    };
    let claimed = match claim(&root_dir, timeout) {
        Ok(claimed) => claimed,
        Err(err) => {
            notes.push(format!(
                "a change of several files that another hashline process did not finish may be waiting in {FOLDER}, and it could not be looked at: {}",
                err.message
            ));
            return notes;
        }
    };
    for claim in claimed {
        let Some(record) = &claim.record else {
            notes.push(format!(
                "{FOLDER}/{} is not a record this version of hashline can read; it was left as it is.",
                claim.name.to_string_lossy()
            ));
            continue;
        };
        let (done, note) = settle(root, record, timeout);
        notes.push(note);
        if done {
            if let Ok(Some((dir, _lock))) = open_folder(&root_dir, false, timeout) {
                let _ = dir.remove_file(&claim.name);
                tidy(&root_dir, &dir);
            }
        }
    }
    notes
}

/// The records of dead writers, locked so that no other process recovers
/// them at the same time; with the temporary files of records that were
/// never finished removed.
fn claim(root: &Dir, timeout: Duration) -> Result<Vec<Claimed>> {
    let Some((dir, _lock)) = open_folder(root, false, timeout)? else {
        return Ok(Vec::new());
    };
    remove_dead_temporaries(&dir, OsStr::new(IGNORE));
    let mut claimed = Vec::new();
    for entry in dir.entries().map_err(|e| io_error(&e, FOLDER))?.flatten() {
        let name = entry.file_name();
        if !name.to_string_lossy().ends_with(SUFFIX) {
            continue;
        }
        let Ok(file) = dir.open_with(&name, &reading(FollowSymlinks::No)) else {
            continue;
        };
        let file = file.into_std();
        let Ok(meta) = file.metadata() else { continue };
        if !meta.is_file() || !owned(&meta) || meta.len() > MAX_RECORD_BYTES {
            continue;
        }
        if !try_lock(&file).unwrap_or(false) || !names(&dir, &name, &file) {
            continue;
        }
        let mut text = String::new();
        let record = (&file)
            .take(MAX_RECORD_BYTES)
            .read_to_string(&mut text)
            .ok()
            .and_then(|_| Record::parse(&text));
        claimed.push(Claimed {
            name,
            record,
            _file: file,
        });
    }
    if claimed.is_empty() {
        tidy(root, &dir);
    }
    Ok(claimed)
}

/// One entry's folder, opened as the record names it.
struct Place {
    /// The folder the file is in, if it exists.
    dir: Option<Dir>,
    /// The folder that existed when the transaction began, and the folders
    /// below it that the transaction made and that exist now.
    anchor: Dir,
    made: Vec<PathBuf>,
}

/// The entry's folder; `None` when it is gone, or another folder took its
/// name: nothing of the transaction is left there.
fn open_place(root: &Root, entry: &Entry) -> io::Result<Option<Place>> {
    let opened = match &entry.folder {
        Location::Inside(rel) if rel.as_os_str().is_empty() => root.dir()?.open_dir("."),
        Location::Inside(rel) => root.dir()?.open_dir(rel),
        Location::Outside(abs) => Dir::open_ambient_dir(abs, cap_std::ambient_authority()),
    };
    let anchor = match opened {
        Ok(dir) => dir,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    if folder_id(&anchor)? != entry.folder_id {
        return Ok(None);
    }
    let mut made = Vec::new();
    let mut path = PathBuf::new();
    let mut dir = Some(anchor.try_clone()?);
    for name in &entry.missing {
        path.push(name);
        dir = match anchor.open_dir_nofollow(&path) {
            Ok(d) => {
                made.push(path.clone());
                Some(d)
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => None,
            Err(e) => return Err(e),
        };
        if dir.is_none() {
            break;
        }
    }
    Ok(Some(Place { dir, anchor, made }))
}

/// Where one entry stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// The file took its new version (or went, for a removal).
    Done,
    /// Its new version did not take the name yet.
    Waiting,
    /// Neither: someone else changed the file; nothing of the transaction
    /// is at stake in it.
    Neither,
    /// Done, but the old version changed since it lost its name: someone
    /// wrote into it through a handle opened before; the change is undone so
    /// that their write keeps the name.
    OldChanged,
}

/// What a name in a folder holds.
fn holds(dir: Option<&Dir>, name: &OsStr) -> Option<Base> {
    match Current::read(dir?, name) {
        Ok(Current::File { base, .. }) => Some(base),
        Ok(Current::Missing) => Some(Base::Missing),
        _ => None,
    }
}

fn state(entry: &Entry, dir: Option<&Dir>) -> State {
    let at_name = holds(dir, &entry.name);
    let staged = holds(dir, &entry.staged);
    let kept = entry.kept.as_ref().and_then(|k| holds(dir, k));
    let is = |found: &Option<Base>, wanted: &Base| found.as_ref() == Some(wanted);
    let missing = |found: &Option<Base>| is(found, &Base::Missing);
    match entry.kind {
        Kind::Replace => {
            if let Some(kept) = kept.filter(|k| *k != Base::Missing) {
                // Kept by a second name where names could not be traded.
                return match () {
                    _ if kept != entry.base => State::OldChanged,
                    _ if missing(&staged) => State::Done,
                    _ => State::Waiting,
                };
            }
            if missing(&staged) {
                return match () {
                    _ if is(&at_name, &entry.new) => State::Done,
                    _ if is(&at_name, &entry.base) => State::Waiting,
                    _ => State::Neither,
                };
            }
            if is(&at_name, &entry.base) {
                // The staged file holds the new version, or part of it.
                return State::Waiting;
            }
            if is(&staged, &entry.new) {
                return State::Neither;
            }
            if is(&staged, &entry.base) {
                State::Done
            } else {
                State::OldChanged
            }
        }
        Kind::Create => {
            if !missing(&staged) {
                State::Waiting
            } else if is(&at_name, &entry.new) {
                State::Done
            } else if missing(&at_name) {
                State::Waiting
            } else {
                State::Neither
            }
        }
        Kind::Remove => {
            if !missing(&staged) {
                if is(&staged, &entry.base) {
                    State::Done
                } else {
                    State::OldChanged
                }
            } else if is(&at_name, &entry.base) {
                State::Waiting
            } else if missing(&at_name) {
                State::Done
            } else {
                State::Neither
            }
        }
    }
}

/// Finishes or undoes the transaction of `record`, under the locks of its
/// folders: whether the record may go, and the note for the next result.
fn settle(root: &Root, record: &Record, timeout: Duration) -> (bool, String) {
    let files: Vec<String> = record.entries.iter().map(Entry::display).collect();
    let what = format!(
        "a change of {} files ({}) that hashline process {} did not finish",
        files.len(),
        files.join(", "),
        record.pid
    );
    let mut places = Vec::new();
    for entry in &record.entries {
        match open_place(root, entry) {
            Ok(place) => places.push(place),
            Err(e) => {
                return (
                    false,
                    format!("{what} could not be put right: the folder of {} cannot be opened ({e}); its record is kept in {FOLDER}.", entry.display()),
                )
            }
        }
    }
    let deadline = Instant::now() + timeout;
    let mut folders: Vec<(FolderId, &Dir, String)> = Vec::new();
    for (entry, place) in record.entries.iter().zip(&places) {
        if let Some(dir) = place.as_ref().and_then(|p| p.dir.as_ref()) {
            if let Ok(id) = folder_id(dir) {
                folders.push((id, dir, entry.display()));
            }
        }
    }
    folders.sort_by_key(|(id, _, _)| *id);
    folders.dedup_by_key(|(id, _, _)| *id);
    let mut locks = Vec::new();
    for (_, dir, shown) in &folders {
        let left = deadline.saturating_duration_since(Instant::now());
        match FolderLock::acquire(dir, left, shown) {
            Ok(lock) => locks.push(lock),
            Err(err) => {
                return (
                    false,
                    format!(
                        "{what} is still to be put right: {} Its record is kept in {FOLDER}.",
                        err.message
                    ),
                )
            }
        }
    }
    let states: Vec<State> = record
        .entries
        .iter()
        .zip(&places)
        .map(|(e, p)| match p {
            Some(place) => state(e, place.dir.as_ref()),
            None => State::Neither,
        })
        .collect();
    let forward = states
        .iter()
        .all(|s| matches!(s, State::Done | State::Neither));
    let mut kept = Vec::new();
    for ((entry, place), state) in record.entries.iter().zip(&places).zip(&states) {
        let Some(dir) = place.as_ref().and_then(|p| p.dir.as_ref()) else {
            continue;
        };
        let left = if forward {
            finish(dir, entry, *state)
        } else {
            undo(dir, entry, *state)
        };
        kept.extend(
            left.map(|name| format!("{} (beside {})", name.to_string_lossy(), entry.display())),
        );
    }
    for lock in &locks {
        lock.sync();
    }
    if !forward {
        for place in places.iter().flatten() {
            for path in place.made.iter().rev() {
                let _ = place.anchor.remove_dir(path);
            }
        }
    }
    let mut note = if forward {
        format!("{what} was finished: every file holds its new version.")
    } else {
        format!("{what} was undone: every file is as it was before it.")
    };
    if states.contains(&State::Neither) {
        note.push_str(" Files someone else changed meanwhile were left as they are.");
    }
    if !kept.is_empty() {
        let _ = write!(
            note,
            " Versions that someone wrote into meanwhile were kept: {}.",
            kept.join(", ")
        );
    }
    (true, note)
}

/// Removes what the transaction keeps beside a file whose new version took
/// its name; returns a name left in place, if one had to be.
fn finish(dir: &Dir, entry: &Entry, state: State) -> Option<OsString> {
    match state {
        State::Done => {
            for name in std::iter::once(&entry.staged).chain(&entry.kept) {
                remove_if(dir, name, &entry.base);
            }
        }
        State::Neither => remove_if(dir, &entry.staged, &entry.new),
        State::Waiting | State::OldChanged => {}
    }
    None
}

/// Puts a file back as it was before the transaction; returns a name left
/// in place, if one had to be.
fn undo(dir: &Dir, entry: &Entry, state: State) -> Option<OsString> {
    match (entry.kind, state) {
        (Kind::Replace | Kind::Create, State::Waiting) => {
            let _ = dir.remove_file(&entry.staged);
            if let Some(kept) = &entry.kept {
                remove_if(dir, kept, &entry.base);
            }
            None
        }
        (Kind::Replace, State::Done | State::OldChanged) => {
            // The old version has its second name only where the file
            // system could not trade names.
            let second = entry
                .kept
                .as_ref()
                .filter(|k| dir.symlink_metadata(k).is_ok());
            let old = second.unwrap_or(&entry.staged);
            if holds(Some(dir), &entry.name).as_ref() != Some(&entry.new) {
                // Someone wrote into the new version since it took the
                // name: their write is the newest and keeps it.
                return keep_or_remove(dir, old, &entry.base, state);
            }
            let back = match second {
                Some(kept) => dir.rename(kept, dir, &entry.name),
                None => rename::exchange(dir, &entry.staged, &entry.name),
            };
            match back {
                Ok(()) => {
                    let _ = dir.remove_file(&entry.staged);
                    None
                }
                Err(_) => Some(old.clone()),
            }
        }
        (Kind::Create, State::Done) => {
            // Out of the way under the staged name first, and removed only
            // if it still holds what the transaction wrote there.
            if rename::no_replace(dir, &entry.name, &entry.staged).is_err() {
                return None;
            }
            if holds(Some(dir), &entry.staged).as_ref() == Some(&entry.new) {
                let _ = dir.remove_file(&entry.staged);
                None
            } else if rename::no_replace(dir, &entry.staged, &entry.name).is_ok() {
                None
            } else {
                Some(entry.staged.clone())
            }
        }
        (_, State::Neither) => {
            remove_if(dir, &entry.staged, &entry.new);
            None
        }
        (Kind::Remove, State::Done | State::OldChanged) => {
            if !holds(Some(dir), &entry.staged).is_some_and(|b| b != Base::Missing) {
                return None;
            }
            match rename::no_replace(dir, &entry.staged, &entry.name) {
                Ok(()) => None,
                Err(e) if rename::unsupported(&e) => {
                    if dir.symlink_metadata(&entry.name).is_err()
                        && dir.rename(&entry.staged, dir, &entry.name).is_ok()
                    {
                        None
                    } else {
                        Some(entry.staged.clone())
                    }
                }
                Err(_) => Some(entry.staged.clone()),
            }
        }
        _ => None,
    }
}

/// Removes the old version kept under `name` if it is still `base`; a
/// version someone wrote into is kept, and its name returned.
fn keep_or_remove(dir: &Dir, name: &OsStr, base: &Base, state: State) -> Option<OsString> {
    if state == State::OldChanged {
        return Some(name.to_owned());
    }
    remove_if(dir, name, base);
    None
}

/// Removes `name` if it holds `base`.
fn remove_if(dir: &Dir, name: &OsStr, base: &Base) {
    if holds(Some(dir), name).as_ref() == Some(base) {
        let _ = dir.remove_file(name);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(kind: Kind, folder: Location) -> Entry {
        let digest = |b: u8| Base::Bytes {
            len: 3,
            digest: [b; 20],
        };
        let (base, new) = match kind {
            Kind::Replace => (digest(1), digest(2)),
            Kind::Create => (Base::Missing, digest(2)),
            Kind::Remove => (digest(1), Base::Missing),
        };
        Entry {
            kind,
            folder,
            folder_id: (7, 42),
            missing: if kind == Kind::Create {
                vec![OsString::from("new dir")]
            } else {
                Vec::new()
            },
            name: OsString::from("a file\nwith a line break"),
            staged: crate::file::transaction_name().unwrap(),
            kept: (kind == Kind::Replace).then(|| crate::file::transaction_name().unwrap()),
            base,
            new,
        }
    }

    #[test]
    fn a_record_reads_back_as_written_and_anything_else_is_refused() {
        let record = Record {
            pid: 1234,
            entries: vec![
                entry(Kind::Replace, Location::Inside(PathBuf::from("src/deep"))),
                entry(Kind::Create, Location::Inside(PathBuf::new())),
                entry(Kind::Remove, Location::Outside(PathBuf::from("/elsewhere"))),
            ],
        };
        let text = record.to_text();
        assert_eq!(Record::parse(&text), Some(record.clone()));
        // Names beside a file must be a transaction's, folders inside the
        // root may not climb out of it, and every field must be there.
        let mut swapped = record.clone();
        swapped.entries[0].staged = OsString::from("victim.txt");
        let mut climbing = record.clone();
        climbing.entries[1].folder = Location::Inside(PathBuf::from("../up"));
        let mut outside_relative = record;
        outside_relative.entries[2].folder = Location::Outside(PathBuf::from("rel"));
        for bad in [
            swapped.to_text(),
            climbing.to_text(),
            outside_relative.to_text(),
            text.replace("replace", "rewrite"),
            text.lines()
                .take(3)
                .map(|l| format!("{l} extra\n"))
                .collect(),
            text.replacen(MAGIC, "hashline-journal 9", 1),
            format!("{MAGIC}\n1\n"),
        ] {
            assert_eq!(Record::parse(&bad), None, "{bad}");
        }
    }
}
