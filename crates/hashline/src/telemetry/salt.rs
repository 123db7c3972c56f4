//! The per-machine salt that paths are hashed with: 32 random bytes made
//! once in the record's folder, the user's alone. A path's hash tells two
//! calls on the same file apart from calls on others, and nothing about
//! the path to anyone without the salt. A salt file of another size, or
//! not a plain file of the user's alone, is no salt this writer made: it is
//! replaced.

use super::folder::{write_new, SALT};
use crate::file::reading;
use cap_fs_ext::FollowSymlinks;
use cap_std::fs::Dir;
use sha1::{Digest, Sha1};
use std::io::{self, Read};

const SALT_BYTES: usize = 32;

pub(super) struct Salt([u8; SALT_BYTES]);

impl Salt {
    /// The folder's salt, made if missing or replaced if unfit; a race
    /// with another process making it is settled by the file system (the
    /// first salt named wins, and is read).
    pub(super) fn load(dir: &Dir) -> io::Result<Salt> {
        let mut last = io::Error::other("the salt could not be made");
        for _ in 0..4 {
            match read(dir) {
                Ok(Some(salt)) => return Ok(salt),
                Ok(None) => {}
                Err(e) if e.kind() == io::ErrorKind::NotFound => {}
                Err(e) => return Err(e),
            }
            let mut bytes = [0u8; SALT_BYTES];
            getrandom::fill(&mut bytes).map_err(|e| io::Error::other(e.to_string()))?;
            // Written whole under a name of its own, then given the salt's
            // name only if no other process gave it first: a reader never
            // meets a salt half written (and takes it for unfit).
            let made = format!("{SALT}.{}", hex::encode(&bytes[..8]));
            write_new(dir, &made, &bytes)?;
            let named = dir.hard_link(&made, dir, SALT);
            let _ = dir.remove_file(&made);
            match named {
                Ok(()) => return Ok(Salt(bytes)),
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => last = e,
                Err(e) => return Err(e),
            }
        }
        Err(last)
    }

    /// The hash a path is recorded by: 16 hex digits of SHA-1 of the salt
    /// and the path.
    pub(super) fn hash(&self, path: &str) -> String {
        let mut sha = Sha1::new();
        sha.update(self.0);
        sha.update(path.as_bytes());
        hex::encode(&sha.finalize()[..8])
    }
}

/// The salt in the folder: `None` (after removing it) when the file there
/// is unfit, an error `NotFound` when there is none.
fn read(dir: &Dir) -> io::Result<Option<Salt>> {
    let file = dir.open_with(SALT, &reading(FollowSymlinks::No));
    let fit = match file {
        Ok(mut file) => {
            let meta = file.metadata()?;
            let mut bytes = [0u8; SALT_BYTES];
            let mut extra = [0u8; 1];
            let ok = meta.is_file()
                && private(&meta)
                && meta.len() == SALT_BYTES as u64
                && file.read_exact(&mut bytes).is_ok()
                && file.read(&mut extra)? == 0;
            ok.then_some(Salt(bytes))
        }
        // A link in its place (refused by the open) is unfit too.
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Err(e),
        Err(_) => None,
    };
    if fit.is_none() {
        match dir.remove_file(SALT) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => return Err(e),
        }
    }
    Ok(fit)
}

#[cfg(unix)]
fn private(meta: &cap_std::fs::Metadata) -> bool {
    use cap_std::fs::MetadataExt;
    meta.uid() == rustix::process::geteuid().as_raw() && meta.mode() & 0o077 == 0
}

#[cfg(not(unix))]
fn private(_: &cap_std::fs::Metadata) -> bool {
    true
}
