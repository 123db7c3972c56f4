//! What an edit's result and a refusal say, as data, of how the edit came
//! to be: refs of an older version recovered, copies the clean-up removed,
//! what an `AMBIGUOUS_ECHO` doubted. Hosts count these (the telemetry
//! record) without reading a message.

use super::replace;
use crate::{Doubted, ErrorCode, Hashline, Options, ViewStyle};
use std::fs;

fn session(text: &str) -> (tempfile::TempDir, Hashline) {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("f.txt"), text).unwrap();
    let mut options = Options::new(dir.path());
    options.view = ViewStyle::Full;
    let hl = Hashline::new(options).unwrap();
    (dir, hl)
}

/// The full prefix (`3#ABC#DEF|`) of line `n` of the last read.
fn prefix(view: &str, n: usize) -> String {
    let line = view
        .lines()
        .find(|l| l.starts_with(&format!("{n}#")))
        .unwrap();
    line[..=line.find('|').unwrap()].to_owned()
}

#[test]
fn an_edit_says_when_its_refs_were_recovered_from_an_older_version() {
    let (_dir, hl) = session("one\ntwo\nthree\nfour\n");
    let view = hl.read("f.txt").unwrap().view.text;
    let r1 = prefix(&view, 1).trim_end_matches('|').to_owned();
    let r4 = prefix(&view, 4).trim_end_matches('|').to_owned();
    let first = hl
        .edit("f.txt", &replace(&r1, "ONE\none and a half"))
        .unwrap();
    assert!(!first.outcome.remapped);
    let second = hl.edit("f.txt", &replace(&r4, "FOUR")).unwrap();
    assert!(second.outcome.remapped, "{}", second.output);
    assert_eq!(second.outcome.prefixes_removed, 0);
    assert_eq!(second.outcome.echoes_dropped, 0);
}

#[test]
fn an_edit_counts_the_copies_the_clean_up_proved_and_removed() {
    let (dir, hl) = session("alpha beta\ngamma delta\nepsilon zeta\n");
    let view = hl.read("f.txt").unwrap().view.text;
    // The prefix of the line it replaces, copied with the new text.
    let p2 = prefix(&view, 2);
    let copied = hl
        .edit(
            "f.txt",
            &replace(
                p2.trim_end_matches('|'),
                &format!("{p2}gamma delta changed"),
            ),
        )
        .unwrap();
    assert_eq!(copied.outcome.prefixes_removed, 1, "{}", copied.output);
    assert_eq!(copied.outcome.echoes_dropped, 0);
    assert_eq!(
        fs::read_to_string(dir.path().join("f.txt")).unwrap(),
        "alpha beta\ngamma delta changed\nepsilon zeta\n"
    );

    // The line before, copied with its own ref: a boundary echo, proven.
    let view = hl.read("f.txt").unwrap().view.text;
    let (p2, p3) = (prefix(&view, 2), prefix(&view, 3));
    let echoed = hl
        .edit(
            "f.txt",
            &replace(
                p3.trim_end_matches('|'),
                &format!("{p2}gamma delta changed\nepsilon zeta changed"),
            ),
        )
        .unwrap();
    assert_eq!(echoed.outcome.echoes_dropped, 1, "{}", echoed.output);
    assert_eq!(
        fs::read_to_string(dir.path().join("f.txt")).unwrap(),
        "alpha beta\ngamma delta changed\nepsilon zeta changed\n"
    );
}

#[test]
fn an_ambiguous_echo_says_whether_it_doubted_a_boundary_or_copied_output() {
    let (dir, hl) = session("alpha beta\ngamma delta\nepsilon zeta\n");
    let view = hl.read("f.txt").unwrap().view.text;
    let p3 = prefix(&view, 3);
    // A repeat of the line before, without its ref: nothing proves it a copy.
    let err = match hl.edit(
        "f.txt",
        &replace(p3.trim_end_matches('|'), "gamma delta\nnew"),
    ) {
        Ok(done) => panic!("{}", done.output),
        Err(err) => err,
    };
    assert_eq!(err.code, ErrorCode::AmbiguousEcho, "{}", err.message);
    assert_eq!(err.doubted, Some(Doubted::Boundary));
    // A lean ref of a shown line before unrelated text: output in doubt.
    let lean = Hashline::new(Options::new(dir.path())).unwrap();
    let view = lean.read("f.txt").unwrap().view.text;
    let tag = |n: usize| {
        view.lines()
            .find(|l| l.starts_with(&n.to_string()))
            .unwrap()[..3]
            .to_owned()
    };
    let err = lean
        .edit(
            "f.txt",
            &replace(&tag(3), &format!("{} something else entirely", tag(1))),
        )
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::AmbiguousEcho, "{}", err.message);
    assert_eq!(err.doubted, Some(Doubted::Output));
    // Other refusals doubt nothing.
    let err = hl.edit("f.txt", &replace("9#AAA#BBB", "x")).unwrap_err();
    assert_eq!(err.doubted, None);
}
