//! Where the record lives: a folder of the user's own, private, found from
//! the environment the host passes in (the engine reads none itself), and
//! the names of the files in it. Everything in it is opened from the
//! folder's handle and never through a link, so a link planted in it leads
//! nowhere else.

use cap_fs_ext::DirExt;
use cap_std::fs::{Dir, File};
use std::ffi::OsString;
use std::io;
use std::path::{Path, PathBuf};

/// The live file: records are appended to it.
pub(super) const LOG: &str = "telemetry.jsonl";
/// Taken while the files are rotated.
pub(super) const LOCK: &str = "telemetry.lock";
/// The per-machine salt that paths are hashed with.
pub(super) const SALT: &str = "salt";
/// What the folder is, for a user who finds it.
pub(super) const README: &str = "README.txt";
const README_TEXT: &str = "hashline keeps a local record of its tool calls here: per call, the time, the host, \
the model where the host gives it, the tool and its ops, the outcome, sizes in lines, estimated tokens and \
milliseconds. File contents, the model's text and paths are never recorded (paths only as hashes salted with \
the file `salt`, which never leaves this folder). Nothing is sent anywhere.\n\
`hashline stats` reads it. Turn it off with HASHLINE_TELEMETRY=0, the option `telemetry: false`, or \
`--no-telemetry` on the command line; delete this folder to forget it.\n";
/// Rotated files are read up to this many, whatever the writer's setting.
pub(crate) const MAX_FILES: u32 = 16;

/// The default size a file grows to before it is rotated.
pub const DEFAULT_MAX_FILE_BYTES: u64 = 8 << 20;
/// The default number of files kept: the live one and the rotated ones.
pub const DEFAULT_FILES: u32 = 4;

/// The name of the live file (`0`) or of a rotated one (`telemetry.1.jsonl`
/// is the newest of those).
pub(crate) fn log_name(n: u32) -> String {
    if n == 0 {
        LOG.to_owned()
    } else {
        format!("telemetry.{n}.jsonl")
    }
}

/// Where and how much the record keeps.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Settings {
    /// The folder.
    pub dir: PathBuf,
    /// A file past this many bytes is rotated.
    pub max_file_bytes: u64,
    /// Files kept, the live one included (at least 1): the record holds at
    /// most about `files × max_file_bytes`.
    pub files: u32,
}

impl Settings {
    /// The default bounds, in `dir`.
    pub fn new(dir: impl Into<PathBuf>) -> Settings {
        Settings {
            dir: dir.into(),
            max_file_bytes: DEFAULT_MAX_FILE_BYTES,
            files: DEFAULT_FILES,
        }
    }

    /// The settings the environment gives, read through `var`: `None` when
    /// it turns the record off (see [`off`]) or no folder can be found.
    pub fn from_env(var: impl Fn(&str) -> Option<OsString>) -> Option<Settings> {
        if off(&var) {
            return None;
        }
        default_dir(var).map(Settings::new)
    }
}

/// Whether the environment turns the record off: `HASHLINE_TELEMETRY` set
/// to anything but a plain yes (`1`, `true`, `on`, `yes`: a user who
/// writes `disabled` means no), or `DO_NOT_TRACK` set to anything but `0`
/// or nothing (the cross-tool convention).
pub fn off(var: impl Fn(&str) -> Option<OsString>) -> bool {
    let value = |name: &str| var(name).map(|v| v.to_string_lossy().trim().to_ascii_lowercase());
    let hashline = value("HASHLINE_TELEMETRY")
        .is_some_and(|v| !v.is_empty() && !matches!(v.as_str(), "1" | "true" | "on" | "yes"));
    let do_not_track = value("DO_NOT_TRACK").is_some_and(|v| !v.is_empty() && v != "0");
    hashline || do_not_track
}

/// The folder of the record: `HASHLINE_TELEMETRY_DIR`, else
/// `$XDG_STATE_HOME/hashline/telemetry`, else the platform's place for
/// local state (`~/.local/state` on Linux and the BSDs, `~/Library/
/// Application Support` on macOS, `%LOCALAPPDATA%` on Windows). Variables
/// that are empty, or name a relative folder where an absolute one is
/// needed, count as unset.
pub fn default_dir(var: impl Fn(&str) -> Option<OsString>) -> Option<PathBuf> {
    let set = |name: &str| var(name).filter(|v| !v.is_empty()).map(PathBuf::from);
    if let Some(dir) = set("HASHLINE_TELEMETRY_DIR") {
        return Some(std::path::absolute(&dir).unwrap_or(dir));
    }
    let absolute = |name: &str| set(name).filter(|p| p.is_absolute());
    let base = if let Some(state) = absolute("XDG_STATE_HOME") {
        state
    } else if cfg!(windows) {
        absolute("LOCALAPPDATA")?
    } else if cfg!(target_os = "macos") {
        absolute("HOME")?
            .join("Library")
            .join("Application Support")
    } else {
        absolute("HOME")?.join(".local").join("state")
    };
    Some(base.join("hashline").join("telemetry"))
}

