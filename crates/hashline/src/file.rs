//! The file envelope: where a path may lead, what may be read as text, and
//! how a new version replaces the old one (atomically, mode kept, refused
//! when the file changed since it was read).

use crate::error::{Error, ErrorCode, Result};
use crate::text::Document;
use sha1::{Digest, Sha1};
use std::fs;
use std::io::{self, Read, Write};
use std::path::{Component, Path, PathBuf};

pub const DEFAULT_MAX_FILE_BYTES: u64 = 16 << 20;
/// Temporary files of an unfinished write carry this suffix, so a later
/// write in the same folder can recognise and remove them.
const TEMP_SUFFIX: &str = ".hashline-tmp";

/// A path the caller named, resolved against the root.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    /// Symlinks resolved: where reads and writes go.
    pub real: PathBuf,
    /// As the model should see it: relative to the root when inside it.
    pub display: String,
}

/// The root a session works in, canonicalised once.
#[derive(Debug, Clone)]
pub struct Root {
    path: PathBuf,
}

impl Root {
    pub fn new(path: &Path) -> Result<Root> {
        let path = fs::canonicalize(path).map_err(|e| {
            io_error(&e, &path.display().to_string()).with_path(path.display().to_string())
        })?;
        if !path.is_dir() {
            return Err(Error::new(
                ErrorCode::NotAFile,
                format!("The root {} is not a folder.", path.display()),
            ));
        }
        Ok(Root { path })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Resolves `path` (absolute, or relative to the root) lexically and
    /// through every symlink that exists, and refuses anything that ends up
    /// outside the root unless `allow_outside`.
    pub fn resolve(&self, path: &str, allow_outside: bool) -> Result<Target> {
        if path.trim().is_empty() {
            return Err(Error::invalid_request("The path is empty."));
        }
        if path.contains('\0') {
            return Err(Error::invalid_request("The path contains a NUL character."));
        }
        // "f.txt/" names a folder: POSIX refuses it when f.txt is a file.
        let wants_folder = path.len() > 1 && path.ends_with(['/', '\\']);
        let joined = self.path.join(path);
        let lexical = normalize(&joined);
        let real = resolve_existing(&lexical).map_err(|e| io_error(&e, path).with_path(path))?;
        let inside = real.starts_with(&self.path);
        if !inside && !allow_outside {
            return Err(Error::new(
                ErrorCode::OutsideRoot,
                format!(
                    "{path} resolves to {}, outside the project root {}; it may not be read or edited here.",
                    real.display(),
                    self.path.display()
                ),
            )
            .with_path(path));
        }
        let relative = lexical
            .strip_prefix(&self.path)
            .or_else(|_| real.strip_prefix(&self.path));
        let display = match relative {
            Ok(rel) if inside && rel.as_os_str().is_empty() => ".".to_string(),
            Ok(rel) if inside => rel.to_string_lossy().replace('\\', "/"),
            _ => real.display().to_string(),
        };
        if wants_folder && !real.is_dir() {
            return Err(Error::new(
                ErrorCode::NotAFile,
                format!("{path} ends with a slash, which names a folder, but {display} is not one. Leave out the slash to name the file."),
            )
            .with_path(path));
        }
        Ok(Target { real, display })
    }
}

fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// Canonicalises the longest existing prefix of `path` and appends the
/// rest, so a file to be created resolves through symlinked folders too.
fn resolve_existing(path: &Path) -> io::Result<PathBuf> {
    let mut existing = path.to_path_buf();
    let mut rest = Vec::new();
    loop {
        match fs::canonicalize(&existing) {
            Ok(real) => {
                let mut real = real;
                for part in rest.iter().rev() {
                    real.push(part);
                }
                return Ok(real);
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                if fs::symlink_metadata(&existing).is_ok() {
                    // A dangling symlink: its target is unknown, so is where a write would go.
                    return Err(io::Error::new(
                        io::ErrorKind::NotFound,
                        "a symlink that points nowhere",
                    ));
                }
                match (existing.file_name(), existing.parent()) {
                    (Some(name), Some(parent)) => {
                        rest.push(name.to_os_string());
                        existing = parent.to_path_buf();
                    }
                    _ => return Err(e),
                }
            }
            Err(e) => return Err(e),
        }
    }
}

fn io_error(e: &io::Error, path: &str) -> Error {
    match e.kind() {
        io::ErrorKind::NotFound => {
            Error::new(ErrorCode::NotFound, format!("File {path} not found"))
        }
        io::ErrorKind::PermissionDenied => Error::new(
            ErrorCode::Permission,
            format!("Permission denied: {path} cannot be accessed ({e})."),
        ),
        _ if e.raw_os_error() == Some(40) => Error::new(
            ErrorCode::Io,
            format!(
                "{path} cannot be resolved: too many levels of symbolic links (a symlink loop?)."
            ),
        ),
        _ => Error::new(ErrorCode::Io, format!("I/O error on {path}: {e}")),
    }
}

/// What a version on disk was, to tell at write time whether it changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Base {
    Missing,
    Bytes { len: u64, digest: [u8; 20] },
}

