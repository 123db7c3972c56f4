//! Where a path may lead. A session holds an open handle of its root folder,
//! and every file inside the root is reached from that handle one name at a
//! time, following a symlink only where it stays inside the root; each step
//! goes through cap-std, which opens beneath a folder handle (`openat2`
//! with `RESOLVE_BENEATH` where the kernel has it). What a path resolves to
//! is a folder handle plus a name in it, so a later swap of a folder for a
//! symlink cannot send a read or write elsewhere. A read takes a quicker way
//! to a regular file named without a link: one open by its path that
//! refuses every link on the way (`Root::open_plain`). Paths outside the
//! root are reached by name only with an explicit allowance.

use crate::error::{Error, ErrorCode, Result};
use cap_fs_ext::DirExt;
use cap_std::ambient_authority;
use cap_std::fs::Dir;
use parking_lot::Mutex;
use std::collections::VecDeque;
use std::ffi::OsString;
use std::fs;
use std::io;
use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, Weak};

/// A path the caller named, resolved against the root.
#[derive(Debug, Clone)]
pub struct Target {
    /// The file's canonical path, symlinks resolved: the key under which
    /// versions and locks are kept. Files are never opened by it.
    pub real: PathBuf,
    /// As the model should see it: relative to the root when inside it.
    pub display: String,
    pub(crate) place: Place,
}

/// Where a file is: a folder handle, the folders still to create under it,
/// and the file's name in the last of them.
#[derive(Debug, Clone)]
pub(crate) struct Place {
    pub dir: Arc<Dir>,
    pub missing: Vec<OsString>,
    pub name: OsString,
}

/// A file opened for reading by `Root::open_plain`, with where it is.
#[derive(Debug)]
pub(crate) struct Opened {
    /// The file's canonical path, as in `Target`.
    pub real: PathBuf,
    /// As the model should see it, as in `Target`.
    pub display: String,
    pub file: fs::File,
}

/// The root a session works in: its canonical path and an open handle.
#[derive(Debug, Clone)]
pub struct Root {
    path: PathBuf,
    /// The root as given, made absolute: absolute paths that name the root
    /// through a symlinked ancestor are still recognised as inside.
    given: PathBuf,
    /// The root's handle while a resolved place or a call uses it. A session
    /// lives as long as its host's garbage collector lets it, so holding the
    /// handle between calls would keep a file descriptor per idle session;
    /// it is opened again, from the canonical path, when nothing holds it.
    dir: Arc<Mutex<Weak<Dir>>>,
}

impl Root {
    /// Opens the root folder, the handle every access starts from.
    pub fn new(path: &Path) -> Result<Root> {
        let failed = |e: io::Error| {
            io_error(&e, &path.display().to_string()).with_path(path.display().to_string())
        };
        let canonical = fs::canonicalize(path).map_err(failed)?;
        if !canonical.is_dir() {
            return Err(Error::new(
                ErrorCode::NotAFile,
                format!("The root {} is not a folder.", canonical.display()),
            ));
        }
        // Opened once here so that a root that cannot be opened fails now.
        Dir::open_ambient_dir(&canonical, ambient_authority()).map_err(failed)?;
        let given = std::path::absolute(path)
            .map(|p| normalize(&p))
            .unwrap_or_else(|_| canonical.clone());
        Ok(Root {
            path: canonical,
            given,
            dir: Arc::new(Mutex::new(Weak::new())),
        })
    }

    /// The root's handle: the one in use, or a new one.
    fn handle(&self) -> io::Result<Arc<Dir>> {
        let mut held = self.dir.lock();
        if let Some(dir) = held.upgrade() {
            return Ok(dir);
        }
        let dir = Arc::new(Dir::open_ambient_dir(&self.path, ambient_authority())?);
        *held = Arc::downgrade(&dir);
        Ok(dir)
    }

    /// The root folder's handle, for what the engine keeps in the root
    /// itself (a transaction's journal).
    pub(crate) fn dir(&self) -> io::Result<Arc<Dir>> {
        self.handle()
    }

