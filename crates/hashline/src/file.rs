//! The file envelope: what may be read as text, and how a new version
//! replaces the old one: atomically, mode and owner kept, and only if the
//! file is still the version the edit was planned on, checked at the last
//! moment the platform allows. Files are reached through the places the
//! sandbox resolved (a folder handle and a name), or, for a view, opened
//! by the sandbox's quick way; never by a path that may follow a link.

use crate::cancel::Cancel;
use crate::document::Document;
use crate::error::{Error, ErrorCode, Result};
use crate::lock::{try_lock, FolderLock};
use crate::sandbox::io_error;
pub use crate::sandbox::{Root, Target};
use cap_fs_ext::{FollowSymlinks, OpenOptionsFollowExt};
use cap_std::fs::{Dir, OpenOptions};
use sha1::{Digest, Sha1};
use std::ffi::{OsStr, OsString};
use std::fs;
use std::io::{self, Read, Seek, Write};
use std::path::PathBuf;
use std::time::Duration;

mod load;
mod temp;
#[cfg(test)]
mod tests;

pub(crate) use load::reading;
pub use load::{load, load_for_view, Base, Found, Loaded};
pub(crate) use temp::{is_transaction_name, remove_dead_temporaries, transaction_name};
use temp::{temp_name, TEMP_SUFFIX};

pub const DEFAULT_MAX_FILE_BYTES: u64 = 16 << 20;

/// Replaces the file at `target` with `bytes` if it is still `base`, so a
/// reader sees the old or the new version, never a mix, and no write made
/// by someone else since the plan is lost:
///
/// 1. the new bytes go to a temporary file in the same folder, with the
///    old file's owner and mode, flushed to disk, locked as alive;
/// 2. the folder lock is taken (waiting at most `lock_timeout`, and only
///    until `cancel` is cancelled), and the file is checked to still be
///    `base`;
/// 3. `before_write` runs: the caller's last chance to fail, with nothing
///    written; what it returns is returned;
/// 4. the temporary file and the file trade names in one step (a new file
///    takes its name only if it is still free), and the old version, now
///    under the temporary name where nobody can open it by the file's name,
///    is checked once more: a writer that had it open and truncated or
///    wrote it in between shows there, and the names are traded back.
///
/// Where the file system cannot trade names, a plain rename follows the
/// check of step 2. Missing parent folders are created, and removed again
/// if the write fails.
pub fn replace_atomically<T>(
    target: &Target,
    base: &Base,
    bytes: &[u8],
    lock_timeout: Duration,
    cancel: &Cancel,
    before_write: impl FnOnce() -> Result<T>,
) -> Result<T> {
    let display = &target.display;
    let err = |e: io::Error| io_error(&e, display).with_path(display);
    let changed = || {
        Error::new(
            ErrorCode::BaseChanged,
            format!("Edit refused, nothing written: {display} changed on disk after the edit was planned. Read it again and redo the edit."),
        )
        .with_path(display)
    };
    let place = &target.place;
    let mut folders = Folders::make(&place.dir, &place.missing).map_err(err)?;
    let dir = folders.dir();
    let old = match base {
        Base::Missing => None,
        Base::Bytes { .. } => match writable(dir, &place.name) {
            Ok(meta) => Some(meta),
            Err(e) => {
                let gone = e.kind() == io::ErrorKind::NotFound
                    || dir
                        .symlink_metadata(&place.name)
                        .is_ok_and(|m| !m.is_file());
                return Err(if gone { changed() } else { err(e) });
            }
        },
    };
    let mut temp = Temp::create(dir, bytes, old.as_ref()).map_err(err)?;
    let lock = FolderLock::acquire(dir, lock_timeout, cancel, display)?;
    remove_dead_temporaries(dir, &place.name);
    let now = Current::read(dir, &place.name).map_err(err)?;
    if !now.is(base) {
        return Err(changed());
    }
    let out = before_write()?;
    let written = match now {
        Current::File { file, base } => temp.exchange(&place.name, file, &base, bytes, &lock),
        _ => temp.take_name(&place.name).inspect(|_| lock.sync()),
    };
    match written {
        Ok(true) => {}
        Ok(false) => return Err(changed()),
        Err(e) => return Err(err(e)),
    }
    drop(temp);
    folders.keep();
    Ok(out)
}

