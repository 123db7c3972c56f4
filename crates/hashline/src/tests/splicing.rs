//! The splices of a document, in its own buffer or into a copy, against
//! the document read from the bytes they give; and an edit described from
//! the lines a splice took out against one described from the whole old
//! text.

use crate::before::{Before, Taken};
use crate::document::{Document, Splice, BOM};
use crate::edit::{finish, Change, Old};
use crate::remap::LineMap;
use crate::request::{OpKind, Operation, Request};
use crate::store::StoredDoc;
use crate::syntax::SyntaxCheck;
use crate::tags::each_line;
use crate::view::ViewStyle;
use crate::{apply_to_string, apply_to_text, Ref};
use proptest::prelude::*;
use std::ops::Range;
use std::sync::Arc;

/// File bytes of every kind: a BOM or not, LF, CRLF, lone CR and mixed
/// endings, empty lines, lines starting with U+FEFF, a final newline or
/// not.
fn file() -> impl Strategy<Value = Vec<u8>> {
    let line = prop::sample::select(vec!["", "a", "b c", "\u{FEFF}x", "é", "  "]);
    let ending = prop::sample::select(vec!["\n", "\r\n", "\r"]);
    (
        any::<bool>(),
        prop::collection::vec((line, ending), 0..12),
        any::<bool>(),
    )
        .prop_map(|(bom, lines, final_newline)| {
            let mut bytes = if bom { BOM.to_vec() } else { Vec::new() };
            let n = lines.len();
            for (i, (line, ending)) in lines.into_iter().enumerate() {
                bytes.extend_from_slice(line.as_bytes());
                if i + 1 < n || final_newline {
                    bytes.extend_from_slice(ending.as_bytes());
                }
            }
            bytes
        })
}

/// Lines of a file or of an edit: empty, equal to each other, starting
/// with U+FEFF, one a problem when written (a conflict marker), one long
/// enough for a run of lines moving by a few bytes to land on itself.
fn text_line() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![
        "",
        "a",
        "b c",
        "\u{FEFF}x",
        "é",
        "<<<<<<< HEAD",
        "a line long enough that its run moves onto its own bytes",
    ])
}

/// Files whose bytes are their canonical text, unless the first line
/// starts with U+FEFF: no BOM, only LF, a final newline or not.
fn lf_file() -> impl Strategy<Value = Vec<u8>> {
    (prop::collection::vec(text_line(), 0..30), any::<bool>()).prop_map(|(lines, final_newline)| {
        let mut text = lines.join("\n");
        if final_newline && !lines.is_empty() {
            text.push('\n');
        }
        text.into_bytes()
    })
}

/// Sorted, non-overlapping splices over a document of `n` lines, as the
/// planner makes them: several insertions at one line, an insertion
/// right before a replacement, adjacent replacements.
fn edits(n: usize) -> impl Strategy<Value = Vec<Splice>> {
    let splice = (
        0..=n,
        prop_oneof![Just(0usize), 1..5usize],
        prop::collection::vec(text_line(), 0..6),
    );
    prop::collection::vec(splice, 0..8).prop_map(move |mut raw| {
        raw.sort_by_key(|(at, _, _)| *at);
        let mut next = 0;
        let mut out = Vec::new();
        for (at, len, lines) in raw {
            if at < next {
                continue;
            }
            let end = (at + len).min(n);
            out.push(Splice {
                range: at..end,
                lines: lines.into_iter().map(str::to_owned).collect(),
            });
            next = end;
        }
        out
    })
}

/// The regions `splices` change, as the edit gives them to `Taken`.
fn changes(splices: &[Splice]) -> Vec<(Range<usize>, Range<usize>)> {
    crate::report::hunks(splices)
        .into_iter()
        .map(|h| (h.old, h.new))
        .collect()
}