    /// The root as it was named.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Resolves `path` (absolute, or relative to the root). Inside the root
    /// it is resolved from the root's handle; a path that leads outside,
    /// by `..`, by being absolute or through a symlink, is refused unless
    /// `allow_outside`.
    pub fn resolve(&self, path: &str, allow_outside: bool) -> Result<Target> {
        let (lexical, named) = self.named(path)?;
        let failed = |e: io::Error| io_error(&e, path).with_path(path);
        let target = match &named {
            Some(rel) => match self.beneath(rel) {
                Ok(found) => Some(found),
                Err(e) if is_escape(&e) => None,
                Err(e) => return Err(failed(e)),
            },
            None => None,
        };
        let target = match target {
            Some(found) => found,
            None => {
                // Outside by name, or led out by a link: see where the path
                // really goes. This lookup only translates a name; a file
                // inside the root is then reached from the root's handle.
                let (existing, rest) = resolve_existing(&lexical).map_err(failed)?;
                match existing.strip_prefix(&self.path) {
                    Ok(rel) => {
                        let mut rel = rel.to_path_buf();
                        rel.extend(&rest);
                        self.beneath(&rel).map_err(|e| {
                            if is_escape(&e) {
                                self.outside(path, &lexical)
                            } else {
                                failed(e)
                            }
                        })?
                    }
                    Err(_) if allow_outside => ambient(&existing, &rest).map_err(failed)?,
                    Err(_) => {
                        let mut real = existing;
                        real.extend(&rest);
                        return Err(self.outside(path, &real));
                    }
                }
            }
        };
        let (real, place) = target;
        let inside = real.starts_with(&self.path);
        let display = match named.as_deref().filter(|_| inside) {
            Some(rel) if rel.as_os_str().is_empty() => ".".to_string(),
            Some(rel) => display_relative(rel),
            None => match real.strip_prefix(&self.path) {
                Ok(rel) if rel.as_os_str().is_empty() => ".".to_string(),
                Ok(rel) => display_relative(rel),
                Err(_) => real.display().to_string(),
            },
        };
        let target = Target {
            real,
            display,
            place,
        };
        if names_folder(path) && !is_folder(&target) {
            return Err(Error::new(
                ErrorCode::NotAFile,
                format!(
                    "{path} ends with a slash or \"/.\", which names a folder, but {} is not one. Leave that out to name the file.",
                    target.display
                ),
            )
            .with_path(path));
        }
        Ok(target)
    }

    /// `path` made absolute against the root and normalised by its text,
    /// and, when that is inside the root by name, the part below the root;
    /// a blank path or one holding NUL is refused.
    fn named(&self, path: &str) -> Result<(PathBuf, Option<PathBuf>)> {
        if path.trim().is_empty() {
            return Err(Error::invalid_request("The path is empty."));
        }
        if path.contains('\0') {
            return Err(Error::invalid_request("The path contains a NUL character."));
        }
        let lexical = normalize(&self.path.join(path));
        let named = lexical
            .strip_prefix(&self.path)
            .or_else(|_| lexical.strip_prefix(&self.given))
            .ok()
            .map(Path::to_path_buf);
        Ok((lexical, named))
    }

