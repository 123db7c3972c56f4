//! Putting right a change of several files whose process died, from the
//! record it left (`journal`). A record is data anyone may have planted in
//! the root (an unpacked archive, a shared or copied folder), so what it
//! says is a claim, and recovery acts only on what it can check:
//!
//! - It reaches a folder inside the root only from the root's handle, and
//!   a folder outside it only in a session allowed outside the root; a
//!   record naming one otherwise is left as it is, and said so.
//! - A folder must still be the one the record names (device and inode);
//!   a file of a folder that is not is left alone.
//! - A file only ever gets back bytes whose hash the record holds and that
//!   a staged file beside it holds.
//! - It never deletes or overwrites a file that holds neither version the
//!   record names: whoever changed it since keeps their bytes. Nor does it
//!   take back a file older than the record, since no change of the record
//!   made it.
//! - The change is finished only if no file still waits for its new
//!   version and at least one shows it took it; otherwise it is undone.
//!   Once any file traded names every new version was whole beside its
//!   file, so a file whose new version no longer waits beside it took it.
//! - A name beside a file goes only if it holds a version the record names,
//!   or is a new version made after the record before any file traded
//!   (the change's own unfinished write); anything else stays, and the note
//!   names it.
//!
//! Each record gets one note, bounded in length whatever the record says:
//! what became of each file, by groups, each listing a few files and how
//! many more.

use crate::cancel::Cancel;
use crate::error::list_items;
use crate::file::{reading, rename, transaction_name, Base};
use crate::journal::{self, folder_id, Entry, FolderId, Kind, Location, Record, FOLDER};
use crate::lock::FolderLock;
use crate::sandbox::Root;
use cap_fs_ext::{DirExt, FollowSymlinks};
use cap_std::fs::Dir;
use std::ffi::OsStr;
use std::fmt::Write as _;
use std::io;
use std::path::PathBuf;
use std::time::{Duration, Instant, SystemTime};

/// The most notes one recovery gives: past it, the last one says how many
/// more records were looked at.
const MAX_NOTES: usize = 8;
/// Past this many characters, a name in a note shows its two ends.
const MAX_SHOWN: usize = 120;

/// What became of the records dead writers left in the root: one note per
/// record, for the next result. `outside` is the session's consent to
/// reach outside the root. Records of live transactions are left alone; so
/// is everything when there is no records' folder, the common case, which
/// costs one look.
pub(crate) fn recover(root: &Root, outside: bool, timeout: Duration) -> Vec<String> {
    if !journal::any(root) {
        return Vec::new();
    }
    let claimed = match journal::claim(root, timeout) {
        Ok(claimed) => claimed,
        Err(err) => {
            return vec![format!(
                "a change of several files that a hashline process did not finish may be waiting in {FOLDER}, and it could not be looked at: {}",
                err.message
            )]
        }
    };
    let mut notes = Vec::new();
    for claim in claimed {
        let (note, done) = match &claim.record {
            Ok(record) => settle(root, outside, record, claim.made, timeout),
            Err(why) => (
                format!(
                    "{FOLDER}/{} was left as it is, and so was every file it names: {why}. Once the files are as they should be, remove it.",
                    shown(&claim.name.to_string_lossy())
                ),
                false,
            ),
        };
        if done {
            claim.remove(root, timeout);
        }
        notes.push(note);
    }
    if notes.len() > MAX_NOTES {
        let more = notes.len() - (MAX_NOTES - 1);
        notes.truncate(MAX_NOTES - 1);
        notes.push(format!(
            "{more} more records in {FOLDER} of changes that did not finish were looked at the same way, and are not told one by one."
        ));
    }
    notes
}

