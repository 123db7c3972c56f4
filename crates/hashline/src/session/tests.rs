//! The session's own tests: stored versions, plan ownership, locks, last
//! steps and bounded results.

use super::edit::bound;
use super::*;
use crate::request::{OpKind, Operation};
use std::fs;
use std::path::Path;

fn append(text: &str) -> Request {
    Request::Operations {
        operations: vec![Operation::new(OpKind::Append, None, None, text)],
        rev: None,
    }
}

#[test]
fn a_view_takes_a_stored_version_only_when_it_holds_the_same_file() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("f.txt");
    let mut options = Options::new(dir.path());
    options.view = ViewStyle::Full;
    let hl = Hashline::new(options).unwrap();
    let read = |bytes: &str| {
        fs::write(&file, bytes).unwrap();
        let shown = hl.read("f.txt").unwrap().view;
        let fresh = crate::format_view_with(
            bytes,
            "f.txt",
            &crate::FormatViewOptions {
                view: ViewStyle::Full,
                ..Default::default()
            },
        )
        .unwrap();
        assert_eq!(shown.text, fresh.text, "{bytes:?}");
        assert_eq!(shown.rev, crate::Document::from_text(bytes).rev());
    };
    let lines: String = (0..3000).map(|i| format!("line {}\n", i % 50)).collect();
    read(&lines);
    read(&lines);
    // Other text of the same length, the same text with other line
    // endings, and back.
    read(&lines.replacen("line 7", "line X", 1));
    read(&lines.replace('\n', "\r\n"));
    read(&lines);
}

#[test]
fn a_view_after_edits_takes_the_digests_the_edits_kept_and_shows_the_file_as_it_is() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("f.txt");
    let lines: String = (0..3000).map(|i| format!("line {}\n", i % 50)).collect();
    fs::write(&file, &lines).unwrap();
    let mut options = Options::new(dir.path());
    options.view = ViewStyle::Full;
    let hl = Hashline::new(options).unwrap();
    let all = ReadOptions {
        limit: Some(usize::MAX),
        ..Default::default()
    };
    let mut view = hl.read_with("f.txt", &all).unwrap().view.text;
    // Edits at the first line, in the middle and at the last line, each
    // cited from the view before it; line 1024 is the last of a batch of
    // 512 lines hashed together, its neighbour the first of the next.
    for (line, content) in [
        (1, "first"),
        (1024, "middle"),
        (2000, "two\nlines"),
        (3001, "last"),
    ] {
        let reference = view.lines().nth(line).unwrap().split('|').next().unwrap();
        hl.edit("f.txt", &crate::tests::replace(reference, content))
            .unwrap();
        view = hl.read_with("f.txt", &all).unwrap().view.text;
        let text = fs::read_to_string(&file).unwrap();
        let fresh = crate::format_view_with(
            text,
            "f.txt",
            &crate::FormatViewOptions {
                limit: Some(usize::MAX),
                view: ViewStyle::Full,
                ..Default::default()
            },
        )
        .unwrap();
        assert_eq!(view, fresh.text, "after the edit of line {line}");
    }
}

/// A file of 40 lines, and a replacement of a line of it cited by the ref
/// a host computed from the text (no view of a session showed it).
fn forty_lines(dir: &Path) -> (String, impl Fn(usize, &str) -> Request) {
    let text: String = (0..40).map(|i| format!("line {i}\n")).collect();
    fs::write(dir.join("f.txt"), &text).unwrap();
    let doc = crate::Document::from_text(&text);
    let replace = move |line: usize, content: &str| {
        crate::tests::replace(&Ref::of_line(&doc, line).to_string(), content)
    };
    (text, replace)
}

/// The file after line 3 became two lines and line 31, cited from the
/// first version, became `thirty`.
fn assert_both_edits_landed(dir: &Path) {
    let text = fs::read_to_string(dir.join("f.txt")).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        (lines.len(), lines[2], lines[3], lines[30], lines[31]),
        (41, "two", "lines", "line 29", "thirty")
    );
}

