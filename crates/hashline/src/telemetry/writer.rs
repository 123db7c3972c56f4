//! Writing the record, off the host's thread: a call puts its record on a
//! bounded queue and goes on (a full queue drops the record and counts it,
//! it never waits); one thread per folder and process takes the queue
//! every `LINGER` and appends its records. A failure to write is counted,
//! never raised: the record must never fail, nor slow, a call.
//!
//! Several processes append to the same file. Each append is one `write`
//! of whole lines on a file opened `O_APPEND`, which the kernel places at
//! the end in one step and, on local file systems, keeps whole against
//! other writers (the inode is locked for the write); a short write (a
//! full disk) tears one line, which readers skip, and the next append
//! starts on a line of its own. Rotation by size renames files, so it
//! takes a lock file first and checks the size again under it; a writer
//! whose file was rotated away notices (the name no longer leads to its
//! file) and opens the new one. `file-rotate` and `tracing-appender`
//! rotate for one process owning the file, which is not this case.

use super::folder::{self, log_name, Settings, LOCK, LOG};
use super::record::{lost_line, Record};
use super::salt::Salt;
use crate::lock::try_lock;
use cap_std::fs::{Dir, File};
use std::collections::{HashMap, VecDeque};
use std::io::{self, Write};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, OnceLock};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// Records waiting at most; more are dropped and counted.
pub(super) const CAPACITY: usize = 4096;
/// How long the writer lets records gather once one arrives, so that a
/// busy host costs one append per this, not one per call.
const LINGER: Duration = Duration::from_millis(50);
/// Bytes of whole lines one append writes at most: also how far a file may
/// pass its size before it is rotated.
pub(super) const CHUNK_BYTES: usize = 64 << 10;

/// The record of one folder: hand it records, and they are written.
/// Clones share the queue and the writer.
#[derive(Clone)]
pub struct Telemetry {
    shared: Arc<Shared>,
}

struct Shared {
    settings: Settings,
    state: Mutex<State>,
    wake: Condvar,
    sink: Mutex<Sink>,
}

#[derive(Default)]
struct State {
    queue: VecDeque<Record>,
    /// Records dropped since the last append.
    lost: u64,
    /// The writer waits for a record.
    sleeping: bool,
    /// The writer thread runs (or is never to: records wait for `flush`).
    started: bool,
}

/// The open folder and file, made on the first append.
#[derive(Default)]
struct Sink {
    dir: Option<Dir>,
    salt: Option<Salt>,
    file: Option<File>,
    /// The last append was short: the next starts on a new line.
    torn: bool,
    /// The last rotation failed (the folder refused a rename): it is tried
    /// again at each append, and the live file takes nothing past twice its
    /// bound until it succeeds.
    stuck: bool,
    /// Records that could not be written, told in the next note.
    lost: u64,
}

/// A panic while a lock was held leaves a queue that is still a queue.
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|p| p.into_inner())
}

/// Every writer of this process, by its settings: sessions of one folder
/// share a thread and a file.
fn writers() -> &'static Mutex<HashMap<Settings, Arc<Shared>>> {
    static WRITERS: OnceLock<Mutex<HashMap<Settings, Arc<Shared>>>> = OnceLock::new();
    WRITERS.get_or_init(Default::default)
}

/// Milliseconds since the Unix epoch.
pub fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

impl Telemetry {
    /// The record kept by `settings` (the one this process already has
    /// for them, if any). Nothing is opened or started until a record
    /// comes.
    pub fn open(settings: Settings) -> Telemetry {
        let mut writers = lock(writers());
        let shared = writers
            .entry(settings.clone())
            .or_insert_with(|| Arc::new(Shared::new(settings, false)));
        Telemetry {
            shared: Arc::clone(shared),
        }
    }

    /// A record with no writer thread: its records wait for `flush`.
    #[cfg(test)]
    pub(super) fn unstarted(settings: Settings) -> Telemetry {
        Telemetry {
            shared: Arc::new(Shared::new(settings, true)),
        }
    }

