//! The patch format end to end: parsing, placing and applying.

use super::*;
use crate::document::Document;
use crate::error::{ErrorCode, Result};
use crate::prefix::Shown;
use crate::Ref;

fn patch(body: &str) -> String {
    format!("{BEGIN}\n{body}\n{END}")
}

fn hunks_of(p: &Patch) -> &[Hunk] {
    match &p.files[0].change {
        FileChange::Update { hunks, .. } => hunks,
        other => panic!("not an update: {other:?}"),
    }
}

/// Parses a one-file update patch and applies it to `text`, as a session
/// that showed every line of `text` would.
fn apply(text: &str, body: &str) -> Result<String> {
    let p = parse(&patch(body))?;
    let doc = Document::from_text(text);
    let shown = [crate::store::Version {
        rev: doc.rev().to_owned(),
        doc: std::sync::Arc::new(doc.clone()).into(),
        seen: std::iter::once(0..doc.line_count()).collect(),
        carried: Vec::new(),
        parent: None,
        read_at: 1,
    }];
    let hunks = hunks_of(&p);
    let placed = place(
        &doc,
        "f.txt",
        hunks,
        &vec![None; hunks.len()],
        Some(Shown::new("f.txt", &shown, &[])),
    )?;
    Ok(String::from_utf8(doc.splice(&placed.splices)?).unwrap())
}

#[test]
fn parses_add_delete_update_and_move() {
    let p = parse(&patch(
        "*** Add File: new.txt\n+Hello\n+\n*** Delete File: old.txt\n*** Update File: a.txt\n*** Move to: b.txt\n@@ fn main\n ctx\n-old\n+new\n*** End of File",
    ))
    .unwrap();
    assert_eq!(p.files.len(), 3);
    assert_eq!(p.files[0].path, "new.txt");
    assert_eq!(
        p.files[0].change,
        FileChange::Add {
            lines: vec!["Hello".into(), String::new()]
        }
    );
    assert_eq!(p.files[1].change, FileChange::Delete);
    let FileChange::Update { move_to, hunks } = &p.files[2].change else {
        panic!()
    };
    assert_eq!(move_to.as_deref(), Some("b.txt"));
    assert_eq!(hunks.len(), 1);
    assert_eq!(hunks[0].header, Some(Header::Text("fn main".into())));
    assert!(hunks[0].end_of_file);
    assert_eq!(
        hunks[0].lines,
        vec![
            HunkLine::Context("ctx".into()),
            HunkLine::Removed("old".into()),
            HunkLine::Added("new".into())
        ]
    );
}

#[test]
fn rejects_what_is_not_the_format_instead_of_skipping_it() {
    for (text, why) in [
        ("invalid patch".to_owned(), "starts with the line"),
        (String::new(), "patch is empty"),
        (patch(""), "names no file"),
        (format!("{BEGIN}\n{END}"), "names no file"),
        (patch("*** Frobnicate File: foo"), "unknown `***` line"),
        (
            patch("*** Update File: a.txt\n@@\n-a\nb\n+c"),
            "every line starts with",
        ),
        (patch("*** Add File: a.txt\n+a\nb"), "starts with `+`"),
        (patch("*** Delete File: a.txt\n-a"), "takes no lines"),
        (patch("*** Update File: a.txt"), "has no hunks"),
        (patch("*** Update File: a.txt\n@@\n a"), "changes nothing"),
        (patch("-a\n+b"), "outside an `*** Update File:`"),
        (
            format!("{BEGIN}\n*** Delete File: a\n{END}\n{BEGIN}\n*** Delete File: b\n{END}"),
            "before the end",
        ),
        (format!("{BEGIN}\n*** Delete File: a"), "ends with the line"),
    ] {
        let err = parse(&text).unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidRequest, "{text}");
        assert!(err.message.contains(why), "{text}: {}", err.message);
    }
}

#[test]
fn accepts_heredoc_wrappers_crlf_and_surrounding_blank_lines() {
    for text in [
        format!("cat <<'EOF'\n{}\nEOF", patch("*** Add File: a\n+x")),
        format!("<<EOF\n{}\nEOF\n", patch("*** Add File: a\n+x")),
        format!("\n\n{}\n\n", patch("*** Add File: a\n+x")).replace('\n', "\r\n"),
    ] {
        let p = parse(&text).unwrap();
        assert_eq!(
            p.files[0].change,
            FileChange::Add {
                lines: vec!["x".into()]
            },
            "{text:?}"
        );
    }
}

