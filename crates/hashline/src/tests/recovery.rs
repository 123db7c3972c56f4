//! The recovery of changes of several files, with records treated as what
//! they are: files anyone may have planted, cut short or altered. A record
//! that names a folder outside the root changes nothing there without the
//! session's consent; recovery gives a file only bytes the record names and
//! a staged file holds, never takes back a file older than the record, keeps
//! whatever a user wrote between the crash and the recovery, and finishes a
//! change only if no file still waits for its new version; its notes say
//! what became of each file, in bounded length; a records folder with the
//! wrong permissions is put right where that is safe, and refused with
//! `UNTRUSTED_JOURNAL` where it is not.

#![cfg(unix)]

use super::transactions::{
    appends, crash_at, patched, plant, points, project, recovery_notes, session, snapshot, Tree,
    PATCH,
};
use crate::file::{transaction_name, Base};
use crate::journal::{Entry, Kind, Location, Record, FOLDER};
use crate::session::{Hashline, Options};
use crate::transaction::Point;
use proptest::prelude::*;
use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The device and inode of a folder, as a record names it.
fn id_of(path: &Path) -> (u64, u64) {
    let meta = fs::metadata(path).unwrap();
    (meta.dev(), meta.ino())
}

/// Lets the file system's clock move on, so that what is made next is
/// younger than what was made before (the status-change clock of Linux
/// file systems ticks every few milliseconds).
fn tick() {
    std::thread::sleep(Duration::from_millis(25));
}

/// Writes `record` into the root's records folder as an unpacked archive
/// or a shared folder leaves it: the user's own, private, and unlocked, so
/// that it looks like the record of a process that died.
fn plant_record(root: &Path, record: &Record) -> PathBuf {
    let dir = root.join(FOLDER);
    fs::create_dir_all(&dir).unwrap();
    fs::set_permissions(&dir, fs::Permissions::from_mode(0o700)).unwrap();
    let name = transaction_name().unwrap();
    let path = dir.join(format!("{}.journal", &name.to_string_lossy()[1..9]));
    fs::write(&path, record.to_text()).unwrap();
    path
}

/// An entry of a record for `name` in `folder`, with fresh names beside it.
fn entry(kind: Kind, folder: Location, id: (u64, u64), name: &str, base: Base, new: Base) -> Entry {
    Entry {
        kind,
        folder,
        folder_id: id,
        missing: Vec::new(),
        name: name.into(),
        staged: transaction_name().unwrap(),
        kept: (kind == Kind::Replace).then(|| transaction_name().unwrap()),
        base,
        new,
    }
}

/// The records waiting in the root.
fn records(root: &Path) -> Vec<PathBuf> {
    match fs::read_dir(root.join(FOLDER)) {
        Ok(entries) => entries
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "journal"))
            .collect(),
        Err(_) => Vec::new(),
    }
}

/// The record a crashed process left in the root.
fn crashed_record(root: &Path) -> Record {
    let found = records(root);
    assert_eq!(found.len(), 1, "{found:?}");
    Record::parse(&fs::read_to_string(&found[0]).unwrap()).unwrap()
}

/// A session allowed outside its root.
fn consenting(root: &Path) -> Hashline {
    let mut options = Options::new(root);
    options.view = crate::ViewStyle::Full;
    options.allow_outside_root = true;
    Hashline::new(options).unwrap()
}

fn without_transaction_files(tree: &Tree) -> Tree {
    tree.iter()
        .filter(|(name, _)| !name.ends_with(".hashline-txn") && !name.starts_with(FOLDER))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

/// A patch that updates two files in two folders.
const TWO: &str = "*** Begin Patch
*** Update File: a/one.txt
@@
-one
+ONE
*** Update File: b/two.txt
@@
-two
+TWO
*** End Patch";

fn two_files() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let tree: Tree = [("a/one.txt", "one\n"), ("b/two.txt", "two\n")]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v.as_bytes().to_vec()))
        .collect();
    plant(dir.path(), &tree);
    dir
}

