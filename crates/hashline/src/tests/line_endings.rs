//! Line endings as a bijection: files made of `a`, `b`, `\r`, `\n` and
//! `\r\n` in any order (lone CRs before empty lines, CR at the end, mixed
//! endings, with or without a BOM), edited by random valid batches. The
//! written bytes must read back as exactly the lines a plain model of the
//! batch gives, every untouched line must keep its bytes, and the recorded
//! line map must send every untouched line to its new place and no other
//! (`model::check_written`, shared with the fuzz target, says exactly how).

// Shared with the fuzz targets, which use the rest of it.
#[allow(dead_code)]
use crate::internals::model;

use crate::edit::{prepare, EditInput};
use crate::{Document, ErrorCode, Hashline, OpKind, Operation, Options, Ref, Request};
use model::{check_written, parse, Outcome};
use proptest::prelude::*;
use proptest::test_runner::Config;

const BOM: &[u8] = b"\xEF\xBB\xBF";

fn file() -> impl Strategy<Value = Vec<u8>> {
    let token = prop::sample::select(vec!["a", "b", "\r", "\n", "\r\n"]);
    (any::<bool>(), prop::collection::vec(token, 0..24)).prop_map(|(bom, tokens)| {
        let mut bytes = if bom { BOM.to_vec() } else { Vec::new() };
        bytes.extend(tokens.concat().into_bytes());
        bytes
    })
}

/// One operation on old lines `first..=last` (0-based); an insert is at
/// position `first` (before old line `first`).
#[derive(Debug, Clone)]
struct Op {
    kind: OpKind,
    first: usize,
    last: usize,
    content: Vec<String>,
}

fn content() -> impl Strategy<Value = Vec<String>> {
    prop::collection::vec(
        prop::sample::select(vec!["a", "b", ""]).prop_map(str::to_owned),
        0..3,
    )
}

/// A valid batch on `n` lines: disjoint ranges replaced or deleted, and at
/// most one insert per position, anchored on a line no range touches, in
/// any order.
fn batch(n: usize) -> impl Strategy<Value = Vec<Op>> {
    let slot = (0u8..8, 0usize..3, 0u8..6, content(), content());
    prop::collection::vec(slot, n + 1).prop_flat_map(move |slots| {
        let mut ops = Vec::new();
        let mut covered = vec![false; n];
        let mut i = 0;
        while i < n {
            let (range_kind, extra, _, ref lines, _) = slots[i];
            let kind = match range_kind {
                0 | 1 => OpKind::Replace,
                2 => OpKind::Delete,
                _ => {
                    i += 1;
                    continue;
                }
            };
            let last = (i + extra).min(n - 1);
            covered[i..=last].iter_mut().for_each(|c| *c = true);
            ops.push(Op {
                kind,
                first: i,
                last,
                content: if kind == OpKind::Delete {
                    Vec::new()
                } else {
                    lines.clone()
                },
            });
            i = last + 1;
        }
        for (at, (_, _, insert_kind, _, lines)) in slots.into_iter().enumerate() {
            let free = |line: usize| line < n && !covered[line];
            let kind = match insert_kind {
                0 if at == 0 => OpKind::Prepend,
                0 | 1 if at == n => OpKind::Append,
                0 | 1 if at > 0 && free(at - 1) => OpKind::InsertAfter,
                0..=2 if free(at) => OpKind::InsertBefore,
                _ => continue,
            };
            ops.push(Op {
                kind,
                first: at,
                last: at,
                content: lines,
            });
        }
        Just(ops).prop_shuffle()
    })
}

fn file_and_batch() -> impl Strategy<Value = (Vec<u8>, Vec<Op>)> {
    file().prop_flat_map(|bytes| {
        let n = parse(&bytes).1.len();
        (Just(bytes), batch(n))
    })
}