#[test]
fn the_first_hunk_may_leave_out_its_at_at_line_and_is_applied() {
    assert_eq!(
        apply("a\nb\nc\n", "*** Update File: f\n a\n-b\n+B").unwrap(),
        "a\nB\nc\n"
    );
    assert_eq!(
        apply("a\nb\nc\n", "*** Update File: f\n-a\n+A\n@@\n-c\n+C").unwrap(),
        "A\nb\nC\n"
    );
}

#[test]
fn a_header_with_unified_diff_line_numbers_keeps_only_its_text() {
    let p = parse(&patch("*** Update File: f\n@@ -3,2 +3,2 @@ fn b\n-x\n+y")).unwrap();
    assert_eq!(hunks_of(&p)[0].header, Some(Header::Text("fn b".into())));
    let p = parse(&patch("*** Update File: f\n@@ -3,2 +3,2 @@\n-x\n+y")).unwrap();
    assert_eq!(hunks_of(&p)[0].header, None);
    let p = parse(&patch("*** Update File: f\n@@ 12#A3F#9BC|  let x\n-x\n+y")).unwrap();
    assert_eq!(
        hunks_of(&p)[0].header,
        Some(Header::Ref("12#A3F#9BC|  let x".into()))
    );
    let p = parse(&patch("*** Update File: f\n@@ 12#notref\n-x\n+y")).unwrap();
    assert_eq!(
        hunks_of(&p)[0].header,
        Some(Header::Text("12#notref".into()))
    );
}

#[test]
fn an_ambiguous_hunk_is_rejected_with_every_candidate_and_its_ref() {
    let text = "fn a\nx=10\ny=2\nfn b\nx=10\ny=20\n";
    let err = apply(text, "*** Update File: f\n@@\n-x=10\n+x=11").unwrap_err();
    assert_eq!(err.code, ErrorCode::ContextAmbiguous);
    let doc = Document::from_text(text);
    for line in [1, 4] {
        assert!(
            err.message
                .contains(&format!(">>> {}|x=10", Ref::of_line(&doc, line))),
            "{}",
            err.message
        );
    }
    assert_eq!(err.shown, vec![0..6]);
}

#[test]
fn a_header_line_picks_the_place_after_it() {
    let text = "fn a\nx=10\ny=2\nfn b\nx=10\ny=20\n";
    assert_eq!(
        apply(text, "*** Update File: f\n@@ fn b\n-x=10\n+x=11").unwrap(),
        "fn a\nx=10\ny=2\nfn b\nx=11\ny=20\n"
    );
    // The header may also be the hunk's first context line.
    assert_eq!(
        apply(text, "*** Update File: f\n@@ fn b\n fn b\n-x=10\n+x=11").unwrap(),
        "fn a\nx=10\ny=2\nfn b\nx=11\ny=20\n"
    );
    // A header that is itself ambiguous is refused.
    let err = apply("fn b\nx\nfn b\nx\n", "*** Update File: f\n@@ fn b\n-x\n+y").unwrap_err();
    assert_eq!(err.code, ErrorCode::ContextAmbiguous);
}

#[test]
fn hunks_are_placed_in_order_each_after_the_last() {
    // The second `x` is the only one after the first hunk.
    let out = apply(
        "a\nx\nb\nx\n",
        "*** Update File: f\n@@\n-a\n+A\n x\n-b\n+B\n@@\n-x\n+X",
    )
    .unwrap();
    assert_eq!(out, "A\nx\nB\nX\n");
}

#[test]
fn missing_context_is_rejected_with_the_closest_lines() {
    let err = apply(
        "let total = items.len();\nother\n",
        "*** Update File: f\n@@\n-let totl = items.len();\n+x",
    )
    .unwrap_err();
    assert_eq!(err.code, ErrorCode::ContextNotFound);
    assert!(err.message.contains(">>> 1#"), "{}", err.message);
    let err = apply("a\nb\n", "*** Update File: f\n@@ fn zzz\n-a\n+b").unwrap_err();
    assert_eq!(err.code, ErrorCode::ContextNotFound);
    assert!(err.message.contains("\"fn zzz\""), "{}", err.message);
}