#[test]
fn a_planted_record_naming_a_folder_outside_the_root_changes_nothing_there_without_consent() {
    let root = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    let victim = b"the user's own file, outside the root\n";
    fs::write(outside.path().join("victim.txt"), victim).unwrap();
    fs::write(root.path().join("a.txt"), "a\n").unwrap();
    tick();
    let out = outside.path().canonicalize().unwrap();
    plant_record(
        root.path(),
        &Record {
            pid: 4_000_001,
            entries: vec![
                entry(
                    Kind::Create,
                    Location::Inside(PathBuf::new()),
                    id_of(root.path()),
                    "new.txt",
                    Base::Missing,
                    Base::of(b"new\n"),
                ),
                entry(
                    Kind::Create,
                    Location::Outside(out.clone()),
                    id_of(&out),
                    "victim.txt",
                    Base::Missing,
                    Base::of(victim),
                ),
            ],
        },
    );
    let before = snapshot(outside.path());
    let hl = session(root.path());
    let text = hl.read("a.txt").unwrap().view.text;
    assert_eq!(snapshot(outside.path()), before, "{text}");
    assert!(text.contains("outside the root"), "{text}");
    assert!(text.contains(&*out.to_string_lossy()), "{text}");
    assert_eq!(records(root.path()).len(), 1, "the record is kept: {text}");
    // The session that may reach outside looks at it, and still keeps the
    // file: its bytes are older than the record, so no change made them.
    let notes = recovery_notes(&consenting(root.path()));
    assert_eq!(snapshot(outside.path()), before, "{notes}");
    assert!(notes.contains("victim.txt"), "{notes}");
    assert!(records(root.path()).is_empty(), "{notes}");
}

#[test]
fn a_planted_record_never_takes_back_a_file_older_than_itself() {
    let root = tempfile::tempdir().unwrap();
    let (made, edited) = (b"made by the user\n", b"edited by the user\n");
    fs::write(root.path().join("made.txt"), made).unwrap();
    fs::write(root.path().join("edited.txt"), edited).unwrap();
    tick();
    let here = (Location::Inside(PathBuf::new()), id_of(root.path()));
    let mut replace = entry(
        Kind::Replace,
        here.0.clone(),
        here.1,
        "edited.txt",
        Base::of(b"planted\n"),
        Base::of(edited),
    );
    replace.kept = None;
    fs::write(root.path().join(&replace.staged), "planted\n").unwrap();
    let create = entry(
        Kind::Create,
        here.0.clone(),
        here.1,
        "made.txt",
        Base::Missing,
        Base::of(made),
    );
    let waiting = entry(
        Kind::Create,
        here.0,
        here.1,
        "never.txt",
        Base::Missing,
        Base::of(b"x\n"),
    );
    plant_record(
        root.path(),
        &Record {
            pid: 4_000_002,
            entries: vec![replace, create, waiting],
        },
    );
    let notes = recovery_notes(&session(root.path()));
    let now = snapshot(root.path());
    assert_eq!(
        now.get("made.txt").map(Vec::as_slice),
        Some(&made[..]),
        "{notes}"
    );
    assert_eq!(
        now.get("edited.txt").map(Vec::as_slice),
        Some(&edited[..]),
        "{notes}"
    );
    assert!(notes.contains("older than the record"), "{notes}");
}