    /// The quick way to a regular file inside the root that is named
    /// without a symlink on the way, the common case of a read: a look at
    /// it by its canonical path, then one `openat2` that refuses every
    /// symlink (`RESOLVE_NO_SYMLINKS`), in place of opening the root and
    /// walking to the file one name at a time. The name is normalised and
    /// has no `..`, and no link is followed, so the file opened is the one
    /// `resolve` would find, under the root. The look keeps what is not a
    /// regular file from being opened, since opening a device can act on
    /// it; what takes the name between the look and the open is refused by
    /// the reader's `fstat`, as on the long way, which has the same window.
    ///
    /// `None` whenever the quick way does not apply or fails (a link on
    /// the way, a missing file, a folder, a kernel or sandbox without
    /// `openat2`); `resolve` then takes the long way and reports what it
    /// finds.
    pub(crate) fn open_plain(&self, path: &str) -> Option<Opened> {
        #[cfg(target_os = "linux")]
        {
            use rustix::fs::{openat2, Mode, OFlags, ResolveFlags, CWD};
            use rustix::io::Errno;
            use std::sync::atomic::{AtomicBool, Ordering};
            // A kernel without `openat2` (before 5.6), or a sandbox that
            // refuses it, refuses it every time: once is enough to ask.
            static REFUSED: AtomicBool = AtomicBool::new(false);
            if REFUSED.load(Ordering::Relaxed) {
                return None;
            }
            if names_folder(path) {
                return None;
            }
            let rel = self.named(path).ok()?.1?;
            if rel.as_os_str().is_empty() {
                return None;
            }
            let real = self.path.join(&rel);
            if !fs::symlink_metadata(&real).ok()?.is_file() {
                return None;
            }
            let flags = OFlags::RDONLY | OFlags::NONBLOCK | OFlags::CLOEXEC | OFlags::NOCTTY;
            let file = match openat2(CWD, &real, flags, Mode::empty(), ResolveFlags::NO_SYMLINKS) {
                Ok(file) => file,
                Err(e) => {
                    if e == Errno::NOSYS || e == Errno::PERM {
                        REFUSED.store(true, Ordering::Relaxed);
                    }
                    return None;
                }
            };
            Some(Opened {
                display: display_relative(&rel),
                real,
                file: fs::File::from(file),
            })
        }
        #[cfg(not(target_os = "linux"))]
        {
            let _ = path;
            None
        }
    }

    fn outside(&self, path: &str, real: &Path) -> Error {
        Error::new(
            ErrorCode::OutsideRoot,
            format!(
                "{path} resolves to {}, outside the project root {}; it may not be read or edited here.",
                real.display(),
                self.path.display()
            ),
        )
        .with_path(path)
    }

    /// Resolves a root-relative path from the root's handle, one name at a
    /// time: the canonical path and the place, or an escape error (see
    /// `is_escape`) when a link leads out.
    ///
    /// Hand-written over cap-std's primitives rather than its `canonicalize`,
    /// which reads the result back from `/proc/self/fd`: after a concurrent
    /// rename that is the file's new name (the temporary name of another
    /// write, say), and a place needs a folder handle and a name that is
    /// not a link.
    fn beneath(&self, rel: &Path) -> io::Result<(PathBuf, Place)> {
        let mut queue: VecDeque<OsString> = names(rel).collect();
        let root = self.handle()?;
        let mut dir = Arc::clone(&root);
        let mut path = PathBuf::new();
        let mut links = 0;
        // While `queue` is longer than this, its head came from a link.
        let mut link_end = usize::MAX;
        while let Some(name) = queue.pop_front() {
            if name == ".." {
                if !path.pop() {
                    return Err(escape());
                }
                dir = open_dir(&root, &path)?;
                continue;
            }
            let meta = match dir.symlink_metadata(&name) {
                Ok(meta) => meta,
                Err(e) if e.kind() == io::ErrorKind::NotFound => {
                    if queue.len() >= link_end {
                        return Err(dangling());
                    }
                    if queue.iter().any(|n| n == "..") {
                        return Err(e);
                    }
                    let mut missing: Vec<OsString> = std::iter::once(name).chain(queue).collect();
                    let name = missing.pop().unwrap_or_default();
                    let real = self
                        .path
                        .join(&path)
                        .join(missing.iter().collect::<PathBuf>())
                        .join(&name);
                    return Ok((real, Place { dir, missing, name }));
                }
                Err(e) => return Err(e),
            };
            if meta.file_type().is_symlink() {
                links += 1;
                if links > MAX_LINKS {
                    return Err(too_many_links());
                }
                let target = dir.read_link_contents(&name)?;
                link_end = link_end.min(queue.len());
                if target.is_absolute() {
                    let inside = target
                        .strip_prefix(&self.path)
                        .or_else(|_| target.strip_prefix(&self.given))
                        .map_err(|_| escape())?;
                    path.clear();
                    dir = Arc::clone(&root);
                    prepend(&mut queue, inside);
                } else {
                    prepend(&mut queue, &target);
                }
                continue;
            }
            if queue.is_empty() {
                let real = self.path.join(&path).join(&name);
                return Ok((
                    real,
                    Place {
                        dir,
                        missing: Vec::new(),
                        name,
                    },
                ));
            }
            if !meta.is_dir() {
                return Err(io::Error::from(io::ErrorKind::NotADirectory));
            }
            // A folder that became a link since the look above is looked at again.
            match dir.open_dir_nofollow(&name) {
                Ok(next) => {
                    dir = Arc::new(next);
                    path.push(&name);
                }
                Err(_)
                    if dir
                        .symlink_metadata(&name)
                        .is_ok_and(|m| m.file_type().is_symlink()) =>
                {
                    queue.push_front(name);
                }
                Err(e) => return Err(e),
            }
        }
        // The root itself.
        let real = self.path.join(&path);
        Ok((
            real,
            Place {
                dir,
                missing: Vec::new(),
                name: OsString::from("."),
            },
        ))
    }
}

