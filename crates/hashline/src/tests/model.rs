//! Property tests: random files (duplicate lines, CRLF, BOM, with or without
//! a final newline) and random valid batches, checked against a plain model
//! of what the batch means; and random bad batches, checked to leave the
//! file's bytes as they were.

use crate::{
    apply_to_text, Document, ErrorCode, Hashline, OpKind, Operation, Options, Ref, Request,
};
use proptest::prelude::*;

/// Few distinct lines, so files are full of duplicates.
const ALPHABET: &[&str] = &[
    "",
    "}",
    "  return x;",
    "fn a() {",
    "  // note",
    "x",
    "{",
    "é 日本 🎉",
];

#[derive(Debug, Clone)]
struct File {
    lines: Vec<String>,
    crlf: bool,
    bom: bool,
    final_newline: bool,
}

impl File {
    fn text(&self) -> String {
        self.text_with(self.crlf)
    }

    fn text_with(&self, crlf: bool) -> String {
        let ending = if crlf { "\r\n" } else { "\n" };
        let mut text = if self.bom {
            "\u{FEFF}".to_string()
        } else {
            String::new()
        };
        text.push_str(&self.lines.join(ending));
        if self.final_newline && !self.lines.is_empty() {
            text.push_str(ending);
        }
        text
    }
}

fn file() -> impl Strategy<Value = File> {
    (
        prop::collection::vec(prop::sample::select(ALPHABET), 1..40),
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(|(lines, crlf, bom, final_newline)| File {
            // A last empty line exists only before a final newline: "a\n"
            // is one line, not "a" and "".
            final_newline: final_newline || lines.last() == Some(&""),
            lines: lines.into_iter().map(str::to_owned).collect(),
            crlf,
            bom,
        })
}

/// One planned operation on model lines `start..=end` (0-based).
#[derive(Debug, Clone)]
struct Planned {
    kind: OpKind,
    start: usize,
    end: usize,
    content: Vec<String>,
}

/// Disjoint segments with at least one untouched line between them, each
/// given an operation, so no two operations can conflict.
fn batch(len: usize) -> impl Strategy<Value = Vec<Planned>> {
    let segment = (
        0..len,
        0usize..3,
        0usize..4,
        prop::collection::vec(prop::sample::select(ALPHABET), 0..4),
    );
    prop::collection::vec(segment, 1..6).prop_map(move |raw| {
        let mut out: Vec<Planned> = Vec::new();
        let mut sorted = raw;
        sorted.sort_by_key(|s| s.0);
        let mut free_from = 0;
        for (start, extra, kind, content) in sorted {
            if start < free_from {
                continue;
            }
            let end = (start + extra).min(len - 1);
            let kind = [
                OpKind::Replace,
                OpKind::Delete,
                OpKind::InsertBefore,
                OpKind::InsertAfter,
            ][kind];
            let content: Vec<String> = content.into_iter().map(str::to_owned).collect();
            if kind != OpKind::Delete && content.is_empty() {
                continue;
            }
            let (start, end) = match kind {
                OpKind::InsertBefore => (start, start),
                OpKind::InsertAfter => (end, end),
                _ => (start, end),
            };
            out.push(Planned {
                kind,
                start,
                end,
                content,
            });
            free_from = end + 2;
        }
        out
    })
}

fn file_and_batch() -> impl Strategy<Value = (File, Vec<Planned>)> {
    file().prop_flat_map(|f| {
        let len = f.lines.len();
        (Just(f), batch(len))
    })
}

fn to_request(doc: &Document, planned: &[Planned]) -> Request {
    let r = |i: usize| Ref::of_line(doc, i).to_string();
    let operations = planned
        .iter()
        .map(|p| Operation {
            kind: p.kind,
            reference: Some(r(p.start)),
            through: matches!(p.kind, OpKind::Replace | OpKind::Delete).then(|| r(p.end)),
            content: if p.kind == OpKind::Delete {
                Vec::new()
            } else {
                p.content.clone()
            },
            place: None,
            literal: false,
            cell: Default::default(),
        })
        .collect();
    Request::Operations {
        operations,
        rev: None,
    }
}

/// What the batch means, on plain lines.
fn model(lines: &[String], planned: &[Planned]) -> Vec<String> {
    let mut out = lines.to_vec();
    for p in planned.iter().rev() {
        match p.kind {
            OpKind::Replace => {
                out.splice(p.start..=p.end, p.content.clone());
            }
            OpKind::Delete => {
                out.drain(p.start..=p.end);
            }
            OpKind::InsertBefore => {
                out.splice(p.start..p.start, p.content.clone());
            }
            OpKind::InsertAfter => {
                out.splice(p.end + 1..p.end + 1, p.content.clone());
            }
            _ => unreachable!(),
        }
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    #[test]
    fn a_valid_batch_gives_what_the_model_gives((f, planned) in file_and_batch()) {
        let text = f.text();
        let doc = Document::from_text(&text);
        prop_assume!(!planned.is_empty());
        let expected = model(&f.lines, &planned);
        match apply_to_text(&text, &to_request(&doc, &planned), false) {
            Ok((out, _)) => {
                // A file with no line terminator has no ending style; new lines get LF.
                let crlf = f.crlf && (f.lines.len() > 1 || f.final_newline);
                // An empty last line is written with its terminator, so it stays a line.
                let final_newline = f.final_newline || expected.last().is_some_and(|l| l.is_empty());
                let want = File { lines: expected.clone(), crlf, final_newline, ..f.clone() };
                let got = Document::from_text(&out);
                let want_doc = Document::from_text(&want.text_with(crlf));
                prop_assert_eq!(got.lines().collect::<Vec<_>>(), want_doc.lines().collect::<Vec<_>>());
                prop_assert_eq!(got.has_bom(), f.bom);
                if !expected.is_empty() {
                    prop_assert_eq!(out, want.text_with(crlf));
                }
            }
            Err(err) => {
                prop_assert_eq!(err.code, ErrorCode::NoChange);
                prop_assert_eq!(&expected, &f.lines);
            }
        }
    }

    #[test]
    fn a_batch_with_a_wrong_ref_is_rejected_and_the_file_keeps_its_bytes((f, planned) in file_and_batch(), line in 0usize..40) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f.txt");
        let text = f.text();
        std::fs::write(&path, &text).unwrap();
        let session = Hashline::new(Options::new(dir.path())).unwrap();
        session.read("f.txt").unwrap();
        let doc = Document::from_text(&text);
        prop_assume!(!planned.is_empty());
        let mut request = to_request(&doc, &planned);
        let Request::Operations { operations, .. } = &mut request else { unreachable!() };
        let victim = line % operations.len();
        let original = Ref::parse(operations[victim].reference.as_deref().unwrap()).unwrap();
        let hash = original.hash().unwrap();
        let wrong = crate::Tag::from_bits((hash.bits() + 1) % 0x1000).unwrap();
        let tag = crate::RefTag::Full { hash: wrong, anchor: original.anchor() };
        operations[victim].reference = Some(Ref { tag, ..original }.to_string());
        let err = session.edit("f.txt", &request).unwrap_err();
        prop_assert!(matches!(err.code, ErrorCode::HashMismatch | ErrorCode::InvalidRequest), "{:?}", err);
        prop_assert_eq!(std::fs::read(&path).unwrap(), text.into_bytes());
    }
}