/// The metadata of the file to be replaced, once it is known the process
/// may write it: the rename needs only the folder's permission, but the
/// file's own must be honoured too, as an in-place write would.
pub(crate) fn writable(dir: &Dir, name: &OsStr) -> io::Result<fs::Metadata> {
    let mut options = reading(FollowSymlinks::No);
    options.read(false).write(true);
    dir.open_with(name, &options)?.into_std().metadata()
}

/// What the file's name holds at the moment of the check.
pub(crate) enum Current {
    Missing,
    File {
        file: fs::File,
        base: Base,
    },
    /// A symlink, folder or other non-file took the name: not the base.
    Other,
}

impl Current {
    pub(crate) fn read(dir: &Dir, name: &OsStr) -> io::Result<Current> {
        let file = match dir.open_with(name, &reading(FollowSymlinks::No)) {
            Ok(file) => file.into_std(),
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                return Ok(if dir.symlink_metadata(name).is_ok() {
                    Current::Other
                } else {
                    Current::Missing
                })
            }
            Err(e) => {
                return match dir.symlink_metadata(name) {
                    Ok(meta) if !meta.is_file() => Ok(Current::Other),
                    _ => Err(e),
                }
            }
        };
        if !file.metadata()?.is_file() {
            return Ok(Current::Other);
        }
        let base = Base::read(&file)?;
        Ok(Current::File { file, base })
    }

    pub(crate) fn is(&self, base: &Base) -> bool {
        match self {
            Current::Missing => *base == Base::Missing,
            Current::File { base: now, .. } => now == base,
            Current::Other => false,
        }
    }
}

/// The folders a write creates, removed again unless the write succeeds.
pub(crate) struct Folders<'a> {
    anchor: &'a Dir,
    /// The folder the file goes in, when it had to be created.
    made_dir: Option<Dir>,
    /// What this write created, relative to `anchor`, outermost first.
    made: Vec<PathBuf>,
    keep: bool,
}

impl<'a> Folders<'a> {
    pub(crate) fn make(anchor: &'a Dir, missing: &[OsString]) -> io::Result<Folders<'a>> {
        let mut folders = Folders {
            anchor,
            made_dir: None,
            made: Vec::new(),
            keep: false,
        };
        if missing.is_empty() {
            return Ok(folders);
        }
        let mut path = PathBuf::new();
        for name in missing {
            path.push(name);
            match anchor.create_dir(&path) {
                Ok(()) => folders.made.push(path.clone()),
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
                Err(e) => return Err(e),
            }
        }
        folders.made_dir = Some(anchor.open_dir(&path)?);
        Ok(folders)
    }

    pub(crate) fn dir(&self) -> &Dir {
        self.made_dir.as_ref().unwrap_or(self.anchor)
    }

    pub(crate) fn keep(&mut self) {
        self.keep = true;
    }
}

impl Drop for Folders<'_> {
    fn drop(&mut self) {
        if self.keep {
            return;
        }
        // Innermost first; a folder someone else put a file in meanwhile
        // is not empty, and stays.
        for path in self.made.iter().rev() {
            let _ = self.anchor.remove_dir(path);
        }
    }
}

/// A temporary file holding the new version, locked while its writer is
/// alive. Dropping it removes whatever its name holds by then: the new
/// version when the write failed, the old one when it succeeded.
struct Temp<'a> {
    dir: &'a Dir,
    name: OsString,
    file: fs::File,
}

