//! Calls whose work could grow faster than their input are bounded, and a
//! result that a bound made coarser says so. Each scenario runs on a thread
//! of its own and is given a minute, so that a call that stalls fails the
//! test instead of hanging the suite.

use crate::{apply_to_string, Hashline, Options, Request, SyntaxCheck, Value};
use std::fs;
use std::sync::mpsc;
use std::time::Duration;

fn within_a_minute<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    let (send, receive) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = send.send(f());
    });
    receive
        .recv_timeout(Duration::from_secs(60))
        .expect("the call did not return within a minute")
}

fn insert_after(reference: &str, content: &str) -> Request {
    Request::from_value(&Value::Object(vec![(
        "operations".into(),
        Value::Array(vec![Value::Object(vec![
            ("op".into(), Value::String("insert_after".into())),
            ("ref".into(), Value::String(reference.into())),
            ("content".into(), Value::String(content.into())),
        ])]),
    )]))
    .unwrap()
}

/// 100,000 nested elements: tree-sitter's HTML scanner reads its whole
/// stack of open elements back at every token, so the parse alone would
/// take minutes.
fn nested_html() -> String {
    "<div>\n".repeat(100_000) + &"</div>\n".repeat(100_000)
}

#[test]
fn a_parse_past_its_bound_is_given_up_and_the_result_says_the_check_was_skipped() {
    let edited = within_a_minute(|| {
        let text = nested_html();
        let doc = crate::Document::from_text(&text);
        let request = insert_after(&crate::Ref::of_line(&doc, 1).to_string(), "<p>x</p>");
        apply_to_string(text, "a.html", &request, true, SyntaxCheck::Reject).unwrap()
    });
    assert!(
        edited
            .summary()
            .output
            .contains("Note: the HTML syntax check was skipped: parsing the file took more than"),
        "{}",
        edited.summary().output
    );
    assert!(edited.text().starts_with("<div>\n<div>\n<p>x</p>\n<div>\n"));
}

#[test]
fn edits_in_a_session_of_a_file_too_slow_to_parse_say_the_check_was_skipped() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("a.html"), nested_html()).unwrap();
    let root = dir.path().to_owned();
    let outputs = within_a_minute(move || {
        let hl = Hashline::new(Options::new(root)).unwrap();
        let view = hl
            .read_with(
                "a.html",
                &crate::ReadOptions {
                    offset: Some(1),
                    limit: Some(3),
                    ..Default::default()
                },
            )
            .unwrap();
        let second = view
            .view
            .text
            .lines()
            .nth(2)
            .unwrap()
            .split(' ')
            .next()
            .unwrap();
        let request = insert_after(second, "<p>x</p>");
        let first = hl.plan("a.html", &request).unwrap().result().output.clone();
        let again = hl.plan("a.html", &request).unwrap().result().output.clone();
        (first, again)
    });
    for output in [&outputs.0, &outputs.1] {
        assert!(
            output.contains("the HTML syntax check was skipped: parsing the file took more than"),
            "{output}"
        );
    }
}

#[test]
fn a_file_over_the_parsed_size_is_edited_with_a_note_that_it_was_not_parsed() {
    let text: String = (0..200_000)
        .map(|i| format!("fn f{i}() -> u32 {{ {i} }} // padding to make it long\n"))
        .collect();
    assert!(text.len() > 8 << 20);
    let doc = crate::Document::from_text(&text);
    let request = insert_after(&crate::Ref::of_line(&doc, 0).to_string(), "fn g() {}");
    let edited = apply_to_string(text, "a.rs", &request, true, SyntaxCheck::Warn).unwrap();
    assert!(
        edited.summary().output.contains(
            "Note: the Rust syntax check was skipped: the file is over 8 MiB, the most the engine parses."
        ),
        "{}",
        edited.summary().output
    );
}