#[test]
fn refs_to_a_version_no_view_of_the_session_showed_remap_after_an_edit_of_it() {
    let dir = tempfile::tempdir().unwrap();
    let mut options = Options::new(dir.path());
    options.seen_guard = false;
    let hl = Hashline::new(options).unwrap();
    let (_, replace) = forty_lines(dir.path());
    hl.edit("f.txt", &replace(2, "two\nlines")).unwrap();
    hl.edit("f.txt", &replace(30, "thirty")).unwrap();
    assert_both_edits_landed(dir.path());
}

#[test]
fn a_version_kept_as_the_edit_that_replaced_it_is_written_whole_to_the_store_folder() {
    let dir = tempfile::tempdir().unwrap();
    let store = tempfile::tempdir().unwrap();
    let session = || {
        let mut options = Options::new(dir.path());
        options.seen_guard = false;
        options.store_dir = Some(store.path().to_owned());
        Hashline::new(options).unwrap()
    };
    let (text, replace) = forty_lines(dir.path());
    session().edit("f.txt", &replace(2, "two\nlines")).unwrap();
    // The store folder holds the text edited, byte for byte.
    let kept: Vec<Vec<u8>> = fs::read_dir(store.path())
        .unwrap()
        .map(|e| fs::read(e.unwrap().path()).unwrap())
        .collect();
    assert!(kept.contains(&text.into_bytes()));
    // A later process remaps a ref to it.
    session().edit("f.txt", &replace(30, "thirty")).unwrap();
    assert_both_edits_landed(dir.path());
}

#[test]
fn a_plan_is_committed_only_by_the_session_that_made_it() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("f.txt"), "a\n").unwrap();
    let a = Hashline::new(Options::new(dir.path())).unwrap();
    let b = Hashline::new(Options::new(dir.path())).unwrap();
    let plan = a.plan("f.txt", &append("b")).unwrap();
    assert_eq!(b.commit(&plan).unwrap_err().code, ErrorCode::InvalidRequest);
    assert_eq!(fs::read_to_string(dir.path().join("f.txt")).unwrap(), "a\n");
    a.commit(&plan).unwrap();
    assert_eq!(
        fs::read_to_string(dir.path().join("f.txt")).unwrap(),
        "a\nb\n"
    );
}

#[test]
fn an_edit_waits_for_the_lock_of_its_file_a_bounded_time() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("f.txt"), "a\n").unwrap();
    let mut options = Options::new(dir.path());
    options.lock_timeout = Duration::from_millis(20);
    let hl = Hashline::new(options).unwrap();
    let target = hl.target("f.txt", false).unwrap();
    let held = hl.path_lock(&target, &Cancel::new()).unwrap();
    let err = std::thread::scope(|s| s.spawn(|| hl.edit("f.txt", &append("b"))).join().unwrap())
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::Locked);
    assert!(err.message.contains("another edit of it in this process"));
    drop(held);
    hl.edit("f.txt", &append("b")).unwrap();
    assert_eq!(
        fs::read_to_string(dir.path().join("f.txt")).unwrap(),
        "a\nb\n"
    );
}

#[test]
fn a_failing_last_step_leaves_the_file_as_it_was() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("f.txt"), "a\n").unwrap();
    let hl = Hashline::new(Options::new(dir.path())).unwrap();
    let err = hl
        .edit_then(
            "f.txt",
            &append("b"),
            &crate::CallOptions {
                ..Default::default()
            },
            |_| Err::<(), _>(Error::new(ErrorCode::Internal, "cannot convert")),
        )
        .unwrap_err();
    assert_eq!(err.message, "cannot convert");
    assert_eq!(fs::read_to_string(dir.path().join("f.txt")).unwrap(), "a\n");
    let names: Vec<_> = fs::read_dir(dir.path()).unwrap().flatten().collect();
    assert_eq!(names.len(), 1);
}

