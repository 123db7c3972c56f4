//! Move and copy: random files (duplicate lines, LF, CRLF, lone CR, mixed
//! endings, BOM, with or without a final newline) and random batches of
//! moves and copies mixed with other operations, every ref valid, checked
//! against the reference model; and the hostile cases one by one, each
//! refused with nothing written or exact to the byte.

use crate::internals::model::{self, Case, Op};
use crate::{
    apply_to_text, Document, ErrorCode, Hashline, OpKind, Operation, Options, Ref, Request, Side,
    Value,
};
use proptest::prelude::*;
use proptest::test_runner::Config;

const LINES: &[&str] = &["", "}", "{", "x", "  return x;", "fn a() {", "é 日本"];
const ENDINGS: &[&str] = &["\n", "\r\n", "\r"];

fn file() -> impl Strategy<Value = Vec<u8>> {
    (
        prop::collection::vec((prop::sample::select(LINES), 0..3usize), 1..24),
        0..4usize,
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(|(lines, style, bom, final_newline)| {
            let mut out = if bom {
                b"\xEF\xBB\xBF".to_vec()
            } else {
                Vec::new()
            };
            let last = lines.len() - 1;
            for (i, (line, mixed)) in lines.iter().enumerate() {
                out.extend_from_slice(line.as_bytes());
                if i < last || final_newline || line.is_empty() {
                    let ending = if style < 3 { style } else { *mixed };
                    out.extend_from_slice(ENDINGS[ending].as_bytes());
                }
            }
            out
        })
}

/// One operation as drawn: kind, first line, extra lines, place line,
/// side, content.
type Drawn = (usize, usize, usize, usize, bool, usize);

const KINDS: [OpKind; 8] = [
    OpKind::Move,
    OpKind::Copy,
    OpKind::Move,
    OpKind::Copy,
    OpKind::Replace,
    OpKind::Delete,
    OpKind::InsertAfter,
    OpKind::Append,
];

/// A case of the reference model whose refs all hold: full refs of the
/// lines drawn.
fn case(bytes: Vec<u8>, drawn: &[Drawn]) -> Case {
    let doc = Document::from_bytes(&bytes).unwrap();
    let lines: Vec<String> = doc.lines().map(str::to_owned).collect();
    let n = lines.len();
    let r = |i: usize| Ref::of_line(&doc, i.min(n - 1)).to_string();
    let s = |t: &str| Value::String(t.to_owned());
    let mut ops = Vec::new();
    let mut values = Vec::new();
    for &(kind, first, extra, at, after, content) in drawn {
        let kind = KINDS[kind % KINDS.len()];
        let first = first % n;
        let last = (first + extra).min(n - 1);
        let side = if after { Side::After } else { Side::Before };
        let content: Vec<String> = match kind {
            OpKind::Delete | OpKind::Move | OpKind::Copy => Vec::new(),
            _ => vec![LINES[content % LINES.len()].to_owned()],
        };
        let ranged = matches!(
            kind,
            OpKind::Replace | OpKind::Delete | OpKind::Move | OpKind::Copy
        );
        let op = Op {
            kind,
            reference: kind.shape().reference.then(|| r(first)),
            through: (ranged && last > first).then(|| r(last)),
            content: content.clone(),
            place: kind.shape().place.then(|| (side, r(at % n))),
        };
        let mut fields = vec![("op".to_owned(), s(kind.name()))];
        for (name, value) in [("ref", &op.reference), ("through", &op.through)] {
            if let Some(v) = value {
                fields.push((name.to_owned(), s(v)));
            }
        }
        if let Some((side, place)) = &op.place {
            fields.push((side.name().to_owned(), s(place)));
        }
        if !matches!(kind, OpKind::Delete | OpKind::Move | OpKind::Copy) {
            let lines = content.iter().map(|l| s(l)).collect();
            fields.push(("content".to_owned(), Value::Array(lines)));
        }
        values.push(Value::Object(fields));
        ops.push(op);
    }
    Case {
        probe: drawn.first().map_or(0, |d| d.3 % n),
        bytes,
        lines: Ok(lines),
        request: Value::Object(vec![("operations".to_owned(), Value::Array(values))]),
        ops,
        rev: None,
        malformed: false,
    }
}

fn config(cases: u32) -> Config {
    Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    }
}

fn drawn() -> impl Strategy<Value = Vec<Drawn>> {
    prop::collection::vec(
        (
            0..8usize,
            0..64usize,
            0..4usize,
            0..64usize,
            any::<bool>(),
            0..8usize,
        ),
        1..4,
    )
}

proptest! {
    #![proptest_config(config(800))]

    #[test]
    fn moves_and_copies_mixed_with_other_operations_write_what_the_model_gives(
        bytes in file(),
        drawn in drawn(),
    ) {
        model::check_pure(&case(bytes, &drawn));
    }
}

proptest! {
    #![proptest_config(config(120))]

    #[test]
    fn moves_and_copies_through_a_session_match_the_model_and_a_refusal_keeps_the_bytes(
        bytes in file(),
        drawn in drawn(),
    ) {
        let dir = tempfile::tempdir().unwrap();
        model::check_session(&case(bytes, &drawn), dir.path());
    }
}