#[test]
fn a_rewrite_of_one_line_of_a_long_file_is_taken_in_and_older_refs_still_remap() {
    let dir = tempfile::tempdir().unwrap();
    let lines = 50_000;
    let text: String = (0..lines).map(|i| format!("line {i}\n")).collect();
    fs::write(dir.path().join("a.txt"), &text).unwrap();
    let root = dir.path().to_owned();
    let (output, edited) = within_a_minute(move || {
        let hl = Hashline::new(Options::new(&root)).unwrap();
        let view = hl
            .read_with(
                "a.txt",
                &crate::ReadOptions {
                    offset: Some(40_000),
                    limit: Some(2),
                    ..Default::default()
                },
            )
            .unwrap();
        let cited = view
            .view
            .text
            .lines()
            .nth(1)
            .unwrap()
            .split(' ')
            .next()
            .unwrap()
            .to_owned();
        let written = hl.edit("a.txt", &insert_after(&cited, "added")).unwrap();
        // A formatter rewrites one line near the top.
        let path = root.join("a.txt");
        let now = fs::read_to_string(&path).unwrap();
        fs::write(&path, now.replacen("line 7\n", "line seven\n", 1)).unwrap();
        let taken = hl.reformatted("a.txt", &written.rev).unwrap().unwrap();
        // The ref read before both changes names the same line still.
        let again = hl.edit("a.txt", &insert_after(&cited, "again")).unwrap();
        (taken.output, again.output)
    });
    assert!(output.contains("line seven"), "{output}");
    assert!(edited.contains("again"), "{edited}");
    let text = fs::read_to_string(dir.path().join("a.txt")).unwrap();
    assert!(text.contains("line 39999\nagain\nadded\nline 40000\n"));
}

#[test]
fn many_separate_lines_shown_and_many_changes_are_recorded_in_one_pass() {
    let dir = tempfile::tempdir().unwrap();
    let lines = 100_000;
    let text: String = (0..lines)
        .map(|i| {
            if i % 2 == 0 {
                format!("hit {i}\n")
            } else {
                format!("line {i}\n")
            }
        })
        .collect();
    fs::write(dir.path().join("a.txt"), &text).unwrap();
    let root = dir.path().to_owned();
    let written = within_a_minute(move || {
        let hl = Hashline::new(Options::new(&root)).unwrap();
        let mut options = crate::SearchOptions::new("hit");
        options.max_results = lines;
        let found = hl.search(&options).unwrap();
        assert_eq!(found.hits.len(), lines / 2);
        // Every hit replaced: as many changes as separate lines seen.
        let operations = found
            .hits
            .iter()
            .map(|h| {
                Value::Object(vec![
                    ("op".into(), Value::String("replace".into())),
                    ("ref".into(), Value::String(h.line.reference.clone())),
                    (
                        "content".into(),
                        Value::String(format!("done {}", h.line.line)),
                    ),
                ])
            })
            .collect();
        let request = Request::from_value(&Value::Object(vec![(
            "operations".into(),
            Value::Array(operations),
        )]))
        .unwrap();
        hl.edit("a.txt", &request).unwrap();
        fs::read_to_string(root.join("a.txt")).unwrap()
    });
    assert!(written.starts_with("done 1\nline 1\ndone 3\n"));
}

#[test]
fn a_patch_of_many_hunks_is_placed_without_a_pass_over_the_file_per_hunk() {
    let dir = tempfile::tempdir().unwrap();
    let hunks = 30_000;
    let text: String = (0..3 * hunks).map(|i| format!("line {i}\n")).collect();
    fs::write(dir.path().join("a.txt"), &text).unwrap();
    let root = dir.path().to_owned();
    let written = within_a_minute(move || {
        let hl = Hashline::new(Options::new(&root)).unwrap();
        let mut patch = String::from("*** Begin Patch\n*** Update File: a.txt\n");
        for k in 0..hunks {
            patch.push_str(&format!(
                "@@\n line {}\n-line {}\n+done {k}\n",
                3 * k,
                3 * k + 1
            ));
        }
        patch.push_str("*** End Patch\n");
        let plan = hl.plan_patch(&patch).unwrap();
        hl.commit_patch(&plan).unwrap();
        // Every hunk missing: the rejection tells the first few in full.
        let missing = patch.replace("-line ", "-gone ");
        let err = hl.plan_patch(&missing).unwrap_err();
        (
            fs::read_to_string(root.join("a.txt")).unwrap(),
            err.message.clone(),
        )
    });
    assert!(written
        .0
        .starts_with("line 0\ndone 0\nline 2\nline 3\ndone 1\n"));
    assert!(
        written.1.contains(&format!(
            "… and {} more hunks after these do not fit either.",
            hunks - 10
        )),
        "{}",
        &written.1[written.1.len().saturating_sub(300)..]
    );
}
