//! Nothing is written on a guess: content reaches the file byte for byte as
//! sent, or without only what the engine proves copied from what it showed,
//! or the edit is refused with `AMBIGUOUS_ECHO`. A lean ref holds only on a
//! line a view showed, and a version the model read after another is not
//! vetoed by the older one.

use crate::{
    apply_to_text, pair_tag, ErrorCode, Hashline, OpKind, Operation, Options, Request, Result,
    ViewStyle,
};
use proptest::prelude::*;
use std::fs;
use std::path::PathBuf;

fn session_in(dir: &std::path::Path, store: Option<PathBuf>) -> Hashline {
    let mut options = Options::new(dir);
    options.view = ViewStyle::Lean;
    options.store_dir = store;
    Hashline::new(options).unwrap()
}

/// A folder holding `name` with `text`, and a session over it.
fn setup(name: &str, text: &str) -> (tempfile::TempDir, PathBuf, Hashline) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join(name);
    fs::write(&file, text).unwrap();
    let engine = session_in(dir.path(), None);
    (dir, file, engine)
}

fn request(operations: Vec<Operation>, rev: Option<&str>) -> Request {
    Request::Operations {
        operations,
        rev: rev.map(str::to_owned),
    }
}

fn tag(line: usize, text: &str) -> String {
    String::from_utf8(pair_tag(line, text).to_vec()).unwrap()
}

/// The lean ref a view shows for line `line` (1-based) holding `text`.
fn lean(line: usize, text: &str) -> String {
    format!("{line}{}", tag(line, text))
}

/// Replaces line `line` of `name` (which holds `lines`) with `content`
/// after a read, and returns the outcome and the file's text after it.
fn replace_after_read(
    lines: &[&str],
    name: &str,
    line: usize,
    content: &str,
) -> (Result<()>, String, String) {
    let text = lines.join("\n") + "\n";
    let (_dir, file, engine) = setup(name, &text);
    engine.read(name).unwrap();
    let op = Operation::new(
        OpKind::Replace,
        Some(&lean(line, lines[line - 1])),
        None,
        content,
    );
    let outcome = engine.edit(name, &request(vec![op], None)).map(|_| ());
    (outcome, text, fs::read_to_string(&file).unwrap())
}

/// `content` landed in place of line `line` exactly as sent, or the edit
/// was refused for an ambiguous echo and the file is as it was.
fn written_exactly_or_refused(
    lines: &[&str],
    line: usize,
    content: &str,
    outcome: Result<()>,
    before: &str,
    after: &str,
) -> std::result::Result<(), String> {
    match outcome {
        Ok(()) => {
            let mut want: Vec<&str> = lines.to_vec();
            want.splice(line - 1..line, content.split('\n'));
            let want = want.join("\n") + "\n";
            (after == want)
                .then_some(())
                .ok_or(format!("{content:?} was written as {after:?}"))
        }
        Err(err) if err.code == ErrorCode::AmbiguousEcho && after == before => Ok(()),
        Err(err) => Err(format!("{content:?}: {err:?}")),
    }
}

/// The operation is refused as an ambiguous echo with the file untouched,
/// then written as sent once it is marked `literal`, leaving `written`.
/// Returns the refusal, for what its message must say.
fn refused_then_written_when_literal(
    engine: &Hashline,
    file: &std::path::Path,
    name: &str,
    op: &Operation,
    written: &str,
) -> crate::Error {
    let before = fs::read_to_string(file).unwrap();
    let err = engine
        .edit(name, &request(vec![op.clone()], None))
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::AmbiguousEcho, "{}", err.message);
    assert_eq!(fs::read_to_string(file).unwrap(), before);
    engine
        .edit(name, &request(vec![op.clone().literal()], None))
        .unwrap();
    assert_eq!(fs::read_to_string(file).unwrap(), written);
    err
}

#[test]
fn ordinals_times_units_and_algebra_are_written_as_sent() {
    let lines = ["intro", "party", "venue", "- list", "end"];
    for content in [
        "3rd party",
        "25th December 2024",
        "8am standup",
        "1px solid red",
        "4bc + 9",
        "1st place\n3rd place",
        "5th avenue\n7th floor",
        "9pm party\n10am brunch",
    ] {
        let (outcome, before, after) = replace_after_read(&lines, "notes.md", 2, content);
        written_exactly_or_refused(&lines, 2, content, outcome, &before, &after).unwrap();
    }
}