/// The folder `rel` below `root`, or `root` itself.
fn open_dir(root: &Arc<Dir>, rel: &Path) -> io::Result<Arc<Dir>> {
    if rel.as_os_str().is_empty() {
        Ok(Arc::clone(root))
    } else {
        root.open_dir(rel).map(Arc::new)
    }
}

/// A place outside the root, reached by name with ambient authority: the
/// caller allowed it.
fn ambient(existing: &Path, rest: &[OsString]) -> io::Result<(PathBuf, Place)> {
    let mut real = existing.to_path_buf();
    real.extend(rest);
    let place = match rest.split_last() {
        Some((name, missing)) => Place {
            dir: Arc::new(Dir::open_ambient_dir(existing, ambient_authority())?),
            missing: missing.to_vec(),
            name: name.clone(),
        },
        None => match (existing.parent(), existing.file_name()) {
            (Some(parent), Some(name)) => Place {
                dir: Arc::new(Dir::open_ambient_dir(parent, ambient_authority())?),
                missing: Vec::new(),
                name: name.to_os_string(),
            },
            _ => Place {
                dir: Arc::new(Dir::open_ambient_dir(existing, ambient_authority())?),
                missing: Vec::new(),
                name: OsString::from("."),
            },
        },
    };
    Ok((real, place))
}

/// cap-std reports a path that leads out of its folder as a permission
/// error with no OS error number, and so does `escape`; a real EACCES
/// always carries one.
fn is_escape(e: &io::Error) -> bool {
    e.kind() == io::ErrorKind::PermissionDenied && e.raw_os_error().is_none()
}

/// As many symlinks as Linux follows in one path before ELOOP.
const MAX_LINKS: usize = 40;

/// The names of a path, without `.`; `..` kept, root and prefix dropped.
fn names(path: &Path) -> impl Iterator<Item = OsString> + '_ {
    path.components().filter_map(|c| match c {
        Component::Normal(name) => Some(name.to_os_string()),
        Component::ParentDir => Some(OsString::from("..")),
        _ => None,
    })
}

fn prepend(queue: &mut VecDeque<OsString>, path: &Path) {
    let mut added: Vec<OsString> = names(path).collect();
    while let Some(name) = added.pop() {
        queue.push_front(name);
    }
}

fn escape() -> io::Error {
    io::Error::new(
        io::ErrorKind::PermissionDenied,
        "a path led outside of the root",
    )
}

fn too_many_links() -> io::Error {
    #[cfg(unix)]
    return rustix::io::Errno::LOOP.into();
    #[cfg(not(unix))]
    io::Error::other("too many levels of symbolic links")
}