#[test]
fn a_stale_hunk_is_shown_the_line_it_meant_as_it_is_now() {
    let err = apply(
        "class W\n{\n    int x = 10;\n}\n",
        "*** Update File: f\n@@\n {\n-    int x = 1;\n+    int x = 2;",
    )
    .unwrap_err();
    assert!(err.message.contains(">>> 3#"), "{}", err.message);
    assert!(
        err.message.contains("|    int x = 10;\n"),
        "{}",
        err.message
    );
}

#[test]
fn every_failing_hunk_is_reported_at_once() {
    let err = apply("a\nb\nc\n", "*** Update File: f\n@@\n-zz\n+y\n@@\n-yy\n+x").unwrap_err();
    assert!(
        err.message
            .contains("2 of its 2 hunks for f.txt do not fit"),
        "{}",
        err.message
    );
    assert!(
        err.message.contains("Hunk 1") && err.message.contains("Hunk 2"),
        "{}",
        err.message
    );
}

#[test]
fn whitespace_tolerant_match_reindents_added_lines_and_keeps_context_bytes() {
    let text = "fn a() {\n\tif x {\n\t\ty();  \n\t}\n}\n";
    let out = apply(text, "*** Update File: f\n@@\n if x {\n-    y();\n+    z();\n+    if w {\n+        v();\n+    }\n }").unwrap();
    assert_eq!(
        out,
        "fn a() {\n\tif x {\n\t\tz();\n\t\tif w {\n\t\t\tv();\n\t\t}\n\t}\n}\n"
    );
}

#[test]
fn end_of_file_anchors_at_the_end_only() {
    let text = "start\nmarker\nmiddle\nmarker\nend\n";
    let out = apply(
        text,
        "*** Update File: f\n@@\n-marker\n-end\n+marker-changed\n+end\n*** End of File",
    )
    .unwrap();
    assert_eq!(out, "start\nmarker\nmiddle\nmarker-changed\nend\n");
    let err = apply(
        "a\nb\nc\n",
        "*** Update File: f\n@@\n-a\n+A\n*** End of File",
    )
    .unwrap_err();
    assert_eq!(err.code, ErrorCode::ContextNotFound);
    assert!(err.message.contains("not at the end"), "{}", err.message);
}

#[test]
fn pure_additions_go_at_the_end_or_right_below_the_header_line() {
    assert_eq!(
        apply("", "*** Update File: f\n@@\n+First line").unwrap(),
        "First line\n"
    );
    assert_eq!(
        apply("a\nb\n", "*** Update File: f\n@@\n+c").unwrap(),
        "a\nb\nc\n"
    );
    assert_eq!(
        apply("a\nb\n", "*** Update File: f\n@@ a\n+a2").unwrap(),
        "a\na2\nb\n"
    );
}

#[test]
fn a_trailing_blank_context_line_that_is_not_in_the_file_is_left_out() {
    assert_eq!(
        apply("a\nb", "*** Update File: f\n@@\n a\n-b\n+B\n ").unwrap(),
        "a\nB"
    );
}

#[test]
fn a_last_blank_context_line_keeps_added_lines_where_they_belong() {
    // " " is a blank context line: the new line goes before it, not at the end.
    assert_eq!(
        apply("\nz\n", "*** Update File: f\n@@\n+N\n ").unwrap(),
        "N\n\nz\n"
    );
    // An empty line there may be a separator or a blank context line
    // that lost its space; a hunk that would be left with added lines
    // only keeps it as context.
    assert_eq!(
        apply("\nz\n", "*** Update File: f\n@@\n+N\n").unwrap(),
        "N\n\nz\n"
    );
    let p = parse(&patch(
        "*** Update File: a\n@@\n-x\n+y\n\n*** Delete File: b",
    ))
    .unwrap();
    assert_eq!(
        hunks_of(&p)[0].lines.len(),
        2,
        "an empty line between files separates them"
    );
}

#[test]
fn view_prefixes_copied_from_a_read_are_removed_from_every_line() {
    let doc = Document::from_text("a\nb\n");
    let (ra, rb) = (Ref::of_line(&doc, 0), Ref::of_line(&doc, 1));
    let out = apply(
        "a\nb\n",
        &format!("*** Update File: f\n@@\n {ra}|a\n-{rb}|b\n+{rb}|B"),
    )
    .unwrap();
    assert_eq!(out, "a\nB\n");
}