impl<'a> Temp<'a> {
    fn create(dir: &'a Dir, bytes: &[u8], old: Option<&fs::Metadata>) -> io::Result<Temp<'a>> {
        let options = creating();
        for _ in 0..16 {
            let name = temp_name()?;
            let file = match dir.open_with(&name, &options) {
                Ok(file) => file.into_std(),
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(e),
            };
            // A writer cleaning up may have found the file before it was
            // locked, taken it for dead and removed it: start over then.
            if !try_lock(&file)? || !names(dir, &name, &file) {
                continue;
            }
            let mut temp = Temp { dir, name, file };
            temp.fill(bytes, old)?;
            return Ok(temp);
        }
        Err(io::Error::other(
            "no free name for a temporary file in the folder",
        ))
    }

    fn fill(&mut self, bytes: &[u8], old: Option<&fs::Metadata>) -> io::Result<()> {
        fill(&mut self.file, bytes, old)
    }

    /// Gives the new version the file's name if nothing has it; false if
    /// something took the name since the check.
    fn take_name(&self, name: &OsStr) -> io::Result<bool> {
        match rename::no_replace(self.dir, &self.name, name) {
            Ok(()) => Ok(true),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Ok(false),
            Err(e) if rename::unsupported(&e) => {
                if self.dir.symlink_metadata(name).is_ok() {
                    return Ok(false);
                }
                self.dir.rename(&self.name, self.dir, name).map(|()| true)
            }
            Err(e) => Err(e),
        }
    }

    /// Trades names with the file, whose open handle `old` was checked to
    /// hold `base`; false, with the names traded back, if the old version
    /// changed before it lost its name.
    fn exchange(
        &mut self,
        name: &OsStr,
        old: fs::File,
        base: &Base,
        bytes: &[u8],
        lock: &FolderLock,
    ) -> io::Result<bool> {
        match rename::exchange(self.dir, &self.name, name) {
            Ok(()) => {}
            Err(e) if rename::unsupported(&e) => {
                self.dir.rename(&self.name, self.dir, name)?;
                lock.sync();
                return Ok(true);
            }
            Err(e) => return Err(e),
        }
        // The old version is looked at as late as possible, just before it
        // is removed: after the trade is flushed to disk. A writer that
        // looked the file up by name just before the trade opens and
        // truncates the old version a moment later (the kernel resolves the
        // name first), and that moment must fall before this look.
        lock.sync();
        // A failed look counts as a change: the old version goes back.
        let kept =
            names(self.dir, &self.name, &old) && Base::read(&old).is_ok_and(|now| now == *base);
        if kept {
            return Ok(true);
        }
        rename::exchange(self.dir, &self.name, name)?;
        if !self.holds(bytes).unwrap_or(false) {
            // Someone wrote through the file's name in the instant the new
            // version held it: that write is the newest, so it keeps the name.
            rename::exchange(self.dir, &self.name, name)?;
        }
        lock.sync();
        Ok(false)
    }

    fn holds(&mut self, bytes: &[u8]) -> io::Result<bool> {
        let mut now = Vec::with_capacity(bytes.len());
        self.file.rewind()?;
        (&self.file)
            .take(bytes.len() as u64 + 1)
            .read_to_end(&mut now)?;
        Ok(now == bytes)
    }
}

/// Writes a new version into `file`, gives it the old version's owner and
/// mode (`old`, none for a new file) and flushes it to disk.
fn fill(file: &mut fs::File, bytes: &[u8], old: Option<&fs::Metadata>) -> io::Result<()> {
    file.write_all(bytes)?;
    // The owner first: changing it clears the setuid and setgid bits,
    // which the mode then sets again.
    if let Some(meta) = old {
        keep_owner(file, meta);
    }
    if let Some(permissions) = permissions(old) {
        file.set_permissions(permissions)?;
    }
    file.sync_all()
}

/// Options that create a file of the user's alone, never through a link.
fn creating() -> OpenOptions {
    let mut options = OpenOptions::new();
    options
        .write(true)
        .read(true)
        .create_new(true)
        .follow(FollowSymlinks::No);
    #[cfg(unix)]
    {
        use cap_std::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    options
}

/// Writes the new version of a file of a transaction under `name` in `dir`
/// (a name the transaction's journal gave beforehand, so no other file may
/// have it), with the old version's owner and mode, flushed to disk.
pub(crate) fn stage(
    dir: &Dir,
    name: &OsStr,
    bytes: &[u8],
    old: Option<&fs::Metadata>,
) -> io::Result<fs::File> {
    let mut file = dir.open_with(name, &creating())?.into_std();
    if let Err(e) = fill(&mut file, bytes, old) {
        let _ = dir.remove_file(name);
        return Err(e);
    }
    Ok(file)
}

/// Writes `bytes` to a new file `name` in `dir` whole or not at all: into a
/// temporary file first, flushed, then given the name if it is free. The
/// file comes back open and locked, for as long as its writer keeps it, so
/// that others can tell a live writer's file from a dead one's.
pub(crate) fn write_locked(dir: &Dir, name: &OsStr, bytes: &[u8]) -> io::Result<fs::File> {
    let temp = Temp::create(dir, bytes, None)?;
    match rename::no_replace(dir, &temp.name, name) {
        Ok(()) => {}
        Err(e) if rename::unsupported(&e) => {
            if dir.symlink_metadata(name).is_ok() {
                return Err(io::ErrorKind::AlreadyExists.into());
            }
            dir.rename(&temp.name, dir, name)?;
        }
        Err(e) => return Err(e),
    }
    // A duplicate shares the open file and so its lock; the temporary
    // name, now free, is what dropping `temp` removes.
    temp.file.try_clone()
}

impl Drop for Temp<'_> {
    fn drop(&mut self) {
        let _ = self.dir.remove_file(&self.name);
    }
}

/// Whether `name` in `dir` is `file` itself (not a link to it, not a file
/// that replaced it).
pub(crate) fn names(dir: &Dir, name: &OsStr, file: &fs::File) -> bool {
    #[cfg(unix)]
    {
        use cap_std::fs::MetadataExt as _;
        use std::os::unix::fs::MetadataExt;
        match (dir.symlink_metadata(name), file.metadata()) {
            (Ok(named), Ok(open)) => named.dev() == open.dev() && named.ino() == open.ino(),
            _ => false,
        }
    }
    #[cfg(not(unix))]
    {
        let _ = file;
        dir.symlink_metadata(name).is_ok()
    }
}

/// Removes the file at `target` if it is still `base`, under the folder
/// lock every write takes. The file first moves to a name of its own (so
/// nobody can open it by its name any more) and is checked there once more:
/// if it changed since the check, it gets its name back and nothing is
/// deleted. The name it moves to is not a temporary file's name, so that a
/// version that cannot get its name back is never cleaned up as a leftover.
pub fn remove_atomically<T>(
    target: &Target,
    base: &Base,
    lock_timeout: Duration,
    cancel: &Cancel,
    before_write: impl FnOnce() -> Result<T>,
) -> Result<T> {
    let display = &target.display;
    let err = |e: io::Error| io_error(&e, display).with_path(display);
    let changed = || {
        Error::new(
            ErrorCode::BaseChanged,
            format!("Nothing deleted: {display} changed on disk after the deletion was planned. Read it again and redo the change."),
        )
        .with_path(display)
    };
    let place = &target.place;
    if !place.missing.is_empty() {
        return Err(changed());
    }
    let dir = &*place.dir;
    let lock = FolderLock::acquire(dir, lock_timeout, cancel, display)?;
    let Current::File { file, base: now } = Current::read(dir, &place.name).map_err(err)? else {
        return Err(changed());
    };
    if now != *base {
        return Err(changed());
    }
    let out = before_write()?;
    let aside = aside_name().map_err(err)?;
    match rename::no_replace(dir, &place.name, &aside) {
        Ok(()) => {}
        Err(e) if rename::unsupported(&e) => dir.rename(&place.name, dir, &aside).map_err(err)?,
        Err(e) => return Err(err(e)),
    }
    let kept = names(dir, &aside, &file) && Base::read(&file).is_ok_and(|now| now == *base);
    if !kept {
        return match rename::no_replace(dir, &aside, &place.name) {
            Ok(()) => Err(changed()),
            Err(e) => Err(Error::new(
                ErrorCode::BaseChanged,
                format!(
                    "Nothing deleted: {display} changed on disk while it was being deleted, and a new file took its name meanwhile ({e}); the changed version is kept beside it as {}.",
                    aside.to_string_lossy()
                ),
            )
            .with_path(display)),
        };
    }
    dir.remove_file(&aside).map_err(err)?;
    lock.sync();
    Ok(out)
}

/// A name in the folder for a file being deleted.
fn aside_name() -> io::Result<OsString> {
    let mut name = temp_name()?.into_string().unwrap_or_default();
    name.truncate(name.len() - TEMP_SUFFIX.len());
    name.push_str(".hashline-deleted");
    Ok(name.into())
}

/// The new version keeps the old one's owner and group where the process
/// may set them (as root); otherwise it belongs to whoever edits, as with
/// any editor that saves by rename.
#[cfg(unix)]
fn keep_owner(file: &fs::File, old: &fs::Metadata) {
    use std::os::unix::fs::MetadataExt;
    let Ok(meta) = file.metadata() else {
        return;
    };
    if (meta.uid(), meta.gid()) != (old.uid(), old.gid()) {
        let _ = std::os::unix::fs::fchown(file, Some(old.uid()), Some(old.gid()));
    }
}

#[cfg(not(unix))]
fn keep_owner(_file: &fs::File, _old: &fs::Metadata) {}

/// The old file's mode, setuid, setgid and sticky bits included; new files
/// get rw-r--r-- (the temporary file starts as rw-------, and the process
/// umask is not readable without changing it).
#[cfg(unix)]
fn permissions(old: Option<&fs::Metadata>) -> Option<fs::Permissions> {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    Some(fs::Permissions::from_mode(
        old.map_or(0o644, |meta| meta.mode() & 0o7777),
    ))
}

#[cfg(not(unix))]
fn permissions(old: Option<&fs::Metadata>) -> Option<fs::Permissions> {
    old.map(|meta| meta.permissions())
}

/// Renames within one folder that either trade two names or take a free
/// one, in one step (renameat2 on Linux, renameatx_np on macOS).
#[cfg(any(target_os = "linux", target_os = "android", target_vendor = "apple"))]
pub(crate) mod rename {
    use cap_std::fs::Dir;
    use rustix::fs::{renameat_with, RenameFlags};
    use std::ffi::OsStr;
    use std::io;