/// `text` as a note shows it: control characters and line separators
/// escaped, so that a name a record gives cannot start a line of its own in
/// a result, and a long one cut in the middle.
fn shown(text: &str) -> String {
    let escaped: String = text
        .chars()
        .map(|c| {
            if c.is_control() || matches!(c, '\u{2028}' | '\u{2029}') {
                c.escape_default().to_string()
            } else {
                c.to_string()
            }
        })
        .collect();
    let count = escaped.chars().count();
    if count <= MAX_SHOWN {
        return escaped;
    }
    let head: String = escaped.chars().take(MAX_SHOWN / 2).collect();
    let tail: String = escaped.chars().skip(count - MAX_SHOWN / 2).collect();
    format!("{head}…{tail}")
}

/// Files, as a note lists them.
fn listed(files: &[String]) -> String {
    list_items(files.iter().map(|f| shown(f)))
}

/// One entry's folder, opened as the record names it.
struct Place {
    /// The folder the file is in, if it exists.
    dir: Option<Dir>,
    /// The folder that existed when the transaction began, and the folders
    /// below it that the transaction made and that exist now.
    anchor: Dir,
    made: Vec<PathBuf>,
}

/// The entry's folder; `None` when it is gone, or another folder took its
/// name, or the path leads out of the root: nothing of the transaction is
/// there.
fn open_place(root: &Root, entry: &Entry) -> io::Result<Option<Place>> {
    let opened = match &entry.folder {
        Location::Inside(rel) if rel.as_os_str().is_empty() => root.dir()?.open_dir("."),
        Location::Inside(rel) => root.dir()?.open_dir(rel),
        Location::Outside(abs) => Dir::open_ambient_dir(abs, cap_std::ambient_authority()),
    };
    let anchor = match opened {
        Ok(dir) => dir,
        Err(e) if not_there(&e) => return Ok(None),
        Err(e) => return Err(e),
    };
    if folder_id(&anchor)? != entry.folder_id {
        return Ok(None);
    }
    let mut made = Vec::new();
    let mut path = PathBuf::new();
    let mut dir = Some(anchor.try_clone()?);
    for name in &entry.missing {
        path.push(name);
        dir = match anchor.open_dir_nofollow(&path) {
            Ok(d) => {
                made.push(path.clone());
                Some(d)
            }
            Err(e) if not_there(&e) => None,
            Err(e) => return Err(e),
        };
        if dir.is_none() {
            break;
        }
    }
    Ok(Some(Place { dir, anchor, made }))
}

/// Whether opening a folder failed because it is not there as a folder:
/// missing, something else under its name, or (cap-std's refusal, which
/// carries no error of the system) a path that leads out of the root.
fn not_there(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::NotFound | io::ErrorKind::NotADirectory
    ) || e.raw_os_error().is_none()
}

/// What a name at or beside a file holds.
#[derive(Debug)]
enum Found {
    Missing,
    /// A regular file: what it holds (`None` when its length is that of no
    /// version the record names, so it is not hashed), how long it is, and
    /// whether it came to be after the record did.
    File {
        base: Option<Base>,
        len: u64,
        young: bool,
    },
    /// A folder, a symlink, or a file that cannot be read.
    Other,
}

impl Found {
    /// What `name` in `dir` holds, hashed only if its length is that of
    /// `entry`'s old or new version; younger than `since`, or not.
    fn look(dir: Option<&Dir>, name: &OsStr, entry: &Entry, since: Option<SystemTime>) -> Found {
        let Some(dir) = dir else {
            return Found::Missing;
        };
        let file = match dir.open_with(name, &reading(FollowSymlinks::No)) {
            Ok(file) => file.into_std(),
            Err(_) if dir.symlink_metadata(name).is_err() => return Found::Missing,
            Err(_) => return Found::Other,
        };
        let Ok(meta) = file.metadata() else {
            return Found::Other;
        };
        if !meta.is_file() {
            return Found::Other;
        }
        let len = meta.len();
        let recorded = [&entry.base, &entry.new]
            .into_iter()
            .any(|b| matches!(b, Base::Bytes { len: l, .. } if *l == len));
        let base = if recorded {
            match Base::read(&file) {
                Ok(base) => Some(base),
                Err(_) => return Found::Other,
            }
        } else {
            None
        };
        let young = matches!(
            (journal::made(&meta), since),
            (Some(made), Some(since)) if made >= since
        );
        Found::File { base, len, young }
    }