#[test]
fn a_ref_header_anchors_the_hunk_at_exactly_that_line() {
    let text = "x\n}\nx\n}\n";
    let doc = Document::from_text(text);
    let p = parse(&patch("*** Update File: f\n@@ 3#AAA#BBB\n-x\n+y")).unwrap();
    let placed = place(&doc, "f", hunks_of(&p), &[Some(2)], None).unwrap();
    assert_eq!(doc.splice(&placed.splices).unwrap(), b"x\n}\ny\n}\n");
    // Not the line after it: a hunk whose first line was left out must
    // not land one line lower.
    let err = place(&doc, "f", hunks_of(&p), &[Some(1)], None).unwrap_err();
    assert_eq!(err.code, ErrorCode::ContextNotFound);
    let a = Document::from_text("a\nb\nc\n");
    let dropped = parse(&patch("*** Update File: f\n@@ 1#AAA#BBB\n+A\n b")).unwrap();
    let err = place(&a, "f", hunks_of(&dropped), &[Some(0)], None).unwrap_err();
    assert_eq!(err.code, ErrorCode::ContextNotFound, "{}", err.message);
    // A hunk of added lines only goes right below the line the ref names,
    // which may be the last line of the hunk before.
    let p = parse(&patch("*** Update File: f\n@@ 2#AAA#BBB\n+new")).unwrap();
    let placed = place(&doc, "f", hunks_of(&p), &[Some(1)], None).unwrap();
    assert_eq!(doc.splice(&placed.splices).unwrap(), b"x\n}\nnew\nx\n}\n");
    let p = parse(&patch(
        "*** Update File: f\n@@ 1#AAA#BBB\n-x\n+X\n }\n@@ 2#AAA#BBB\n+new",
    ))
    .unwrap();
    let placed = place(&doc, "f", hunks_of(&p), &[Some(0), Some(1)], None).unwrap();
    assert_eq!(doc.splice(&placed.splices).unwrap(), b"X\n}\nnew\nx\n}\n");
    let err = place(&doc, "f", hunks_of(&p), &[Some(0), Some(0)], None).unwrap_err();
    assert_eq!(err.code, ErrorCode::Conflict);
}

/// A patch of one hunk for replacing `range` of `lines` with `new`, its
/// context widened (after, then before) until its old side fits only
/// its own place, as a careful model would write it.
fn unique_hunk(lines: &[&str], range: std::ops::Range<usize>, new: &[&str]) -> String {
    let doc = Document::from_text(&(lines.join("\n") + "\n"));
    let (mut from, mut to) = (range.start, range.end);
    loop {
        let old: Vec<&str> = lines[from..to].to_vec();
        let starts = block_starts(&LineIndex::new(&doc, usize::MAX), 0, &old, Tier::Trimmed);
        if !old.is_empty() && starts == [from] {
            break;
        }
        if to < lines.len() && (to - range.end <= range.start - from || from == 0) {
            to += 1;
        } else if from > 0 {
            from -= 1;
        } else {
            break;
        }
    }
    let mut body = String::from("*** Update File: f\n@@\n");
    for l in &lines[from..range.start] {
        body.push_str(&format!(" {l}\n"));
    }
    for l in &lines[range.clone()] {
        body.push_str(&format!("-{l}\n"));
    }
    for l in new {
        body.push_str(&format!("+{l}\n"));
    }
    for l in &lines[range.end..to] {
        body.push_str(&format!(" {l}\n"));
    }
    body
}

proptest::proptest! {
    #[test]
    fn a_hunk_whose_lines_fit_one_place_lands_exactly_there_and_one_that_fits_none_is_refused(
        lines in proptest::collection::vec(proptest::sample::select(vec!["}", "", "a", "  a", "b", "x = 1"]), 1..40),
        at in 0usize..40,
        len in 0usize..4,
        new in proptest::collection::vec(proptest::sample::select(vec!["N", "  n", ""]), 0..3),
    ) {
        let at = at % lines.len();
        let range = at..(at + len).min(lines.len());
        proptest::prop_assume!(!range.is_empty() || !new.is_empty());
        let body = unique_hunk(&lines, range.clone(), &new);
        let text = lines.join("\n") + "\n";
        let mut want: Vec<&str> = lines.clone();
        want.splice(range.clone(), new.iter().copied());
        let want = if want.is_empty() { String::new() } else { want.join("\n") + "\n" };
        match apply(&text, &body) {
            Ok(got) => proptest::prop_assert_eq!(got, want, "patch:\n{}", body),
            Err(err) => proptest::prop_assert!(
                matches!(err.code, ErrorCode::ContextAmbiguous | ErrorCode::NoChange),
                "{}: {}\npatch:\n{}",
                err.code,
                err.message,
                body
            ),
        }
        // A hunk naming a line the file does not have is refused.
        let missing = "*** Update File: f\n@@\n-no such line\n+x\n";
        proptest::prop_assert_eq!(apply(&text, missing).unwrap_err().code, ErrorCode::ContextNotFound);
    }
}