impl Base {
    fn of(bytes: &[u8]) -> Base {
        Base::Bytes {
            len: bytes.len() as u64,
            digest: Sha1::digest(bytes).into(),
        }
    }
}

/// A file read as text.
#[derive(Debug)]
pub struct Loaded {
    pub doc: Document,
    pub base: Base,
}

/// Reads `target` as a text document; `missing_ok` turns a missing file
/// into an empty document (for operations that create files).
pub fn load(target: &Target, max_bytes: u64, missing_ok: bool) -> Result<Loaded> {
    let err = |e: io::Error| io_error(&e, &target.display).with_path(&target.display);
    let meta = match fs::metadata(&target.real) {
        Ok(meta) => meta,
        Err(e) if e.kind() == io::ErrorKind::NotFound && missing_ok => {
            return Ok(Loaded {
                doc: Document::from_bytes(b"")?,
                base: Base::Missing,
            })
        }
        Err(e) => return Err(err(e)),
    };
    if meta.is_dir() {
        return Err(Error::new(
            ErrorCode::NotAFile,
            format!("Path is a directory, not a file: {}", target.display),
        )
        .with_path(&target.display));
    }
    if !meta.is_file() {
        return Err(Error::new(
            ErrorCode::NotAFile,
            format!(
                "{} is not a regular file (a pipe, socket or device); only regular files can be read or edited.",
                target.display
            ),
        )
        .with_path(&target.display));
    }
    let too_large = |size: u64| {
        Error::new(
            ErrorCode::TooLarge,
            format!(
                "{} is {size} bytes, over the limit of {max_bytes} bytes; it is not read or edited.",
                target.display
            ),
        )
        .with_path(&target.display)
    };
    if meta.len() > max_bytes {
        return Err(too_large(meta.len()));
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    fs::File::open(&target.real)
        .and_then(|f| f.take(max_bytes.saturating_add(1)).read_to_end(&mut bytes))
        .map_err(err)?;
    if bytes.len() as u64 > max_bytes {
        return Err(too_large(bytes.len() as u64));
    }
    if let Some(at) = memchr::memchr(0, &bytes) {
        return Err(Error::new(
            ErrorCode::Binary,
            format!(
                "{} looks binary (a NUL byte at offset {at}); it cannot be edited as text.",
                target.display
            ),
        )
        .with_path(&target.display));
    }
    let base = Base::of(&bytes);
    let doc = Document::from_vec(bytes).map_err(|e| e.with_path(&target.display))?;
    if let Base::Bytes { digest, .. } = &base {
        doc.know_rev_from_digest(digest);
    }
    Ok(Loaded { doc, base })
}

/// What the file is now, hashed as it streams in, so the check before a
/// write does not hold a second copy of a large file.
fn current_base(path: &Path) -> io::Result<Base> {
    let mut file = match fs::File::open(path) {
        Ok(file) => file,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Base::Missing),
        Err(e) => return Err(e),
    };
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

/// Replaces the file at `target` with `bytes` if it is still `base`: the
/// new content goes to a temporary file in the same folder, is flushed and
/// renamed over the original, so a reader sees the old or the new version,
/// never a mix. Missing parent folders are created.
pub fn replace_atomically(target: &Target, base: &Base, bytes: &[u8]) -> Result<()> {
    let err = |e: io::Error| io_error(&e, &target.display).with_path(&target.display);
    let dir = target.real.parent().unwrap_or(Path::new("/"));
    fs::create_dir_all(dir).map_err(err)?;
    let _lock = FolderLock::acquire(dir).map_err(err)?;
    remove_stale_temporaries(dir);
    if current_base(&target.real).map_err(err)? != *base {
        return Err(Error::new(
            ErrorCode::BaseChanged,
            format!(
                "Edit refused, nothing written: {} changed on disk after the edit was planned. Read it again and redo the edit.",
                target.display
            ),
        )
        .with_path(&target.display));
    }
    let existing = fs::metadata(&target.real).ok();
    if existing.is_some() {
        // The rename below needs only the folder's permission; the file's
        // own must be honoured too, as an in-place write would.
        fs::OpenOptions::new()
            .write(true)
            .open(&target.real)
            .map_err(err)?;
    }
    let name = target
        .real
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut temp = tempfile::Builder::new()
        .prefix(&format!(".{name}."))
        .suffix(TEMP_SUFFIX)
        .tempfile_in(dir)
        .map_err(err)?;
    temp.write_all(bytes).map_err(err)?;
    let permissions = match &existing {
        Some(meta) => Some(meta.permissions()),
        None => default_permissions(),
    };
    if let Some(permissions) = permissions {
        temp.as_file().set_permissions(permissions).map_err(err)?;
    }
    if let Some(meta) = &existing {
        keep_owner(temp.as_file(), meta);
    }
    temp.as_file().sync_all().map_err(err)?;
    temp.persist(&target.real).map_err(|e| err(e.error))?;
    sync_folder(dir);
    Ok(())
}

/// Removes the file at `target` if it is still `base`, under the same
/// folder lock as writes, so a version that changed after it was planned
/// is never lost.
pub fn remove_atomically(target: &Target, base: &Base) -> Result<()> {
    let err = |e: io::Error| io_error(&e, &target.display).with_path(&target.display);
    let dir = target.real.parent().unwrap_or(Path::new("/"));
    let _lock = FolderLock::acquire(dir).map_err(err)?;
    if current_base(&target.real).map_err(err)? != *base {
        return Err(Error::new(
            ErrorCode::BaseChanged,
            format!(
                "Nothing deleted: {} changed on disk after the deletion was planned. Read it again and redo the change.",
                target.display
            ),
        )
        .with_path(&target.display));
    }
    fs::remove_file(&target.real).map_err(err)?;
    sync_folder(dir);
    Ok(())
}

/// Whether the file at `target` is still `base`, for a caller that checks
/// several files before writing any of them.
pub fn unchanged(target: &Target, base: &Base) -> Result<bool> {
    current_base(&target.real)
        .map(|now| now == *base)
        .map_err(|e| io_error(&e, &target.display).with_path(&target.display))
}

/// The new version keeps the old one's owner and group where the process
/// may set them (as root); otherwise it belongs to whoever edits, as with
/// any editor that saves by rename.
#[cfg(unix)]
fn keep_owner(file: &fs::File, meta: &fs::Metadata) {
    use std::os::unix::fs::MetadataExt;
    let _ = std::os::unix::fs::fchown(file, Some(meta.uid()), Some(meta.gid()));
}

#[cfg(not(unix))]
fn keep_owner(_file: &fs::File, _meta: &fs::Metadata) {}

/// New files get rw-r--r--: the temporary file starts as rw-------, and
/// the process umask is not readable without changing it.
#[cfg(unix)]
fn default_permissions() -> Option<fs::Permissions> {
    use std::os::unix::fs::PermissionsExt;
    Some(fs::Permissions::from_mode(0o644))
}

#[cfg(not(unix))]
fn default_permissions() -> Option<fs::Permissions> {
    None
}

#[cfg(unix)]
fn sync_folder(dir: &Path) {
    // The rename is durable only once the folder is flushed; a failure
    // here does not undo a write that already happened.
    if let Ok(folder) = fs::File::open(dir) {
        let _ = folder.sync_all();
    }
}

#[cfg(not(unix))]
fn sync_folder(_dir: &Path) {}

/// Temporary files left by a write that was killed before its rename. Only
/// called while holding the folder lock, so no live write owns one.
fn remove_stale_temporaries(dir: &Path) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if name.starts_with('.') && name.ends_with(TEMP_SUFFIX) {
            let _ = fs::remove_file(entry.path());
        }
    }
}