    /// Where and how much it keeps.
    pub fn settings(&self) -> &Settings {
        &self.shared.settings
    }

    /// Queues `record` for writing: at once, never waiting for the disk.
    pub fn record(&self, record: Record) {
        let shared = &self.shared;
        let mut state = lock(&shared.state);
        if state.queue.len() >= CAPACITY {
            state.lost += 1;
            return;
        }
        state.queue.push_back(record);
        if !state.started {
            let writer = Arc::clone(shared);
            // Without a thread the records wait for `flush`, and the next
            // record tries again.
            state.started = std::thread::Builder::new()
                .name("hashline-telemetry".into())
                .spawn(move || writer.run())
                .is_ok();
        } else if state.sleeping {
            state.sleeping = false;
            shared.wake.notify_one();
        }
    }

    /// Writes every record queued, on this thread.
    pub fn flush(&self) {
        self.shared.drain();
    }

    /// Writes the records of every writer of this process: for a host's
    /// last moments, since the writer threads do not outlive it.
    pub fn flush_all() {
        let all: Vec<Arc<Shared>> = lock(writers()).values().cloned().collect();
        for shared in all {
            shared.drain();
        }
    }
}

impl Shared {
    fn new(settings: Settings, started: bool) -> Shared {
        Shared {
            settings,
            state: Mutex::new(State {
                started,
                ..State::default()
            }),
            wake: Condvar::new(),
            sink: Mutex::default(),
        }
    }

    /// The writer thread: waits for a record, lets more gather, appends.
    fn run(&self) {
        loop {
            {
                let mut state = lock(&self.state);
                while state.queue.is_empty() && state.lost == 0 {
                    state.sleeping = true;
                    state = self.wake.wait(state).unwrap_or_else(|p| p.into_inner());
                }
                state.sleeping = false;
            }
            std::thread::sleep(LINGER);
            self.drain();
        }
    }

    /// Appends every record queued. The sink is held throughout, so that
    /// records of this process reach the file in the order they came.
    fn drain(&self) {
        let mut sink = lock(&self.sink);
        let (records, lost) = {
            let mut state = lock(&self.state);
            (
                std::mem::take(&mut state.queue),
                std::mem::take(&mut state.lost),
            )
        };
        if records.is_empty() && lost == 0 {
            return;
        }
        sink.lost += lost;
        let count = records.len() as u64;
        if sink.write(&self.settings, records).is_err() {
            // Opened again at the next append: the folder may be back.
            sink.dir = None;
            sink.file = None;
            sink.salt = None;
            sink.lost += count;
        }
    }
}

impl Sink {
    fn write(&mut self, settings: &Settings, records: VecDeque<Record>) -> io::Result<()> {
        if self.dir.is_none() {
            self.dir = Some(folder::open_for_writing(&settings.dir)?);
        }
        let dir = self.dir.as_ref().expect("opened above");
        if self.salt.is_none() {
            self.salt = Some(Salt::load(dir)?);
        }
        let salt = self.salt.as_ref().expect("loaded above");
        let mut chunk = Vec::with_capacity(CHUNK_BYTES);
        if self.lost > 0 {
            chunk.extend(lost_line(now_ms(), self.lost));
        }
        let mut lines = Vec::with_capacity(records.len());
        for mut record in records {
            record.path = record.path.map(|path| salt.hash(&path));
            lines.push(record.line());
        }
        for line in lines {
            if !chunk.is_empty() && chunk.len() + line.len() > CHUNK_BYTES {
                self.append(settings, &chunk)?;
                chunk.clear();
            }
            chunk.extend(line);
        }
        if !chunk.is_empty() {
            self.append(settings, &chunk)?;
        }
        self.lost = 0;
        Ok(())
    }