proptest::proptest! {
    /// The index finds every place a block starts, as a scan of the file does.
    #[test]
    fn indexed_and_scanned_places_of_a_block_agree(
        lines in proptest::collection::vec(proptest::sample::select(vec!["}", "", "a", "  a", "b"]), 0..40),
        block in proptest::collection::vec(proptest::sample::select(vec!["}", "", "a", "  a", "b"]), 0..4),
        from in 0usize..40,
    ) {
        let doc = Document::from_text(&lines.iter().map(|l| format!("{l}\n")).collect::<String>());
        let from = from.min(doc.line_count());
        for tier in [Tier::Exact, Tier::Trimmed] {
            let scanned = block_starts(&LineIndex::new(&doc, 1), from, &block, tier);
            let indexed = block_starts(&LineIndex::new(&doc, usize::MAX), from, &block, tier);
            proptest::prop_assert_eq!(scanned, indexed);
        }
    }
}

mod session {
    use super::*;
    use crate::{Hashline, Options};
    use std::fs;

    fn setup(files: &[(&str, &[u8])]) -> (tempfile::TempDir, Hashline) {
        let dir = tempfile::tempdir().unwrap();
        for (name, bytes) in files {
            let path = dir.path().join(name);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(path, bytes).unwrap();
        }
        let engine = Hashline::new(Options::new(dir.path())).unwrap();
        (dir, engine)
    }

    fn run(engine: &Hashline, body: &str) -> Result<PatchResult> {
        let plan = engine.plan_patch(&patch(body))?;
        engine.commit_patch(&plan)
    }

    #[test]
    fn adds_updates_deletes_and_moves_in_one_patch() {
        let (dir, engine) = setup(&[
            ("modify.txt", b"line1\nline2\n"),
            ("delete.txt", b"obsolete\n"),
            ("old/name.txt", b"old content\n"),
        ]);
        let result = run(
            &engine,
            "*** Add File: nested/new.txt\n+created\n*** Delete File: delete.txt\n*** Update File: modify.txt\n@@\n-line2\n+changed\n*** Update File: old/name.txt\n*** Move to: renamed/dir/name.txt\n@@\n-old content\n+new content",
        )
        .unwrap();
        assert_eq!(
            fs::read(dir.path().join("nested/new.txt")).unwrap(),
            b"created\n"
        );
        assert_eq!(
            fs::read(dir.path().join("modify.txt")).unwrap(),
            b"line1\nchanged\n"
        );
        assert!(!dir.path().join("delete.txt").exists());
        assert!(!dir.path().join("old/name.txt").exists());
        assert_eq!(
            fs::read(dir.path().join("renamed/dir/name.txt")).unwrap(),
            b"new content\n"
        );
        assert!(result.output.starts_with("Success. Updated the following files:\nA nested/new.txt\nD delete.txt\nM modify.txt\nM renamed/dir/name.txt\n"), "{}", result.output);
        let kinds: Vec<FileKind> = result.files.iter().map(|f| f.kind).collect();
        assert_eq!(
            kinds,
            [
                FileKind::Add,
                FileKind::Delete,
                FileKind::Update,
                FileKind::Move
            ]
        );
        assert_eq!(result.files[2].additions, 1);
        assert_eq!(result.files[2].deletions, 1);
        assert_eq!(result.files[1].deletions, 1);
    }