    pub fn exchange(dir: &Dir, a: &OsStr, b: &OsStr) -> io::Result<()> {
        Ok(renameat_with(dir, a, dir, b, RenameFlags::EXCHANGE)?)
    }

    pub fn no_replace(dir: &Dir, from: &OsStr, to: &OsStr) -> io::Result<()> {
        Ok(renameat_with(dir, from, dir, to, RenameFlags::NOREPLACE)?)
    }

    /// The file system (or an old kernel) does not offer these renames.
    pub fn unsupported(e: &io::Error) -> bool {
        use rustix::io::Errno;
        [Errno::INVAL, Errno::NOSYS, Errno::OPNOTSUPP, Errno::NOTSUP]
            .iter()
            .any(|errno| e.raw_os_error() == Some(errno.raw_os_error()))
    }
}

#[cfg(not(any(target_os = "linux", target_os = "android", target_vendor = "apple")))]
pub(crate) mod rename {
    use cap_std::fs::Dir;
    use std::ffi::OsStr;
    use std::io;

    pub fn exchange(_dir: &Dir, _a: &OsStr, _b: &OsStr) -> io::Result<()> {
        Err(io::ErrorKind::Unsupported.into())
    }

    pub fn no_replace(_dir: &Dir, _from: &OsStr, _to: &OsStr) -> io::Result<()> {
        Err(io::ErrorKind::Unsupported.into())
    }

    pub fn unsupported(e: &io::Error) -> bool {
        e.kind() == io::ErrorKind::Unsupported
    }
}
