//! Changes of several files, whole or not at all, on real folders: a
//! failure at every point of a transaction (an injected error, a folder
//! that stops taking writes, a full disk) leaves every file as it was; a
//! process stopped at every point, or killed at random moments while it
//! runs transactions in a loop, leaves the files all old or all new once
//! the next session opens the root, with no byte lost and nothing left
//! beside them; two processes running overlapping transactions neither
//! wait on each other for ever nor mix their changes.
//!
//! Some tests run this test binary again as a child process (see
//! `child_process`), which is what a test of a killed process needs.

use crate::cancel::Cancel;
use crate::error::ErrorCode;
use crate::request::Value;
use crate::session::{Hashline, Options, Plan};
use crate::transaction::{commit_observed, Point};
use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::io::{self, BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Every file under a folder, hidden ones included, by its path with `/`.
pub(super) type Tree = BTreeMap<String, Vec<u8>>;

pub(super) fn snapshot(root: &Path) -> Tree {
    fn walk(root: &Path, dir: &Path, tree: &mut Tree) {
        for entry in fs::read_dir(dir).unwrap().flatten() {
            let path = entry.path();
            if entry.file_type().unwrap().is_dir() {
                walk(root, &path, tree);
            } else {
                let rel = path.strip_prefix(root).unwrap().to_string_lossy();
                tree.insert(rel.replace('\\', "/"), fs::read(&path).unwrap());
            }
        }
    }
    let mut tree = Tree::new();
    walk(root, root, &mut tree);
    tree
}

pub(super) fn plant(root: &Path, tree: &Tree) {
    for (name, bytes) in tree {
        let path = root.join(name);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, bytes).unwrap();
    }
}

/// Files of every kind of line ending in three folders, and a patch that
/// updates, adds (into folders it makes), moves (to a free name and onto an
/// existing file) and deletes: eight changes in four folders.
pub(super) fn project() -> (tempfile::TempDir, Tree) {
    let dir = tempfile::tempdir().unwrap();
    let tree: Tree = [
        ("a/lf.txt", &b"one\ntwo\nthree\n"[..]),
        ("a/crlf.txt", b"one\r\ntwo\r\n"),
        ("b/bom.txt", b"\xEF\xBB\xBFalpha\nbeta\n"),
        ("b/nofinal.txt", b"x\ny"),
        ("c/dest.txt", b"dest\r\n"),
        ("c/gone.txt", b"gone\n"),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v.to_vec()))
    .collect();
    plant(dir.path(), &tree);
    (dir, tree)
}

pub(super) const PATCH: &str = "*** Begin Patch
*** Update File: a/lf.txt
@@
-two
+TWO
*** Add File: d/e/new.txt
+new
*** Update File: b/bom.txt
*** Move to: c/moved.txt
@@
-beta
+BETA
*** Update File: a/crlf.txt
*** Move to: c/dest.txt
*** Update File: b/nofinal.txt
@@
-y
+Y
*** Delete File: c/gone.txt
*** End Patch";

/// The project once the patch is applied.
pub(super) fn patched() -> Tree {
    [
        ("a/lf.txt", &b"one\nTWO\nthree\n"[..]),
        ("b/nofinal.txt", b"x\nY"),
        ("c/dest.txt", b"one\r\ntwo\r\n"),
        ("c/moved.txt", b"\xEF\xBB\xBFalpha\nBETA\n"),
        ("d/e/new.txt", b"new\n"),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v.to_vec()))
    .collect()
}

/// Every point of the patch's transaction: eight changes.
pub(super) fn points() -> Vec<Point> {
    let mut points = vec![Point::Journaled];
    points.extend((0..8).map(Point::Staged));
    points.push(Point::Checked);
    points.extend((0..8).map(Point::Switch));
    points.extend([Point::Switched, Point::Verified]);
    points
}

pub(super) fn session(root: &Path) -> Hashline {
    let mut options = Options::new(root);
    options.view = crate::ViewStyle::Full;
    Hashline::new(options).unwrap()
}

/// The notes of recoveries the session has not told yet.
pub(super) fn recovery_notes(hl: &Hashline) -> String {
    let mut notes = String::new();
    hl.tell_recoveries(&mut notes);
    notes
}

