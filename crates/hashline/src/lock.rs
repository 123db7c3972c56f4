//! Bounded waits for the locks that serialise writes: the advisory lock on
//! a folder that every writing process takes, and the lock on one file that
//! the edits of one session take. A holder that never lets go (a stopped or
//! hung process) costs a caller the lock timeout, then a `LOCKED` error that
//! names the holder where the system tells. A call cancelled while it waits
//! stops waiting at once, with `CANCELLED`: nothing is written before the
//! lock is held.

use crate::cancel::Cancel;
use crate::error::{Error, ErrorCode, Result};
use cap_std::fs::Dir;
use std::fs;
use std::io;
use std::time::{Duration, Instant};

pub const DEFAULT_LOCK_TIMEOUT: Duration = Duration::from_secs(10);

/// Tries `attempt` until it yields, `timeout` passes or `cancel` is
/// cancelled. Polling, because `flock` has no timed form and a thread
/// blocked in it cannot be woken portably; the pause grows from 1 ms to
/// 50 ms so a short hold costs little, and bounds how late a cancellation
/// is seen.
pub(crate) fn wait<T>(
    timeout: Duration,
    cancel: &Cancel,
    mut attempt: impl FnMut() -> io::Result<Option<T>>,
) -> io::Result<Option<T>> {
    let start = Instant::now();
    let mut pause = Duration::from_millis(1);
    loop {
        if let Some(held) = attempt()? {
            return Ok(Some(held));
        }
        let elapsed = start.elapsed();
        if elapsed >= timeout || cancel.is_cancelled() {
            return Ok(None);
        }
        std::thread::sleep(pause.min(timeout - elapsed));
        pause = (pause * 2).min(Duration::from_millis(50));
    }
}

/// Takes `file`'s advisory lock if it is free.
pub(crate) fn try_lock(file: &fs::File) -> io::Result<bool> {
    match file.try_lock() {
        Ok(()) => Ok(true),
        Err(fs::TryLockError::WouldBlock) => Ok(false),
        Err(fs::TryLockError::Error(e)) => Err(e),
    }
}

/// An exclusive advisory lock on a folder, held by every write into it, so
/// that writes from other processes are serialised too.
pub(crate) struct FolderLock {
    #[cfg(unix)]
    file: fs::File,
}

impl FolderLock {
    /// `what` names the file being written, for the error; a wait that
    /// `cancel` ends fails with `CANCELLED`.
    #[cfg(unix)]
    pub fn acquire(
        dir: &Dir,
        timeout: Duration,
        cancel: &Cancel,
        what: &str,
    ) -> Result<FolderLock> {
        let failed = |e: io::Error| crate::sandbox::io_error(&e, what).with_path(what);
        // A handle of its own: flock belongs to an open file description,
        // which a duplicate of the session's handle would share (and cap-std
        // opens folders as paths only, which cannot be locked).
        let mut options = cap_std::fs::OpenOptions::new();
        options.read(true);
        let file = dir.open_with(".", &options).map_err(failed)?.into_std();
        match wait(timeout, cancel, || Ok(try_lock(&file)?.then_some(()))).map_err(failed)? {
            Some(()) => Ok(FolderLock { file }),
            None => {
                cancel.check()?;
                Err(
                    locked(&format!("the folder of {what}"), &holders(&file), timeout)
                        .with_path(what),
                )
            }
        }
    }

    #[cfg(not(unix))]
    pub fn acquire(
        _dir: &Dir,
        _timeout: Duration,
        _cancel: &Cancel,
        _what: &str,
    ) -> Result<FolderLock> {
        Ok(FolderLock {})
    }

    /// Flushes the folder, which makes a rename in it durable. A failure
    /// does not undo a write that already happened, so it is not reported.
    pub fn sync(&self) {
        #[cfg(unix)]
        let _ = self.file.sync_all();
    }
}

/// The `LOCKED` error: `what` is held `by` someone for longer than `timeout`.
pub(crate) fn locked(what: &str, by: &str, timeout: Duration) -> Error {
    Error::new(
        ErrorCode::Locked,
        format!(
            "Edit refused, nothing written: {what} is locked by {by}, which did not let go within {} ms. If that process is stopped or hung, end it; otherwise try again.",
            timeout.as_millis()
        ),
    )
}

