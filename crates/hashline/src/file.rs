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

pub const DEFAULT_MAX_FILE_BYTES: u64 = 16 << 20;

/// A temporary file is named `.` + `TEMP_PID` characters naming its
/// writer's process + `TEMP_RANDOM` random ones + `TEMP_SUFFIX`: the same
/// length whatever the file it replaces, and a name only a write of this
/// engine makes. Together with the lock its writer holds on it, this is what
/// proves a leftover dead and ours.
const TEMP_SUFFIX: &str = ".hashline-tmp";
const TRANSACTION_SUFFIX: &str = ".hashline-txn";
const TEMP_PID: usize = 7;
const TEMP_RANDOM: usize = 17;
/// A file can only be locked once it exists, so a live writer's temporary
/// file is briefly empty and unlocked; an empty one whose writer is alive is
/// left alone for this long (after which a writer stopped that long finds it
/// gone and starts over, and one whose process id was reused stops counting).
const TEMP_UNLOCKED_GRACE: Duration = Duration::from_secs(60);
const TEMP_ALPHABET: &[u8; 32] = b"abcdefghijklmnopqrstuvwxyz234567";

/// What a version on disk was, to tell at write time whether it changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Base {
    Missing,
    Bytes { len: u64, digest: [u8; 20] },
}

impl Base {
    pub(crate) fn of(bytes: &[u8]) -> Base {
        Base::Bytes {
            len: bytes.len() as u64,
            digest: Sha1::digest(bytes).into(),
        }
    }

    /// Hashed as it streams in, so the checks before a write do not hold a
    /// second copy of a large file.
    pub(crate) fn read(mut file: &fs::File) -> io::Result<Base> {
        file.rewind()?;
        let mut hasher = Sha1::new();
        let mut buffer = vec![0u8; 1 << 16];
        let mut len = 0u64;
        loop {
            let n = file.read(&mut buffer)?;
            if n == 0 {
                break;
            }
            hasher.update(&buffer[..n]);
            len += n as u64;
        }
        Ok(Base::Bytes {
            len,
            digest: hasher.finalize().into(),
        })
    }
}

/// What a file was when it was read, beside its text: what an edit of it
/// must find at write time, and how many names it has.
#[derive(Debug, Clone)]
pub struct Found {
    pub base: Base,
    pub links: u64,
}

/// A file read as text.
#[derive(Debug)]
pub struct Loaded {
    pub doc: Document,
    pub base: Base,
    /// How many names the file has (hard links); 0 for a missing file.
    pub links: u64,
}

impl Loaded {
    /// What the file was, without its text.
    pub fn found(&self) -> Found {
        Found {
            base: self.base.clone(),
            links: self.links,
        }
    }
}

/// Reads `target` as a text document; `missing_ok` turns a missing file
/// into an empty document (for operations that create files).
pub fn load(target: &Target, max_bytes: u64, missing_ok: bool) -> Result<Loaded> {
    let display = &target.display;
    let err = |e: io::Error| io_error(&e, display).with_path(display);
    let place = &target.place;
    let missing = || {
        if missing_ok {
            Ok(Loaded {
                doc: Document::from_bytes(b"")?,
                base: Base::Missing,
                links: 0,
            })
        } else {
            Err(
                Error::new(ErrorCode::NotFound, format!("File {display} not found"))
                    .with_path(display),
            )
        }
    };
    if !place.missing.is_empty() {
        return missing();
    }
    // Look before opening: opening a pipe for reading waits for a writer.
    // The resolved name is not a link unless it became one since; a look
    // without following costs one call where following costs three.
    let meta = match place.dir.symlink_metadata(&place.name) {
        Ok(meta) if meta.file_type().is_symlink() => place.dir.metadata(&place.name),
        other => other,
    };
    let meta = match meta {
        Ok(meta) => meta,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return missing(),
        Err(e) => return Err(err(e)),
    };
    check_kind(meta.is_dir(), meta.is_file(), display)?;
    if meta.len() > max_bytes {
        return Err(too_large(display, meta.len(), max_bytes));
    }
    let file = place
        .dir
        .open_with(&place.name, &reading(FollowSymlinks::Yes))
        .map_err(err)?
        .into_std();
    read_opened(&file, display, max_bytes)
}