fn request(operations: Vec<Operation>) -> Request {
    Request::Operations {
        operations,
        rev: None,
    }
}

fn relocate(
    doc: &Document,
    kind: OpKind,
    first: usize,
    last: usize,
    side: Side,
    at: usize,
) -> Operation {
    let r = |line: usize| Ref::of_line(doc, line - 1).to_string();
    let through = (last != first).then(|| r(last));
    Operation::relocate(kind, &r(first), through.as_deref(), side, &r(at))
}

/// The text after one move or copy, lines numbered from 1.
fn after(text: &str, kind: OpKind, first: usize, last: usize, side: Side, at: usize) -> String {
    let doc = Document::from_text(text);
    let op = relocate(&doc, kind, first, last, side, at);
    apply_to_text(text, &request(vec![op]), true).unwrap().0
}

#[test]
fn a_move_keeps_the_lines_bytes_and_the_files_endings_and_final_newline() {
    use OpKind::{Copy, Move};
    use Side::{After, Before};
    assert_eq!(
        after("a\r\nb\r\nc\r\n", Move, 1, 1, After, 3),
        "b\r\nc\r\na\r\n"
    );
    // A last line without a newline moved away gets one; the line that is
    // last now ends the file as the file ended, with none.
    assert_eq!(after("a\nb\nc", Move, 3, 3, Before, 1), "c\na\nb");
    assert_eq!(after("a\nb\nc", Move, 1, 1, After, 3), "b\nc\na");
    assert_eq!(after("a\r\nb\r\nc", Move, 1, 2, After, 3), "c\r\na\r\nb");
    assert_eq!(after("a\nb\nc", Copy, 3, 3, Before, 1), "c\na\nb\nc");
    assert_eq!(after("a\nb\nc", Copy, 1, 3, After, 3), "a\nb\nc\na\nb\nc");
    // Trailing white space, tabs and a BOM are the file's, kept as they are.
    assert_eq!(
        after("\u{FEFF}x \t\n  y  \nz\n", Move, 1, 2, After, 3),
        "\u{FEFF}z\nx \t\n  y  \n"
    );
    // An empty line moved next to a lone CR stays a line of its own.
    let out = after("a\r\r\nb\r", Move, 2, 2, After, 3);
    assert!(out.starts_with("a\rb\r"), "{out:?}");
    let doc = Document::from_text(&out);
    assert_eq!(doc.lines().collect::<Vec<_>>(), ["a", "b", ""]);
}

fn code(text: &str, operations: Vec<Operation>) -> ErrorCode {
    apply_to_text(text, &request(operations), true)
        .map(|(out, _)| panic!("applied, giving {out:?}"))
        .unwrap_err()
        .code
}

#[test]
fn overlaps_and_a_place_inside_the_moved_lines_are_conflicts() {
    use OpKind::{Copy, Delete, Move, Replace};
    use Side::{After, Before};
    let text = "1\n2\n3\n4\n5\n6\n7\n8\n";
    let doc = Document::from_text(text);
    let r = |line: usize| Ref::of_line(&doc, line - 1).to_string();
    let mv = |first, last, side, at| relocate(&doc, Move, first, last, side, at);
    let cp = |first, last, side, at| relocate(&doc, Copy, first, last, side, at);
    let replace = |line: usize| Operation::new(Replace, Some(&r(line)), None, "x");
    let delete = |line: usize| Operation::new(Delete, Some(&r(line)), None, "");
    let insert_after = |line: usize| Operation::new(OpKind::InsertAfter, Some(&r(line)), None, "x");
    let cases: Vec<Vec<Operation>> = vec![
        vec![mv(2, 4, After, 3)],
        vec![mv(2, 4, Before, 3)],
        vec![mv(2, 4, Before, 4)],
        vec![mv(2, 4, After, 7), replace(3)],
        vec![mv(2, 4, After, 7), delete(4)],
        vec![mv(2, 4, After, 7), mv(4, 5, After, 8)],
        vec![mv(2, 4, After, 7), cp(4, 5, After, 8)],
        vec![cp(2, 4, After, 7), replace(2)],
        vec![mv(2, 3, After, 7), replace(7)],
        vec![mv(2, 3, Before, 6), delete(6)],
        vec![mv(2, 3, After, 7), insert_after(7)],
        vec![mv(2, 3, After, 7), cp(5, 5, Before, 8)],
        vec![mv(2, 3, After, 7), insert_after(3)],
    ];
    for operations in cases {
        let shown = format!("{operations:?}");
        assert_eq!(code(text, operations), ErrorCode::Conflict, "{shown}");
    }
    // Copies may read the same lines, and a copy may go into its own lines.
    let (out, _) = apply_to_text(
        text,
        &request(vec![cp(2, 3, After, 8), cp(3, 4, After, 2)]),
        true,
    )
    .unwrap();
    assert_eq!(out, "1\n2\n3\n4\n3\n4\n5\n6\n7\n8\n2\n3\n");
}