fn request(doc: &Document, ops: &[Op]) -> Request {
    let r = |i: usize| Some(Ref::of_line(doc, i).to_string());
    let operations = ops
        .iter()
        .map(|op| {
            let (reference, through) = match op.kind {
                OpKind::Replace | OpKind::Delete => (r(op.first), r(op.last)),
                OpKind::InsertBefore => (r(op.first), None),
                OpKind::InsertAfter => (r(op.first - 1), None),
                OpKind::Prepend | OpKind::Append => (None, None),
                _ => unreachable!("the batches here make no move, copy or block op"),
            };
            Operation {
                kind: op.kind,
                reference,
                through,
                content: op.content.clone(),
                place: None,
                literal: false,
                cell: Default::default(),
            }
        })
        .collect();
    Request::Operations {
        operations,
        rev: None,
    }
}

/// What the batch means on plain lines: the new lines, and for each old
/// line its new index if no operation touched it.
fn meaning(old: &[String], ops: &[Op]) -> Outcome {
    let n = old.len();
    let mut lines = Vec::new();
    let mut kept = vec![None; n];
    let mut i = 0;
    loop {
        let insert = ops.iter().find(|op| {
            matches!(
                op.kind,
                OpKind::InsertBefore | OpKind::InsertAfter | OpKind::Prepend | OpKind::Append
            ) && op.first == i
        });
        if let Some(op) = insert {
            lines.extend(op.content.iter().cloned());
        }
        if i == n {
            break;
        }
        let range = ops
            .iter()
            .find(|op| matches!(op.kind, OpKind::Replace | OpKind::Delete) && op.first == i);
        match range {
            Some(op) => {
                lines.extend(op.content.iter().cloned());
                i = op.last + 1;
            }
            None => {
                kept[i] = Some(lines.len());
                lines.push(old[i].clone());
                i += 1;
            }
        }
    }
    Outcome { lines, kept }
}

/// Runs the batch and checks every property; `Err` names the first broken.
fn check(bytes: &[u8], ops: &[Op]) -> Result<(), TestCaseError> {
    let doc = Document::from_bytes(bytes).unwrap();
    prop_assert_eq!(doc.to_bytes(), bytes, "the document does not round-trip");
    let old: Vec<String> = parse(bytes)
        .1
        .into_iter()
        .map(|(content, _)| String::from_utf8(content).unwrap())
        .collect();
    prop_assert_eq!(doc.lines().collect::<Vec<_>>(), old.clone());
    let want = meaning(&old, ops);
    let input = EditInput::text(&doc, "f.txt", false, crate::SyntaxCheck::Off);
    let edited = match prepare(&input, &request(&doc, ops)).and_then(|p| p.apply(doc)) {
        Ok(edited) => edited,
        Err(err) => {
            prop_assert_eq!(err.code, ErrorCode::NoChange, "{}", err.message);
            prop_assert_eq!(
                &want.lines,
                &old,
                "NO_CHANGE for a batch that changes lines"
            );
            return Ok(());
        }
    };
    prop_assert_ne!(
        &want.lines,
        &old,
        "a batch that changes nothing was applied"
    );
    let written = edited.doc.to_bytes();
    if let Err(problem) = check_written(bytes, &written, &want, Some(&edited.map)) {
        prop_assert!(false, "{}", problem);
    }
    prop_assert_eq!(edited.doc.lines().collect::<Vec<_>>(), want.lines);
    Ok(())
}

proptest! {
    #![proptest_config(Config { cases: 4000, ..Config::default() })]

    #[test]
    fn any_file_of_mixed_endings_reads_back_as_the_lines_the_batch_meant(
        (bytes, ops) in file_and_batch()
    ) {
        check(&bytes, &ops)?;
    }

    #[test]
    fn any_byte_string_round_trips_through_a_document(
        bytes in prop::collection::vec(
            prop::sample::select(vec![b'a', b'\r', b'\n', 0xEF, 0xBB, 0xBF, b' ', 0]),
            0..40,
        )
    ) {
        if let Ok(doc) = Document::from_bytes(&bytes) {
            prop_assert_eq!(&*doc.file_bytes(), &bytes[..]);
            prop_assert_eq!(Document::from_vec(bytes.clone()).unwrap(), doc.clone());
            prop_assert_eq!(doc.to_bytes(), bytes);
        }
    }
}