/// Reads the file a path names, for a view: its canonical path, how the
/// model should see it, and its text. A regular file inside the root named
/// without a symlink is opened the quick way (`Root::open_plain`); any
/// other path is resolved as for an edit.
pub fn load_for_view(
    root: &Root,
    path: &str,
    allow_outside: bool,
    max_bytes: u64,
) -> Result<(PathBuf, String, Document)> {
    if let Some(opened) = root.open_plain(path) {
        // A view needs no base to write against: the file's bytes are not
        // hashed for one, and its REV is computed beside its lines, or not
        // at all when a stored version holds the same text.
        let (bytes, _) = read_checked(&opened.file, &opened.display, max_bytes)?;
        let doc = Document::from_vec(bytes).map_err(|e| e.with_path(&opened.display))?;
        return Ok((opened.real, opened.display, doc));
    }
    let target = root.resolve(path, allow_outside)?;
    let doc = load(&target, max_bytes, false)?.doc;
    Ok((target.real, target.display, doc))
}

/// Reads a file opened for reading as a text document; anything but a
/// regular file, which may have taken the name since it was looked at, is
/// refused.
fn read_opened(file: &fs::File, display: &str, max_bytes: u64) -> Result<Loaded> {
    let (bytes, links) = read_checked(file, display, max_bytes)?;
    let base = Base::of(&bytes);
    let doc = Document::from_vec(bytes).map_err(|e| e.with_path(display))?;
    if let Base::Bytes { digest, .. } = &base {
        doc.know_rev_from_digest(digest);
    }
    Ok(Loaded { doc, base, links })
}

/// The bytes of a file opened for reading, if it is a regular file within
/// the size limit and holds no NUL byte, and its number of names.
fn read_checked(file: &fs::File, display: &str, max_bytes: u64) -> Result<(Vec<u8>, u64)> {
    let err = |e: io::Error| io_error(&e, display).with_path(display);
    let meta = file.metadata().map_err(err)?;
    check_kind(meta.is_dir(), meta.is_file(), display)?;
    if meta.len() > max_bytes {
        return Err(too_large(display, meta.len(), max_bytes));
    }
    let bytes = read_whole(file, meta.len(), max_bytes).map_err(err)?;
    if bytes.len() as u64 > max_bytes {
        return Err(too_large(display, bytes.len() as u64, max_bytes));
    }
    if let Some(at) = memchr::memchr(0, &bytes) {
        return Err(Error::new(
            ErrorCode::Binary,
            format!(
                "{display} looks binary (a NUL byte at offset {at}); it cannot be edited as text."
            ),
        )
        .with_path(display));
    }
    Ok((bytes, link_count(&meta)))
}

#[cfg(unix)]
fn link_count(meta: &fs::Metadata) -> u64 {
    std::os::unix::fs::MetadataExt::nlink(meta)
}

#[cfg(not(unix))]
fn link_count(_meta: &fs::Metadata) -> u64 {
    1
}

fn too_large(display: &str, size: u64, max_bytes: u64) -> Error {
    Error::new(
        ErrorCode::TooLarge,
        format!("{display} is {size} bytes, over the limit of {max_bytes} bytes; it is not read or edited."),
    )
    .with_path(display)
}

/// The file's bytes, up to one more than `max_bytes`. A file of the size
/// its metadata gave takes one `read`: asked for a byte more than that, a
/// shorter answer from a regular file is its end, and the read that would
/// confirm it (what `read_to_end` makes) is left out. A file that changed
/// size since is read to its end as it is now.
fn read_whole(file: &fs::File, size: u64, max_bytes: u64) -> io::Result<Vec<u8>> {
    let limit = max_bytes.saturating_add(1);
    let mut bytes = Vec::with_capacity(size.min(max_bytes).saturating_add(1) as usize);
    if let Ok(n) = rustix::io::read(file, rustix::buffer::spare_capacity(&mut bytes)) {
        if n as u64 == size && bytes.len() < bytes.capacity() {
            return Ok(bytes);
        }
    }
    file.take(limit.saturating_sub(bytes.len() as u64))
        .read_to_end(&mut bytes)?;
    Ok(bytes)
}

fn check_kind(is_dir: bool, is_file: bool, display: &str) -> Result<()> {
    if is_dir {
        return Err(Error::new(
            ErrorCode::NotAFile,
            format!("Path is a directory, not a file: {display}"),
        )
        .with_path(display));
    }
    if !is_file {
        return Err(Error::new(
            ErrorCode::NotAFile,
            format!("{display} is not a regular file (a pipe, socket or device); only regular files can be read or edited."),
        )
        .with_path(display));
    }
    Ok(())
}