#[test]
fn a_staged_file_holding_bytes_no_record_names_is_never_given_to_a_file() {
    // Planted: the record claims the user's file is its new version, and a
    // staged file beside it holds bytes the record does not name.
    let root = tempfile::tempdir().unwrap();
    let user = b"the user's bytes\n";
    fs::write(root.path().join("f.txt"), user).unwrap();
    let mut e = entry(
        Kind::Replace,
        Location::Inside(PathBuf::new()),
        id_of(root.path()),
        "f.txt",
        Base::of(b"old\n"),
        Base::of(user),
    );
    e.kept = None;
    let foreign = b"bytes no record names\n";
    fs::write(root.path().join(&e.staged), foreign).unwrap();
    plant_record(
        root.path(),
        &Record {
            pid: 4_000_003,
            entries: vec![e.clone()],
        },
    );
    let notes = recovery_notes(&session(root.path()));
    assert_eq!(
        fs::read(root.path().join("f.txt")).unwrap(),
        user,
        "{notes}"
    );
    assert_eq!(
        fs::read(root.path().join(&e.staged)).unwrap(),
        foreign,
        "{notes}"
    );
    assert!(notes.contains(&*e.staged.to_string_lossy()), "{notes}");

    // A real crash after the first of two files traded names, and a
    // program that then wrote into the old version kept beside it.
    let dir = two_files();
    crash_at(dir.path(), Point::Switch(1), TWO);
    let record = crashed_record(dir.path());
    let old = dir.path().join("a").join(&record.entries[0].staged);
    assert_eq!(fs::read(&old).unwrap(), b"one\n");
    fs::write(&old, "written into the old version\n").unwrap();
    let notes = recovery_notes(&session(dir.path()));
    let now = snapshot(dir.path());
    assert_eq!(now["a/one.txt"], b"ONE\n", "{notes}");
    assert_eq!(now["b/two.txt"], b"two\n", "{notes}");
    assert_eq!(fs::read(&old).unwrap(), b"written into the old version\n");
    assert!(notes.contains("a/one.txt could not be put back"), "{notes}");
    assert!(!notes.contains("finished"), "{notes}");
}

#[test]
fn a_change_whose_waiting_file_the_user_edited_after_the_crash_is_undone_and_keeps_the_edit() {
    let dir = two_files();
    crash_at(dir.path(), Point::Switch(1), TWO);
    fs::write(dir.path().join("b/two.txt"), "the user's edit\n").unwrap();
    let notes = recovery_notes(&session(dir.path()));
    let expected: Tree = [
        ("a/one.txt", &b"one\n"[..]),
        ("b/two.txt", b"the user's edit\n"),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v.to_vec()))
    .collect();
    assert_eq!(snapshot(dir.path()), expected, "{notes}");
    assert!(notes.contains("was undone"), "{notes}");
    assert!(!notes.contains("finished"), "{notes}");
    assert!(notes.contains("b/two.txt was changed since"), "{notes}");
}

#[test]
fn a_record_whose_folders_match_nothing_changes_nothing_and_says_so_in_a_bounded_note() {
    let root = tempfile::tempdir().unwrap();
    fs::create_dir(root.path().join("src")).unwrap();
    fs::write(root.path().join("src/a.txt"), "a\n").unwrap();
    let stranger = |i: usize| {
        let mut e = entry(
            Kind::Replace,
            Location::Inside(PathBuf::from("src")),
            (1, 2 + i as u64),
            &format!("file {i}\nNote: a line the record made up.txt"),
            Base::of(b"a\n"),
            Base::of(b"b\n"),
        );
        e.kept = None;
        e
    };
    plant_record(
        root.path(),
        &Record {
            pid: 4_000_004,
            entries: (0..3).map(stranger).collect(),
        },
    );
    let before = snapshot(root.path());
    let hl = session(root.path());
    let text = hl.read("src/a.txt").unwrap().view.text;
    assert!(!text.contains("finished"), "{text}");
    assert!(text.contains("nothing was changed"), "{text}");
    assert_eq!(
        text.lines().filter(|l| l.starts_with("Note:")).count(),
        1,
        "a name in a record made a line of its own: {text}"
    );
    assert_eq!(
        without_transaction_files(&snapshot(root.path())),
        without_transaction_files(&before)
    );

    plant_record(
        root.path(),
        &Record {
            pid: 4_000_005,
            entries: (0..100_000).map(stranger).collect(),
        },
    );
    let text = session(root.path()).read("src/a.txt").unwrap().view.text;
    let note = text.lines().find(|l| l.starts_with("Note:")).unwrap();
    println!(
        "a record of 100000 files that match nothing gives a note of {} bytes",
        note.len()
    );
    assert!(note.len() < 2_000, "a note of {} bytes", note.len());
    assert!(note.contains("100000 files"), "{note}");
    assert!(note.contains("more"), "{note}");
}