fn dangling() -> io::Error {
    io::Error::new(io::ErrorKind::NotFound, "a symlink that points nowhere")
}

fn is_folder(target: &Target) -> bool {
    let place = &target.place;
    place.missing.is_empty()
        && place
            .dir
            .metadata(&place.name)
            .is_ok_and(|meta| meta.is_dir())
}

/// Whether the path, as written, names a folder: it ends with a separator,
/// or its last component is `.`. A path's components drop both, so the
/// string is read as given.
fn names_folder(path: &str) -> bool {
    let last = path.rsplit(is_separator).find(|part| !part.is_empty());
    path.len() > 1 && (path.ends_with(is_separator) || last == Some("."))
}

/// A backslash separates components only on Windows; elsewhere it is a
/// character of the name.
fn is_separator(c: char) -> bool {
    c == '/' || (cfg!(windows) && c == '\\')
}

fn display_relative(rel: &Path) -> String {
    let names: Vec<String> = rel
        .iter()
        .map(|name| name.to_string_lossy().into_owned())
        .collect();
    names.join("/")
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

/// Canonicalises the longest existing prefix of `path`, and returns it with
/// the names that follow it, so a file to be created resolves through
/// symlinked folders too.
fn resolve_existing(path: &Path) -> io::Result<(PathBuf, Vec<OsString>)> {
    let mut existing = path.to_path_buf();
    let mut rest = Vec::new();
    loop {
        match fs::canonicalize(&existing) {
            Ok(real) => {
                rest.reverse();
                return Ok((real, rest));
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                if fs::symlink_metadata(&existing).is_ok() {
                    // Its target is unknown, so is where a write would go.
                    return Err(dangling());
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

pub(crate) fn io_error(e: &io::Error, path: &str) -> Error {
    if is_escape(e) {
        return Error::new(
            ErrorCode::OutsideRoot,
            format!("{path} leads outside the project root through a symlink; it may not be read or edited here."),
        );
    }
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
        assert_eq!(t.place.name, "new.rs");
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
        let allowed = root.resolve("link/f", true).unwrap();
        assert_eq!(
            allowed.real,
            outside.path().canonicalize().unwrap().join("f")
        );
    }

    #[cfg(unix)]
    #[test]
    fn missing_folders_are_listed_under_the_deepest_existing_one() {
        let dir = tempfile::tempdir().unwrap();
        fs::create_dir(dir.path().join("a")).unwrap();
        let root = Root::new(dir.path()).unwrap();
        let t = root.resolve("a/b/c/f.txt", false).unwrap();
        assert_eq!(
            t.place.missing,
            vec![OsString::from("b"), OsString::from("c")]
        );
        assert_eq!(t.place.name, "f.txt");
        assert_eq!(t.real, root.path().join("a/b/c/f.txt"));
    }

    #[cfg(unix)]
    #[test]
    fn links_are_followed_inside_the_root_and_refused_out_of_it() {
        use std::os::unix::fs::symlink;
        let dir = tempfile::tempdir().unwrap();
        let root_path = dir.path().canonicalize().unwrap();
        fs::create_dir(root_path.join("real")).unwrap();
        fs::write(root_path.join("real/f.txt"), "x").unwrap();
        symlink("real/f.txt", root_path.join("relative")).unwrap();
        symlink(root_path.join("real/f.txt"), root_path.join("absolute")).unwrap();
        symlink("real/../real", root_path.join("folder")).unwrap();
        symlink("../..", root_path.join("real/up")).unwrap();
        symlink("missing/f.txt", root_path.join("dangling")).unwrap();
        symlink("loop-b", root_path.join("loop-a")).unwrap();
        symlink("loop-a", root_path.join("loop-b")).unwrap();
        let root = Root::new(&root_path).unwrap();
        for path in ["relative", "absolute", "folder/f.txt"] {
            let t = root.resolve(path, false).unwrap();
            assert_eq!(t.real, root_path.join("real/f.txt"), "{path}");
            assert_eq!(t.place.name, "f.txt");
        }
        let new = root.resolve("folder/new/deeper.txt", false).unwrap();
        assert_eq!(new.real, root_path.join("real/new/deeper.txt"));
        assert_eq!(new.place.missing, vec![OsString::from("new")]);
        assert_eq!(
            root.resolve("real/up/x", false).unwrap_err().code,
            ErrorCode::OutsideRoot
        );
        assert_eq!(
            root.resolve("dangling", false).unwrap_err().code,
            ErrorCode::NotFound
        );
        let looped = root.resolve("loop-a", false).unwrap_err();
        assert_eq!(looped.code, ErrorCode::Io);
        assert!(looped.message.contains("symbolic links"));
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn the_quick_way_opens_only_a_regular_file_named_without_a_link_and_finds_what_resolve_finds() {
        use rustix::fs::{mknodat, FileType, Mode, CWD};
        use std::io::Read;
        use std::os::unix::fs::symlink;
        let parent = tempfile::tempdir().unwrap();
        let parent_path = parent.path().canonicalize().unwrap();
        let root_path = parent_path.join("root");
        fs::create_dir_all(root_path.join("src")).unwrap();
        fs::create_dir(root_path.join("real")).unwrap();
        fs::write(root_path.join("src/f.txt"), "inside").unwrap();
        fs::write(root_path.join("real/g.txt"), "behind a link").unwrap();
        fs::write(parent_path.join("out.txt"), "outside").unwrap();
        // `resolve` refuses a blank path whatever the folder holds.
        fs::write(root_path.join(" "), "blank name").unwrap();
        symlink("real", root_path.join("folder")).unwrap();
        symlink("src/f.txt", root_path.join("file")).unwrap();
        mknodat(
            CWD,
            root_path.join("pipe"),
            FileType::Fifo,
            Mode::from_raw_mode(0o600),
            0,
        )
        .unwrap();
        let root = Root::new(&root_path).unwrap();
        let absolute = root_path.join("src/f.txt").display().to_string();
        for path in ["src/f.txt", "./src/../src//f.txt", absolute.as_str()] {
            let mut opened = root.open_plain(path).expect(path);
            let target = root.resolve(path, false).unwrap();
            assert_eq!(opened.real, target.real, "{path}");
            assert_eq!(opened.display, target.display, "{path}");
            let mut text = String::new();
            opened.file.read_to_string(&mut text).unwrap();
            assert_eq!(text, "inside");
        }
        // A root named through a link is the same root: a path spelled
        // through that name opens the same file under its canonical path.
        symlink(&root_path, parent_path.join("alias")).unwrap();
        let aliased = Root::new(&parent_path.join("alias")).unwrap();
        let spelled = parent_path.join("alias/src/f.txt").display().to_string();
        let opened = aliased.open_plain(&spelled).unwrap();
        let target = aliased.resolve(&spelled, false).unwrap();
        assert_eq!(
            (&opened.real, &opened.display),
            (&target.real, &target.display)
        );
        assert_eq!(opened.real, root_path.join("src/f.txt"));
        // A link on the way, anything but a regular file, or a name outside
        // the root is left to `resolve`; the pipe is never opened.
        for path in [
            "folder/g.txt",
            "file",
            "pipe",
            "src",
            "src/f.txt/",
            "missing.txt",
            "../out.txt",
            ".",
            "",
            " ",
        ] {
            assert!(root.open_plain(path).is_none(), "{path:?}");
        }
    }

    #[test]
    fn a_path_names_a_folder_by_a_trailing_separator_or_dot() {
        for path in ["f.txt/", "f.txt/.", "a/./", "f.txt/.//."] {
            assert!(names_folder(path), "{path}");
        }
        for path in ["f.txt", "./f.txt", "a/.f", "..", "."] {
            assert!(!names_folder(path), "{path}");
        }
        assert_eq!(names_folder("f.txt\\"), cfg!(windows));
    }
}