/// "process 1234 (node)", or "this process" for our own id.
#[cfg(unix)]
fn describe(pid: u32) -> String {
    if pid == std::process::id() {
        return format!("this process ({pid})");
    }
    match fs::read_to_string(format!("/proc/{pid}/comm")) {
        Ok(name) => format!("process {pid} ({})", name.trim()),
        Err(_) => format!("process {pid}"),
    }
}

/// Who holds the lock on `file`: the processes named, where the system
/// tells.
#[cfg(unix)]
fn holders(file: &fs::File) -> String {
    let pids = flock_holders(file);
    if pids.is_empty() {
        return "another write".to_string();
    }
    let named: Vec<String> = pids.iter().map(|&pid| describe(pid)).collect();
    named.join(", ")
}

/// The processes holding a `flock` on `file`'s inode, from `/proc/locks`.
#[cfg(target_os = "linux")]
fn flock_holders(file: &fs::File) -> Vec<u32> {
    use std::os::unix::fs::MetadataExt;
    let Ok(meta) = file.metadata() else {
        return Vec::new();
    };
    let dev = meta.dev();
    let inode = format!(
        "{:02x}:{:02x}:{}",
        rustix::fs::major(dev),
        rustix::fs::minor(dev),
        meta.ino()
    );
    let Ok(locks) = fs::read_to_string("/proc/locks") else {
        return Vec::new();
    };
    let mut pids: Vec<u32> = locks
        .lines()
        .filter_map(|line| {
            // "1: FLOCK  ADVISORY  WRITE 1234 fe:00:5801605 0 EOF"; waiters
            // have "->" after the number and are not holders.
            let fields: Vec<&str> = line.split_whitespace().collect();
            match fields.as_slice() {
                [_, "FLOCK", _, _, pid, id, ..] if *id == inode => pid.parse().ok(),
                _ => None,
            }
        })
        .collect();
    pids.sort_unstable();
    pids.dedup();
    pids
}

#[cfg(all(unix, not(target_os = "linux")))]
fn flock_holders(_file: &fs::File) -> Vec<u32> {
    Vec::new()
}

#[cfg(test)]
mod tests {
    use super::*;
    use cap_std::ambient_authority;

    #[cfg(target_os = "linux")]
    #[test]
    fn a_folder_lock_held_elsewhere_times_out_naming_the_holder() {
        let dir = tempfile::tempdir().unwrap();
        let handle = Dir::open_ambient_dir(dir.path(), ambient_authority()).unwrap();
        let never = Cancel::new();
        let held = FolderLock::acquire(&handle, DEFAULT_LOCK_TIMEOUT, &never, "f.txt").unwrap();
        let err = FolderLock::acquire(&handle, Duration::from_millis(30), &never, "f.txt")
            .err()
            .unwrap();
        assert_eq!(err.code, ErrorCode::Locked);
        assert!(
            err.message
                .contains(&format!("this process ({})", std::process::id())),
            "{}",
            err.message
        );
        drop(held);
        assert!(FolderLock::acquire(&handle, Duration::ZERO, &never, "f.txt").is_ok());
    }

    #[cfg(unix)]
    #[test]
    fn a_wait_for_a_folder_lock_ends_with_cancelled_once_the_call_is_cancelled() {
        let dir = tempfile::tempdir().unwrap();
        let handle = Dir::open_ambient_dir(dir.path(), ambient_authority()).unwrap();
        let held = FolderLock::acquire(&handle, Duration::ZERO, &Cancel::new(), "f.txt").unwrap();
        let cancel = Cancel::new();
        let waiting = std::thread::spawn({
            let handle = handle.try_clone().unwrap();
            let cancel = cancel.clone();
            // Longer than any test runs: only the cancellation ends it.
            move || FolderLock::acquire(&handle, Duration::from_secs(3600), &cancel, "f.txt")
        });
        std::thread::sleep(Duration::from_millis(50));
        cancel.cancel();
        let err = waiting.join().unwrap().err().unwrap();
        assert_eq!(err.code, ErrorCode::Cancelled, "{}", err.message);
        drop(held);
    }

    #[test]
    fn wait_gives_up_after_the_timeout_and_tries_at_least_once() {
        let mut tries = 0;
        let never = Cancel::new();
        let got: Option<()> = wait(Duration::from_millis(20), &never, || {
            tries += 1;
            Ok(None)
        })
        .unwrap();
        assert!(got.is_none());
        assert!(tries >= 2);
        assert_eq!(
            wait(Duration::ZERO, &never, || Ok(Some(7))).unwrap(),
            Some(7),
            "a free lock is taken even with no time to wait"
        );
    }
}