#[test]
fn a_prefix_that_names_a_shown_line_with_too_little_evidence_is_refused_then_written_when_literal()
{
    // Line 3 of the file is made to carry the tag `rd`, so `3rd party`
    // names it: one lean line with another text is 8.4 bits of evidence.
    let third = (0..)
        .map(|k| format!("venue {k}"))
        .find(|t| tag(3, t) == "rd")
        .unwrap();
    let text = format!("intro\nparty\n{third}\nend\n");
    let (_dir, file, engine) = setup("notes.md", &text);
    engine.read("notes.md").unwrap();
    let op = Operation::new(OpKind::Replace, Some(&lean(2, "party")), None, "3rd party");
    let written = format!("intro\n3rd party\n{third}\nend\n");
    let err = refused_then_written_when_literal(&engine, &file, "notes.md", &op, &written);
    assert!(err.message.contains("\"3rd\""), "{}", err.message);
    assert!(err.message.contains("\"literal\": true"), "{}", err.message);
}

#[test]
fn one_inserted_line_that_starts_with_the_lean_ref_of_its_own_place_and_text_alike_to_that_line_is_refused(
) {
    // Prose keeps half the characters of unrelated prose often enough that
    // `alike` text is weak evidence: a legitimate line that starts with
    // the number and tag of the line it pushes down, followed by other
    // words, is refused, never cut.
    let fourth = "see the total";
    let text = format!("one\ntwo\nthree\n{fourth}\n");
    let (_dir, file, engine) = setup("notes.md", &text);
    engine.read("notes.md").unwrap();
    let content = format!("{} see + the total", lean(4, fourth));
    let content = content.as_str();
    let op = Operation::new(OpKind::InsertAfter, Some(&lean(3, "three")), None, content);
    let written = format!("one\ntwo\nthree\n{content}\n{fourth}\n");
    refused_then_written_when_literal(&engine, &file, "notes.md", &op, &written);
}

#[test]
fn prefixes_copied_from_a_read_of_the_file_are_removed_and_the_removal_is_reported() {
    let text = "fn a() {\n    one();\n    two();\n}\n";
    let (_dir, file, engine) = setup("a.rs", text);
    engine.read("a.rs").unwrap();
    let content = format!(
        "{} ONE();\n{}     two();",
        lean(2, "    one();"),
        lean(3, "    two();")
    );
    let result = engine
        .edit(
            "a.rs",
            &request(
                vec![Operation::new(
                    OpKind::Replace,
                    Some(&lean(2, "    one();")),
                    Some(&lean(3, "    two();")),
                    &content,
                )],
                None,
            ),
        )
        .unwrap();
    assert_eq!(
        fs::read_to_string(&file).unwrap(),
        "fn a() {\nONE();\n    two();\n}\n"
    );
    assert!(result.output.contains("removed the view prefixes"));
}

#[test]
fn a_repeat_of_the_next_line_that_parses_either_way_is_refused_not_dropped_and_never_called_no_change(
) {
    let text = "a = 1;\nb = 2;\n";
    let (_dir, file, engine) = setup("x.js", text);
    engine.read("x.js").unwrap();
    let op = Operation::new(
        OpKind::Replace,
        Some(&lean(1, "a = 1;")),
        None,
        "a = 1;\nb = 2;",
    );
    let err =
        refused_then_written_when_literal(&engine, &file, "x.js", &op, "a = 1;\nb = 2;\nb = 2;\n");
    assert!(
        err.message
            .contains("its last content line \"b = 2;\" is the same as line 2"),
        "{}",
        err.message
    );
}

#[test]
fn a_jsx_closer_echoed_after_a_self_closing_element_with_a_comparison_is_dropped_once() {
    let text = "const x = (\n  <Foo>\n    <Bar value={a > b} />\n  </Foo>\n);\n";
    let (_dir, file, engine) = setup("x.tsx", text);
    engine.read("x.tsx").unwrap();
    let op = Operation::new(
        OpKind::Replace,
        Some(&lean(3, "    <Bar value={a > b} />")),
        None,
        "    <Bar value={a > c} />\n  </Foo>",
    );
    let result = engine.edit("x.tsx", &request(vec![op], None)).unwrap();
    assert_eq!(
        fs::read_to_string(&file).unwrap(),
        "const x = (\n  <Foo>\n    <Bar value={a > c} />\n  </Foo>\n);\n"
    );
    assert!(result.output.contains("dropped its last content line"));
}