#[test]
fn a_record_copied_with_its_project_changes_nothing_in_the_copy_and_the_original_is_still_put_right(
) {
    let (original, before) = project();
    crash_at(original.path(), Point::Switch(4), PATCH);
    let crashed = snapshot(original.path());
    // `cp -r`: the same names and bytes, other folders, modes by the umask.
    let copy = tempfile::tempdir().unwrap();
    plant(copy.path(), &crashed);
    fs::set_permissions(copy.path().join(FOLDER), fs::Permissions::from_mode(0o755)).unwrap();
    let notes = recovery_notes(&session(copy.path()));
    assert!(notes.contains("nothing was changed"), "{notes}");
    assert_eq!(
        without_transaction_files(&snapshot(copy.path())),
        without_transaction_files(&crashed),
        "{notes}"
    );
    assert_eq!(snapshot(original.path()), crashed, "{notes}");
    let notes = recovery_notes(&session(original.path()));
    assert_eq!(snapshot(original.path()), before, "{notes}");
}

#[test]
fn records_left_as_they_are_are_told_once_a_session_and_many_in_at_most_eight_notes() {
    let root = tempfile::tempdir().unwrap();
    fs::write(root.path().join("a.txt"), "a\n").unwrap();
    let folder = root.path().join(FOLDER);
    fs::create_dir(&folder).unwrap();
    fs::set_permissions(&folder, fs::Permissions::from_mode(0o700)).unwrap();
    for i in 0..20 {
        fs::write(
            folder.join(format!("r{i}.journal")),
            format!("garbage {i}\u{2028}"),
        )
        .unwrap();
    }
    let hl = session(root.path());
    let notes = recovery_notes(&hl);
    assert_eq!(notes.lines().count(), 8, "{notes}");
    assert!(notes.lines().all(|l| l.starts_with("Note: ")), "{notes}");
    assert!(notes.contains("13 more records"), "{notes}");
    // Every call that may write looks again; what it already told, it
    // does not tell again.
    hl.recover();
    assert_eq!(recovery_notes(&hl), "");
    assert_eq!(records(root.path()).len(), 20);
}

/// Two files, and a records folder of the given mode in their root.
fn records_folder(mode: u32) -> tempfile::TempDir {
    let dir = two_files();
    let folder = dir.path().join(FOLDER);
    fs::create_dir(&folder).unwrap();
    fs::set_permissions(&folder, fs::Permissions::from_mode(mode)).unwrap();
    dir
}

#[test]
fn a_records_folder_that_lost_its_private_mode_is_made_private_again_and_batches_go_on() {
    let dir = records_folder(0o755);
    let hl = session(dir.path());
    let result = hl.apply_batch(&appends(&["a/one.txt", "b/two.txt"], "more"));
    assert!(result.is_ok(), "{result:?}");
    assert_eq!(
        fs::read(dir.path().join("b/two.txt")).unwrap(),
        b"two\nmore\n"
    );
}

#[test]
fn a_records_folder_others_may_write_in_refuses_batches_with_a_code_that_says_how_to_fix_it() {
    let dir = records_folder(0o777);
    let folder = dir.path().join(FOLDER);
    let before = snapshot(dir.path());
    let hl = session(dir.path());
    let err = hl
        .apply_batch(&appends(&["a/one.txt", "b/two.txt"], "more"))
        .unwrap_err();
    assert_eq!(err.code.as_str(), "UNTRUSTED_JOURNAL", "{err:?}");
    let shown = folder.canonicalize().unwrap();
    assert!(
        err.message
            .contains(&format!("chmod 700 {}", shown.display())),
        "{}",
        err.message
    );
    assert_eq!(snapshot(dir.path()), before);
    // Once put right, the batch goes through.
    fs::set_permissions(&folder, fs::Permissions::from_mode(0o700)).unwrap();
    hl.apply_batch(&appends(&["a/one.txt", "b/two.txt"], "more"))
        .unwrap();

    // A symlink in its place, and a folder of another user, are refused too.
    let dir = two_files();
    let elsewhere = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(elsewhere.path(), dir.path().join(FOLDER)).unwrap();
    let err = session(dir.path())
        .apply_batch(&appends(&["a/one.txt", "b/two.txt"], "more"))
        .unwrap_err();
    assert_eq!(err.code.as_str(), "UNTRUSTED_JOURNAL", "{err:?}");
    assert!(err.message.contains("symlink"), "{}", err.message);
    if rustix::process::geteuid().is_root() {
        let dir = two_files();
        let folder = dir.path().join(FOLDER);
        fs::create_dir(&folder).unwrap();
        std::os::unix::fs::chown(&folder, Some(65534), Some(65534)).unwrap();
        let err = session(dir.path())
            .apply_batch(&appends(&["a/one.txt", "b/two.txt"], "more"))
            .unwrap_err();
        assert_eq!(err.code.as_str(), "UNTRUSTED_JOURNAL", "{err:?}");
        assert!(err.message.contains("65534"), "{}", err.message);
    }
}