    fn is(&self, wanted: &Base) -> bool {
        match (self, wanted) {
            (Found::Missing, Base::Missing) => true,
            (Found::File { base: Some(b), .. }, _) => b == wanted,
            _ => false,
        }
    }

    fn young(&self) -> bool {
        matches!(self, Found::File { young: true, .. })
    }
}

/// Where one file of the change stands.
struct Seen {
    name: Found,
    staged: Found,
    kept: Found,
}

impl Seen {
    fn of(entry: &Entry, dir: Option<&Dir>, since: Option<SystemTime>) -> Seen {
        let look = |name: &OsStr| Found::look(dir, name, entry, since);
        Seen {
            name: look(&entry.name),
            staged: look(&entry.staged),
            kept: entry.kept.as_deref().map_or(Found::Missing, look),
        }
    }

    /// The file shows it did not take its new version: its name still
    /// holds the old one, or its new version still waits beside it.
    fn waits(&self, e: &Entry) -> bool {
        match e.kind {
            Kind::Replace => e.base != e.new && (self.name.is(&e.base) || self.staged.is(&e.new)),
            Kind::Create => {
                self.name.is(&Base::Missing) || matches!(self.staged, Found::File { .. })
            }
            Kind::Remove => self.name.is(&e.base),
        }
    }

    /// The file shows it traded names: its name holds the new version, or
    /// its old version lies beside it while the name holds something else.
    fn traded(&self, e: &Entry) -> bool {
        let old_beside = !self.name.is(&e.base) && self.staged.is(&e.base);
        match e.kind {
            Kind::Replace => {
                (e.base != e.new && self.name.is(&e.new))
                    || old_beside
                    || (!self.name.is(&e.base) && self.kept.is(&e.base))
            }
            Kind::Create => self.name.is(&e.new),
            Kind::Remove => old_beside,
        }
    }
}

/// What became of one file of the change.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Fate {
    /// It holds its new version.
    New,
    /// It is as it was before the change: put back, or never changed.
    Before,
    /// Someone changed it since: it keeps their change.
    Changed,
    /// It holds the change's new version and could not be put back: its
    /// old version is no longer beside it as the change left it.
    Stuck,
    /// It holds what the record calls the change's new version, in a file
    /// older than the record: no change of the record made it.
    Older,
    /// Its folder is not the one the record names.
    Absent,
    /// The system refused a step of putting it right.
    Failed,
}

/// What recovery knows while it puts one record right.
struct Settling {
    /// When the record's file was made.
    since: Option<SystemTime>,
    /// Whether any file traded names: then every new version was whole.
    began: bool,
    /// Names beside the files kept because they hold bytes of no version,
    /// as notes show them.
    kept: Vec<String>,
}

