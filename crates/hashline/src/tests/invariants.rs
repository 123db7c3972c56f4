//! The fuzz targets' invariants (see `fuzz/`), as property tests that run
//! with every `cargo test`: random bytes decode into a text and a request
//! (valid or not), and the engine must agree with the reference model. The
//! corpus the fuzzers kept is replayed too, so whatever they found stays
//! covered.

use crate::internals::model;

use crate::{apply_to_text, Document, OpKind, Operation, Ref, Request};
use proptest::prelude::*;
use proptest::test_runner::Config;
use std::path::Path;

/// The corpus replay below keeps what the fuzzers found; proptest's own
/// failure files would land in the source tree.
fn config(cases: u32) -> Config {
    Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    }
}

proptest! {
    #![proptest_config(config(600))]

    #[test]
    fn parsing_any_string_never_panics_and_round_trips(input in any::<String>()) {
        model::check_parse(&input);
    }

    #[test]
    fn parsing_ref_shaped_strings_never_panics_and_round_trips(
        input in r"[ >+\-#HLhl]{0,4}[0-9]{0,3}[ #:]{0,2}[0-9A-Fa-fXZ]{0,4}[ #:]{0,2}[0-9A-Fa-f]{0,4}(\|.{0,3})?"
    ) {
        model::check_parse(&input);
    }

    #[test]
    fn any_batch_against_any_text_matches_the_model(data in prop::collection::vec(any::<u8>(), 0..400)) {
        model::check_pure(&model::case(&data));
    }

    #[test]
    fn clean_up_never_touches_lines_outside_the_operations(data in prop::collection::vec(any::<u8>(), 0..400)) {
        model::check_cleanup(&model::case(&data));
    }
}

proptest! {
    #![proptest_config(config(150))]

    #[test]
    fn a_session_edit_matches_the_model_and_a_rejection_keeps_the_bytes(data in prop::collection::vec(any::<u8>(), 0..400)) {
        let dir = tempfile::tempdir().unwrap();
        model::check_session(&model::case(&data), dir.path());
    }
}

fn corpus(target: &str) -> Vec<Vec<u8>> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fuzz/corpus")
        .join(target);
    let inputs: Vec<Vec<u8>> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .flatten()
        .filter(|e| e.path().is_file())
        .map(|e| std::fs::read(e.path()).unwrap())
        .collect();
    assert!(!inputs.is_empty(), "{} is empty", dir.display());
    inputs
}

#[test]
fn the_fuzz_corpus_of_parse_ref_holds() {
    for input in corpus("parse_ref") {
        model::check_parse(&String::from_utf8_lossy(&input));
    }
}

#[test]
fn the_fuzz_corpus_of_edit_batch_holds() {
    let dir = tempfile::tempdir().unwrap();
    for input in corpus("edit_batch") {
        let case = model::case(&input);
        model::check_pure(&case);
        model::check_cleanup(&case);
        model::check_session(&case, dir.path());
    }
}

/// A file without a final newline cannot show an empty last line, so an
/// edit that leaves one must add the final newline; otherwise the empty
/// line silently disappears (the fuzzers' first finding).
#[test]
fn an_edit_that_leaves_an_empty_last_line_keeps_it() {
    let cases: [(&str, OpKind, usize, &[&str], &str); 3] = [
        ("a\n\nb", OpKind::Delete, 2, &[], "a\n\n"),
        ("a\nb", OpKind::Replace, 1, &[""], "a\n\n"),
        ("a", OpKind::InsertAfter, 0, &["b", ""], "a\nb\n\n"),
    ];
    for (text, kind, index, content, want) in cases {
        let doc = Document::from_text(text);
        let request = Request::Operations {
            operations: vec![Operation {
                kind,
                reference: Some(Ref::of_line(&doc, index).to_string()),
                through: None,
                content: content.iter().map(|l| l.to_string()).collect(),
                place: None,
                literal: false,
                cell: Default::default(),
            }],
            rev: None,
        };
        let (out, _) = apply_to_text(text, &request, false).unwrap();
        assert_eq!(out, want, "{text:?} {kind} line {}", index + 1);
    }
}
