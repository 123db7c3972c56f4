//! Loading: what may be read as text, within the size limit, and what
//! the file was when read, which its write must find again.

use super::*;

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
pub(super) fn read_opened(file: &fs::File, display: &str, max_bytes: u64) -> Result<Loaded> {
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
pub(super) fn read_checked(
    file: &fs::File,
    display: &str,
    max_bytes: u64,
) -> Result<(Vec<u8>, u64)> {
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
pub(super) fn link_count(meta: &fs::Metadata) -> u64 {
    std::os::unix::fs::MetadataExt::nlink(meta)
}

#[cfg(not(unix))]
pub(super) fn link_count(_meta: &fs::Metadata) -> u64 {
    1
}

pub(super) fn too_large(display: &str, size: u64, max_bytes: u64) -> Error {
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
pub(super) fn read_whole(file: &fs::File, size: u64, max_bytes: u64) -> io::Result<Vec<u8>> {
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

pub(super) fn check_kind(is_dir: bool, is_file: bool, display: &str) -> Result<()> {
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