#[test]
fn a_repeat_judged_by_a_parse_of_its_own_operation_alone_is_refused_when_another_operation_changes_the_file(
) {
    // The first insert closes `body`; judged alone, the second insert's
    // `}` (a copy of line 4) parses as the close of a nested rule, and a
    // parse without the first insert would keep it: written twice.
    let text = "body {\n    margin: 0;\n\n}\n";
    let (_dir, file, engine) = setup("style.css", text);
    engine.read("style.css").unwrap();
    let ops = vec![
        Operation::new(
            OpKind::InsertAfter,
            Some(&lean(2, "    margin: 0;")),
            None,
            "    padding: 20px;\n}",
        ),
        Operation::new(
            OpKind::InsertAfter,
            Some(&lean(3, "")),
            None,
            "h1, a {\n    color: #a00;\n}",
        ),
    ];
    match engine.edit("style.css", &request(ops, None)) {
        Ok(_) => assert_eq!(
            fs::read_to_string(&file).unwrap(),
            "body {\n    margin: 0;\n    padding: 20px;\n}\n\nh1, a {\n    color: #a00;\n}\n"
        ),
        Err(err) => {
            assert_eq!(err.code, ErrorCode::AmbiguousEcho, "{}", err.message);
            assert_eq!(fs::read_to_string(&file).unwrap(), text);
        }
    }
}

#[test]
fn a_nested_element_whose_opening_tag_spans_lines_keeps_its_own_closer_or_is_refused() {
    let text = "<section>\n<p>old</p>\n</section>\n";
    let content = "<section\n  class=\"inner\">\n<p>new</p>\n</section>";
    let (_dir, file, engine) = setup("x.html", text);
    engine.read("x.html").unwrap();
    let op = Operation::new(OpKind::Replace, Some(&lean(2, "<p>old</p>")), None, content);
    match engine.edit("x.html", &request(vec![op], None)) {
        Ok(_) => assert_eq!(
            fs::read_to_string(&file).unwrap(),
            format!("<section>\n{content}\n</section>\n")
        ),
        Err(err) => {
            assert_eq!(err.code, ErrorCode::AmbiguousEcho, "{}", err.message);
            assert_eq!(fs::read_to_string(&file).unwrap(), text);
        }
    }
}

#[test]
fn literal_on_the_request_writes_every_operation_as_sent() {
    let value = crate::Value::Object(vec![
        ("literal".into(), crate::Value::Bool(true)),
        (
            "operations".into(),
            crate::Value::Array(vec![crate::Value::Object(vec![
                ("op".into(), crate::Value::String("replace".into())),
                ("ref".into(), crate::Value::String(lean(1, "a = 1;"))),
                (
                    "content".into(),
                    crate::Value::String("a = 1;\nb = 2;".into()),
                ),
            ])]),
        ),
    ]);
    let parsed = Request::from_value(&value).unwrap();
    let (_dir, file, engine) = setup("x.js", "a = 1;\nb = 2;\n");
    engine.read("x.js").unwrap();
    engine.edit("x.js", &parsed).unwrap();
    assert_eq!(
        fs::read_to_string(&file).unwrap(),
        "a = 1;\nb = 2;\nb = 2;\n"
    );
}

/// A text of `n` lines whose line `at` (1-based) has the lean tag `wanted`
/// and another text than `avoid`.
fn with_tag_at(n: usize, at: usize, wanted: &str, avoid: &str) -> Vec<String> {
    let mut lines: Vec<String> = (1..=n).map(|k| format!("line {k}")).collect();
    lines[at - 1] = (0..)
        .map(|k| format!("changed {k}"))
        .find(|t| t != avoid && tag(at, t) == wanted)
        .unwrap();
    lines
}