/// Finishes or undoes the change of `record`, under the locks of its
/// folders: the note for the next result, and whether the record may go.
fn settle(
    root: &Root,
    outside: bool,
    record: &Record,
    since: Option<SystemTime>,
    timeout: Duration,
) -> (String, bool) {
    let count = record.entries.len();
    let what = format!(
        "a change of {count} file{} that hashline process {} did not finish",
        if count == 1 { "" } else { "s" },
        record.pid
    );
    let files: Vec<String> = record.entries.iter().map(Entry::display).collect();
    let far: Vec<String> = record
        .entries
        .iter()
        .filter(|e| matches!(e.folder, Location::Outside(_)))
        .map(Entry::display)
        .collect();
    if !outside && !far.is_empty() {
        return (
            format!(
                "{what} names files outside the root ({}), which this session may not reach: nothing was changed, and its record stays in {FOLDER}. A session allowed outside the root puts it right.",
                listed(&far)
            ),
            false,
        );
    }
    let mut places = Vec::with_capacity(count);
    for entry in &record.entries {
        match open_place(root, entry) {
            Ok(place) => places.push(place),
            Err(e) => {
                return (
                    format!(
                        "{what} could not be put right: the folder of {} cannot be opened ({e}); its record stays in {FOLDER}.",
                        shown(&entry.display())
                    ),
                    false,
                )
            }
        }
    }
    if places.iter().all(Option::is_none) {
        return (
            format!(
                "{what} names no folder of this root as it is now (they are gone, or other folders have their names: the record was copied or planted), so nothing was changed and the record was removed. Its files: {}.",
                listed(&files)
            ),
            true,
        );
    }
    let locks = match lock_folders(record, &places, timeout) {
        Ok(locks) => locks,
        Err(message) => {
            return (
                format!("{what} is still to be put right: {message} Its record stays in {FOLDER}."),
                false,
            )
        }
    };
    let seen: Vec<Option<Seen>> = record
        .entries
        .iter()
        .zip(&places)
        .map(|(e, p)| p.as_ref().map(|p| Seen::of(e, p.dir.as_ref(), since)))
        .collect();
    let pairs = || record.entries.iter().zip(&seen);
    let began = pairs().any(|(e, s)| s.as_ref().is_some_and(|s| s.traded(e)));
    let forward = began && pairs().all(|(e, s)| s.as_ref().is_some_and(|s| !s.waits(e)));
    let mut state = Settling {
        since,
        began,
        kept: Vec::new(),
    };
    let mut fates = Vec::with_capacity(count);
    for ((entry, seen), place) in pairs().zip(&places) {
        let (Some(seen), Some(place)) = (seen, place) else {
            fates.push(Fate::Absent);
            continue;
        };
        let dir = place.dir.as_ref();
        fates.push(match (forward, dir) {
            (true, _) if seen.name.is(&entry.new) => Fate::New,
            (true, _) => Fate::Changed,
            (false, Some(dir)) => undo(dir, entry, seen, &mut state),
            (false, None) => before_or_changed(entry, seen),
        });
        if let Some(dir) = dir {
            tidy_beside(dir, entry, &mut state);
        }
    }
    if !forward {
        for place in places.iter().flatten() {
            for path in place.made.iter().rev() {
                if made_since(&place.anchor, path, since) {
                    let _ = place.anchor.remove_dir(path);
                }
            }
        }
    }
    for lock in &locks {
        lock.sync();
    }
    let failed = fates.contains(&Fate::Failed);
    (note(&what, forward, &files, &fates, &state.kept), !failed)
}

/// The locks of the folders of `record` that exist, in the order every
/// transaction takes them, within `timeout` in all; or why they could not
/// all be taken.
fn lock_folders(
    record: &Record,
    places: &[Option<Place>],
    timeout: Duration,
) -> std::result::Result<Vec<FolderLock>, String> {
    let deadline = Instant::now() + timeout;
    // Recovery runs for the root, before and apart from any call that a
    // host may cancel.
    let never = Cancel::new();
    let mut folders: Vec<(FolderId, &Dir, String)> = Vec::new();
    for (entry, place) in record.entries.iter().zip(places) {
        if let Some(dir) = place.as_ref().and_then(|p| p.dir.as_ref()) {
            if let Ok(id) = folder_id(dir) {
                folders.push((id, dir, entry.display()));
            }
        }
    }
    folders.sort_by_key(|(id, _, _)| *id);
    folders.dedup_by_key(|(id, _, _)| *id);
    folders
        .iter()
        .map(|(_, dir, file)| {
            let left = deadline.saturating_duration_since(Instant::now());
            FolderLock::acquire(dir, left, &never, &shown(file)).map_err(|err| err.message.clone())
        })
        .collect()
}

/// Whether a file holds its old version or something else, for a file the
/// change has nothing to put back in.
fn before_or_changed(entry: &Entry, seen: &Seen) -> Fate {
    if seen.name.is(&entry.base) {
        Fate::Before
    } else {
        Fate::Changed
    }
}