/// Options to open a file for reading that never wait: a pipe that took
/// the file's place opens at once (or fails, opened for writing), and is
/// then refused as not a file.
pub(crate) fn reading(follow: FollowSymlinks) -> OpenOptions {
    let mut options = OpenOptions::new();
    options.read(true).follow(follow);
    #[cfg(unix)]
    {
        use cap_std::fs::OpenOptionsExt;
        options.custom_flags(rustix::fs::OFlags::NONBLOCK.bits() as i32);
    }
    options
}

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

fn temp_name() -> io::Result<OsString> {
    temp_name_of(std::process::id())
}

fn temp_name_of(pid: u32) -> io::Result<OsString> {
    name_of(pid, TEMP_SUFFIX)
}

/// A name for a file of a transaction (a new version waiting for its
/// file's name, or an old one kept until the transaction is done): shaped
/// as a temporary file's but with a suffix of its own, since only the
/// transaction's journal may tell when such a file is no longer needed, and
/// the clean-up of dead temporary files must leave it alone.
pub(crate) fn transaction_name() -> io::Result<OsString> {
    name_of(std::process::id(), TRANSACTION_SUFFIX)
}

/// Whether `name` is one `transaction_name` makes.
pub(crate) fn is_transaction_name(name: &OsStr) -> bool {
    writer_of(name, TRANSACTION_SUFFIX).is_some()
}

fn name_of(pid: u32, suffix: &str) -> io::Result<OsString> {
    let mut random = [0u8; TEMP_RANDOM];
    getrandom::fill(&mut random).map_err(|e| io::Error::other(e.to_string()))?;
    let mut name = String::with_capacity(1 + TEMP_PID + TEMP_RANDOM + suffix.len());
    name.push('.');
    name.extend(
        (0..TEMP_PID)
            .rev()
            .map(|digit| char::from(TEMP_ALPHABET[(u64::from(pid) >> (5 * digit)) as usize & 31])),
    );
    name.extend(
        random
            .iter()
            .map(|b| char::from(TEMP_ALPHABET[usize::from(b & 31)])),
    );
    name.push_str(suffix);
    Ok(name.into())
}

/// The writer's process id, if `name` is a temporary file's name.
fn temp_writer(name: &OsStr) -> Option<u64> {
    writer_of(name, TEMP_SUFFIX)
}

fn writer_of(name: &OsStr, suffix: &str) -> Option<u64> {
    let body = name
        .to_str()?
        .strip_prefix('.')?
        .strip_suffix(suffix)?
        .as_bytes();
    if body.len() != TEMP_PID + TEMP_RANDOM {
        return None;
    }
    let digits = body
        .iter()
        .map(|b| TEMP_ALPHABET.iter().position(|a| a == b))
        .collect::<Option<Vec<_>>>()?;
    Some(
        digits[..TEMP_PID]
            .iter()
            .fold(0u64, |pid, &digit| pid << 5 | digit as u64),
    )
}

/// Whether process `pid` runs on this machine (or one of another user does).
#[cfg(unix)]
fn alive(pid: u64) -> bool {
    use rustix::process::{test_kill_process, Pid};
    let Some(pid) = i32::try_from(pid).ok().and_then(Pid::from_raw) else {
        return false;
    };
    !matches!(test_kill_process(pid), Err(rustix::io::Errno::SRCH))
}

/// Without a way to ask, every writer of an unlocked file counts as gone:
/// a live one finds its file removed before it locked it and starts over.
#[cfg(not(unix))]
fn alive(_pid: u64) -> bool {
    false
}

/// Whether an unlocked temporary file may still be a live writer's, in the
/// moment between creating it and locking it.
fn starting(meta: &fs::Metadata, pid: u64) -> bool {
    meta.len() == 0
        && alive(pid)
        && meta
            .modified()
            .ok()
            .and_then(|at| at.elapsed().ok())
            .is_some_and(|age| age < TEMP_UNLOCKED_GRACE)
}

