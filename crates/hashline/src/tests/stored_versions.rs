//! Versions kept in a store folder are data on disk: stale, damaged or
//! forged. A line map read back from there must never move an edit onto
//! another line, a damaged entry must never crash an edit and is reported,
//! the folder is private, and another user's entries are not read.

use crate::{Document, ErrorCode, Hashline, OpKind, Operation, Options, Ref, Request};
use std::fs;
use std::path::{Path, PathBuf};

struct Setup {
    _dir: tempfile::TempDir,
    root: PathBuf,
    store: PathBuf,
}

impl Setup {
    fn new(text: &str) -> Setup {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("root");
        fs::create_dir(&root).unwrap();
        fs::write(root.join("f.txt"), text).unwrap();
        Setup {
            store: dir.path().join("cache").join("store"),
            root,
            _dir: dir,
        }
    }

    /// A new session, as a new process would start one.
    fn session(&self) -> Hashline {
        let mut options = Options::new(&self.root);
        options.store_dir = Some(self.store.clone());
        Hashline::new(options).unwrap()
    }

    fn doc(&self) -> Document {
        Document::from_bytes(&fs::read(self.root.join("f.txt")).unwrap()).unwrap()
    }

    fn lines(&self) -> Vec<String> {
        self.doc().lines().map(str::to_owned).collect()
    }

    /// The file of the stored version `rev`.
    fn entry(&self, rev: &str) -> PathBuf {
        fs::read_dir(&self.store)
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .find(|p| p.to_string_lossy().ends_with(&format!("-{rev}.hlv")))
            .unwrap_or_else(|| panic!("no stored version {rev}"))
    }

    /// Rewrites the line map stored with version `rev` (its parent line).
    fn forge_map(&self, rev: &str, runs: &str) {
        let file = self.entry(rev);
        let content = fs::read_to_string(&file).unwrap();
        let mut parts: Vec<&str> = content.splitn(5, '\n').collect();
        let parent_rev = parts[3].split(' ').next().unwrap().to_owned();
        let forged = format!("{parent_rev} {runs}");
        parts[3] = &forged;
        fs::write(&file, parts.join("\n")).unwrap();
    }
}

fn replace(reference: &Ref, content: &str) -> Request {
    crate::tests::replace(&reference.to_string(), content)
}

fn prepend(content: &str) -> Request {
    Request::Operations {
        operations: vec![Operation::new(OpKind::Prepend, None, None, content)],
        rev: None,
    }
}

/// Reads `f.txt` in one session and prepends a line in another, as two
/// command-line runs would; returns the refs of the version read and the
/// REV written.
fn read_then_prepend(setup: &Setup) -> (Document, String) {
    setup.session().read("f.txt").unwrap();
    let old = setup.doc();
    let written = setup.session().edit("f.txt", &prepend("N")).unwrap();
    (old, written.rev)
}

#[test]
fn a_forged_map_that_shifts_lines_does_not_move_an_edit() {
    let setup = Setup::new("a\nb\nc\nd\ne\nf\n");
    let (old, rev) = read_then_prepend(&setup);
    // The truth is 0:1:6; this well-formed lie sends old `c` onto `b`.
    setup.forge_map(&rev, "0:0:6");
    let result = setup
        .session()
        .edit("f.txt", &replace(&Ref::of_line(&old, 2), "C"));
    match result {
        Ok(_) => assert_eq!(setup.lines(), ["N", "a", "b", "C", "d", "e", "f"]),
        Err(err) => assert_eq!(err.code, ErrorCode::HashMismatch, "{}", err.message),
    }
}

#[test]
fn a_forged_map_that_swaps_runs_is_skipped_and_reported() {
    let setup = Setup::new("a\nb\nc\nd\ne\nf\n");
    let (old, rev) = read_then_prepend(&setup);
    setup.forge_map(&rev, "0:4:3,3:1:3");
    let result = setup
        .session()
        .edit("f.txt", &replace(&Ref::of_line(&old, 1), "B"))
        .unwrap();
    assert_eq!(setup.lines(), ["N", "a", "B", "c", "d", "e", "f"]);
    assert!(
        result.output.contains("damaged and was ignored"),
        "{}",
        result.output
    );
}

#[test]
fn a_forged_map_onto_an_identical_stretch_does_not_move_an_edit() {
    // `q` between `p` and `r` twice: same HASH, same ANCHOR.
    let setup = Setup::new("p\nq\nr\ns\np\nq\nr\n");
    let (old, rev) = read_then_prepend(&setup);
    // The truth sends old line 6 (the second `q`) to line 7; the lie sends
    // it onto the first `q`, which looks exactly like it.
    setup.forge_map(&rev, "5:2:1");
    let result = setup
        .session()
        .edit("f.txt", &replace(&Ref::of_line(&old, 5), "Q"));
    match result {
        Ok(_) => assert_eq!(setup.lines(), ["N", "p", "q", "r", "s", "p", "Q", "r"]),
        Err(err) => assert_eq!(err.code, ErrorCode::HashMismatch, "{}", err.message),
    }
}