/// Puts a file back as it was before the change, where the record names
/// the bytes it holds and a staged file holds the ones it gets back.
fn undo(dir: &Dir, entry: &Entry, seen: &Seen, state: &mut Settling) -> Fate {
    let took = match entry.kind {
        Kind::Remove => seen.name.is(&Base::Missing),
        _ => entry.base != entry.new && seen.name.is(&entry.new),
    };
    if !took {
        return before_or_changed(entry, seen);
    }
    match entry.kind {
        Kind::Replace if !seen.name.young() => Fate::Older,
        Kind::Replace if seen.kept.is(&entry.base) => {
            let second = entry.kept.as_deref().unwrap_or_default();
            match dir.rename(second, dir, &entry.name) {
                Ok(()) => Fate::Before,
                Err(_) => Fate::Failed,
            }
        }
        Kind::Replace if seen.staged.is(&entry.base) => {
            match rename::exchange(dir, &entry.staged, &entry.name) {
                Ok(()) => {
                    let out = Found::look(Some(dir), &entry.staged, entry, state.since);
                    if out.is(&entry.new) {
                        Fate::Before
                    } else {
                        // Someone wrote into the file after it was looked
                        // at: their write keeps the name.
                        match rename::exchange(dir, &entry.staged, &entry.name) {
                            Ok(()) => Fate::Changed,
                            Err(_) => Fate::Failed,
                        }
                    }
                }
                Err(e) if rename::unsupported(&e) => {
                    match dir.rename(&entry.staged, dir, &entry.name) {
                        Ok(()) => Fate::Before,
                        Err(_) => Fate::Failed,
                    }
                }
                Err(_) => Fate::Failed,
            }
        }
        Kind::Replace => Fate::Stuck,
        Kind::Create if !seen.name.young() => Fate::Older,
        Kind::Create => take_back(dir, entry, state),
        Kind::Remove if seen.staged.is(&entry.base) => {
            match rename::no_replace(dir, &entry.staged, &entry.name) {
                Ok(()) => Fate::Before,
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Fate::Changed,
                Err(e) if rename::unsupported(&e) && dir.symlink_metadata(&entry.name).is_err() => {
                    match dir.rename(&entry.staged, dir, &entry.name) {
                        Ok(()) => Fate::Before,
                        Err(_) => Fate::Failed,
                    }
                }
                Err(_) => Fate::Failed,
            }
        }
        Kind::Remove => Fate::Stuck,
    }
}

/// Removes a file the change created: out of the way under a name of its
/// own first, and removed only if it still holds what the change wrote.
fn take_back(dir: &Dir, entry: &Entry, state: &mut Settling) -> Fate {
    let Ok(aside) = transaction_name() else {
        return Fate::Failed;
    };
    let moved = match rename::no_replace(dir, &entry.name, &aside) {
        Err(e) if rename::unsupported(&e) => dir.rename(&entry.name, dir, &aside),
        other => other,
    };
    if moved.is_err() {
        return Fate::Failed;
    }
    if Found::look(Some(dir), &aside, entry, state.since).is(&entry.new) {
        return match dir.remove_file(&aside) {
            Ok(()) => Fate::Before,
            Err(_) => Fate::Failed,
        };
    }
    // Someone wrote into it after it was looked at: it keeps its name.
    match rename::no_replace(dir, &aside, &entry.name) {
        Ok(()) => Fate::Changed,
        Err(_) => {
            state.kept.push(format!(
                "{} beside {}",
                shown(&aside.to_string_lossy()),
                shown(&entry.display())
            ));
            Fate::Changed
        }
    }
}

