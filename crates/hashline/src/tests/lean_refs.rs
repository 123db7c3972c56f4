//! Lean refs (`12ab`) carry 8.4 bits per line instead of 24: they must never
//! move an edit onto a line other than the one whose tag was cited. A line
//! number typed one off never validates (neighbouring tags differ by
//! parity), a stale ref is remapped only where that is provable, and a
//! ref on a line no view showed is rejected.

use crate::{
    apply_to_text, pair_tag, ErrorCode, Hashline, OpKind, Operation, Options, Ref, Request,
    ViewStyle,
};
use proptest::prelude::*;
use std::fs;
use std::path::PathBuf;

fn session(text: &str) -> (tempfile::TempDir, PathBuf, Hashline) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("f.txt");
    fs::write(&file, text).unwrap();
    let mut options = Options::new(dir.path());
    options.view = ViewStyle::Lean;
    let engine = Hashline::new(options).unwrap();
    (dir, file, engine)
}

fn ops(operations: Vec<Operation>, rev: Option<&str>) -> Request {
    Request::Operations {
        operations,
        rev: rev.map(str::to_owned),
    }
}

fn tag(line: usize, text: &str) -> String {
    String::from_utf8(pair_tag(line, text).to_vec()).unwrap()
}

/// A text whose pair tag at `line` is `wanted`.
fn colliding(line: usize, wanted: &str, avoid: &str) -> String {
    (0..)
        .map(|k| format!("other {k}"))
        .find(|t| t != avoid && tag(line, t) == wanted)
        .unwrap()
}

#[test]
fn a_stale_lean_ref_whose_line_was_deleted_is_rejected_even_when_the_line_now_there_has_its_tag() {
    // Line 11 is chosen so that, once line 10 is deleted and it moves up to
    // line 10, it has line 10's old tag.
    let old_tag = tag(10, "line 10");
    let mover = colliding(10, &old_tag, "line 10");
    let mut lines: Vec<String> = (1..=20).map(|k| format!("line {k}")).collect();
    lines[10] = mover.clone();
    let text = lines.join("\n") + "\n";
    let (_dir, file, engine) = session(&text);
    engine.read("f.txt").unwrap();
    let cited = format!("10{old_tag}");
    engine
        .edit(
            "f.txt",
            &ops(
                vec![Operation::new(OpKind::Delete, Some(&cited), None, "")],
                None,
            ),
        )
        .unwrap();
    let before = fs::read_to_string(&file).unwrap();
    assert_eq!(before.lines().nth(9), Some(mover.as_str()));
    // The same stale ref again: it means the deleted line, not the one that
    // moved into its place.
    let err = engine
        .edit(
            "f.txt",
            &ops(
                vec![Operation::new(OpKind::Replace, Some(&cited), None, "X")],
                None,
            ),
        )
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::HashMismatch, "{}", err.message);
    assert_eq!(fs::read_to_string(&file).unwrap(), before);
}

#[test]
fn lean_refs_on_text_no_view_showed_are_rejected_with_full_refs() {
    let text = "a\nb\nc\n";
    let doc = crate::Document::from_text(text);
    let cited = Ref::pair_of_line(&doc, 1).to_string();
    let request = ops(
        vec![Operation::new(OpKind::Replace, Some(&cited), None, "B")],
        None,
    );
    let err = apply_to_text(text, &request, true).unwrap_err();
    assert_eq!(err.code, ErrorCode::HashMismatch);
    assert!(err.message.contains("lean refs"), "{}", err.message);
    assert!(
        err.message
            .contains(&format!(">>> {}|b", Ref::of_line(&doc, 1))),
        "{}",
        err.message
    );
    // A REV proves a version was seen, not which of its lines: the same
    // refusal. The full ref it shows is accepted.
    let request = ops(
        vec![Operation::new(OpKind::Replace, Some(&cited), None, "B")],
        Some(doc.rev()),
    );
    let err = apply_to_text(text, &request, true).unwrap_err();
    assert_eq!(err.code, ErrorCode::HashMismatch);
    let full = Ref::of_line(&doc, 1).to_string();
    let request = ops(
        vec![Operation::new(OpKind::Replace, Some(&full), None, "B")],
        Some(doc.rev()),
    );
    assert_eq!(apply_to_text(text, &request, true).unwrap().0, "a\nB\nc\n");
}

