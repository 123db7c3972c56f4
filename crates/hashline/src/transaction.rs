//! A change of several files that lands whole or not at all.
//!
//! 1. The journal's record of every file and every name the change will
//!    use beside them is written and flushed (`journal`).
//! 2. Every new version is written beside its file and flushed.
//! 3. The locks of all the folders are taken, in one order every process
//!    follows (by device and inode), so two transactions never wait on each
//!    other in a circle; the lock timeout bounds the whole wait.
//! 4. Every file is checked to still be the version it was planned on, and
//!    the caller's last step runs: up to here an error leaves every file as
//!    it was. The folders are flushed, so the staged names are on disk.
//! 5. The files trade names with their new versions (a removed file moves
//!    to a name beside it); the old versions stay there, reachable. A
//!    failure of any trade puts back every file already traded.
//! 6. Once the folders are flushed, each old version is checked once more,
//!    now that nobody can open it by its file's name: a program that wrote
//!    into one through a handle opened before makes the whole change go
//!    back, so that its write keeps the name.
//! 7. The old versions and the record are removed.
//!
//! A process killed anywhere leaves the record; the next session of the
//! root finishes or undoes the change from it (`recovery`). Every file the
//! change writes is made after the record, which is how recovery tells the
//! change's files from older ones a planted record may name. A
//! change of one file needs none of this: one trade of names is atomic, and
//! it takes the single-file write of `file`.

use crate::cancel::Cancel;
use crate::error::{Error, ErrorCode, Result};
use crate::file::{
    names, remove_atomically, rename, replace_atomically, stage, transaction_name, writable, Base,
    Current, Folders, Target,
};
use crate::journal::{folder_id, Entry, FolderId, Journal, Kind, Location, Record};
use crate::lock::FolderLock;
use crate::sandbox::{io_error, Root};
use cap_std::fs::Dir;
use std::borrow::Cow;
use std::fs;
use std::io::{self, Read, Seek};
use std::time::{Duration, Instant};

/// What a transaction does to one file. `pub` in a private module, as the
/// plans' sealed trait (`session::Plan`) names it.
#[derive(Debug)]
pub enum Change<'a> {
    /// Gives the file at `target`, if it is still `base`, the new `bytes`.
    Write {
        target: &'a Target,
        base: &'a Base,
        bytes: Cow<'a, [u8]>,
    },
    /// Removes the file at `target` if it is still `base`.
    Remove { target: &'a Target, base: &'a Base },
}

impl Change<'_> {
    pub(crate) fn target(&self) -> &Target {
        match self {
            Change::Write { target, .. } | Change::Remove { target, .. } => target,
        }
    }

    fn base(&self) -> &Base {
        match self {
            Change::Write { base, .. } | Change::Remove { base, .. } => base,
        }
    }
}

/// Where a transaction stands, for tests that make it fail (or stop) there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Point {
    /// The record is on disk.
    Journaled,
    /// The new version of the change at this index is written beside it.
    Staged(usize),
    /// Every folder is locked and every file checked.
    Checked,
    /// The change at this index is about to trade names.
    Switch(usize),
    /// Every file traded names and the folders are flushed.
    Switched,
    /// The old versions are checked; they are about to be removed.
    Verified,
}

/// What a transaction needs of its session.
pub(crate) struct Settings<'a> {
    pub root: &'a Root,
    pub lock_timeout: Duration,
    /// Ends every wait for a lock, with `CANCELLED`, before anything is
    /// written.
    pub cancel: Cancel,
}