/// Where a planted entry's folder is.
const PLACES: [(bool, &str); 5] = [
    (true, ""),
    (true, "sub"),
    (true, "gone"),
    (false, ""),
    (false, "sub"),
];

/// The files of a root and of a folder outside it, by place.
const FILES: [(usize, &str); 5] = [
    (0, "a.txt"),
    (0, "b.txt"),
    (1, "c.txt"),
    (3, "o.txt"),
    (4, "p.txt"),
];

/// One entry of a planted record, as indices into what the test made:
/// bytes 0..5 are the files' contents, 5..8 bytes planted beside them, and
/// 8 bytes nothing else holds.
#[derive(Debug, Clone)]
struct Planted {
    kind: usize,
    place: usize,
    right_id: bool,
    name: usize,
    base: usize,
    new: usize,
    staged: Option<(usize, bool)>,
    kept: Option<(usize, bool)>,
    missing: usize,
}

fn planted() -> impl Strategy<Value = Planted> {
    let leftover = proptest::option::of((0..9usize, any::<bool>()));
    (
        (0..3usize, 0..5usize, prop::bool::weighted(0.8), 0..3usize),
        (0..9usize, 0..9usize, leftover.clone(), leftover, 0..3usize),
    )
        .prop_map(
            |((kind, place, right_id, name), (base, new, staged, kept, missing))| Planted {
                kind,
                place,
                right_id,
                name,
                base,
                new,
                staged,
                kept,
                missing,
            },
        )
}