#[test]
fn a_failure_at_any_point_before_the_last_trade_leaves_every_file_as_it_was_and_nothing_beside() {
    for point in points() {
        let (dir, before) = project();
        let hl = session(dir.path());
        let plan = hl.plan_patch(PATCH).unwrap();
        let err = commit_observed(
            &plan.changes(),
            &hl.settings(&Cancel::new()),
            || Ok(()),
            &mut |at| {
                if at == point {
                    Err(io::Error::other("injected"))
                } else {
                    Ok(())
                }
            },
        )
        .unwrap_err();
        assert!(err.message.contains("injected"), "{point:?}: {err:?}");
        assert_eq!(snapshot(dir.path()), before, "{point:?}");
        assert!(
            !dir.path().join("d").exists(),
            "{point:?}: a folder made for the change stays"
        );
        assert!(recovery_notes(&session(dir.path())).is_empty(), "{point:?}");
    }
    let (dir, _) = project();
    let hl = session(dir.path());
    let plan = hl.plan_patch(PATCH).unwrap();
    hl.commit_patch(&plan).unwrap();
    assert_eq!(snapshot(dir.path()), patched());
}

/// Makes a folder refuse new names until dropped: immutable for root,
/// whom modes do not stop, read-only for anyone else.
#[cfg(unix)]
struct Refusing(PathBuf);

#[cfg(unix)]
impl Refusing {
    fn new(dir: &Path) -> Refusing {
        use std::os::unix::fs::PermissionsExt;
        if rustix::process::geteuid().is_root() {
            let status = Command::new("chattr").arg("+i").arg(dir).status().unwrap();
            assert!(status.success(), "chattr +i {}", dir.display());
        } else {
            fs::set_permissions(dir, fs::Permissions::from_mode(0o555)).unwrap();
        }
        Refusing(dir.to_owned())
    }
}

#[cfg(unix)]
impl Drop for Refusing {
    fn drop(&mut self) {
        use std::os::unix::fs::PermissionsExt;
        if rustix::process::geteuid().is_root() {
            let _ = Command::new("chattr").arg("-i").arg(&self.0).status();
        } else {
            let _ = fs::set_permissions(&self.0, fs::Permissions::from_mode(0o755));
        }
    }
}

#[cfg(unix)]
#[test]
fn a_folder_that_stops_taking_writes_in_the_middle_of_the_trades_puts_every_file_back() {
    let (dir, before) = project();
    let hl = session(dir.path());
    let plan = hl.plan_patch(PATCH).unwrap();
    let mut refusing = None;
    // The fifth change is the first in b/: four files traded names by then.
    let err = commit_observed(
        &plan.changes(),
        &hl.settings(&Cancel::new()),
        || Ok(()),
        &mut |at| {
            if at == Point::Switch(4) {
                refusing = Some(Refusing::new(&dir.path().join("b")));
            }
            Ok(())
        },
    )
    .unwrap_err();
    assert_eq!(err.code, ErrorCode::Permission, "{err:?}");
    assert!(
        err.message
            .contains("Every file of the change is as it was"),
        "{}",
        err.message
    );
    // The new version staged in the folder cannot be removed while it
    // refuses writes: the record stays, and the next session removes it.
    let mut files = snapshot(dir.path());
    files.retain(|name, _| !name.starts_with("b/.") && !name.starts_with(crate::journal::FOLDER));
    assert_eq!(files, before);
    assert!(!dir.path().join("d").exists());
    drop(refusing);
    let notes = recovery_notes(&session(dir.path()));
    assert!(notes.contains("was undone"), "{notes}");
    assert_eq!(snapshot(dir.path()), before);
}

#[test]
fn a_full_disk_while_the_new_versions_are_written_leaves_nothing_behind() {
    let (dir, before) = project();
    let hl = session(dir.path());
    let plan = hl.plan_patch(PATCH).unwrap();
    #[cfg(unix)]
    let full = || io::Error::from_raw_os_error(rustix::io::Errno::NOSPC.raw_os_error());
    #[cfg(not(unix))]
    let full = || io::Error::other("no space left on device");
    let err = commit_observed(
        &plan.changes(),
        &hl.settings(&Cancel::new()),
        || Ok(()),
        &mut |at| {
            if at == Point::Staged(3) {
                Err(full())
            } else {
                Ok(())
            }
        },
    )
    .unwrap_err();
    assert_eq!(err.code, ErrorCode::Io, "{err:?}");
    assert_eq!(snapshot(dir.path()), before);
}