    /// Appends `bytes`, whole lines, with one `write`; rotates the files
    /// once the live one has grown past its size.
    fn append(&mut self, settings: &Settings, bytes: &[u8]) -> io::Result<()> {
        if self.stuck {
            self.stuck = self.rotate(settings).is_err();
        }
        let dir = self.dir.as_ref().expect("opened before");
        let file = match self.file.take() {
            Some(file) if still_live(dir, &file) => file,
            _ => {
                let file = folder::open_file(dir, LOG, true)?;
                // Another writer's line cut short (it was killed mid-write)
                // is ended before this one, which would join it otherwise.
                self.torn |= !ends_a_line(&file)?;
                file
            }
        };
        // A live file rotation cannot move away takes no more than its
        // bound again: the record stays bounded, and what is not written is
        // counted as lost.
        if self.stuck && file.metadata()?.len() >= settings.max_file_bytes.saturating_mul(2) {
            self.file = Some(file);
            return Err(io::Error::other("the live file is past twice its bound"));
        }
        let torn;
        let bytes = if self.torn {
            torn = [b"\n", bytes].concat();
            &torn[..]
        } else {
            bytes
        };
        // One write, never `write_all`: a record must land in one piece.
        let written = (&file).write(bytes)?;
        self.torn = written < bytes.len();
        if self.torn {
            self.file = Some(file);
            return Err(io::Error::new(io::ErrorKind::WriteZero, "a short write"));
        }
        let size = file.metadata()?.len();
        self.file = Some(file);
        if size >= settings.max_file_bytes {
            // What was appended is written, whether or not the rotation
            // succeeds.
            self.stuck = self.rotate(settings).is_err();
        }
        Ok(())
    }

    /// Shifts the files by one (`telemetry.jsonl` becomes `telemetry.1.jsonl`,
    /// the oldest goes), under the lock file, if the live file is still
    /// past its size once the lock is held: another process may have
    /// rotated it meanwhile.
    fn rotate(&mut self, settings: &Settings) -> io::Result<()> {
        let dir = self.dir.as_ref().expect("opened before");
        let lock_file = folder::open_file(dir, LOCK, false)?.into_std();
        // Whoever holds the lock is rotating: no need to wait for it (a
        // wait here would stand before every call's answer).
        if !try_lock(&lock_file)? {
            return Ok(());
        }
        self.file = None;
        match dir.symlink_metadata(LOG) {
            Ok(meta) if meta.len() >= settings.max_file_bytes => {}
            Ok(_) => return Ok(()),
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
            Err(e) => return Err(e),
        }
        let files = settings.files.clamp(1, folder::MAX_FILES);
        if files == 1 {
            return dir.remove_file(LOG);
        }
        for n in (1..files - 1).rev() {
            match dir.rename(log_name(n), dir, log_name(n + 1)) {
                Ok(()) => {}
                Err(e) if e.kind() == io::ErrorKind::NotFound => {}
                Err(e) => return Err(e),
            }
        }
        dir.rename(LOG, dir, log_name(1))
    }
}

/// Whether the live file's name still leads to `file` (no process rotated
/// it away).
#[cfg(unix)]
fn still_live(dir: &Dir, file: &File) -> bool {
    use cap_std::fs::MetadataExt;
    match (dir.symlink_metadata(LOG), file.metadata()) {
        (Ok(named), Ok(open)) => named.dev() == open.dev() && named.ino() == open.ino(),
        _ => false,
    }
}

/// Elsewhere the file is opened again for each append.
#[cfg(not(unix))]
fn still_live(_: &Dir, _: &File) -> bool {
    false
}

/// Whether `file` is empty or ends with a line break. (Appends go to the
/// end whatever the position, so reading moves nothing they depend on.)
fn ends_a_line(file: &File) -> io::Result<bool> {
    use std::io::{Read, Seek, SeekFrom};
    if file.metadata()?.len() == 0 {
        return Ok(true);
    }
    let mut reader = file;
    reader.seek(SeekFrom::End(-1))?;
    let mut last = [0u8; 1];
    reader.read_exact(&mut last)?;
    Ok(last[0] == b'\n')
}