#[test]
fn a_move_next_to_its_own_lines_changes_nothing_and_says_so() {
    let text = "a\nb\nc\nd\n";
    let doc = Document::from_text(text);
    for (side, at) in [
        (Side::Before, 2),
        (Side::After, 1),
        (Side::After, 3),
        (Side::Before, 4),
    ] {
        let op = relocate(&doc, OpKind::Move, 2, 3, side, at);
        let err = apply_to_text(text, &request(vec![op]), true).unwrap_err();
        assert_eq!(err.code, ErrorCode::NoChange);
        assert!(err.message.contains("nothing to move"), "{}", err.message);
    }
    // With another change, the batch applies and notes the idle move.
    let ops = vec![
        relocate(&doc, OpKind::Move, 2, 3, Side::After, 3),
        Operation::new(
            OpKind::Replace,
            Some(&Ref::of_line(&doc, 0).to_string()),
            None,
            "A",
        ),
    ];
    let (out, edited) = apply_to_text(text, &request(ops), true).unwrap();
    assert_eq!(out, "A\nb\nc\nd\n");
    assert!(edited.summary.output.contains("nothing to move"));
}

#[test]
fn the_result_shows_the_lines_at_their_new_place_and_elides_a_long_run() {
    let text: String = (1..=50).map(|i| format!("line {i}\n")).collect();
    let doc = Document::from_text(&text);
    let op = relocate(&doc, OpKind::Move, 12, 40, Side::After, 45);
    let (out, edited) = apply_to_text(&text, &request(vec![op]), true).unwrap();
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[11], "line 41");
    assert_eq!(lines[16], "line 12");
    assert_eq!(lines[44], "line 40");
    let shown = &edited.summary.output;
    assert!(shown.contains("… (29 lines moved to 17–45)"), "{shown}");
    assert!(shown.contains("… (29 lines moved from 12–40)"), "{shown}");
    assert!(!shown.contains("line 20\n"), "{shown}");
    for kept in ["line 12", "line 13", "line 39", "line 40"] {
        assert!(
            shown.contains(&format!("{kept}\n")),
            "{kept} not in {shown}"
        );
    }
    assert!(
        !shown.contains("\n-"),
        "a move shows no removed lines: {shown}"
    );
    // A short copy shows every copied line and no note.
    let op = relocate(&doc, OpKind::Copy, 3, 4, Side::Before, 1);
    let (_, edited) = apply_to_text(&text, &request(vec![op]), true).unwrap();
    let shown = &edited.summary.output;
    assert!(
        shown.contains("line 3\n") && shown.contains("line 4\n"),
        "{shown}"
    );
    assert!(!shown.contains('…'), "{shown}");
    assert_eq!(edited.summary.additions, 2);
}

#[test]
fn stale_refs_of_a_move_are_carried_from_the_version_read() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("f.txt"), "a\nb\nc\nd\ne\n").unwrap();
    let session = Hashline::new(Options::new(dir.path())).unwrap();
    session.read("f.txt").unwrap();
    let read = Document::from_text("a\nb\nc\nd\ne\n");
    // Another edit puts a line on top; the move still cites the old refs.
    let top = request(vec![Operation::new(OpKind::Prepend, None, None, "top")]);
    session.edit("f.txt", &top).unwrap();
    let op = relocate(&read, OpKind::Move, 2, 3, Side::After, 5);
    session.edit("f.txt", &request(vec![op])).unwrap();
    let written = std::fs::read_to_string(dir.path().join("f.txt")).unwrap();
    assert_eq!(written, "top\na\nd\ne\nb\nc\n");
    // A range changed inside since the read is refused, nothing written.
    let read = Document::from_text(&written);
    let r = |line: usize| Ref::of_line(&read, line - 1).to_string();
    let change = request(vec![Operation::new(
        OpKind::Replace,
        Some(&r(6)),
        None,
        "C",
    )]);
    session.edit("f.txt", &change).unwrap();
    let before = std::fs::read(dir.path().join("f.txt")).unwrap();
    let op = relocate(&read, OpKind::Move, 5, 6, Side::Before, 1);
    let err = session.edit("f.txt", &request(vec![op])).unwrap_err();
    assert_eq!(err.code, ErrorCode::HashMismatch);
    assert_eq!(std::fs::read(dir.path().join("f.txt")).unwrap(), before);
}

#[test]
fn lean_refs_move_lines_a_session_showed() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("f.txt"), "a\nb\nc\n").unwrap();
    let session = Hashline::new(Options::new(dir.path())).unwrap();
    session.read("f.txt").unwrap();
    let doc = Document::from_text("a\nb\nc\n");
    let lean = |line: usize| Ref::pair_of_line(&doc, line - 1).to_string();
    let op = Operation::relocate(OpKind::Move, &lean(1), None, Side::After, &lean(3));
    session.edit("f.txt", &request(vec![op])).unwrap();
    assert_eq!(
        std::fs::read_to_string(dir.path().join("f.txt")).unwrap(),
        "b\nc\na\n"
    );
}