/// A small file system that really fills up, where this process may mount
/// one (as root on Linux); elsewhere the injected error above stands in.
#[cfg(target_os = "linux")]
#[test]
fn a_batch_on_a_file_system_that_fills_up_changes_no_file() {
    struct Mounted(PathBuf);
    impl Drop for Mounted {
        fn drop(&mut self) {
            let _ = Command::new("umount").arg(&self.0).status();
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let mounted = Command::new("mount")
        .args(["-t", "tmpfs", "-o", "size=256k", "tmpfs"])
        .arg(dir.path())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !mounted {
        eprintln!("no tmpfs could be mounted here: the full disk is injected instead");
        return;
    }
    let _guard = Mounted(dir.path().to_owned());
    let root = dir.path().join("root");
    let before: Tree = [("a/one.txt", "one\n"), ("b/two.txt", "two\n")]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v.as_bytes().to_vec()))
        .collect();
    plant(&root, &before);
    // Leave about 40 KiB free.
    let mut filler = fs::File::create(dir.path().join("filler")).unwrap();
    let chunk = vec![b'f'; 4096];
    while filler
        .write_all(&chunk)
        .and_then(|()| filler.sync_all())
        .is_ok()
    {}
    drop(filler);
    fs::OpenOptions::new()
        .write(true)
        .open(dir.path().join("filler"))
        .and_then(|f| {
            let len = f.metadata()?.len();
            f.set_len(len.saturating_sub(40 << 10))
        })
        .unwrap();
    let hl = session(&root);
    let append = |path: &str, content: String| {
        Value::Object(vec![
            ("path".into(), Value::String(path.into())),
            (
                "operations".into(),
                Value::Array(vec![Value::Object(vec![
                    ("op".into(), Value::String("append".into())),
                    ("content".into(), Value::String(content)),
                ])]),
            ),
        ])
    };
    let batch = Value::Array(vec![
        append("a/one.txt", "1".into()),
        append("b/two.txt", "2".repeat(200 << 10)),
    ]);
    let err = hl.apply_batch(&batch).unwrap_err();
    assert_eq!(err.code, ErrorCode::Io, "{err:?}");
    assert!(err.message.contains("No space left"), "{}", err.message);
    assert_eq!(snapshot(&root), before);
}

#[test]
fn a_program_writing_into_an_old_version_through_an_open_handle_makes_the_change_go_back_and_keeps_its_write(
) {
    let (dir, mut before) = project();
    let hl = session(dir.path());
    let plan = hl.plan_patch(PATCH).unwrap();
    let held = fs::OpenOptions::new()
        .write(true)
        .open(dir.path().join("b/nofinal.txt"))
        .unwrap();
    let err = commit_observed(
        &plan.changes(),
        &hl.settings(&Cancel::new()),
        || Ok(()),
        &mut |at| {
            if at == Point::Switched {
                held.set_len(0)?;
                (&held).write_all(b"theirs\n")?;
            }
            Ok(())
        },
    )
    .unwrap_err();
    assert_eq!(err.code, ErrorCode::BaseChanged, "{err:?}");
    assert_eq!(err.path.as_deref(), Some("b/nofinal.txt"));
    before.insert("b/nofinal.txt".into(), b"theirs\n".to_vec());
    assert_eq!(snapshot(dir.path()), before);
}