/// Operations that make `splices` of `doc`, citing its lines by full refs.
fn operations(doc: &Document, splices: &[Splice]) -> Vec<Operation> {
    let r = |i: usize| Ref::of_line(doc, i).to_string();
    splices
        .iter()
        .filter(|s| !(s.range.is_empty() && s.lines.is_empty()))
        .map(|s| {
            let content = s.lines.join("\n");
            let through = (s.range.len() > 1).then(|| r(s.range.end - 1));
            let (kind, at) = match (s.range.is_empty(), s.lines.is_empty()) {
                (false, true) => (OpKind::Delete, Some(r(s.range.start))),
                (false, false) => (OpKind::Replace, Some(r(s.range.start))),
                (true, _) if s.range.start < doc.line_count() => {
                    (OpKind::InsertBefore, Some(r(s.range.start)))
                }
                (true, _) => (OpKind::Append, None),
            };
            Operation::new(kind, at.as_deref(), through.as_deref(), &content)
        })
        .collect()
}

/// A file of `files`, and edits of it.
fn edited(files: BoxedStrategy<Vec<u8>>) -> impl Strategy<Value = (Vec<u8>, Vec<Splice>)> {
    files.prop_flat_map(|bytes| {
        let n = Document::from_bytes(&bytes).unwrap().line_count();
        (Just(bytes), edits(n))
    })
}

