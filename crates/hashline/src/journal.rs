//! The intent record of a transaction, and the folder of the root that
//! keeps records while transactions run.
//!
//! A transaction writes its record before it stages anything: every file
//! it will touch (the folder, the name, the versions before and after), and
//! every name it will use beside them. The record is flushed to disk before
//! the first file trades names, and removed once the transaction is done
//! or undone. While its writer lives, the record is locked; a record whose
//! lock is free is a dead writer's, and `recovery` puts things right from
//! it.
//!
//! The records live in a folder of the root, `.hashline-journal`, because
//! the root is the one thing every session that may touch the files shares:
//! hosts keep their versions in different store folders or none, so a
//! record there would be missed by the next host to open the root. The
//! folder exists only while a transaction is under way or waits for
//! recovery, holds a `.gitignore` of `*` so that `git add` never takes it,
//! and is private (0700, files 0600). A folder of the user's own that only
//! lost its privacy (as `cp -r` or an archive leaves it) is made private
//! again, since nobody else could write in it; one that is a symlink,
//! another user's, or writable by others may hold planted records and is
//! refused (`UNTRUSTED_JOURNAL`) until the user puts it right. A record
//! ends with the SHA-1 of what it says, so one cut short or altered is
//! never read. That a record is the user's and whole proves only that it
//! was not damaged, not who wrote it: `recovery` treats what it says as
//! claims to check.

use crate::cancel::Cancel;
use crate::error::{Error, ErrorCode, Result};
use crate::file::{
    is_transaction_name, names, reading, remove_dead_temporaries, write_locked, Base,
};
use crate::lock::{try_lock, FolderLock};
use crate::sandbox::{io_error, Root};
use cap_fs_ext::{DirExt, FollowSymlinks};
use cap_std::fs::Dir;
use sha1::{Digest, Sha1};
use std::ffi::{OsStr, OsString};
use std::fmt::Write as _;
use std::fs;
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The folder of the root that holds the records.
pub(crate) const FOLDER: &str = ".hashline-journal";
const MAGIC: &str = "hashline-journal 2";
/// The last line of a record: the SHA-1 of every line before it.
const CHECKSUM: &str = "sha1 ";
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
    /// The file as the model knows it, for notes: relative to the root
    /// with `/` inside it, by its absolute path outside.
    pub fn display(&self) -> String {
        let mut path = match &self.folder {
            Location::Inside(rel) | Location::Outside(rel) => rel.clone(),
        };
        path.extend(&self.missing);
        path.push(&self.name);
        if let Location::Outside(_) = self.folder {
            return path.to_string_lossy().into_owned();
        }
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
    pub(crate) fn to_text(&self) -> String {
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
        let sum = hex::encode(Sha1::digest(text.as_bytes()));
        let _ = writeln!(text, "{CHECKSUM}{sum}");
        text
    }

    /// The record in `text`, or why it is not one: written by another
    /// version, cut short or altered, or saying what no transaction does.
    pub(crate) fn parse(text: &str) -> std::result::Result<Record, &'static str> {
        if !text.starts_with(&format!("{MAGIC}\n")) {
            return Err("it is not a record this version of hashline can read");
        }
        let body = text
            .strip_suffix('\n')
            .and_then(|t| t.rsplit_once('\n'))
            .and_then(|(body, last)| {
                let sum = last.strip_prefix(CHECKSUM)?;
                let body = &text[..=body.len()];
                (hex::encode(Sha1::digest(body.as_bytes())) == sum).then_some(body)
            })
            .ok_or(
                "it was cut short or altered since it was written (its checksum does not match)",
            )?;
        Record::parse_body(body).ok_or("it says what no change of files does")
    }

    fn parse_body(body: &str) -> Option<Record> {
        let mut lines = body.lines().skip(1);
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

/// The records' folder as the message of an error shows it: by its full
/// path, so that the commands it gives can be run as they are.
fn shown_folder(root: &Root) -> String {
    root.path().join(FOLDER).display().to_string()
}

/// `UNTRUSTED_JOURNAL`: the records' folder is not the user's private
/// folder, and how to put it right.
fn untrusted(root: &Root, problem: &str, fix: &str) -> Error {
    Error::new(
        ErrorCode::UntrustedJournal,
        format!(
            "{}, where hashline keeps the record of a change of several files while it is under way, {problem}, so the records in it are not trusted and no change of several files is written. {fix}",
            shown_folder(root)
        ),
    )
    .with_path(FOLDER)
}

/// Checks that the records' folder is the user's and that nobody else may
/// write in it; one that only others may read or enter is made private
/// again (through its handle, so that it is the folder checked).
#[cfg(unix)]
fn make_private(root: &Root, dir: &Dir) -> Result<()> {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let failed = |e: io::Error| io_error(&e, FOLDER).with_path(FOLDER);
    let mut options = cap_std::fs::OpenOptions::new();
    options.read(true);
    let handle = dir.open_with(".", &options).map_err(failed)?.into_std();
    let meta = handle.metadata().map_err(failed)?;
    let me = rustix::process::geteuid().as_raw();
    let shown = shown_folder(root);
    if meta.uid() != me {
        return Err(untrusted(
            root,
            &format!("belongs to user {} rather than to user {me}, who runs hashline", meta.uid()),
            &format!("If the records in it are yours, make it yours with `chown -R {me} {shown}`; otherwise remove it."),
        ));
    }
    let mode = meta.mode() & 0o7777;
    if mode & 0o022 != 0 {
        return Err(untrusted(
            root,
            &format!("may be written by other users (its mode is {mode:o})"),
            &format!("If the records in it are yours, make it private again with `chmod 700 {shown}`; otherwise remove it."),
        ));
    }
    if mode & 0o077 != 0 {
        handle
            .set_permissions(fs::Permissions::from_mode(0o700))
            .map_err(|e| {
                untrusted(
                    root,
                    &format!("may be read by other users (its mode is {mode:o}) and could not be made private ({e})"),
                    &format!("Make it private with `chmod 700 {shown}`."),
                )
            })?;
    }
    Ok(())
}

#[cfg(not(unix))]
fn make_private(_root: &Root, _dir: &Dir) -> Result<()> {
    Ok(())
}

/// Why a record file is not the user's own, whole record to read, if it
/// is not.
#[cfg(unix)]
fn untrusted_record(meta: &fs::Metadata) -> Option<&'static str> {
    use std::os::unix::fs::MetadataExt;
    if meta.uid() != rustix::process::geteuid().as_raw() {
        Some("it belongs to another user")
    } else if meta.mode() & 0o022 != 0 {
        Some("other users may write it")
    } else {
        None
    }
}