#[test]
fn a_session_opening_the_root_leaves_the_record_of_a_live_transaction_alone() {
    let (dir, _) = project();
    let hl = session(dir.path());
    let plan = hl.plan_patch(PATCH).unwrap();
    let (reached, at_switch) = std::sync::mpsc::channel();
    let (go, wait) = std::sync::mpsc::channel::<()>();
    let (hl, plan) = (&hl, &plan);
    std::thread::scope(|s| {
        let running = s.spawn(move || {
            commit_observed(
                &plan.changes(),
                &hl.settings(&Cancel::new()),
                || Ok(()),
                &mut |at| {
                    if at == Point::Switch(3) {
                        reached.send(()).unwrap();
                        wait.recv().unwrap();
                    }
                    Ok(())
                },
            )
        });
        at_switch.recv().unwrap();
        let other = session(dir.path());
        assert!(recovery_notes(&other).is_empty());
        assert!(dir.path().join(crate::journal::FOLDER).is_dir());
        go.send(()).unwrap();
        running.join().unwrap().unwrap();
    });
    assert_eq!(snapshot(dir.path()), patched());
}

/// What a child process does, from its environment; see `child`.
const CHILD: &str = "HASHLINE_TRANSACTION_CHILD";

/// This test binary again, running `child_process` only, told what to do.
pub(super) fn child(task: &str) -> Command {
    let mut command = Command::new(std::env::current_exe().unwrap());
    command
        .args([
            "--exact",
            "tests::transactions::child_process",
            "--ignored",
            "--nocapture",
            "--test-threads=1",
            "-q",
        ])
        .env(CHILD, task)
        .stdin(Stdio::null())
        .stderr(Stdio::inherit());
    command
}

/// Not a test of its own: what a child process of the tests here runs,
/// said by its environment. Run without it, it does nothing.
#[test]
#[ignore = "runs only as a child process of the transaction tests"]
fn child_process() {
    let Ok(task) = std::env::var(CHILD) else {
        return;
    };
    let words: Vec<&str> = task.split(' ').collect();
    match words[..] {
        ["stop", root, point, patch] => {
            let patch = String::from_utf8(hex::decode(patch).unwrap()).unwrap();
            stop_at(Path::new(root), point, &patch)
        }
        ["loop", root, seed] => run_transactions(Path::new(root), seed.parse().unwrap()),
        ["overlap", root, id, count, seed] => overlap(
            Path::new(root),
            id,
            count.parse().unwrap(),
            seed.parse().unwrap(),
        ),
        _ => panic!("unknown task {task}"),
    }
}

/// Commits `patch` and dies at `point`, as a killed process would:
/// nothing is cleaned up. The session may reach outside its root, so that
/// a patch may name files there.
fn stop_at(root: &Path, point: &str, patch: &str) {
    let mut options = Options::new(root);
    options.view = crate::ViewStyle::Full;
    options.allow_outside_root = true;
    let hl = Hashline::new(options).unwrap();
    let plan = hl.plan_patch(patch).unwrap();
    let _ = commit_observed(
        &plan.changes(),
        &hl.settings(&Cancel::new()),
        || Ok(()),
        &mut |at| {
            if format!("{at:?}") == point {
                std::process::abort();
            }
            Ok(())
        },
    );
    panic!("the transaction never reached {point}");
}

/// Runs `patch` in a child process that dies at `point`.
#[cfg(unix)]
pub(super) fn crash_at(root: &Path, point: Point, patch: &str) {
    let task = format!("stop {} {point:?} {}", root.display(), hex::encode(patch));
    let status = child(&task).stdout(Stdio::null()).status().unwrap();
    assert!(!status.success(), "{point:?}: the child did not stop");
}

#[cfg(unix)]
#[test]
fn a_process_that_dies_at_any_point_leaves_all_old_or_all_new_once_the_next_session_opens_the_root()
{
    for point in points() {
        let (dir, before) = project();
        crash_at(dir.path(), point, PATCH);
        let hl = session(dir.path());
        // The next result says so, once.
        let notes = hl.read("a/lf.txt").unwrap().view.text;
        assert!(!hl.read("a/lf.txt").unwrap().view.text.contains("Note:"));
        let now = snapshot(dir.path());
        let forward = matches!(point, Point::Switched | Point::Verified);
        if forward {
            assert_eq!(now, patched(), "{point:?}");
            assert!(
                notes.contains("was finished: every file holds its new version"),
                "{point:?}: {notes}"
            );
        } else {
            assert_eq!(now, before, "{point:?}");
            assert!(
                notes.contains("was undone: every file is as it was before it"),
                "{point:?}: {notes}"
            );
        }
        assert!(
            !dir.path().join(crate::journal::FOLDER).exists(),
            "{point:?}"
        );
    }
}