#[test]
fn a_session_accepts_lean_and_full_refs_in_one_batch_and_answers_in_lean() {
    let (_dir, file, engine) = session("a\nb\nc\nd\n");
    let view = engine.read("f.txt").unwrap().view;
    assert!(view.text.contains(&format!("\n2{} b\n", tag(2, "b"))));
    let doc = crate::Document::from_text("a\nb\nc\nd\n");
    let full = Ref::of_line(&doc, 3).to_string();
    let result = engine
        .edit(
            "f.txt",
            &ops(
                vec![
                    Operation::new(
                        OpKind::Replace,
                        Some(&format!("2{}", tag(2, "b"))),
                        None,
                        "B",
                    ),
                    Operation::new(OpKind::Replace, Some(&full), None, "D"),
                ],
                None,
            ),
        )
        .unwrap();
    assert_eq!(fs::read_to_string(&file).unwrap(), "a\nB\nc\nD\n");
    assert!(
        result.output.contains(&format!("+2{} B\n", tag(2, "B"))),
        "{}",
        result.output
    );
    assert!(result.output.contains("\n-b\n"), "{}", result.output);
}

#[test]
fn a_line_number_typed_one_off_in_a_run_of_identical_lines_is_rejected() {
    let text = "fn f() {\n    if x {\n        y();\n    }\n}\n}\n}\n";
    let doc = crate::Document::from_text(text);
    let rev = doc.rev().to_owned();
    for i in 0..doc.line_count() {
        let own = tag(i + 1, doc.line(i));
        for wrong in [i, i + 2] {
            if wrong == 0 {
                continue;
            }
            let request = ops(
                vec![Operation::new(
                    OpKind::Replace,
                    Some(&format!("{wrong}{own}")),
                    None,
                    "Z",
                )],
                Some(&rev),
            );
            let err = apply_to_text(text, &request, true).unwrap_err();
            assert!(
                matches!(err.code, ErrorCode::HashMismatch | ErrorCode::OutOfRange),
                "{wrong}{own}"
            );
            assert!(
                err.message.contains(&format!("({}{own})", i + 1))
                    || err.message.contains("past the end"),
                "{}",
                err.message
            );
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// For random files and a lean ref cited with its line number one off,
    /// in a session that read the file (so a view showed the lines the refs
    /// cite), the edit lands on the cited line or is rejected.
    #[test]
    fn an_off_by_one_lean_ref_never_edits_another_line(
        lines in prop::collection::vec(prop::sample::select(vec!["}", "", "x", "  y();", "{", "z"]), 2..24),
        pick in any::<prop::sample::Index>(),
        up in any::<bool>(),
    ) {
        let text = lines.join("\n") + "\n";
        let (_dir, file, engine) = session(&text);
        engine.read("f.txt").unwrap();
        let index = pick.index(lines.len());
        let own = tag(index + 1, lines[index]);
        let typed = if up { index } else { index + 2 };
        prop_assume!(typed >= 1);
        let request = ops(
            vec![Operation::new(OpKind::Replace, Some(&format!("{typed}{own}")), None, "EDITED")],
            None,
        );
        match engine.edit("f.txt", &request) {
            Err(_) => prop_assert_eq!(fs::read_to_string(&file).unwrap(), text),
            Ok(_) => {
                let now = fs::read_to_string(&file).unwrap();
                let mut expected: Vec<&str> = lines.clone();
                expected[index] = "EDITED";
                prop_assert_eq!(now, expected.join("\n") + "\n");
            }
        }
    }
}