/// Removes the temporary files of writes that died before finishing: a
/// file with a temporary file's name whose lock is free (its writer is
/// gone), that is not a live writer's just created, and that still has
/// that name once locked. Called while holding
/// the folder lock; never touches `keep`, the file being written.
pub(crate) fn remove_dead_temporaries(dir: &Dir, keep: &OsStr) {
    let Ok(entries) = dir.entries() else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        if name == keep {
            continue;
        }
        let Some(writer) = temp_writer(&name) else {
            continue;
        };
        let Ok(file) = dir.open_with(&name, &reading(FollowSymlinks::No)) else {
            continue;
        };
        let file = file.into_std();
        let dead = file
            .metadata()
            .is_ok_and(|m| m.is_file() && !starting(&m, writer))
            && try_lock(&file).unwrap_or(false)
            && names(dir, &name, &file);
        if dead {
            let _ = dir.remove_file(&name);
        }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lock::DEFAULT_LOCK_TIMEOUT;

    fn names_in(dir: &std::path::Path) -> Vec<OsString> {
        let mut names: Vec<_> = fs::read_dir(dir)
            .unwrap()
            .flatten()
            .map(|e| e.file_name())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn a_file_is_read_whole_whatever_size_its_metadata_gave() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f.txt");
        for len in [0usize, 1, 4095, 4096, 70_000] {
            let bytes: Vec<u8> = (0..len).map(|i| b'a' + (i % 26) as u8).collect();
            fs::write(&path, &bytes).unwrap();
            let file = fs::File::open(&path).unwrap();
            assert_eq!(read_whole(&file, len as u64, 1 << 20).unwrap(), bytes);
            // Grown or shrunk since it was looked at.
            for stale in [0, len / 2, len + 10] {
                let file = fs::File::open(&path).unwrap();
                assert_eq!(read_whole(&file, stale as u64, 1 << 20).unwrap(), bytes);
            }
            let file = fs::File::open(&path).unwrap();
            let capped = read_whole(&file, len as u64, 100).unwrap();
            assert_eq!(capped, bytes[..len.min(101)]);
        }
        // Files the kernel makes as they are read report a size of 0.
        if cfg!(target_os = "linux") {
            let file = fs::File::open("/proc/self/status").unwrap();
            let read = read_whole(&file, 0, 1 << 20).unwrap();
            assert!(String::from_utf8(read).unwrap().contains("Pid:"));
        }
    }

    fn write(target: &Target, base: &Base, bytes: &[u8]) -> Result<()> {
        replace_atomically(
            target,
            base,
            bytes,
            DEFAULT_LOCK_TIMEOUT,
            &Cancel::new(),
            || Ok(()),
        )
    }

    #[test]
    fn replace_atomically_refuses_when_the_base_changed_and_leaves_no_temporary() {
        let dir = tempfile::tempdir().unwrap();
        let root = Root::new(dir.path()).unwrap();
        let target = root.resolve("f.txt", false).unwrap();
        fs::write(dir.path().join("f.txt"), "one\n").unwrap();
        let loaded = load(&target, DEFAULT_MAX_FILE_BYTES, false).unwrap();
        fs::write(dir.path().join("f.txt"), "two\n").unwrap();
        let err = write(&target, &loaded.base, b"three\n").unwrap_err();
        assert_eq!(err.code, ErrorCode::BaseChanged);
        assert_eq!(fs::read(dir.path().join("f.txt")).unwrap(), b"two\n");
        assert_eq!(names_in(dir.path()), vec![OsString::from("f.txt")]);
    }

    #[test]
    fn a_new_file_is_not_written_over_one_that_appeared_since_the_plan() {
        let dir = tempfile::tempdir().unwrap();
        let root = Root::new(dir.path()).unwrap();
        let target = root.resolve("f.txt", false).unwrap();
        fs::write(dir.path().join("f.txt"), "theirs\n").unwrap();
        let err = write(&target, &Base::Missing, b"mine\n").unwrap_err();
        assert_eq!(err.code, ErrorCode::BaseChanged);
        assert_eq!(fs::read(dir.path().join("f.txt")).unwrap(), b"theirs\n");
    }

    #[test]
    fn a_failing_last_step_writes_nothing_and_removes_the_folders_it_made() {
        let dir = tempfile::tempdir().unwrap();
        let root = Root::new(dir.path()).unwrap();
        let target = root.resolve("a/b/f.txt", false).unwrap();
        let err = replace_atomically(
            &target,
            &Base::Missing,
            b"x\n",
            DEFAULT_LOCK_TIMEOUT,
            &Cancel::new(),
            || Err::<(), _>(Error::new(ErrorCode::Internal, "refused")),
        )
        .unwrap_err();
        assert_eq!(err.message, "refused");
        assert!(names_in(dir.path()).is_empty());
    }

    #[test]
    fn a_size_limit_of_u64_max_still_reads_the_whole_file() {
        let dir = tempfile::tempdir().unwrap();
        let root = Root::new(dir.path()).unwrap();
        let target = root.resolve("f.txt", false).unwrap();
        fs::write(dir.path().join("f.txt"), "one\ntwo\n").unwrap();
        let loaded = load(&target, u64::MAX, false).unwrap();
        assert_eq!(loaded.doc.line_count(), 2);
        let file = fs::File::open(dir.path().join("f.txt")).unwrap();
        assert_eq!(Base::read(&file).unwrap(), loaded.base);
    }

    #[test]
    fn dead_temporaries_are_removed_by_the_next_write_and_live_ones_are_kept() {
        let dir = tempfile::tempdir().unwrap();
        let root = Root::new(dir.path()).unwrap();
        let target = root.resolve("f.txt", false).unwrap();
        let dead = temp_name().unwrap();
        let live = temp_name().unwrap();
        fs::write(dir.path().join(&dead), "partial").unwrap();
        fs::write(dir.path().join(&live), "in progress").unwrap();
        let held = fs::File::open(dir.path().join(&live)).unwrap();
        held.lock().unwrap();
        for lookalike in [".f.txt.abc123.hashline-tmp", ".env.hashline-tmp"] {
            fs::write(dir.path().join(lookalike), "kept").unwrap();
        }
        write(&target, &Base::Missing, b"new\n").unwrap();
        let mut expected = vec![
            OsString::from(".env.hashline-tmp"),
            OsString::from(".f.txt.abc123.hashline-tmp"),
            OsString::from("f.txt"),
            live,
        ];
        expected.sort();
        assert_eq!(names_in(dir.path()), expected);
    }

    #[cfg(unix)]
    #[test]
    fn an_empty_temporary_not_yet_locked_by_a_live_writer_is_kept_and_a_dead_writers_is_removed() {
        let dir = tempfile::tempdir().unwrap();
        let root = Root::new(dir.path()).unwrap();
        let target = root.resolve("f.txt", false).unwrap();
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let gone = child.id();
        child.wait().unwrap();
        // This process is alive and may be between creating its temporary
        // file and locking it, on another thread.
        let starting = temp_name_of(std::process::id()).unwrap();
        let killed = temp_name_of(gone).unwrap();
        fs::write(dir.path().join(&starting), "").unwrap();
        fs::write(dir.path().join(&killed), "").unwrap();
        write(&target, &Base::Missing, b"new\n").unwrap();
        let mut expected = vec![OsString::from("f.txt"), starting];
        expected.sort();
        assert_eq!(names_in(dir.path()), expected);
    }

    #[test]
    fn temporary_names_have_one_length_and_are_recognised() {
        let name = temp_name().unwrap();
        assert_eq!(name.len(), 1 + TEMP_PID + TEMP_RANDOM + TEMP_SUFFIX.len());
        assert!(temp_writer(&name).is_some());
        assert_eq!(temp_writer(&name), Some(u64::from(std::process::id())));
        assert_eq!(
            temp_writer(&temp_name_of(u32::MAX).unwrap()),
            Some(u64::from(u32::MAX))
        );
        for other in [
            ".env.hashline-tmp",
            ".hashline-tmp",
            "f.txt",
            ".ABCDEFGHIJKLMNOPQRSTUVWX.hashline-tmp",
        ] {
            assert_eq!(temp_writer(OsStr::new(other)), None, "{other}");
        }
    }

    #[cfg(unix)]
    #[test]
    fn the_mode_is_kept_with_its_special_bits() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("run.sh");
        fs::write(&path, "a\n").unwrap();
        fs::set_permissions(&path, fs::Permissions::from_mode(0o4755)).unwrap();
        let root = Root::new(dir.path()).unwrap();
        let target = root.resolve("run.sh", false).unwrap();
        let loaded = load(&target, DEFAULT_MAX_FILE_BYTES, false).unwrap();
        write(&target, &loaded.base, b"b\n").unwrap();
        assert_eq!(
            fs::metadata(&path).unwrap().permissions().mode() & 0o7777,
            0o4755
        );
    }
}