proptest! {
    #[test]
    fn the_spliced_document_equals_the_one_read_from_its_bytes(
        (bytes, splices) in edited(file().boxed())
    ) {
        let doc = Document::from_bytes(&bytes).unwrap();
        let spliced = doc.spliced(&splices).unwrap();
        let read = Document::from_vec(doc.splice(&splices).unwrap()).unwrap();
        prop_assert_eq!(&spliced, &read);
        prop_assert_eq!(spliced.rev(), read.rev());
    }

    #[test]
    fn a_splice_in_place_makes_the_copying_splices_document_and_reads_back_the_old_one(
        (bytes, splices) in edited(prop_oneof![lf_file(), file()].boxed()),
    ) {
        let old = Document::from_bytes(&bytes).unwrap();
        let mut new = old.clone();
        let taken = Taken::of(&old, changes(&splices));
        new.splice_in_place(&splices, None).unwrap();
        // The old REV was not known when the lines were taken: it is hashed
        // from the new document and the lines taken out.
        prop_assert_eq!(taken.rev(&new), crate::hash::rev(old.text()));
        // A store keeps such an old version as the new one and the lines
        // taken, and makes it whole the same document.
        if old.bytes_are_canonical() {
            let stored = StoredDoc::edited(Arc::new(new.clone()), taken.clone(), old.rev());
            prop_assert_eq!((stored.text_len(), stored.line_count()), (old.text().len(), old.line_count()));
            // Its text is written, and compared with a file read, before it
            // is made whole.
            prop_assert_eq!(stored.text_runs().concat(), old.text().as_bytes());
            prop_assert!(stored.same_file(&old));
            prop_assert!(!stored.same_file(&new) || new.same_file(&old));
            prop_assert!(stored.built().is_none());
            prop_assert_eq!(&**stored.whole(), &old);
            prop_assert_eq!(stored.rev(), old.rev());
        }
        let spliced = old.spliced(&splices).unwrap();
        prop_assert_eq!(&new, &spliced);
        prop_assert_eq!(new.rev(), spliced.rev());
        prop_assert_eq!(&new.to_bytes(), &old.splice(&splices).unwrap());
        let before = taken.with(&new);
        prop_assert_eq!(before.line_count(), old.line_count());
        for i in 0..old.line_count() {
            prop_assert_eq!(Before::line(&before, i), old.line(i));
        }
        for i in 0..=old.line_count() {
            prop_assert_eq!(Before::offset_of_line(&before, i), old.offset_of_line(i));
        }
        prop_assert_eq!(Before::final_newline(&before), old.final_newline());
        prop_assert_eq!(before.same_text(&new), old.text() == new.text());
    }

    #[test]
    fn an_edit_described_from_the_lines_taken_out_reads_as_one_described_from_the_whole_old_text(
        (bytes, splices) in edited(lf_file().boxed()),
    ) {
        let old = Document::from_bytes(&bytes).unwrap();
        let change = || Change {
            hunks: crate::report::hunks(&splices),
            headline: "Applied".into(),
            notes: Vec::new(),
            remapped_from: None,
            outcome: Default::default(),
            relocated: Vec::new(),
            style: ViewStyle::Full,
        };
        let whole = finish(Old::Whole(&old), "f.txt", old.spliced(&splices).unwrap(), change(), true, SyntaxCheck::Off, None);
        let mut new = old.clone();
        let taken = Taken::of(&old, changes(&splices));
        new.splice_in_place(&splices, None).unwrap();
        let in_place = finish(Old::Taken(taken), "f.txt", new, change(), true, SyntaxCheck::Off, None);
        match (whole, in_place) {
            (Ok(a), Ok(b)) => {
                prop_assert_eq!(a.doc, b.doc);
                prop_assert_eq!(a.rev, b.rev);
                prop_assert_eq!(a.previous_rev, b.previous_rev);
                prop_assert_eq!(a.summary, b.summary);
                prop_assert_eq!(a.problems, b.problems);
                prop_assert_eq!(a.map, b.map);
            }
            (Err(a), Err(b)) => prop_assert_eq!(a.code, b.code),
            (a, b) => prop_assert!(false, "{:?} against {:?}", a.map(|e| e.summary), b.map(|e| e.summary)),
        }
    }

    #[test]
    fn an_edit_of_text_described_when_asked_reads_as_one_described_at_once(
        (bytes, splices) in edited(prop_oneof![lf_file(), file()].boxed()),
        summary_first in any::<bool>(),
    ) {
        let text = String::from_utf8(bytes).unwrap();
        let doc = Document::from_text(&text);
        let request = Request::Operations { operations: operations(&doc, &splices), rev: None };
        let eager = apply_to_text(&text, &request, false);
        let lazy = apply_to_string(text.clone(), "text", &request, false, SyntaxCheck::Off);
        match (eager, lazy) {
            (Ok((out, edited)), Ok(lazy)) => {
                prop_assert_eq!(&out, &lazy.text());
                if summary_first {
                    prop_assert_eq!(&edited.summary, lazy.summary());
                }
                prop_assert_eq!(&edited.previous_rev, lazy.previous_rev());
                prop_assert_eq!(&edited.rev, lazy.rev());
                prop_assert_eq!(&edited.summary, lazy.summary());
                prop_assert_eq!(&edited.summary.headline, lazy.headline());
                prop_assert_eq!(&edited.problems[..], lazy.problems());
            }
            (Err(a), Err(b)) => prop_assert_eq!((a.code, &a.message), (b.code, &b.message)),
            (a, b) => prop_assert!(false, "{:?} against {:?}", a.map(|e| e.0), b.map(|e| e.text().into_owned())),
        }
    }

    #[test]
    fn the_digests_an_edit_carries_over_are_the_new_versions_own(
        (bytes, splices) in edited(prop_oneof![lf_file(), file()].boxed()),
        full_view_first in any::<bool>(),
    ) {
        let words = |doc: &Document, anchors: bool| {
            let mut out = Vec::new();
            each_line(doc, 0..doc.line_count(), anchors, |i, w| {
                out.push((i, w.line, anchors.then(|| w.anchor())));
            });
            out
        };
        let old = Document::from_bytes(&bytes).unwrap();
        old.keep_tags();
        words(&old, full_view_first);
        let new = old.spliced(&splices).unwrap();
        let map = LineMap::from_changes(old.line_count(), changes(&splices));
        new.keep_tags_from(&old, map.runs());
        // The lines inside a run of kept lines are taken over, not hashed,
        // and every word taken over is the new version's own.
        for &(_, n, len) in map.runs() {
            for i in n + 1..(n + len).saturating_sub(1) {
                prop_assert!(new.known().get(i, full_view_first).is_some(), "line {i}");
            }
        }
        let fresh = old.spliced(&splices).unwrap();
        let own = words(&fresh, true);
        for (i, line, anchor) in &own {
            if let Some(w) = new.known().get(*i, false) {
                prop_assert_eq!(w.line, *line, "line {}", i);
            }
            if let Some(w) = new.known().get(*i, true) {
                prop_assert_eq!(Some(w.anchor()), *anchor, "line {}", i);
            }
        }
        prop_assert_eq!(words(&new, true), own);
        prop_assert_eq!(words(&new, false), words(&fresh, false));
    }

    #[test]
    fn a_string_taken_by_value_reads_as_the_same_text_borrowed(bytes in file()) {
        let text = String::from_utf8(bytes).unwrap();
        let doc = Document::from_string(text.clone());
        prop_assert_eq!(&doc, &Document::from_text(&text));
        prop_assert_eq!(doc.into_file_text(), text);
    }
}