#[test]
fn an_old_lean_ref_with_the_rev_of_a_later_partial_read_never_edits_a_line_no_view_showed() {
    let old: Vec<String> = (1..=100).map(|k| format!("line {k}")).collect();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("f.txt");
    fs::write(&file, old.join("\n") + "\n").unwrap();
    // A first engine shows line 80 (then the process ends).
    session_in(dir.path(), None).read("f.txt").unwrap();
    let cited = lean(80, &old[79]);
    // Outside, line 80 becomes another line with the same tag.
    let now = with_tag_at(100, 80, &tag(80, &old[79]), &old[79]);
    let text = now.join("\n") + "\n";
    fs::write(&file, &text).unwrap();
    // A fresh engine reads lines 1-10 only, and is sent the old ref with
    // that read's REV.
    let engine = session_in(dir.path(), None);
    let view = engine
        .read_with(
            "f.txt",
            &crate::ReadOptions {
                offset: Some(1),
                limit: Some(10),
                ..Default::default()
            },
        )
        .unwrap();
    let op = Operation::new(OpKind::Replace, Some(&cited), None, "X");
    let err = engine
        .edit("f.txt", &request(vec![op.clone()], Some(&view.view.rev)))
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::UnseenLines, "{}", err.message);
    assert_eq!(fs::read_to_string(&file).unwrap(), text);
    // A text held by the caller: no view showed the line of a lean ref.
    let err = apply_to_text(&text, &request(vec![op], Some(&view.view.rev)), true).unwrap_err();
    assert_eq!(err.code, ErrorCode::HashMismatch, "{}", err.message);
}

#[test]
fn a_ref_read_again_after_an_editor_trimmed_trailing_spaces_is_accepted() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("f.txt");
    for store in [None, Some(dir.path().join("store"))] {
        fs::write(&file, "value  \nnext\n").unwrap();
        let engine = session_in(dir.path(), store.clone());
        engine.read("f.txt").unwrap();
        fs::write(&file, "value\nnext\n").unwrap();
        let cited = lean(1, "value");
        let op = Operation::new(OpKind::Replace, Some(&cited), None, "VALUE");
        // Not read again: which version the ref means cannot be told, and
        // the refusal says so rather than calling the ref a mismatch.
        let err = engine
            .edit("f.txt", &request(vec![op.clone()], None))
            .unwrap_err();
        assert_eq!(err.code, ErrorCode::HashMismatch);
        assert!(
            !err.message
                .contains(&format!("{cited} does not match; line 1 is now {cited}")),
            "{}",
            err.message
        );
        assert!(err.message.contains("cannot be told"), "{}", err.message);
        // Read again (in a new process when the versions are on disk).
        let again = session_in(dir.path(), store.clone());
        let engine = if store.is_some() { &again } else { &engine };
        engine.read("f.txt").unwrap();
        engine.edit("f.txt", &request(vec![op], None)).unwrap();
        assert_eq!(fs::read_to_string(&file).unwrap(), "VALUE\nnext\n");
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// A line that starts with a number and letters, as ordinals, times,
    /// units and algebra do, replacing or inserted next to a line of a file
    /// read in full, is written exactly as sent or refused: never altered.
    #[test]
    fn lines_that_start_with_a_number_and_letters_are_written_exactly_or_refused(
        number in 1usize..40,
        letters in "[a-z]{2,3}",
        separator in prop::sample::select(vec![" ", "\t"]),
        rest in "[a-zA-Z0-9 +.,]{0,20}",
        file in prop::collection::vec("[a-z ]{0,12}", 1..40),
        pick in any::<prop::sample::Index>(),
        lines_sent in 1usize..4,
    ) {
        let content: Vec<String> = (0..lines_sent)
            .map(|k| format!("{}{letters}{separator}{rest}", number + 2 * k))
            .collect();
        let content = content.join("\n");
        let lines: Vec<&str> = file.iter().map(String::as_str).collect();
        let at = pick.index(lines.len()) + 1;
        let (outcome, before, after) = replace_after_read(&lines, "f.txt", at, &content);
        if let Err(problem) = written_exactly_or_refused(&lines, at, &content, outcome, &before, &after) {
            prop_assert!(false, "{}", problem);
        }
    }
}

#[test]
fn a_repeated_neighbour_that_carried_its_own_ref_is_a_proven_echo_without_a_parser() {
    let text = "a\nb\nc\n";
    let (_dir, file, engine) = setup("f.txt", text);
    engine.read("f.txt").unwrap();
    // The model copied line 1 with its ref as context: its prefix, proven a
    // copy of line 1, says the repeat is that line, not new text.
    let content = format!("{} a\nB", lean(1, "a"));
    let op = Operation::new(OpKind::Replace, Some(&lean(2, "b")), None, &content);
    let result = engine.edit("f.txt", &request(vec![op], None)).unwrap();
    assert_eq!(fs::read_to_string(&file).unwrap(), "a\nB\nc\n");
    assert!(
        result.output.contains("it carried that line's ref"),
        "{}",
        result.output
    );
    // Without the ref, the same repeat in a file no parser reads is doubtful.
    let (_dir, file, engine) = setup("f.txt", text);
    engine.read("f.txt").unwrap();
    let op = Operation::new(OpKind::Replace, Some(&lean(2, "b")), None, "a\nB");
    let err = engine.edit("f.txt", &request(vec![op], None)).unwrap_err();
    assert_eq!(err.code, ErrorCode::AmbiguousEcho);
    assert_eq!(fs::read_to_string(&file).unwrap(), text);
}