#[test]
fn a_long_result_is_cut_at_a_line_end_with_a_note() {
    let mut text = format!(
        "{}\n{}\n",
        "a".repeat(MAX_RESULT_BYTES - 10),
        "b".repeat(20)
    );
    let total = text.len();
    bound(&mut text, "diff");
    assert_eq!(
        text,
        format!(
            "{}\n… (diff cut at {} of {total} bytes)\n",
            "a".repeat(MAX_RESULT_BYTES - 10),
            MAX_RESULT_BYTES - 9
        )
    );
    let mut short = "x\n".to_string();
    bound(&mut short, "diff");
    assert_eq!(short, "x\n");
}

/// Runs `call` with a token that is cancelled once the call had time to
/// start waiting; what it gave.
fn cancelled_meanwhile<T: Send>(call: impl FnOnce(&Cancel) -> Result<T> + Send) -> Result<T> {
    let cancel = Cancel::new();
    std::thread::scope(|s| {
        let running = s.spawn(|| call(&cancel));
        std::thread::sleep(Duration::from_millis(50));
        cancel.cancel();
        running.join().unwrap()
    })
}

/// A session whose lock waits outlast any test: only a cancellation ends
/// them.
fn patient(dir: &std::path::Path) -> Hashline {
    let mut options = Options::new(dir);
    options.lock_timeout = Duration::from_secs(3600);
    Hashline::new(options).unwrap()
}

fn names(dir: &std::path::Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[cfg(unix)]
#[test]
fn a_write_cancelled_while_it_waits_for_its_folder_lock_stops_with_cancelled_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("a.txt"), "a\n").unwrap();
    fs::write(dir.path().join("b.txt"), "b\n").unwrap();
    let hl = patient(dir.path());
    let folder =
        cap_std::fs::Dir::open_ambient_dir(dir.path(), cap_std::ambient_authority()).unwrap();
    let held =
        crate::lock::FolderLock::acquire(&folder, Duration::ZERO, &Cancel::new(), "a.txt").unwrap();
    let one = cancelled_meanwhile(|cancel| {
        let options = CallOptions {
            cancel: cancel.clone(),
            ..CallOptions::default()
        };
        hl.edit_with("a.txt", &append("more"), &options)
    });
    assert_eq!(one.unwrap_err().code, ErrorCode::Cancelled);
    let entry = |path: &str| {
        use crate::request::Value;
        let append = Value::Object(vec![
            ("op".into(), Value::String("append".into())),
            ("content".into(), Value::String("more".into())),
        ]);
        Value::Object(vec![
            ("path".into(), Value::String(path.into())),
            ("operations".into(), Value::Array(vec![append])),
        ])
    };
    let batch = hl
        .plan_batch(&crate::request::Value::Array(vec![
            entry("a.txt"),
            entry("b.txt"),
        ]))
        .unwrap();
    let two = cancelled_meanwhile(|cancel| hl.commit_with(&batch, cancel, |_| Ok(())));
    assert_eq!(two.unwrap_err().code, ErrorCode::Cancelled);
    assert_eq!(fs::read_to_string(dir.path().join("a.txt")).unwrap(), "a\n");
    assert_eq!(fs::read_to_string(dir.path().join("b.txt")).unwrap(), "b\n");
    assert_eq!(
        names(dir.path()),
        ["a.txt", "b.txt"],
        "no temporary or record left"
    );
    drop(held);
    hl.commit_with(&batch, &Cancel::new(), |_| Ok(())).unwrap();
    assert_eq!(
        fs::read_to_string(dir.path().join("b.txt")).unwrap(),
        "b\nmore\n"
    );
}

#[test]
fn an_edit_cancelled_while_it_waits_for_another_edit_of_its_file_stops_with_cancelled() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("f.txt"), "a\n").unwrap();
    let hl = patient(dir.path());
    let target = hl.target("f.txt", false).unwrap();
    let held = hl.path_lock(&target, &Cancel::new()).unwrap();
    let plan = hl.plan("f.txt", &append("b")).unwrap();
    let err = cancelled_meanwhile(|cancel| hl.commit_with(&plan, cancel, |_| Ok(()))).unwrap_err();
    assert_eq!(err.code, ErrorCode::Cancelled);
    assert_eq!(fs::read_to_string(dir.path().join("f.txt")).unwrap(), "a\n");
    drop(held);
    hl.commit(&plan).unwrap();
}