/// Applies `changes` whole or not at all; `last_step` runs once every
/// file is checked, before any changes, and an error from it writes
/// nothing.
pub(crate) fn commit<T>(
    changes: &[Change<'_>],
    settings: &Settings<'_>,
    last_step: impl FnOnce() -> Result<T>,
) -> Result<T> {
    match changes {
        [Change::Write {
            target,
            base,
            bytes,
        }] => replace_atomically(
            target,
            base,
            bytes,
            settings.lock_timeout,
            &settings.cancel,
            last_step,
        ),
        [Change::Remove { target, base }] => remove_atomically(
            target,
            base,
            settings.lock_timeout,
            &settings.cancel,
            last_step,
        ),
        _ => commit_observed(changes, settings, last_step, &mut |_| Ok(())),
    }
}

/// `commit` for two or more changes, telling `observe` each point it
/// reaches; an error from `observe` counts as a failure of the system at
/// that point.
pub(crate) fn commit_observed<T>(
    changes: &[Change<'_>],
    settings: &Settings<'_>,
    last_step: impl FnOnce() -> Result<T>,
    observe: &mut dyn FnMut(Point) -> io::Result<()>,
) -> Result<T> {
    let mut slots = changes
        .iter()
        .map(|change| Slot::new(change, settings.root))
        .collect::<Result<Vec<_>>>()?;
    let record = Record {
        pid: std::process::id(),
        entries: slots.iter().map(|s| s.entry.clone()).collect(),
    };
    let journal = Journal::begin(
        settings.root,
        &record,
        settings.lock_timeout,
        &settings.cancel,
    )?;
    let outcome = observe(Point::Journaled)
        .map_err(|e| Failed::Clean(failure(&slots[0], &e)))
        .and_then(|()| run(&mut slots, settings, last_step, observe));
    match outcome {
        Ok(out) => {
            for slot in &mut slots {
                if let Some(folders) = &mut slot.folders {
                    folders.keep();
                }
            }
            drop(slots);
            journal.end(settings.lock_timeout);
            Ok(out)
        }
        Err(Failed::Clean(err)) => {
            // A new version that cannot be removed (its folder stopped
            // taking writes) keeps the record, for the recovery to remove.
            if discard(slots) {
                journal.end(settings.lock_timeout);
            }
            Err(err)
        }
        Err(Failed::Stuck(err)) => {
            // What could not be put back stays as it is, with the record,
            // for the recovery of the next call in this root.
            for slot in &mut slots {
                if let Some(folders) = &mut slot.folders {
                    folders.keep();
                }
            }
            Err(err)
        }
    }
}

/// How a transaction failed.
enum Failed {
    /// Every file is as it was.
    Clean(Error),
    /// Some file could not be put back; the record stays for recovery.
    Stuck(Error),
}

/// One file of a transaction, as it goes.
struct Slot<'a> {
    change: &'a Change<'a>,
    entry: Entry,
    /// The folders a new file needs, made while staging.
    folders: Option<Folders<'a>>,
    /// The new version, open.
    staged: Option<fs::File>,
    /// The old version, open since the check.
    old: Option<fs::File>,
    /// The file traded names with its new version (or went).
    switched: bool,
    /// Where names cannot be traded: the old version got its second name.
    kept: bool,
}

impl<'a> Slot<'a> {
    fn new(change: &'a Change<'a>, root: &Root) -> Result<Slot<'a>> {
        let target = change.target();
        let failed = |e: io::Error| io_error(&e, &target.display).with_path(&target.display);
        let kind = match change {
            Change::Write {
                base: Base::Missing,
                ..
            } => Kind::Create,
            Change::Write { .. } => Kind::Replace,
            Change::Remove { .. } => Kind::Remove,
        };
        let place = &target.place;
        let mut folder = target.real.clone();
        for _ in 0..=place.missing.len() {
            folder.pop();
        }
        let folder = match folder.strip_prefix(root.path()) {
            Ok(rel) => Location::Inside(rel.to_path_buf()),
            Err(_) => Location::Outside(folder),
        };
        let new = match change {
            Change::Write { bytes, .. } => Base::of(bytes),
            Change::Remove { .. } => Base::Missing,
        };
        let entry = Entry {
            kind,
            folder,
            folder_id: folder_id(&place.dir).map_err(failed)?,
            missing: place.missing.clone(),
            name: place.name.clone(),
            staged: transaction_name().map_err(failed)?,
            kept: match kind {
                Kind::Replace => Some(transaction_name().map_err(failed)?),
                _ => None,
            },
            base: change.base().clone(),
            new,
        };
        Ok(Slot {
            change,
            entry,
            folders: None,
            staged: None,
            old: None,
            switched: false,
            kept: false,
        })
    }

    fn dir(&self) -> &Dir {
        match &self.folders {
            Some(folders) => folders.dir(),
            None => &self.change.target().place.dir,
        }
    }

    fn display(&self) -> &str {
        &self.change.target().display
    }

    /// Writes the new version beside the file.
    fn stage(&mut self) -> Result<()> {
        let Change::Write { target, bytes, .. } = self.change else {
            return Ok(());
        };
        let failed = |e: io::Error| refused(&target.display, &e);
        let place = &target.place;
        self.folders = Some(Folders::make(&place.dir, &place.missing).map_err(failed)?);
        let dir = self.dir();
        let old = match self.entry.kind {
            Kind::Replace => match writable(dir, &place.name) {
                Ok(meta) => Some(meta),
                Err(e) if e.kind() == io::ErrorKind::NotFound => {
                    return Err(changed(std::slice::from_ref(&target.display)))
                }
                Err(e) => return Err(failed(e)),
            },
            _ => None,
        };
        let file = stage(dir, &self.entry.staged, bytes, old.as_ref()).map_err(failed)?;
        self.staged = Some(file);
        Ok(())
    }

    /// Trades names with the new version (or moves a removed file aside).
    fn switch(&mut self) -> io::Result<()> {
        let (traded, kept) = self.trade();
        self.kept = kept;
        traded?;
        self.switched = true;
        Ok(())
    }

    /// The renames of `switch`, and whether the old version got a second
    /// name on the way.
    fn trade(&self) -> (io::Result<()>, bool) {
        let (dir, name, staged) = (self.dir(), &self.entry.name, &self.entry.staged);
        let traded = match self.entry.kind {
            Kind::Replace => match rename::exchange(dir, staged, name) {
                Err(e) if rename::unsupported(&e) => {
                    // The old version keeps a second name instead, so that
                    // it stays reachable once the new one takes the name.
                    let Some(second) = &self.entry.kept else {
                        return (Err(e), false);
                    };
                    if let Err(e) = dir.hard_link(name, dir, second) {
                        return (Err(e), false);
                    }
                    return (dir.rename(staged, dir, name), true);
                }
                other => other,
            },
            Kind::Create => match rename::no_replace(dir, staged, name) {
                Err(e) if rename::unsupported(&e) => {
                    if dir.symlink_metadata(name).is_ok() {
                        Err(io::ErrorKind::AlreadyExists.into())
                    } else {
                        dir.rename(staged, dir, name)
                    }
                }
                other => other,
            },
            Kind::Remove => match rename::no_replace(dir, name, staged) {
                Err(e) if rename::unsupported(&e) => dir.rename(name, dir, staged),
                other => other,
            },
        };
        (traded, false)
    }

    /// The name the old version has once the file traded names.
    fn old_name(&self) -> &std::ffi::OsStr {
        match (&self.entry.kept, self.kept) {
            (Some(kept), true) => kept,
            _ => &self.entry.staged,
        }
    }

    /// Whether the old version is still under its name beside the file and
    /// still the version planned on.
    fn old_unchanged(&self) -> bool {
        let Some(old) = &self.old else {
            return true;
        };
        names(self.dir(), self.old_name(), old)
            && Base::read(old).is_ok_and(|now| now == *self.change.base())
    }

    /// Whether the new version still holds what was written: nobody wrote
    /// into it through the file's name while it had the name.
    fn new_unchanged(&mut self) -> bool {
        let (Some(file), Change::Write { bytes, .. }) = (&mut self.staged, self.change) else {
            return true;
        };
        let mut now = Vec::with_capacity(bytes.len());
        file.rewind().is_ok()
            && file
                .take(bytes.len() as u64 + 1)
                .read_to_end(&mut now)
                .is_ok()
            && now == **bytes
    }

    /// Puts the file back as it was before `switch`; a write someone made
    /// into the new version meanwhile keeps the name.
    fn undo(&mut self) -> io::Result<()> {
        let ours = self.new_unchanged();
        let (dir, name, staged) = (self.dir(), &self.entry.name, &self.entry.staged);
        match self.entry.kind {
            Kind::Replace if self.kept => {
                let second = self.entry.kept.as_ref().ok_or(io::ErrorKind::NotFound)?;
                if self.switched && ours {
                    dir.rename(second, dir, name)?;
                } else {
                    dir.remove_file(second)?;
                }
            }
            Kind::Replace => {
                rename::exchange(dir, staged, name)?;
                if !ours {
                    rename::exchange(dir, staged, name)?;
                }
            }
            Kind::Create => {
                if ours {
                    rename::no_replace(dir, name, staged).or_else(|e| {
                        if rename::unsupported(&e) {
                            dir.rename(name, dir, staged)
                        } else {
                            Err(e)
                        }
                    })?;
                }
            }
            Kind::Remove => match rename::no_replace(dir, staged, name) {
                Ok(()) => {}
                Err(e) if rename::unsupported(&e) && dir.symlink_metadata(name).is_err() => {
                    dir.rename(staged, dir, name)?
                }
                Err(e) => return Err(e),
            },
        }
        self.switched = false;
        self.kept = false;
        Ok(())
    }

    /// Removes the old version, once the transaction is done.
    fn remove_old(&self) {
        if self.entry.kind != Kind::Create {
            let _ = self.dir().remove_file(self.old_name());
        }
    }
}