/// The bytes `index` stands for; 8 is bytes of their own for each use.
fn pool_bytes(pool: &[Vec<u8>], index: usize, unique: usize) -> Vec<u8> {
    pool.get(index)
        .cloned()
        .unwrap_or_else(|| format!("bytes of their own {unique}\n").into_bytes())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn planted_records_never_change_a_file_older_than_them_nor_anything_outside_the_root_without_consent(
        contents in prop::collection::vec(prop::collection::vec(any::<u8>(), 0..24), 8),
        plants in prop::collection::vec(planted(), 1..6),
        consent in any::<bool>(),
    ) {
        let root_dir = tempfile::tempdir().unwrap();
        let out_dir = tempfile::tempdir().unwrap();
        let root = root_dir.path().canonicalize().unwrap();
        let outside = out_dir.path().canonicalize().unwrap();
        let folder = |place: usize| {
            let (inside, rel) = PLACES[place];
            if inside { root.join(rel) } else { outside.join(rel) }
        };
        for (i, (place, name)) in FILES.into_iter().enumerate() {
            fs::create_dir_all(folder(place)).unwrap();
            fs::write(folder(place).join(name), &contents[i]).unwrap();
        }
        let pool: Vec<Vec<u8>> = contents.clone();
        let mut entries = Vec::new();
        let mut young = Vec::new();
        for (i, p) in plants.iter().enumerate() {
            let (inside, rel) = PLACES[p.place];
            let names: Vec<&str> = FILES.iter().filter(|f| f.0 == p.place).map(|f| f.1).collect();
            let name = names.get(p.name).copied().unwrap_or("fresh.txt");
            let id = if p.right_id && folder(p.place).exists() { id_of(&folder(p.place)) } else { (7, 7 + i as u64) };
            let hash = |index: usize| Base::of(&pool_bytes(&pool, index, 1000 + i));
            let kind = [Kind::Replace, Kind::Create, Kind::Remove][p.kind];
            let (base, new) = match kind {
                Kind::Replace => (hash(p.base), hash(p.new)),
                Kind::Create => (Base::Missing, hash(p.new)),
                Kind::Remove => (hash(p.base), Base::Missing),
            };
            let location = if inside { Location::Inside(PathBuf::from(rel)) } else { Location::Outside(folder(p.place)) };
            let mut e = entry(kind, location, id, name, base, new);
            e.missing = [vec![], vec!["sub".into()], vec!["newdir".into()]][p.missing].clone();
            if kind != Kind::Replace { e.kept = None; }
            let dir: PathBuf = e.missing.iter().fold(folder(p.place), |d, m| d.join(m));
            for (leftover, name) in [(p.staged, Some(&e.staged)), (p.kept, e.kept.as_ref())] {
                let (Some((bytes, is_young)), Some(name)) = (leftover, name) else { continue };
                let bytes = pool_bytes(&pool, bytes, 2000 + i);
                if is_young {
                    young.push((dir.join(name), bytes));
                } else if dir.is_dir() {
                    fs::write(dir.join(name), bytes).unwrap();
                }
            }
            entries.push(e);
        }
        tick();
        plant_record(&root, &Record { pid: 4_100_000, entries: entries.clone() });
        tick();
        for (path, bytes) in &young {
            if path.parent().unwrap().is_dir() {
                fs::write(path, bytes).unwrap();
            }
        }
        let young: BTreeSet<PathBuf> = young.into_iter().map(|(p, _)| p).collect();
        let (before_in, before_out) = (snapshot(&root), snapshot(&outside));

        let hl = if consent { consenting(&root) } else { session(&root) };
        let notes = recovery_notes(&hl);
        let (now_in, now_out) = (snapshot(&root), snapshot(&outside));

        if !consent {
            prop_assert_eq!(&now_out, &before_out, "{}", notes);
        }
        let recorded: Vec<Base> = entries.iter().flat_map(|e| [e.base.clone(), e.new.clone()]).collect();
        let bases: Vec<Base> = entries.iter().map(|e| e.base.clone()).collect();
        let staged_bytes: Vec<&Vec<u8>> = before_in.iter().chain(&before_out)
            .filter(|(k, _)| k.ends_with(".hashline-txn")).map(|(_, v)| v).collect();
        for (base_dir, before, now) in [(&root, &before_in, &now_in), (&outside, &before_out, &now_out)] {
            for (name, bytes) in before {
                if name.starts_with(FOLDER) {
                    continue;
                }
                if name.ends_with(".hashline-txn") {
                    // A file beside another goes only if it held a version
                    // the record names, or is a new version made after it.
                    if now.get(name) != Some(bytes) {
                        prop_assert!(
                            recorded.contains(&Base::of(bytes)) || young.contains(&base_dir.join(name)),
                            "{} went, holding bytes the record does not name\n{}", name, notes
                        );
                    }
                } else {
                    prop_assert_eq!(now.get(name), Some(bytes), "{} changed\n{}", name, notes);
                }
            }
            for (name, bytes) in now {
                if before.contains_key(name) || name.starts_with(FOLDER) {
                    continue;
                }
                prop_assert!(!name.ends_with(".hashline-txn"), "{} appeared\n{}", name, notes);
                // A file put back: an old version the record names, which a
                // staged file held.
                prop_assert!(
                    bases.contains(&Base::of(bytes)) && staged_bytes.contains(&bytes),
                    "{} appeared with bytes no staged old version held\n{}", name, notes
                );
            }
        }
        for line in notes.lines() {
            prop_assert!(line.starts_with("Note: "), "a line of its own: {:?}", line);
            prop_assert!(line.len() < 4_000, "a note of {} bytes", line.len());
        }
    }
}

/// What a user does between a crash and the recovery.
#[derive(Debug, Clone)]
enum UserEdit {
    /// Writes a file of the change by its name.
    Write(usize),
    /// Deletes a file of the change.
    Delete(usize),
    /// Writes into the old version a file of the change left beside it.
    WriteOld(usize),
    /// Deletes that old version (as `git clean` would).
    DeleteOld(usize),
}