#[test]
fn an_old_lean_ref_sent_with_the_rev_an_edit_made_never_lands_on_a_line_only_carried_there() {
    // Lines 40, 42 and 44 read the same; deleting lines 13-14 moves line 44
    // to 42, where the old ref `42..` still holds.
    let mut lines: Vec<String> = (1..=60).map(|k| format!("line {k}")).collect();
    for at in [40, 42, 44] {
        lines[at - 1] = " *".into();
    }
    let text = lines.join("\n") + "\n";
    let cited = lean(42, " *");
    let op = Operation::new(OpKind::Replace, Some(&cited), None, "X");
    // Read, delete lines 13-14, then cite the read's ref of line 42.
    let edited = || {
        let (dir, file, engine) = setup("f.txt", &text);
        engine.read("f.txt").unwrap();
        let delete = Operation::new(
            OpKind::Delete,
            Some(&lean(13, &lines[12])),
            Some(&lean(14, &lines[13])),
            "",
        );
        let result = engine.edit("f.txt", &request(vec![delete], None)).unwrap();
        (dir, file, engine, result.rev)
    };
    // With the REV of the edit's result: no view showed line 42 of that
    // version, whose text the read showed as line 44.
    let (_dir, file, engine, rev) = edited();
    let after = fs::read_to_string(&file).unwrap();
    let err = engine
        .edit("f.txt", &request(vec![op.clone()], Some(&rev)))
        .unwrap_err();
    assert!(
        matches!(err.code, ErrorCode::UnseenLines | ErrorCode::HashMismatch),
        "{err:?}"
    );
    assert_eq!(fs::read_to_string(&file).unwrap(), after);
    // Without it, the ref is the read's, and its line is now line 40.
    let (_dir, file, engine, _) = edited();
    engine.edit("f.txt", &request(vec![op], None)).unwrap();
    let now: Vec<String> = fs::read_to_string(&file)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect();
    assert_eq!(
        (now[37].as_str(), now[39].as_str(), now[41].as_str()),
        (" *", "X", " *")
    );
}

/// The full view of a text the caller holds.
fn full_view(text: &str) -> crate::View {
    crate::format_view_with(
        text,
        "a",
        &crate::FormatViewOptions {
            view: ViewStyle::Full,
            ..Default::default()
        },
    )
    .unwrap()
}

/// The lines of a view (header first), as a model copies them.
fn view_lines(view: &crate::View) -> Vec<String> {
    view.text.lines().map(str::to_owned).collect()
}

/// `lines` 1-based `from..=to` of a view (its header is line 0).
fn copied(view: &[String], from: usize, to: usize) -> Vec<String> {
    view[from..=to].to_vec()
}

/// A text of Rust with a blank line 3 between two statements.
const WITH_BLANK: &str = "fn a() {\n    one();\n\n    two();\n}\n";