/// The error of a file that the system refused to write.
fn failure(slot: &Slot<'_>, e: &io::Error) -> Error {
    refused(slot.display(), e)
}

fn refused(display: &str, e: &io::Error) -> Error {
    let mut err = io_error(e, display).with_path(display);
    err.message = format!(
        "Change refused, nothing written: {} Every file of the change is as it was.",
        err.message
    );
    err
}

/// `BASE_CHANGED` for the files that changed on disk since the plan.
fn changed(files: &[String]) -> Error {
    Error::new(
        ErrorCode::BaseChanged,
        format!(
            "Change refused, nothing written: {} changed on disk after the change was planned. Read {} again and redo the change.",
            files.join(", "),
            if files.len() == 1 { "it" } else { "them" }
        ),
    )
    .with_path(&files[0])
}

fn run<T>(
    slots: &mut [Slot<'_>],
    settings: &Settings<'_>,
    last_step: impl FnOnce() -> Result<T>,
    observe: &mut dyn FnMut(Point) -> io::Result<()>,
) -> std::result::Result<T, Failed> {
    for (i, slot) in slots.iter_mut().enumerate() {
        slot.stage().map_err(Failed::Clean)?;
        observe(Point::Staged(i)).map_err(|e| Failed::Clean(failure(slot, &e)))?;
    }
    let locks = lock_all(slots, settings).map_err(Failed::Clean)?;
    let mut differ = Vec::new();
    for slot in slots.iter_mut() {
        let name = &slot.change.target().place.name;
        let now = Current::read(slot.dir(), name).map_err(|e| Failed::Clean(failure(slot, &e)))?;
        if !now.is(slot.change.base()) {
            differ.push(slot.display().to_owned());
        }
        if let Current::File { file, .. } = now {
            slot.old = Some(file);
        }
    }
    if !differ.is_empty() {
        return Err(Failed::Clean(changed(&differ)));
    }
    observe(Point::Checked).map_err(|e| Failed::Clean(failure(&slots[0], &e)))?;
    let out = last_step().map_err(Failed::Clean)?;
    // The staged names reach the disk before any trade does, so that after
    // a power cut no file's new name points at a version never recorded.
    for lock in &locks {
        lock.sync();
    }
    for i in 0..slots.len() {
        let switched = observe(Point::Switch(i)).and_then(|()| slots[i].switch());
        if let Err(e) = switched {
            let err = if e.kind() == io::ErrorKind::AlreadyExists {
                changed(&[slots[i].display().to_owned()])
            } else {
                failure(&slots[i], &e)
            };
            return Err(undo_all(slots, &locks, err));
        }
    }
    for lock in &locks {
        lock.sync();
    }
    if let Err(e) = observe(Point::Switched) {
        let err = failure(&slots[0], &e);
        return Err(undo_all(slots, &locks, err));
    }
    // A program that looked a file up by name just before its trade opens
    // and truncates the old version a moment later: the folders' flush
    // above is that moment.
    let differ: Vec<String> = slots
        .iter()
        .filter(|s| !s.old_unchanged())
        .map(|s| s.display().to_owned())
        .collect();
    if !differ.is_empty() {
        return Err(undo_all(slots, &locks, changed(&differ)));
    }
    if let Err(e) = observe(Point::Verified) {
        let err = failure(&slots[0], &e);
        return Err(undo_all(slots, &locks, err));
    }
    for slot in slots.iter() {
        slot.remove_old();
    }
    Ok(out)
}

/// The locks of every folder the transaction writes in, in the order of
/// their identities, within the lock timeout in all.
fn lock_all(slots: &[Slot<'_>], settings: &Settings<'_>) -> Result<Vec<FolderLock>> {
    let mut order: Vec<(FolderId, usize)> = Vec::with_capacity(slots.len());
    for (i, slot) in slots.iter().enumerate() {
        let id = folder_id(slot.dir()).map_err(|e| failure(slot, &e))?;
        order.push((id, i));
    }
    order.sort_unstable();
    order.dedup_by_key(|(id, _)| *id);
    let deadline = Instant::now() + settings.lock_timeout;
    order
        .iter()
        .map(|&(_, i)| {
            let left = deadline.saturating_duration_since(Instant::now());
            FolderLock::acquire(slots[i].dir(), left, &settings.cancel, slots[i].display())
        })
        .collect()
}

/// Puts back every file that traded names, last first.
fn undo_all(slots: &mut [Slot<'_>], locks: &[FolderLock], err: Error) -> Failed {
    let mut stuck = Vec::new();
    for slot in slots.iter_mut().rev() {
        if slot.switched || slot.kept {
            if let Err(e) = slot.undo() {
                stuck.push(format!("{} ({e})", slot.display()));
            }
        }
    }
    for lock in locks {
        lock.sync();
    }
    if stuck.is_empty() {
        return Failed::Clean(err);
    }
    let mut err = err;
    err.message = format!(
        "{} But {} could not be put back as {} were: the record of the change is kept, and the next hashline call in this root finishes or undoes it.",
        err.message.replace(" Every file of the change is as it was.", ""),
        stuck.join(", "),
        if stuck.len() == 1 { "it" } else { "they" }
    );
    Failed::Stuck(err)
}

/// Removes what a failed transaction left beside the files: the new
/// versions and the folders made for them; false if a new version could
/// not be removed.
fn discard(slots: Vec<Slot<'_>>) -> bool {
    let mut removed = true;
    for slot in &slots {
        if slot.entry.kind != Kind::Remove && slot.staged.is_some() {
            match slot.dir().remove_file(&slot.entry.staged) {
                Ok(()) => {}
                Err(e) if e.kind() == io::ErrorKind::NotFound => {}
                Err(_) => removed = false,
            }
        }
    }
    for slot in slots.into_iter().rev() {
        drop(slot);
    }
    removed
}