    #[test]
    fn a_bom_crlf_file_and_a_file_without_final_newline_keep_their_bytes() {
        let (dir, engine) = setup(&[
            (
                "w.cs",
                b"\xEF\xBB\xBFclass A\r\n{\r\n    int x = 1;\r\n}\r\n",
            ),
            ("n.txt", b"a\nb"),
        ]);
        run(&engine, "*** Update File: w.cs\n@@\n {\r\n-    int x = 1;\n+    int x = 2;\n+    int y = 3;\n*** Update File: n.txt\n@@\n-b\n+B").unwrap();
        assert_eq!(
            fs::read(dir.path().join("w.cs")).unwrap(),
            b"\xEF\xBB\xBFclass A\r\n{\r\n    int x = 2;\r\n    int y = 3;\r\n}\r\n"
        );
        assert_eq!(fs::read(dir.path().join("n.txt")).unwrap(), b"a\nB");
    }

    #[test]
    fn a_hunk_that_does_not_fit_in_one_file_leaves_every_file_untouched() {
        let (dir, engine) = setup(&[("a.txt", b"a\n"), ("b.txt", b"b\n")]);
        let err = run(&engine, "*** Add File: created.txt\n+hello\n*** Update File: a.txt\n@@\n-a\n+A\n*** Update File: b.txt\n@@\n-nope\n+x\n*** Delete File: a2.txt").unwrap_err();
        // Every file's problem is reported at once.
        assert_eq!(err.code, ErrorCode::ContextNotFound, "{}", err.message);
        assert!(
            err.message.contains("File a2.txt not found"),
            "{}",
            err.message
        );
        let err = run(&engine, "*** Add File: created.txt\n+hello\n*** Update File: a.txt\n@@\n-a\n+A\n*** Update File: b.txt\n@@\n-nope\n+x").unwrap_err();
        assert_eq!(err.code, ErrorCode::ContextNotFound);
        assert!(!dir.path().join("created.txt").exists());
        assert_eq!(fs::read(dir.path().join("a.txt")).unwrap(), b"a\n");
        assert_eq!(fs::read(dir.path().join("b.txt")).unwrap(), b"b\n");
    }

    #[test]
    fn a_file_changed_after_planning_refuses_the_whole_patch() {
        let (dir, engine) = setup(&[("a.txt", b"a\n"), ("b.txt", b"b\n")]);
        let plan = engine
            .plan_patch(&patch(
                "*** Update File: a.txt\n@@\n-a\n+A\n*** Update File: b.txt\n@@\n-b\n+B",
            ))
            .unwrap();
        fs::write(dir.path().join("b.txt"), "b\nmore\n").unwrap();
        let err = engine.commit_patch(&plan).unwrap_err();
        assert_eq!(err.code, ErrorCode::BaseChanged);
        assert_eq!(fs::read(dir.path().join("a.txt")).unwrap(), b"a\n");
    }

    #[test]
    fn relative_paths_resolve_against_the_working_folder_and_display_from_the_root() {
        let (dir, engine) = setup(&[("sub/a.txt", b"a\n")]);
        let plan = engine
            .plan_patch_with(
                &patch("*** Update File: a.txt\n@@\n-a\n+A\n*** Add File: b.txt\n+b"),
                &crate::PatchOptions {
                    directory: Some(dir.path().join("sub")),
                    ..Default::default()
                },
            )
            .unwrap();
        assert_eq!(
            plan.result().summary,
            "Success. Updated the following files:\nM sub/a.txt\nA sub/b.txt\n"
        );
        engine.commit_patch(&plan).unwrap();
        assert_eq!(fs::read(dir.path().join("sub/b.txt")).unwrap(), b"b\n");
        assert_eq!(
            paths(&patch(
                "*** Update File: a\n*** Move to: b\n*** Delete File: c"
            ))
            .unwrap(),
            ["a", "b", "c"]
        );
    }

    #[test]
    fn a_patch_naming_one_file_twice_is_a_conflict() {
        let (_dir, engine) = setup(&[("a.txt", b"a\nb\n")]);
        let err = run(
            &engine,
            "*** Update File: a.txt\n@@\n-a\n+A\n*** Update File: ./a.txt\n@@\n-b\n+B",
        )
        .unwrap_err();
        assert_eq!(err.code, ErrorCode::Conflict);
    }

    #[test]
    fn paths_outside_the_root_are_refused_for_every_kind_of_change() {
        let (_dir, engine) = setup(&[("a.txt", b"a\n")]);
        for body in [
            "*** Add File: ../x.txt\n+x",
            "*** Delete File: ../x.txt",
            "*** Update File: a.txt\n*** Move to: ../x.txt\n@@\n-a\n+b",
        ] {
            assert_eq!(
                run(&engine, body).unwrap_err().code,
                ErrorCode::OutsideRoot,
                "{body}"
            );
        }
    }