#[cfg(not(unix))]
fn untrusted_record(_meta: &fs::Metadata) -> Option<&'static str> {
    None
}

/// The records' folder as it stands in the root: `UNTRUSTED_JOURNAL` if
/// something else than a folder has its name.
fn refuse_non_folder(root: &Root, root_dir: &Dir) -> Result<()> {
    match root_dir.symlink_metadata(FOLDER) {
        Ok(meta) if meta.is_symlink() => Err(untrusted(
            root,
            "is a symlink",
            "Remove the symlink: hashline makes the folder itself when it needs it.",
        )),
        Ok(meta) if !meta.is_dir() => Err(untrusted(
            root,
            "is not a folder",
            "Move it out of the way: hashline makes the folder itself when it needs it.",
        )),
        _ => Ok(()),
    }
}

/// The records' folder, open, checked and locked, if it exists (or, with
/// `create`, once made). A folder that another process removes while this
/// one waits for its lock is made again.
fn open_folder(
    root: &Root,
    root_dir: &Dir,
    create: bool,
    timeout: Duration,
    cancel: &Cancel,
) -> Result<Option<(Dir, FolderLock)>> {
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
            match root_dir.create_dir_with(FOLDER, &builder) {
                Ok(()) => {}
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
                Err(e) => return Err(failed(e)),
            }
        }
        refuse_non_folder(root, root_dir)?;
        let dir = match root_dir.open_dir_nofollow(FOLDER) {
            Ok(dir) => dir,
            Err(e) if e.kind() == io::ErrorKind::NotFound && !create => return Ok(None),
            Err(e) if e.kind() == io::ErrorKind::NotFound => continue,
            Err(e) => {
                // Swapped for a symlink between the look and the open.
                refuse_non_folder(root, root_dir)?;
                return Err(failed(e));
            }
        };
        make_private(root, &dir)?;
        let left = deadline.saturating_duration_since(Instant::now());
        let lock = FolderLock::acquire(&dir, left, cancel, FOLDER)?;
        let same = match (folder_id(&dir), root_dir.open_dir_nofollow(FOLDER)) {
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
    root: Root,
    root_dir: Arc<Dir>,
    name: OsString,
    _file: fs::File,
}