/// The case the issue was found with: the lone CR of `a` and the LF of the
/// empty line must not become one CRLF when `b` between them goes.
#[test]
fn deleting_the_line_between_a_lone_cr_and_an_empty_line_keeps_the_empty_line() {
    let bytes = b"a\rb\n\nc\n";
    check(
        bytes,
        &[Op {
            kind: OpKind::Delete,
            first: 1,
            last: 1,
            content: Vec::new(),
        }],
    )
    .unwrap();
}

#[test]
fn inserting_a_blank_line_after_a_lone_cr_inserts_it() {
    check(
        b"a\rb\n\nc\n",
        &[Op {
            kind: OpKind::InsertBefore,
            first: 1,
            last: 1,
            content: vec![String::new()],
        }],
    )
    .unwrap();
    check(
        b"x\na\r",
        &[Op {
            kind: OpKind::Append,
            first: 2,
            last: 2,
            content: vec![String::new()],
        }],
    )
    .unwrap();
}

/// After such an edit, a ref from the version before it still names the
/// same line: through the recorded map it lands where that line went, or
/// the edit is rejected; it never lands elsewhere.
#[test]
fn a_stale_ref_after_an_edit_at_a_lone_cr_lands_on_its_own_line() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("f.txt");
    std::fs::write(&path, b"a\rb\n\nc\n\nd\n").unwrap();
    let session = Hashline::new(Options::new(dir.path())).unwrap();
    session.read("f.txt").unwrap();
    let old = Document::from_bytes(&std::fs::read(&path).unwrap()).unwrap();
    let cite = |i: usize| Some(Ref::of_line(&old, i).to_string());
    let delete_b = Request::Operations {
        operations: vec![Operation {
            kind: OpKind::Delete,
            reference: cite(1),
            through: None,
            content: Vec::new(),
            place: None,
            literal: false,
            cell: Default::default(),
        }],
        rev: None,
    };
    session.edit("f.txt", &delete_b).unwrap();
    let now = Document::from_bytes(&std::fs::read(&path).unwrap()).unwrap();
    assert_eq!(now.lines().collect::<Vec<_>>(), ["a", "", "c", "", "d"]);
    // Old line 4 (`c`) is line 3 now; its old ref must find it there.
    let replace_c = Request::Operations {
        operations: vec![Operation {
            kind: OpKind::Replace,
            reference: cite(3),
            through: None,
            content: vec!["C".into()],
            place: None,
            literal: false,
            cell: Default::default(),
        }],
        rev: None,
    };
    session.edit("f.txt", &replace_c).unwrap();
    let now = Document::from_bytes(&std::fs::read(&path).unwrap()).unwrap();
    assert_eq!(now.lines().collect::<Vec<_>>(), ["a", "", "C", "", "d"]);
    // Old line 5 (the second empty line) is line 4 now; its old ref
    // either lands there or is rejected, never on line 2.
    let replace_blank = Request::Operations {
        operations: vec![Operation {
            kind: OpKind::Replace,
            reference: cite(4),
            through: None,
            content: vec!["E".into()],
            place: None,
            literal: false,
            cell: Default::default(),
        }],
        rev: None,
    };
    let before = std::fs::read(&path).unwrap();
    match session.edit("f.txt", &replace_blank) {
        Ok(_) => {
            let now = Document::from_bytes(&std::fs::read(&path).unwrap()).unwrap();
            assert_eq!(now.lines().collect::<Vec<_>>(), ["a", "", "C", "E", "d"]);
        }
        Err(err) => {
            assert_eq!(err.code, ErrorCode::HashMismatch, "{}", err.message);
            assert_eq!(std::fs::read(&path).unwrap(), before);
        }
    }
}
