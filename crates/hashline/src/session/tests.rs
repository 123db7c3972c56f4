//! The session's own tests: stored versions, plan ownership, locks, last
//! steps and bounded results.

use super::edit::bound;
use super::*;
use crate::request::{OpKind, Operation};
use std::fs;

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
    let held = hl.path_lock(&target).unwrap();
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