fn user_edit() -> impl Strategy<Value = UserEdit> {
    prop_oneof![
        (0..8usize).prop_map(UserEdit::Write),
        (0..8usize).prop_map(UserEdit::Delete),
        (0..8usize).prop_map(UserEdit::WriteOld),
        (0..8usize).prop_map(UserEdit::DeleteOld),
    ]
}

/// Every path the patch touches.
fn patch_paths(before: &Tree) -> Vec<String> {
    let mut paths: BTreeSet<String> = before.keys().cloned().collect();
    paths.extend(patched().into_keys());
    paths.into_iter().collect()
}

/// Whether entry `index` of the patch traded names before the crash at
/// `point`.
fn traded(point: Point, index: usize) -> bool {
    match point {
        Point::Switch(at) => index < at,
        Point::Switched | Point::Verified => true,
        _ => false,
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 40, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn user_edits_between_a_crash_and_the_recovery_are_kept_and_the_rest_is_all_old_or_all_new(
        point in prop::sample::select(points()),
        edits in prop::collection::vec(user_edit(), 0..4),
    ) {
        let (dir, before) = project();
        let root = dir.path();
        crash_at(root, point, PATCH);
        let record = crashed_record(root);
        let paths = patch_paths(&before);
        let mut user: BTreeMap<String, Option<Vec<u8>>> = BTreeMap::new();
        let mut written_old = Vec::new();
        let mut destroyed = BTreeSet::new();
        for (n, edit) in edits.iter().enumerate() {
            match *edit {
                UserEdit::Write(i) => {
                    let bytes = format!("the user's edit {n}\n").into_bytes();
                    let path = root.join(&paths[i]);
                    fs::create_dir_all(path.parent().unwrap()).unwrap();
                    fs::write(&path, &bytes).unwrap();
                    user.insert(paths[i].clone(), Some(bytes));
                }
                UserEdit::Delete(i) => {
                    // Deleting a file the crash left missing is no edit.
                    if fs::remove_file(root.join(&paths[i])).is_ok() {
                        user.insert(paths[i].clone(), None);
                    }
                }
                UserEdit::WriteOld(i) | UserEdit::DeleteOld(i) => {
                    let Some(e) = record.entries.get(i) else { continue };
                    if e.kind == Kind::Create || !traded(point, i) {
                        continue;
                    }
                    let Location::Inside(rel) = &e.folder else { unreachable!() };
                    let old = root.join(rel).join(&e.staged);
                    if !old.exists() {
                        continue;
                    }
                    if let UserEdit::WriteOld(_) = edit {
                        let bytes = format!("written into an old version {n}\n").into_bytes();
                        fs::write(&old, &bytes).unwrap();
                        written_old.push((i, bytes));
                    } else {
                        fs::remove_file(&old).unwrap();
                        // What the user wrote there, the user removed.
                        written_old.retain(|(j, _)| *j != i);
                    }
                    destroyed.insert(e.display());
                }
            }
        }
        let notes = recovery_notes(&session(root));
        let now = snapshot(root);
        let after = patched();
        for (path, bytes) in &user {
            prop_assert_eq!(now.get(path), bytes.as_ref(), "the user's {} was lost\n{}", path, notes);
        }
        for (_, bytes) in &written_old {
            prop_assert!(now.values().any(|v| v == bytes), "what was written into an old version was lost\n{}", notes);
        }
        let finished = notes.contains("was finished");
        prop_assert!(finished != notes.contains("was undone"), "{}", notes);
        for path in paths.iter().filter(|p| !user.contains_key(*p)) {
            let (wanted, other) = if finished { (&after, &before) } else { (&before, &after) };
            if now.get(path) != wanted.get(path) {
                prop_assert!(
                    !finished && destroyed.contains(path) && now.get(path) == other.get(path) && notes.contains(path.as_str()),
                    "{} is half: {:?} at {:?}\n{}", path, now.get(path).map(|b| String::from_utf8_lossy(b).into_owned()), point, notes
                );
            }
        }
        for (name, bytes) in &now {
            if name.ends_with(".hashline-txn") {
                prop_assert!(written_old.iter().any(|(_, old)| old == bytes), "{} was left behind\n{}", name, notes);
                prop_assert!(notes.contains(name.rsplit('/').next().unwrap()), "{} is not named\n{}", name, notes);
            }
        }
        prop_assert!(!root.join(FOLDER).exists(), "{}", notes);
        for line in notes.lines() {
            prop_assert!(line.starts_with("Note: "), "{:?}", line);
        }
    }
}

#[test]
fn a_record_cut_short_or_altered_is_left_as_it_is_with_every_file_as_the_crash_left_it() {
    let mut rng = super::transactions::Rng(0xC0FFEE);
    for point in [Point::Staged(3), Point::Switch(4), Point::Switched] {
        let (dir, before) = project();
        let root = dir.path();
        crash_at(root, point, PATCH);
        let path = records(root).pop().unwrap();
        let genuine = fs::read(&path).unwrap();
        let crashed = snapshot(root);
        for round in 0..24 {
            let mut bytes = genuine.clone();
            match round % 4 {
                0 => bytes.truncate(rng.below(bytes.len())),
                1 => {
                    let at = rng.below(bytes.len());
                    bytes[at] ^= 1 << rng.below(8);
                }
                2 => {
                    let at = rng.below(bytes.len());
                    bytes.insert(at, b"0123456789abcdef \n"[rng.below(18)]);
                }
                _ => bytes = (0..rng.below(400)).map(|_| rng.next() as u8).collect(),
            }
            if bytes == genuine {
                continue;
            }
            fs::write(&path, &bytes).unwrap();
            let text = session(root).read("a/lf.txt").unwrap().view.text;
            let mut now = snapshot(root);
            let mut was = crashed.clone();
            let key = path
                .strip_prefix(root)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            now.remove(&key);
            was.remove(&key);
            assert_eq!(now, was, "{point:?}, round {round}: {text}");
            assert!(
                text.contains("left as it is"),
                "{point:?}, round {round}: {text}"
            );
        }
        fs::write(&path, &genuine).unwrap();
        let notes = recovery_notes(&session(root));
        let now = snapshot(root);
        assert!(now == before || now == patched(), "{point:?}: {notes}");
    }
}

#[cfg(unix)]
#[test]
fn a_process_killed_at_random_moments_and_a_user_edit_before_the_recovery_lose_no_byte() {
    use super::transactions::{kill_loop, kill_root, Rng};
    let (_dir, root, mut state) = kill_root();
    let mut rng = Rng(0xED17);
    let (mut kills, mut edited, mut lost, mut halves) = (0, 0, 0, 0);
    while kills < 400 {
        let killed = kill_loop(&root, kills + 1000, &mut rng, 3);
        kills += 1;
        let (mut before, mut after) = match killed.last {
            Some((_, after)) if killed.done => (after.clone(), after),
            Some((before, after)) => (before, after),
            None => (state.clone(), state.clone()),
        };
        // Half of the time the user edits a file of the change, or any
        // file, before anything opens the root again.
        let mut user = None;
        if rng.below(2) == 0 {
            let names: Vec<String> = before.keys().chain(after.keys()).cloned().collect();
            let name = names[rng.below(names.len())].clone();
            let bytes = format!("the user's edit after kill {kills}\n").into_bytes();
            let path = root.join(&name);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(&path, &bytes).unwrap();
            before.insert(name.clone(), bytes.clone());
            after.insert(name.clone(), bytes.clone());
            user = Some((name, bytes));
            edited += 1;
        }
        let notes = recovery_notes(&Hashline::new(Options::new(&root)).unwrap());
        let now = snapshot(&root);
        if let Some((name, bytes)) = &user {
            if now.get(name) != Some(bytes) {
                lost += bytes.len();
                eprintln!("kill {kills}: the user's edit of {name} was lost\n{notes}");
            }
        }
        if now != before && now != after {
            halves += 1;
            eprintln!(
                "kill {kills}: neither all old nor all new: {:?}\n{notes}",
                now.keys().collect::<Vec<_>>()
            );
        }
        state = now;
    }
    println!("kill test with user edits: {kills} kills, {edited} followed by a user's edit; halves: {halves}; bytes of the user lost: {lost}");
    assert_eq!((halves, lost), (0, 0));
}