#[test]
fn a_map_past_the_end_is_skipped_with_a_note_and_never_an_internal_error() {
    for runs in [
        "0:100:6",
        "0:1:6,2:3:1",
        "0:1:0",
        "99999999999999999999:1:1",
        "0:1",
    ] {
        let setup = Setup::new("a\nb\nc\nd\ne\nf\n");
        let (old, rev) = read_then_prepend(&setup);
        setup.forge_map(&rev, runs);
        let result = setup
            .session()
            .edit("f.txt", &replace(&Ref::of_line(&old, 2), "C"))
            .unwrap_or_else(|e| panic!("{runs}: {e}"));
        assert_eq!(setup.lines(), ["N", "a", "b", "C", "d", "e", "f"], "{runs}");
        assert!(
            result.output.contains("damaged"),
            "{runs}: {}",
            result.output
        );
    }
}

#[test]
fn a_map_naming_old_lines_its_parent_does_not_have_is_never_used() {
    let setup = Setup::new("a\nb\nc\nd\ne\nf\n");
    let (old, rev) = read_then_prepend(&setup);
    // Within the new text, but old lines 90.. do not exist.
    setup.forge_map(&rev, "90:1:6");
    let result = setup
        .session()
        .edit("f.txt", &replace(&Ref::of_line(&old, 2), "C"))
        .unwrap();
    assert_eq!(setup.lines(), ["N", "a", "b", "C", "d", "e", "f"]);
    assert!(result.output.contains("damaged"), "{}", result.output);
}

#[test]
fn damaged_versions_are_reported_once() {
    let setup = Setup::new("a\nb\n");
    setup.session().read("f.txt").unwrap();
    let doc = setup.doc();
    let entry = setup.entry(doc.rev());
    let content = fs::read_to_string(&entry).unwrap();
    fs::write(&entry, content.replace("\n0-2\n", "\n0-9\n")).unwrap();
    let session = setup.session();
    let first = session
        .edit("f.txt", &replace(&Ref::of_line(&doc, 0), "A"))
        .unwrap();
    assert!(first.output.contains("damaged"), "{}", first.output);
    let doc = setup.doc();
    let second = session
        .edit("f.txt", &replace(&Ref::of_line(&doc, 1), "B"))
        .unwrap();
    assert!(!second.output.contains("damaged"), "{}", second.output);
}

#[cfg(unix)]
fn mode(path: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    fs::metadata(path).unwrap().permissions().mode() & 0o777
}

#[cfg(unix)]
#[test]
fn a_new_store_folder_and_its_versions_are_private() {
    let setup = Setup::new("a\nb\n");
    setup.session().read("f.txt").unwrap();
    assert_eq!(mode(&setup.store), 0o700);
    assert_eq!(mode(setup.store.parent().unwrap()), 0o700);
    let entries: Vec<PathBuf> = fs::read_dir(&setup.store)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    assert!(!entries.is_empty());
    for entry in entries {
        assert_eq!(mode(&entry), 0o600, "{}", entry.display());
    }
}

/// Another user's uid, for files made to belong to someone else; only
/// root can give a file away, so elsewhere these tests have nothing to do.
#[cfg(unix)]
fn as_root() -> bool {
    rustix::process::geteuid().is_root()
}

#[cfg(unix)]
const NOBODY: u32 = 65534;

/// The version read, and a change made outside, so that an edit citing
/// the view can succeed only by remapping through the stored version.
#[cfg(unix)]
fn read_then_change_outside(setup: &Setup) -> Document {
    setup.session().read("f.txt").unwrap();
    let old = setup.doc();
    fs::write(setup.root.join("f.txt"), "N\na\nb\nc\n").unwrap();
    old
}

#[cfg(unix)]
#[test]
fn a_stored_version_another_user_owns_is_not_read() {
    if !as_root() {
        eprintln!("not root: cannot give a file to another user; nothing to check");
        return;
    }
    let setup = Setup::new("a\nb\nc\n");
    let old = read_then_change_outside(&setup);
    // Owned by the current user, the version remaps the ref.
    let request = replace(&Ref::of_line(&old, 1), "B");
    let control = Setup::new("a\nb\nc\n");
    let control_old = read_then_change_outside(&control);
    assert_eq!(control_old.text(), old.text());
    control.session().edit("f.txt", &request).unwrap();
    assert_eq!(control.lines(), ["N", "a", "B", "c"]);
    // Given to another user, it is as if there were none.
    std::os::unix::fs::chown(setup.entry(old.rev()), Some(NOBODY), Some(NOBODY)).unwrap();
    let err = setup.session().edit("f.txt", &request).unwrap_err();
    assert_eq!(err.code, ErrorCode::HashMismatch, "{}", err.message);
    assert_eq!(setup.lines(), ["N", "a", "b", "c"]);
}

#[cfg(unix)]
#[test]
fn a_store_folder_another_user_owns_is_neither_read_nor_written() {
    if !as_root() {
        eprintln!("not root: cannot give a folder to another user; nothing to check");
        return;
    }
    let setup = Setup::new("a\nb\nc\n");
    let old = read_then_change_outside(&setup);
    std::os::unix::fs::chown(&setup.store, Some(NOBODY), Some(NOBODY)).unwrap();
    let before: Vec<PathBuf> = fs::read_dir(&setup.store)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    let err = setup
        .session()
        .edit("f.txt", &replace(&Ref::of_line(&old, 1), "B"))
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::HashMismatch, "{}", err.message);
    let doc = setup.doc();
    setup
        .session()
        .edit("f.txt", &replace(&Ref::of_line(&doc, 1), "A"))
        .unwrap();
    let after: Vec<PathBuf> = fs::read_dir(&setup.store)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    assert_eq!(
        before, after,
        "nothing is written into another user's folder"
    );
}