/// Removes what the change left beside a file once its fate is settled: a
/// name that holds a version the record names, and a new version that
/// never took its name, made after the record before any file traded (the
/// change's own unfinished write). Anything else stays, and is named.
fn tidy_beside(dir: &Dir, entry: &Entry, state: &mut Settling) {
    let new_len = match entry.new {
        Base::Bytes { len, .. } => len,
        Base::Missing => 0,
    };
    let beside =
        std::iter::once((&entry.staged, true)).chain(entry.kept.iter().map(|k| (k, false)));
    for (name, staged) in beside {
        let found = Found::look(Some(dir), name, entry, state.since);
        let unfinished = staged
            && !state.began
            && entry.kind != Kind::Remove
            && matches!(found, Found::File { young: true, len, .. } if len <= new_len);
        let gone = match found {
            Found::Missing => true,
            _ if found.is(&entry.base) || found.is(&entry.new) || unfinished => {
                dir.remove_file(name).is_ok()
            }
            _ => false,
        };
        if !gone {
            state.kept.push(format!(
                "{} beside {}",
                shown(&name.to_string_lossy()),
                shown(&entry.display())
            ));
        }
    }
}

/// Whether the folder at `path` below `anchor` was made after the record:
/// only then may the transaction have made it.
fn made_since(anchor: &Dir, path: &std::path::Path, since: Option<SystemTime>) -> bool {
    let mut options = cap_std::fs::OpenOptions::new();
    options.read(true);
    let made = anchor
        .open_dir_nofollow(path)
        .and_then(|dir| dir.open_with(".", &options))
        .and_then(|handle| handle.into_std().metadata())
        .ok()
        .and_then(|meta| journal::made(&meta));
    matches!((made, since), (Some(made), Some(since)) if made >= since)
}

/// The note of a record put right: what became of each file, by groups.
fn note(what: &str, forward: bool, files: &[String], fates: &[Fate], kept: &[String]) -> String {
    let of = |fate: Fate| -> Vec<String> {
        files
            .iter()
            .zip(fates)
            .filter(|(_, f)| **f == fate)
            .map(|(name, _)| name.clone())
            .collect()
    };
    let mut note = format!(
        "{what} was {}: ",
        if forward { "finished" } else { "undone" }
    );
    let whole = if forward { Fate::New } else { Fate::Before };
    if fates.iter().all(|f| *f == whole) {
        let _ = write!(
            note,
            "every file {} ({}).",
            if forward {
                "holds its new version"
            } else {
                "is as it was before it"
            },
            listed(files)
        );
    } else {
        let groups: [(Fate, &str, &str); 7] = [
            (Fate::New, "holds its new version", "hold their new versions"),
            (Fate::Before, "is as it was before it", "are as they were before it"),
            (
                Fate::Changed,
                "was changed since and keeps those changes",
                "were changed since and keep those changes",
            ),
            (
                Fate::Stuck,
                "could not be put back, since its old version is no longer beside it as the change left it: it stays as the change made it",
                "could not be put back, since their old versions are no longer beside them as the change left them: they stay as the change made them",
            ),
            (
                Fate::Older,
                "holds what the record calls the change's new version, in a file older than the record, so no change made it: it was left as it is",
                "hold what the record calls the change's new versions, in files older than the record, so no change made them: they were left as they are",
            ),
            (
                Fate::Absent,
                "is not here (its folder is gone, or another folder has its name)",
                "are not here (their folders are gone, or other folders have their names)",
            ),
            (
                Fate::Failed,
                "could not be put right, as the system refused; the record stays in .hashline-journal for the next call to try again",
                "could not be put right, as the system refused; the record stays in .hashline-journal for the next call to try again",
            ),
        ];
        let parts: Vec<String> = groups
            .iter()
            .filter_map(|(fate, one, many)| {
                let group = of(*fate);
                (!group.is_empty()).then(|| {
                    format!(
                        "{} {}",
                        listed(&group),
                        if group.len() == 1 { one } else { many }
                    )
                })
            })
            .collect();
        let _ = write!(note, "{}.", parts.join("; "));
    }
    if !kept.is_empty() {
        let _ = write!(
            note,
            " Bytes that are no version of the change were kept where they are: {}.",
            list_items(kept.iter().cloned())
        );
    }
    note
}