#[test]
fn a_copied_lean_range_whose_blank_line_lost_its_trailing_space_lands_without_any_prefix() {
    let (_dir, file, engine) = setup("a.rs", WITH_BLANK);
    let view = view_lines(&engine.read("a.rs").unwrap().view);
    // Lines 2-4 copied, the blank line's `3xx ` without its trailing space,
    // line 4 changed.
    let mut content = copied(&view, 2, 4);
    content[1] = content[1].trim_end().to_owned();
    content[2] = content[2].replace("two", "TWO");
    assert!(!content[1].contains(' '), "{content:?}");
    let op = Operation::new(
        OpKind::Replace,
        Some(&lean(2, "    one();")),
        Some(&lean(4, "    two();")),
        &content.join("\n"),
    );
    engine.edit("a.rs", &request(vec![op], None)).unwrap();
    let want = "fn a() {\n    one();\n\n    TWO();\n}\n";
    assert_eq!(fs::read_to_string(&file).unwrap(), want);

    // Text the caller holds, viewed lean by the caller.
    let lean_view = crate::format_view_with(
        WITH_BLANK,
        "a.rs",
        &crate::FormatViewOptions {
            view: ViewStyle::Lean,
            ..Default::default()
        },
    )
    .unwrap();
    let held = view_lines(&lean_view);
    let mut content = copied(&held, 2, 4);
    content[1] = content[1].trim_end().to_owned();
    content[2] = content[2].replace("two", "TWO");
    let refs: Vec<String> = view_lines(&full_view(WITH_BLANK))[1..]
        .iter()
        .map(|l| l.split('|').next().unwrap().to_owned())
        .collect();
    let op = Operation::new(
        OpKind::Replace,
        Some(&refs[1]),
        Some(&refs[3]),
        &content.join("\n"),
    );
    let (text, _) = apply_to_text(WITH_BLANK, &request(vec![op], None), true).unwrap();
    assert_eq!(text, want);

    // A whole file written with the view's lines (a host's `write`).
    let (_dir, _file, engine) = setup("a.rs", WITH_BLANK);
    let view = view_lines(&engine.read("a.rs").unwrap().view);
    let written: String = view[1..]
        .iter()
        .map(|l| format!("{}\n", l.trim_end()))
        .collect();
    let stripped = engine.strip_view_prefixes("a.rs", &written).unwrap();
    assert_eq!(stripped.text, WITH_BLANK);
}

#[test]
fn a_whole_file_written_with_copied_prefixes_below_a_line_of_its_own_loses_every_prefix() {
    let (_dir, _file, engine) = setup("a.rs", WITH_BLANK);
    let view = view_lines(&engine.read("a.rs").unwrap().view);
    let written: String = std::iter::once("// added".to_owned())
        .chain(view[1..].iter().cloned())
        .map(|l| format!("{l}\n"))
        .collect();
    let stripped = engine.strip_view_prefixes("a.rs", &written).unwrap();
    assert_eq!(stripped.text, format!("// added\n{WITH_BLANK}"));
}

/// A text whose line 2 is longer than a view shows.
fn with_long_line() -> (String, String) {
    let long = format!(
        "const DATA = \"{}\";",
        (0..2600)
            .map(|i| char::from(b'a' + (i % 26) as u8))
            .collect::<String>()
    );
    (format!("// data\n{long}\nlet x = 1;\n"), long)
}

/// Lines 1-3 of a read of `a.js` (`with_long_line`) copied from its view,
/// changed by `change`, and the replace of lines 1-3 that sends them.
fn cut_range_copied(
    engine: &Hashline,
    change: impl FnOnce(&mut [String]),
) -> (Vec<String>, Operation) {
    let view = view_lines(&engine.read("a.js").unwrap().view);
    let mut content = copied(&view, 1, 3);
    change(&mut content);
    let op = Operation::new(
        OpKind::Replace,
        Some(&lean(1, "// data")),
        Some(&lean(3, "let x = 1;")),
        &content.join("\n"),
    );
    (content, op)
}

#[test]
fn a_copied_range_holding_a_line_the_view_cut_never_writes_it_cut() {
    let (text, long) = with_long_line();
    let want = format!("// data\n{long}\nlet x = 2;\n");
    let (_dir, file, engine) = setup("a.js", &text);
    let (content, op) = cut_range_copied(&engine, |c| c[2] = c[2].replace("x = 1", "x = 2"));
    assert!(content[1].ends_with("its ref covers the whole line)"));
    match engine.edit("a.js", &request(vec![op], None)) {
        Ok(_) => assert_eq!(fs::read_to_string(&file).unwrap(), want),
        Err(err) => {
            assert_eq!(err.code, ErrorCode::AmbiguousEcho, "{}", err.message);
            assert_eq!(fs::read_to_string(&file).unwrap(), text);
        }
    }
    assert!(!fs::read_to_string(&file).unwrap().contains("line cut at"));

    // Text the caller holds, and a whole file written.
    let full = view_lines(&full_view(&text));
    let mut content = copied(&full, 1, 3);
    content[2] = content[2].replace("x = 1", "x = 2");
    let refs: Vec<&str> = full[1..]
        .iter()
        .map(|l| l.split('|').next().unwrap())
        .collect();
    let op = Operation::new(
        OpKind::Replace,
        Some(refs[0]),
        Some(refs[2]),
        &content.join("\n"),
    );
    match apply_to_text(&text, &request(vec![op], None), true) {
        Ok((written, _)) => assert_eq!(written, want),
        Err(err) => assert_eq!(err.code, ErrorCode::AmbiguousEcho, "{}", err.message),
    }
    let (_dir, _file, engine) = setup("a.js", &text);
    let view = view_lines(&engine.read("a.js").unwrap().view);
    let written: String = view[1..].iter().map(|l| format!("{l}\n")).collect();
    match engine.strip_view_prefixes("a.js", &written) {
        Ok(stripped) => assert_eq!(stripped.text, text),
        Err(err) => assert_eq!(err.code, ErrorCode::AmbiguousEcho, "{}", err.message),
    }
}

