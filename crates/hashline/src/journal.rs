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

mod record;
#[cfg(test)]
mod tests;

pub(crate) use record::{Entry, FolderId, Kind, Location, Record};

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