impl Journal {
    /// Writes `record` in the root's records folder and flushes it (and
    /// the folder) to disk; a wait for the folder's lock ends once `cancel`
    /// is cancelled.
    pub(crate) fn begin(
        root: &Root,
        record: &Record,
        timeout: Duration,
        cancel: &Cancel,
    ) -> Result<Journal> {
        let failed = |e: io::Error| {
            let shown = format!("{FOLDER} (the record of a change of several files)");
            io_error(&e, &shown).with_path(FOLDER)
        };
        let root_dir = root.dir().map_err(failed)?;
        let Some((dir, lock)) = open_folder(root, &root_dir, true, timeout, cancel)? else {
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
            root: root.clone(),
            root_dir,
            name,
            _file: file,
        })
    }

    /// Removes the record (and its folder once it holds no other): the
    /// transaction is done or undone.
    pub(crate) fn end(self, timeout: Duration) {
        remove(&self.root, &self.root_dir, &self.name, timeout);
    }
}

/// Removes the record `name` (and its folder once it holds no other);
/// never cancelled, as it ends a change that is done or undone.
fn remove(root: &Root, root_dir: &Dir, name: &OsStr, timeout: Duration) {
    if let Ok(Some((dir, _lock))) = open_folder(root, root_dir, false, timeout, &Cancel::new()) {
        let _ = dir.remove_file(name);
        tidy(root_dir, &dir);
    }
}

/// A record whose writer died, claimed (locked) by this process.
pub(crate) struct Claimed {
    /// Its file's name in the records' folder.
    pub name: OsString,
    /// The record, or why it is not read.
    pub record: std::result::Result<Record, &'static str>,
    /// When its file was made: what a transaction wrote after it is younger.
    pub made: Option<std::time::SystemTime>,
    _file: fs::File,
}

impl Claimed {
    /// Removes the record: what it asked for is done.
    pub(crate) fn remove(self, root: &Root, timeout: Duration) {
        if let Ok(root_dir) = root.dir() {
            remove(root, &root_dir, &self.name, timeout);
        }
    }
}

/// Whether the root holds a records' folder (or something under its name):
/// the common case of none costs this one look.
pub(crate) fn any(root: &Root) -> bool {
    !matches!(
        fs::symlink_metadata(root.path().join(FOLDER)),
        Err(e) if e.kind() == io::ErrorKind::NotFound
    )
}

/// The records of dead writers, locked so that no other process recovers
/// them at the same time; with the temporary files of records that were
/// never finished removed. A record of the user's that is not whole, or of
/// a file that is not the user's own, comes back with why it is not read.
pub(crate) fn claim(root: &Root, timeout: Duration) -> Result<Vec<Claimed>> {
    let root_dir = root
        .dir()
        .map_err(|e| io_error(&e, &root.path().display().to_string()))?;
    let Some((dir, _lock)) = open_folder(root, &root_dir, false, timeout, &Cancel::new())? else {
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
        if !meta.is_file() {
            continue;
        }
        if !try_lock(&file).unwrap_or(false) || !names(&dir, &name, &file) {
            continue;
        }
        let record = match untrusted_record(&meta) {
            Some(why) => Err(why),
            None if meta.len() > MAX_RECORD_BYTES => {
                Err("it is larger than any record hashline writes")
            }
            None => {
                let mut text = String::new();
                match (&file).take(MAX_RECORD_BYTES).read_to_string(&mut text) {
                    Ok(_) => Record::parse(&text),
                    Err(_) => Err("it is not text"),
                }
            }
        };
        claimed.push(Claimed {
            name,
            record,
            made: made(&meta),
            _file: file,
        });
    }
    if claimed.is_empty() {
        tidy(&root_dir, &dir);
    }
    Ok(claimed)
}

/// When a file came to be what it is: its birth where the file system
/// keeps one, else its last change of status (which is never earlier).
pub(crate) fn made(meta: &fs::Metadata) -> Option<std::time::SystemTime> {
    if let Ok(born) = meta.created() {
        return Some(born);
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let secs = u64::try_from(meta.ctime()).ok()?;
        let nanos = u32::try_from(meta.ctime_nsec()).ok()?;
        std::time::UNIX_EPOCH.checked_add(Duration::new(secs, nanos))
    }
    #[cfg(not(unix))]
    None
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
        assert_eq!(Record::parse(&text), Ok(record.clone()));
        // Names beside a file must be a transaction's, folders inside the
        // root may not climb out of it, every field must be there, and a
        // record cut short or altered does not match its checksum.
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
            Record {
                pid: 1,
                entries: Vec::new(),
            }
            .to_text(),
            text[..text.len() - 1].to_owned(),
            text.replacen("1234", "1235", 1),
            text.lines()
                .filter(|l| !l.starts_with("remove"))
                .map(|l| format!("{l}\n"))
                .collect(),
        ] {
            assert!(Record::parse(&bad).is_err(), "{bad}");
        }
    }
}