/// A generator of test cases: SplitMix64, written out since the engine
/// takes no random-number crate and a reproducible sequence is all the
/// tests need.
pub(super) struct Rng(pub(super) u64);

impl Rng {
    pub(super) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    pub(super) fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// A file's lines in one of the line-ending styles, from its tokens.
fn render(tokens: &[String], style: usize) -> Vec<u8> {
    let (bom, end, last) = match style % 5 {
        0 => ("", "\n", true),
        1 => ("", "\r\n", true),
        2 => ("\u{feff}", "\n", true),
        3 => ("\u{feff}", "\r\n", true),
        _ => ("", "\n", false),
    };
    let mut text = bom.to_owned();
    for (i, token) in tokens.iter().enumerate() {
        text.push_str(token);
        if last || i + 1 < tokens.len() {
            text.push_str(end);
        }
    }
    text.into_bytes()
}

/// A patch of 3 to 10 changes of the files in `tree`: updates, additions,
/// deletions, moves to free names and onto other files.
fn random_patch(rng: &mut Rng, tree: &Tree, step: u64) -> String {
    const FOLDERS: [&str; 4] = ["a", "b", "c/deep", "d/new"];
    let existing: Vec<&String> = tree.keys().collect();
    let mut used: BTreeSet<String> = BTreeSet::new();
    let mut patch = String::from("*** Begin Patch\n");
    let changes = 3 + rng.below(8);
    let lines_of = |name: &str| -> Vec<String> {
        String::from_utf8_lossy(&tree[name])
            .trim_start_matches('\u{feff}')
            .lines()
            .map(|l| l.trim_end_matches('\r').to_owned())
            .collect()
    };
    let fresh = |rng: &mut Rng| -> Vec<String> {
        (0..1 + rng.below(4))
            .map(|i| format!("s{step}-{i}-{:x}", rng.next() % 0xFFFF))
            .collect()
    };
    let free_name = |rng: &mut Rng, used: &BTreeSet<String>| loop {
        let name = format!(
            "{}/f{}.txt",
            FOLDERS[rng.below(FOLDERS.len())],
            rng.below(40)
        );
        if !tree.contains_key(&name) && !used.contains(&name) {
            return name;
        }
    };
    let mut made = 0;
    let mut tries = 0;
    while made < changes && tries < 100 {
        tries += 1;
        // Adds while there are few files, deletions while there are many.
        let kind = match existing.len() {
            0..6 => rng.below(3),
            25.. => 1 + rng.below(5),
            _ => rng.below(6),
        };
        let pick = existing[rng.below(existing.len())].clone();
        if kind != 0 && used.contains(&pick) {
            continue;
        }
        match kind {
            0 => {
                let name = free_name(rng, &used);
                patch.push_str(&format!("*** Add File: {name}\n"));
                for line in fresh(rng) {
                    patch.push_str(&format!("+{line}\n"));
                }
                used.insert(name);
            }
            1 | 2 => {
                patch.push_str(&format!("*** Update File: {pick}\n@@\n"));
                for line in lines_of(&pick) {
                    patch.push_str(&format!("-{line}\n"));
                }
                for line in fresh(rng) {
                    patch.push_str(&format!("+{line}\n"));
                }
                used.insert(pick);
            }
            3 => {
                let to = free_name(rng, &used);
                patch.push_str(&format!("*** Update File: {pick}\n*** Move to: {to}\n"));
                if rng.below(2) == 0 {
                    patch.push_str("@@\n");
                    for line in lines_of(&pick) {
                        patch.push_str(&format!("-{line}\n"));
                    }
                    for line in fresh(rng) {
                        patch.push_str(&format!("+{line}\n"));
                    }
                }
                used.insert(pick);
                used.insert(to);
            }
            4 => {
                let onto = existing[rng.below(existing.len())].clone();
                if onto == pick || used.contains(&onto) {
                    continue;
                }
                patch.push_str(&format!("*** Update File: {pick}\n*** Move to: {onto}\n"));
                used.insert(pick);
                used.insert(onto);
            }
            _ => {
                patch.push_str(&format!("*** Delete File: {pick}\n"));
                used.insert(pick);
            }
        }
        made += 1;
    }
    patch.push_str("*** End Patch");
    patch
}

pub(super) fn encode(tree: &Tree) -> String {
    let parts: Vec<String> = tree
        .iter()
        .map(|(k, v)| format!("{}:{}", hex::encode(k), hex::encode(v)))
        .collect();
    if parts.is_empty() {
        "-".to_owned()
    } else {
        parts.join(",")
    }
}

pub(super) fn decode(text: &str) -> Tree {
    if text == "-" {
        return Tree::new();
    }
    text.split(',')
        .map(|part| {
            let (k, v) = part.split_once(':').unwrap();
            (
                String::from_utf8(hex::decode(k).unwrap()).unwrap(),
                hex::decode(v).unwrap(),
            )
        })
        .collect()
}

/// Runs random patches in a loop until killed; before each commit it
/// says what the files are and what they will be.
fn run_transactions(root: &Path, seed: u64) {
    let hl = Hashline::new(Options::new(root)).unwrap();
    let mut rng = Rng(seed);
    let mut out = io::stdout().lock();
    writeln!(out, "@ready").unwrap();
    out.flush().unwrap();
    for step in 0.. {
        let before = snapshot(root);
        let patch = random_patch(&mut rng, &before, seed * 1000 + step);
        let plan = hl
            .plan_patch(&patch)
            .unwrap_or_else(|e| panic!("{patch}\n{e}"));
        let mut after = before.clone();
        for change in plan.changes() {
            match change {
                crate::transaction::Change::Write { target, bytes, .. } => {
                    let rel = target.real.strip_prefix(hl.root()).unwrap();
                    after.insert(rel.to_string_lossy().into_owned(), bytes.into_owned());
                }
                crate::transaction::Change::Remove { target, .. } => {
                    let rel = target.real.strip_prefix(hl.root()).unwrap();
                    after.remove(&*rel.to_string_lossy());
                }
            }
        }
        writeln!(out, "@step {step} {} {}", encode(&before), encode(&after)).unwrap();
        out.flush().unwrap();
        hl.commit_patch(&plan)
            .unwrap_or_else(|e| panic!("{patch}\n{e}"));
        writeln!(out, "@done {step}").unwrap();
        out.flush().unwrap();
    }
}

/// How many transactions the kill test runs at least; more with
/// `HASHLINE_KILL_TRANSACTIONS` (the longer run of `docs/writes.md`).
fn kill_transactions() -> usize {
    std::env::var("HASHLINE_KILL_TRANSACTIONS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(1000)
}

/// A folder for the kill test, in memory where there is one: a kill tests
/// what the process leaves behind, not what a power cut does, and without
/// flushes to a disk a thousand transactions take seconds, not minutes.
fn kill_folder() -> tempfile::TempDir {
    tempfile::tempdir_in("/dev/shm")
        .or_else(|_| tempfile::tempdir())
        .unwrap()
}

/// What a child running transactions in a loop said before it was killed.
pub(super) struct Killed {
    /// How many transactions it began.
    pub(super) begun: usize,
    /// The files before and after the last transaction it began.
    pub(super) last: Option<(Tree, Tree)>,
    /// Whether it said that one was done.
    pub(super) done: bool,
}

/// Runs random transactions in `root` in a child process (`seed` picks
/// them) and kills it at a random moment after it says it begins one of
/// its first `within` transactions.
#[cfg(unix)]
pub(super) fn kill_loop(root: &Path, seed: u64, rng: &mut Rng, within: usize) -> Killed {
    let mut process = child(&format!("loop {} {seed}", root.display()))
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(process.stdout.take().unwrap());
    let (send, receive) = std::sync::mpsc::channel();
    let reader = std::thread::spawn(move || {
        let mut line = String::new();
        // A line the kill cut short has no end, and never happened.
        while lines.read_line(&mut line).is_ok_and(|n| n > 0) {
            if let Some(whole) = line.strip_suffix('\n') {
                if whole.starts_with('@') && send.send(whole.to_owned()).is_err() {
                    break;
                }
            }
            line.clear();
        }
    });
    let nth = format!("@step {} ", rng.below(within));
    let mut seen = Vec::new();
    loop {
        let line = receive
            .recv_timeout(Duration::from_secs(60))
            .expect("the child runs transactions");
        let begun = line.starts_with(&nth);
        seen.push(line);
        if begun {
            break;
        }
    }
    std::thread::sleep(Duration::from_micros(rng.next() % 1_500));
    process.kill().unwrap();
    let status = process.wait().unwrap();
    reader.join().unwrap();
    seen.extend(receive.try_iter());
    assert!(!status.success(), "the child stopped on its own: {seen:?}");
    let mut killed = Killed {
        begun: 0,
        last: None,
        done: false,
    };
    for line in &seen {
        match line.split(' ').collect::<Vec<_>>()[..] {
            ["@step", _, before, after] => {
                killed.begun += 1;
                killed.last = Some((decode(before), decode(after)));
                killed.done = false;
            }
            ["@done", _] => killed.done = true,
            _ => {}
        }
    }
    killed
}

/// A root for a kill test, and the eight files planted in it in every
/// style of line ending.
pub(super) fn kill_root() -> (tempfile::TempDir, PathBuf, Tree) {
    let dir = kill_folder();
    let root = dir.path().canonicalize().unwrap();
    let mut state = Tree::new();
    for (i, name) in [
        "a/f1.txt",
        "a/f2.txt",
        "b/f3.txt",
        "b/f4.txt",
        "c/deep/f5.txt",
        "c/deep/f6.txt",
        "a/f7.txt",
        "b/f8.txt",
    ]
    .iter()
    .enumerate()
    {
        let tokens: Vec<String> = (0..3).map(|k| format!("init-{i}-{k}")).collect();
        state.insert((*name).to_owned(), render(&tokens, i));
    }
    plant(&root, &state);
    (dir, root, state)
}

#[cfg(unix)]
#[test]
fn a_process_killed_at_random_moments_while_it_runs_transactions_leaves_all_old_or_all_new_and_loses_no_byte(
) {
    let (_dir, root, mut state) = kill_root();
    let mut rng = Rng(0x5EED);
    let wanted = kill_transactions();
    let (mut begun, mut kills, mut mixes, mut lost) = (0usize, 0usize, 0usize, 0usize);
    let (mut finished, mut undone, mut in_flight) = (0usize, 0usize, 0usize);
    let started = Instant::now();
    while begun < wanted {
        // The kill falls at a random moment after the child said it
        // begins its n-th transaction: mostly within its commit, sometimes
        // in the planning of the next one.
        let killed = kill_loop(&root, kills as u64 + 1, &mut rng, 6);
        kills += 1;
        begun += killed.begun;
        let hl = Hashline::new(Options::new(&root)).unwrap();
        let notes = recovery_notes(&hl);
        finished += notes.matches("was finished").count();
        undone += notes.matches("was undone").count();
        let now = snapshot(&root);
        let allowed: Vec<&Tree> = match &killed.last {
            None => vec![&state],
            Some((_, after)) if killed.done => vec![after],
            Some((before, after)) => {
                in_flight += 1;
                vec![before, after]
            }
        };
        if !allowed.contains(&&now) {
            mixes += 1;
            let closest = allowed[allowed.len() - 1];
            lost += closest
                .iter()
                .filter(|(k, v)| now.get(*k) != Some(v))
                .map(|(_, v)| v.len())
                .sum::<usize>();
            eprintln!(
                "kill {kills}: the files are neither all old nor all new\nnow: {:?}\nnotes: {notes}",
                now.keys().collect::<Vec<_>>()
            );
        }
        state = now;
    }
    println!(
        "kill test: {begun} transactions of 3 to 10 files in {kills} processes killed at random ({in_flight} kills with a transaction begun and not reported done; {finished} finished and {undone} undone by the next session); mixes found: {mixes}; bytes lost: {lost}; {:.0} s",
        started.elapsed().as_secs_f64()
    );
    assert_eq!((mixes, lost), (0, 0));
}

/// The JSON-free form of a batch that appends `text` to each file.
pub(super) fn appends(files: &[&str], text: &str) -> Value {
    Value::Array(
        files
            .iter()
            .map(|path| {
                Value::Object(vec![
                    ("path".into(), Value::String((*path).into())),
                    (
                        "operations".into(),
                        Value::Array(vec![Value::Object(vec![
                            ("op".into(), Value::String("append".into())),
                            ("content".into(), Value::String(text.into())),
                        ])]),
                    ),
                ])
            })
            .collect(),
    )
}

/// Appends a line naming each transaction to every file of a random set,
/// `count` times, retrying a batch another process got in before; reports
/// each one done with its files.
fn overlap(root: &Path, id: &str, count: usize, seed: u64) {
    let hl = Hashline::new(Options::new(root)).unwrap();
    let mut rng = Rng(seed);
    let files: Vec<String> = (0..12)
        .map(|i| format!("{}/{i}.txt", ["a", "b", "c"][i % 3]))
        .collect();
    let mut out = io::stdout().lock();
    for n in 0..count {
        let mut chosen: Vec<&String> = Vec::new();
        while chosen.len() < 3 + n % 4 {
            let file = &files[rng.below(files.len())];
            if !chosen.contains(&file) {
                chosen.push(file);
            }
        }
        let line = format!("{id}-{n}");
        let names: Vec<&str> = chosen.iter().map(|s| s.as_str()).collect();
        let batch = appends(&names, &line);
        loop {
            match hl.apply_batch(&batch) {
                Ok(_) => break,
                Err(e) if e.code == ErrorCode::BaseChanged => writeln!(out, "@retry").unwrap(),
                Err(e) => panic!("{id}: {e}"),
            }
        }
        writeln!(out, "@done {line} {}", names.join(",")).unwrap();
    }
}

#[cfg(unix)]
#[test]
fn two_processes_running_overlapping_transactions_in_a_loop_never_deadlock_and_never_mix() {
    const EACH: usize = 120;
    let dir = kill_folder();
    let root = dir.path().canonicalize().unwrap();
    for i in 0..12 {
        plant(
            &root,
            &[(
                format!("{}/{i}.txt", ["a", "b", "c"][i % 3]),
                b"start\n".to_vec(),
            )]
            .into(),
        );
    }
    let processes: Vec<_> = ["p", "q"]
        .iter()
        .enumerate()
        .map(|(k, id)| {
            child(&format!("overlap {} {id} {EACH} {}", root.display(), k + 7))
                .stdout(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let deadline = Instant::now() + Duration::from_secs(300);
    let mut committed: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut retries = 0;
    for mut process in processes {
        let out = process.stdout.take().unwrap();
        let reader = std::thread::spawn(move || {
            BufReader::new(out)
                .lines()
                .map_while(Result::ok)
                .collect::<Vec<_>>()
        });
        loop {
            if let Some(status) = process.try_wait().unwrap() {
                assert!(status.success(), "a process failed");
                break;
            }
            if Instant::now() > deadline {
                let _ = process.kill();
                panic!("the two processes are still running after 300 s: a deadlock");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        for line in reader.join().unwrap() {
            match line.split(' ').collect::<Vec<_>>()[..] {
                ["@done", id, files] => {
                    committed.insert(id.to_owned(), files.split(',').map(str::to_owned).collect());
                }
                ["@retry"] => retries += 1,
                _ => {}
            }
        }
    }
    assert_eq!(committed.len(), 2 * EACH);
    let tree = snapshot(&root);
    let mut mixes = 0;
    for (name, bytes) in &tree {
        let text = String::from_utf8_lossy(bytes);
        let mut lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.remove(0), "start", "{name}");
        let found: BTreeSet<&str> = lines.iter().copied().collect();
        assert_eq!(
            found.len(),
            lines.len(),
            "{name}: a transaction wrote twice"
        );
        for (id, files) in &committed {
            if files.contains(name) != found.contains(id.as_str()) {
                mixes += 1;
            }
        }
        assert!(found.iter().all(|id| committed.contains_key(*id)), "{name}");
    }
    println!(
        "overlap test: {} transactions by two processes over 12 files in 3 folders ({retries} planned on a version the other process then changed, and planned again); mixes found: {mixes}",
        committed.len()
    );
    assert_eq!(mixes, 0);
}