/// An exclusive advisory lock on a folder, held by every write into it, so
/// that writes from other processes are serialised too.
struct FolderLock {
    #[cfg(unix)]
    _file: fs::File,
}

impl FolderLock {
    #[cfg(unix)]
    fn acquire(dir: &Path) -> io::Result<FolderLock> {
        let file = fs::File::open(dir)?;
        file.lock()?;
        Ok(FolderLock { _file: file })
    }

    #[cfg(not(unix))]
    fn acquire(_dir: &Path) -> io::Result<FolderLock> {
        Ok(FolderLock {})
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolve_keeps_paths_inside_the_root_and_refuses_escapes() {
        let dir = tempfile::tempdir().unwrap();
        fs::create_dir(dir.path().join("src")).unwrap();
        let root = Root::new(dir.path()).unwrap();
        let t = root.resolve("src/../src/new.rs", false).unwrap();
        assert_eq!(t.display, "src/new.rs");
        assert_eq!(
            root.resolve("../x", false).unwrap_err().code,
            ErrorCode::OutsideRoot
        );
        assert_eq!(
            root.resolve("/etc/hostname", false).unwrap_err().code,
            ErrorCode::OutsideRoot
        );
        assert!(root.resolve("../x", true).is_ok());
    }

    #[cfg(unix)]
    #[test]
    fn resolve_follows_symlinks_before_checking_the_root() {
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink(outside.path(), dir.path().join("link")).unwrap();
        let root = Root::new(dir.path()).unwrap();
        assert_eq!(
            root.resolve("link/f", false).unwrap_err().code,
            ErrorCode::OutsideRoot
        );
    }

    #[test]
    fn replace_atomically_refuses_when_the_base_changed_and_leaves_no_temporary() {
        let dir = tempfile::tempdir().unwrap();
        let root = Root::new(dir.path()).unwrap();
        let target = root.resolve("f.txt", false).unwrap();
        fs::write(&target.real, "one\n").unwrap();
        let loaded = load(&target, DEFAULT_MAX_FILE_BYTES, false).unwrap();
        fs::write(&target.real, "two\n").unwrap();
        let err = replace_atomically(&target, &loaded.base, b"three\n").unwrap_err();
        assert_eq!(err.code, ErrorCode::BaseChanged);
        assert_eq!(fs::read(&target.real).unwrap(), b"two\n");
        let names: Vec<_> = fs::read_dir(dir.path())
            .unwrap()
            .flatten()
            .map(|e| e.file_name())
            .collect();
        assert_eq!(names.len(), 1);
    }

    #[test]
    fn a_size_limit_of_u64_max_still_reads_the_whole_file() {
        let dir = tempfile::tempdir().unwrap();
        let root = Root::new(dir.path()).unwrap();
        let target = root.resolve("f.txt", false).unwrap();
        fs::write(&target.real, "one\ntwo\n").unwrap();
        let loaded = load(&target, u64::MAX, false).unwrap();
        assert_eq!(loaded.doc.line_count(), 2);
        assert_eq!(current_base(&target.real).unwrap(), loaded.base);
    }

    #[test]
    fn stale_temporaries_are_removed_by_the_next_write() {
        let dir = tempfile::tempdir().unwrap();
        let root = Root::new(dir.path()).unwrap();
        let target = root.resolve("f.txt", false).unwrap();
        fs::write(dir.path().join(".f.txt.abc123.hashline-tmp"), "partial").unwrap();
        replace_atomically(&target, &Base::Missing, b"new\n").unwrap();
        let names: Vec<_> = fs::read_dir(dir.path())
            .unwrap()
            .flatten()
            .map(|e| e.file_name())
            .collect();
        assert_eq!(names, vec![std::ffi::OsString::from("f.txt")]);
    }
}