    #[test]
    fn a_missing_file_to_update_or_delete_and_a_folder_are_refused() {
        let (dir, engine) = setup(&[]);
        fs::create_dir(dir.path().join("dir")).unwrap();
        assert_eq!(
            run(&engine, "*** Update File: missing.txt\n@@\n-a\n+b")
                .unwrap_err()
                .code,
            ErrorCode::NotFound
        );
        assert_eq!(
            run(&engine, "*** Delete File: missing.txt")
                .unwrap_err()
                .code,
            ErrorCode::NotFound
        );
        assert_eq!(
            run(&engine, "*** Delete File: dir").unwrap_err().code,
            ErrorCode::NotAFile
        );
    }

    #[test]
    fn a_ref_header_from_an_earlier_read_is_remapped_or_refused() {
        let (dir, engine) = setup(&[("f.txt", b"a\nb\nc\nd\n")]);
        let view = engine.read("f.txt").unwrap().view;
        let doc = Document::from_text("a\nb\nc\nd\n");
        let ref_c = Ref::of_line(&doc, 2);
        // Someone else inserts two lines at the top.
        fs::write(dir.path().join("f.txt"), "x\ny\na\nb\nc\nd\n").unwrap();
        let result = run(
            &engine,
            &format!("*** Update File: f.txt\n@@ {ref_c}\n-c\n+C"),
        )
        .unwrap();
        assert_eq!(
            fs::read(dir.path().join("f.txt")).unwrap(),
            b"x\ny\na\nb\nC\nd\n"
        );
        assert!(
            result.output.contains(&format!("REV {}", view.rev)),
            "{}",
            result.output
        );
        // A ref to a line that is gone is refused with the lines as they are.
        let err = run(
            &engine,
            &format!("*** Update File: f.txt\n@@ {ref_c}\n-c\n+C2"),
        )
        .unwrap_err();
        assert_eq!(err.code, ErrorCode::HashMismatch, "{}", err.message);
        assert!(err.message.contains("hunk 1"), "{}", err.message);
    }

    #[test]
    fn refs_from_before_a_formatter_rewrote_the_file_still_remap() {
        let (dir, engine) = setup(&[("f.js", b"let a=1\nlet b=2\nlet c=3\n")]);
        engine.read("f.js").unwrap();
        let before = Document::from_text("let a=1\nlet b=2\nlet c=3\n");
        let ref_c = Ref::of_line(&before, 2);
        let done = run(&engine, "*** Update File: f.js\n@@\n-let a=1\n+let a = 1").unwrap();
        let written = done.files[0].rev.clone().unwrap();
        // The formatter rewrites line 2 and adds a line at the top.
        fs::write(
            dir.path().join("f.js"),
            "// formatted\nlet a = 1\nlet b = 2\nlet c=3\n",
        )
        .unwrap();
        let re = engine
            .reformatted_with(
                "f.js",
                &written,
                &crate::ReformatOptions {
                    since: done.files[0].previous_rev.clone(),
                    ..Default::default()
                },
                &crate::Cancel::new(),
            )
            .unwrap()
            .unwrap();
        let now = Document::from_text("// formatted\nlet a = 1\nlet b = 2\nlet c=3\n");
        assert!(
            re.output
                .contains(&format!("+{} // formatted", Ref::pair_of_line(&now, 0))),
            "{}",
            re.output
        );
        assert!(
            re.output
                .contains(&format!("+{} let b = 2", Ref::pair_of_line(&now, 2))),
            "{}",
            re.output
        );
        assert_eq!(engine.reformatted("f.js", &re.rev).unwrap(), None);
        let edited = engine
            .edit(
                "f.js",
                &crate::Request::Operations {
                    operations: vec![crate::Operation::new(
                        crate::OpKind::Replace,
                        Some(&ref_c.to_string()),
                        None,
                        "let c = 3",
                    )],
                    rev: None,
                },
            )
            .unwrap();
        assert!(
            edited
                .output
                .contains("were found at their current positions"),
            "{}",
            edited.output
        );
        assert_eq!(
            fs::read(dir.path().join("f.js")).unwrap(),
            b"// formatted\nlet a = 1\nlet b = 2\nlet c = 3\n"
        );
    }
}
