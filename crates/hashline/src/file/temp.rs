//! The names of temporary files and of a transaction's files beside a
//! file: made only by this engine, naming their writer, so that a leftover
//! of a dead writer is known for one and removed.

use super::*;

/// A temporary file is named `.` + `TEMP_PID` characters naming its
/// writer's process + `TEMP_RANDOM` random ones + `TEMP_SUFFIX`: the same
/// length whatever the file it replaces, and a name only a write of this
/// engine makes. Together with the lock its writer holds on it, this is what
/// proves a leftover dead and ours.
pub(super) const TEMP_SUFFIX: &str = ".hashline-tmp";
pub(super) const TRANSACTION_SUFFIX: &str = ".hashline-txn";
pub(super) const TEMP_PID: usize = 7;
pub(super) const TEMP_RANDOM: usize = 17;
/// A file can only be locked once it exists, so a live writer's temporary
/// file is briefly empty and unlocked; an empty one whose writer is alive is
/// left alone for this long (after which a writer stopped that long finds it
/// gone and starts over, and one whose process id was reused stops counting).
pub(super) const TEMP_UNLOCKED_GRACE: Duration = Duration::from_secs(60);
pub(super) const TEMP_ALPHABET: &[u8; 32] = b"abcdefghijklmnopqrstuvwxyz234567";

pub(super) fn temp_name() -> io::Result<OsString> {
    temp_name_of(std::process::id())
}

pub(super) fn temp_name_of(pid: u32) -> io::Result<OsString> {
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

pub(super) fn name_of(pid: u32, suffix: &str) -> io::Result<OsString> {
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
pub(super) fn temp_writer(name: &OsStr) -> Option<u64> {
    writer_of(name, TEMP_SUFFIX)
}

pub(super) fn writer_of(name: &OsStr, suffix: &str) -> Option<u64> {
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
pub(super) fn alive(pid: u64) -> bool {
    use rustix::process::{test_kill_process, Pid};
    let Some(pid) = i32::try_from(pid).ok().and_then(Pid::from_raw) else {
        return false;
    };
    !matches!(test_kill_process(pid), Err(rustix::io::Errno::SRCH))
}

/// Without a way to ask, every writer of an unlocked file counts as gone:
/// a live one finds its file removed before it locked it and starts over.
#[cfg(not(unix))]
pub(super) fn alive(_pid: u64) -> bool {
    false
}

/// Whether an unlocked temporary file may still be a live writer's, in the
/// moment between creating it and locking it.
pub(super) fn starting(meta: &fs::Metadata, pid: u64) -> bool {
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
