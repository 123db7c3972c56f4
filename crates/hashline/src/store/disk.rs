//! The store's folder: each version as its text and a small header, read
//! back only from plain files of the current user's that prove their
//! content, and the folder kept under its byte cap.

use super::*;

/// Versions of one file kept on disk; older ones are pruned.
pub(super) const DISK_VERSIONS_PER_FILE: usize = 16;
pub(super) const DISK_MAGIC: &str = "hashline-version 3";
/// Versions written before texts were kept apart, or before the time a
/// version was last shown was kept: ignored, and left to the byte cap to
/// remove.
pub(super) const OLD_DISK_MAGICS: [&str; 2] = ["hashline-version 1", "hashline-version 2"];
pub(super) const DISK_SUFFIX: &str = ".hlv";
pub(super) const TEXT_SUFFIX: &str = ".hlt";
/// The store folder is swept for its byte cap once this share of the cap has
/// been written since the last sweep, so that a grep writing many versions
/// lists the folder a few times, not once per file; the folder can pass its
/// cap by about this share between sweeps.
pub(super) const SWEEP_SHARE: usize = 16;
/// The file in the store folder that counts the bytes every process wrote
/// since the folder's last sweep. A sweep lists and measures every file of
/// the folder; without a count shared between processes, each command-line
/// call would have to sweep at its first write.
pub(super) const LEDGER: &str = "written-since-sweep";

/// A file larger than this is no store file: the store keeps no text of
/// this size, nor a header for one.
pub(super) const MAX_PROOF_BYTES: u64 = 1 << 36;

pub(super) fn file_key(path: &Path) -> String {
    hex::encode(&Sha1::digest(path.to_string_lossy().as_bytes())[..8])
}

/// Whether the current user owns what `meta` describes: only what it wrote
/// itself is read back, so another user cannot plant a version.
#[cfg(unix)]
pub(super) fn owned(meta: &fs::Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    meta.uid() == rustix::process::geteuid().as_raw()
}

#[cfg(not(unix))]
pub(super) fn owned(_: &fs::Metadata) -> bool {
    true
}

/// Whether `dir` is a folder of the current user's, creating it private
/// (0700, with any missing parents) when `create` and it is missing.
pub(super) fn usable_dir(dir: &Path, create: bool) -> bool {
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
pub(super) fn save(dir: &Path, path: &Path, version: &Version) -> std::io::Result<u64> {
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
    let len = version.doc.text_len();
    // A damaged text is caught by its hash when read back; one that is
    // there with the right length is kept rather than written again.
    let present = fs::symlink_metadata(&text_file)
        .is_ok_and(|m| m.is_file() && owned(&m) && m.len() == len as u64);
    if present {
        let _ = set_now(&text_file);
    } else {
        write_atomic(dir, &text_file, &version.doc.text_runs())?;
        written += len as u64;
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
        &[header.as_bytes()],
    )?;
    written += header.len() as u64;
    prune(dir, &key);
    Ok(written)
}

/// Writes `parts`, in order, as the file's bytes.
pub(super) fn write_atomic(dir: &Path, file: &Path, parts: &[&[u8]]) -> std::io::Result<()> {
    let mut temp = std::io::BufWriter::new(tempfile::NamedTempFile::new_in(dir)?);
    for part in parts {
        temp.write_all(part)?;
    }
    let temp = temp
        .into_inner()
        .map_err(std::io::IntoInnerError::into_error)?;
    temp.persist(file).map_err(|e| e.error)?;
    Ok(())
}

/// Sets a store file's modification time to now: the time the byte cap
/// orders versions by. The file is opened without following a link.
pub(super) fn set_now(file: &Path) -> std::io::Result<()> {
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
pub(super) fn store_files(dir: &Path, prefix: &str) -> Vec<(PathBuf, fs::Metadata)> {
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
pub(super) fn add_written(dir: &Path, bytes: u64) -> Option<u64> {
    let count = std::str::from_utf8(&read_owned(&dir.join(LEDGER), 64)?)
        .ok()?
        .trim()
        .parse::<u64>()
        .ok()?
        .saturating_add(bytes);
    set_written(dir, count).ok()?;
    Some(count)
}

pub(super) fn set_written(dir: &Path, count: u64) -> std::io::Result<()> {
    write_atomic(dir, &dir.join(LEDGER), &[format!("{count}\n").as_bytes()])
}

/// Removes the versions used longest ago until the folder's store files
/// hold at most `max` bytes. A version's header and text go together, and
/// its time is the later of theirs. Another process may remove the same
/// files at the same time: a file already gone is simply skipped.
pub(super) fn sweep(dir: &Path, max: u64) {
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
pub(super) fn written_by_store(file: &Path) -> bool {
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
pub(super) fn versions_on_disk(dir: &Path, key: &str) -> Vec<(PathBuf, std::time::SystemTime)> {
    store_files(dir, key)
        .into_iter()
        .filter(|(file, _)| file.to_string_lossy().ends_with(DISK_SUFFIX))
        .filter_map(|(file, meta)| Some((file, meta.modified().ok()?)))
        .collect()
}

pub(super) fn prune(dir: &Path, key: &str) {
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
pub(super) enum Loaded {
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
pub(super) fn read_owned(file: &Path, max: u64) -> Option<Vec<u8>> {
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
pub(super) fn read_version(file: &Path, wanted: &str, max_text: usize) -> Loaded {
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
pub(super) fn parse_version(
    file: &Path,
    header: &[u8],
    text: &[u8],
    wanted: &str,
) -> Option<Version> {
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
        doc: Arc::new(doc).into(),
        seen,
        carried,
        parent,
        read_at,
    })
}

/// The versions of `path` on disk, and how many were damaged; see
/// `read_version` for what is skipped.
pub(super) fn load(dir: &Path, path: &Path, max_text: usize) -> (Vec<Version>, usize) {
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
pub(super) fn parse_parent(line: &str, lines: usize) -> Option<Option<Parent>> {
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