/// The folder, opened for writing: made private (0700, with any missing
/// parents) if missing, with the README that says what it is; refused when
/// it is a link, not a folder, another user's, or writable by others (who
/// could plant records or a salt in it).
pub(super) fn open_for_writing(dir: &Path) -> io::Result<Dir> {
    let made = match std::fs::symlink_metadata(dir) {
        Ok(_) => false,
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            let mut builder = std::fs::DirBuilder::new();
            builder.recursive(true);
            #[cfg(unix)]
            std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
            builder.create(dir)?;
            true
        }
        Err(e) => return Err(e),
    };
    let opened = open(dir)?;
    check_private(&opened)?;
    if made {
        let _ = write_new(&opened, README, README_TEXT.as_bytes());
    }
    Ok(opened)
}

/// The folder, opened for reading (`None` when it does not exist). Its
/// files are read through its handle, never through a link.
pub(crate) fn open_for_reading(dir: &Path) -> io::Result<Option<Dir>> {
    match Dir::open_ambient_dir(dir, cap_std::ambient_authority()) {
        Ok(dir) => Ok(Some(dir)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e),
    }
}

/// `dir` itself, not a link to a folder elsewhere.
fn open(dir: &Path) -> io::Result<Dir> {
    let (Some(parent), Some(name)) = (dir.parent(), dir.file_name()) else {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "the telemetry folder cannot be a root folder",
        ));
    };
    let parent = if parent.as_os_str().is_empty() {
        Path::new(".")
    } else {
        parent
    };
    Dir::open_ambient_dir(parent, cap_std::ambient_authority())?.open_dir_nofollow(name)
}

#[cfg(unix)]
fn check_private(dir: &Dir) -> io::Result<()> {
    use cap_std::fs::MetadataExt;
    let meta = dir.dir_metadata()?;
    if meta.uid() != rustix::process::geteuid().as_raw() {
        return Err(io::Error::new(
            io::ErrorKind::PermissionDenied,
            "the telemetry folder belongs to another user",
        ));
    }
    if meta.mode() & 0o022 != 0 {
        return Err(io::Error::new(
            io::ErrorKind::PermissionDenied,
            "others may write in the telemetry folder",
        ));
    }
    Ok(())
}

#[cfg(not(unix))]
fn check_private(_: &Dir) -> io::Result<()> {
    Ok(())
}

/// Options that open (or make, the user's alone) a file of the folder,
/// never through a link, and without waiting: a pipe planted in its place
/// must not hold the write up. Appending, the file is readable too, so
/// that a line another writer left cut short can be seen.
fn writing(append: bool, create_new: bool) -> cap_std::fs::OpenOptions {
    let mut options = cap_std::fs::OpenOptions::new();
    options.append(append).read(append).write(!append);
    if create_new {
        options.create_new(true);
    } else {
        options.create(true);
    }
    cap_fs_ext::OpenOptionsFollowExt::follow(&mut options, cap_fs_ext::FollowSymlinks::No);
    #[cfg(unix)]
    {
        use cap_std::fs::OpenOptionsExt;
        options.mode(0o600);
        options.custom_flags(rustix::fs::OFlags::NONBLOCK.bits() as i32);
    }
    options
}

/// A file of the folder opened for writing (appending, or from its start),
/// made if missing; refused unless it is a plain file of the user's with
/// one name, so that a pipe, a device or a hard link planted in its place
/// (another file's second name, possibly outside the folder) is never
/// written.
pub(super) fn open_file(dir: &Dir, name: &str, append: bool) -> io::Result<File> {
    check_plain(dir.open_with(name, &writing(append, false))?)
}

/// Writes a file that must not exist yet.
pub(super) fn write_new(dir: &Dir, name: &str, bytes: &[u8]) -> io::Result<()> {
    use std::io::Write;
    check_plain(dir.open_with(name, &writing(false, true))?)?.write_all(bytes)
}

fn check_plain(file: File) -> io::Result<File> {
    let meta = file.metadata()?;
    if !meta.is_file() || !sole_name(&meta) {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            "a file of the telemetry folder is not a plain file of its own",
        ));
    }
    Ok(file)
}

#[cfg(unix)]
fn sole_name(meta: &cap_std::fs::Metadata) -> bool {
    use cap_std::fs::MetadataExt;
    meta.nlink() == 1 && meta.uid() == rustix::process::geteuid().as_raw()
}

#[cfg(not(unix))]
fn sole_name(_: &cap_std::fs::Metadata) -> bool {
    true
}