#[test]
fn a_line_the_view_cut_copied_unchanged_is_written_whole_and_the_restoring_reported() {
    let (text, long) = with_long_line();
    let (_dir, file, engine) = setup("a.js", &text);
    let (_, op) = cut_range_copied(&engine, |c| c[2] = c[2].replace("x = 1", "x = 2"));
    let result = engine.edit("a.js", &request(vec![op], None)).unwrap();
    assert_eq!(
        fs::read_to_string(&file).unwrap(),
        format!("// data\n{long}\nlet x = 2;\n")
    );
    assert!(
        result
            .output
            .contains("wrote line 2 of the content whole: it was copied as a view cut it"),
        "{}",
        result.output
    );
}

#[test]
fn a_line_the_view_cut_that_was_changed_before_the_cut_is_refused_then_written_when_literal() {
    let (text, _) = with_long_line();
    let (_dir, file, engine) = setup("a.js", &text);
    let (content, op) = cut_range_copied(&engine, |c| c[1] = c[1].replace("DATA", "MORE"));
    let prefixed = format!("{}\n", content.join("\n"));
    let err = refused_then_written_when_literal(&engine, &file, "a.js", &op, &prefixed);
    assert!(
        err.message.contains("line 2: ") && err.message.contains("a line a view cut"),
        "{}",
        err.message
    );
}

#[test]
fn a_deletion_sent_as_the_two_neighbours_of_its_range_is_refused_then_written_when_literal() {
    let lines = [
        "package cobra",
        "",
        "// DebugFlags used to determine which flags have been assigned to which commands",
        "// and which persist.",
        "// nolint:goconst",
        "func (c *Command) DebugFlags() {",
        "\tc.Println(\"DebugFlags called on\", c.Name())",
        "}",
    ];
    let text = lines.join("\n") + "\n";
    let (_dir, file, engine) = setup("command.go", &text);
    engine.read("command.go").unwrap();
    let op = Operation::new(
        OpKind::Replace,
        Some(&lean(5, lines[4])),
        None,
        &format!("{}\n{}", lines[3], lines[5]),
    );
    let mut written: Vec<&str> = lines.to_vec();
    written.splice(4..5, [lines[3], lines[5]]);
    let err = refused_then_written_when_literal(
        &engine,
        &file,
        "command.go",
        &op,
        &(written.join("\n") + "\n"),
    );
    assert!(err.message.contains("line 4"), "{}", err.message);
    assert!(err.message.contains("line 6"), "{}", err.message);
}

#[test]
fn a_refusal_of_prefixes_names_only_the_lines_in_doubt() {
    let text = "alpha\nbeta\ngamma\n";
    let (_dir, file, engine) = setup("notes.txt", text);
    engine.read("notes.txt").unwrap();
    let doc = crate::Document::from_text(text);
    // Line 1 carries the full prefix of line 2, a proven copy; line 2 a
    // lean one that names no line any view showed.
    let full = format!("{}|BETA", crate::Ref::of_line(&doc, 1));
    let content = format!("{full}\n9zz invented");
    let op = Operation::new(OpKind::Replace, Some(&lean(2, "beta")), None, &content);
    let err = refused_then_written_when_literal(
        &engine,
        &file,
        "notes.txt",
        &op,
        &format!("alpha\n{content}\ngamma\n"),
    );
    assert!(err.message.contains("\"9zz\""), "{}", err.message);
    assert!(
        !err.message
            .contains(&crate::Ref::of_line(&doc, 1).to_string()),
        "{}",
        err.message
    );
    assert!(!err.message.contains("too little"), "{}", err.message);
}
