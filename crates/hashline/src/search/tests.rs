//! The search's tests through the session: hits, refs, limits, skips,
//! cancellation.

use super::*;
use crate::request::Request;
use crate::session::Options;
use std::fs;

type Tune = fn(&mut SearchOptions);

fn project(files: &[(&str, &[u8])]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (name, content) in files {
        let path = dir.path().join(name);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, content).unwrap();
    }
    dir
}

fn engine(dir: &tempfile::TempDir) -> Hashline {
    Hashline::new(Options::new(dir.path())).unwrap()
}

fn search(engine: &Hashline, pattern: &str, tune: impl FnOnce(&mut SearchOptions)) -> SearchResult {
    let mut options = SearchOptions::new(pattern);
    tune(&mut options);
    engine.search(&options).unwrap()
}

fn paths(result: &SearchResult) -> Vec<&str> {
    let mut paths: Vec<&str> = result.hits.iter().map(|h| h.path.as_str()).collect();
    paths.dedup();
    paths
}

fn replace(reference: &str, content: &str) -> Request {
    Request::replace_one(reference, content)
}

#[test]
fn gitignored_build_output_is_skipped_unless_named() {
    let dir = project(&[
        (".gitignore", b"target/\n"),
        ("src/lib.rs", b"fn needle() {}\n"),
        ("target/debug/out.rs", b"fn needle() {}\n"),
    ]);
    let engine = engine(&dir);
    assert_eq!(paths(&search(&engine, "needle", |_| {})), ["src/lib.rs"]);
    let named = search(&engine, "needle", |o| o.paths = vec!["target".into()]);
    assert_eq!(paths(&named), ["target/debug/out.rs"]);
}

#[test]
fn a_file_named_alone_is_searched_even_ignored_or_hidden_and_the_limit_holds() {
    let dir = project(&[
        (".gitignore", b"out.rs\n"),
        (".env", b"needle 1\nneedle 2\nneedle 3\n"),
        ("out.rs", b"needle 4\n"),
        ("bin.dat", b"needle\0"),
    ]);
    let engine = engine(&dir);
    let alone = |name: &str, max_results: usize| {
        search(&engine, "needle", |o| {
            o.paths = vec![name.into()];
            o.max_results = max_results;
        })
    };
    assert_eq!(alone(".env", 100).hits.len(), 3);
    assert_eq!(paths(&alone("out.rs", 100)), ["out.rs"]);
    let binary = alone("bin.dat", 100);
    assert_eq!((binary.hits.len(), binary.skipped.binary), (0, 1));
    let capped = alone(".env", 2);
    assert_eq!((capped.hits.len(), capped.more), (2, 1));
    assert!(capped.stopped());
}

#[test]
fn hidden_files_are_searched_when_asked_or_named_and_git_folders_only_when_named() {
    let dir = project(&[
        (".env", b"needle\n"),
        (".git/config", b"needle\n"),
        ("a.txt", b"needle\n"),
    ]);
    let engine = engine(&dir);
    assert_eq!(paths(&search(&engine, "needle", |_| {})), ["a.txt"]);
    assert_eq!(
        paths(&search(&engine, "needle", |o| o.hidden = true)),
        [".env", "a.txt"]
    );
    let named = search(&engine, "needle", |o| o.paths = vec![".git".into()]);
    assert_eq!(paths(&named), [".git/config"]);
}

#[test]
fn files_the_engine_would_refuse_are_counted_and_the_first_few_named_in_order() {
    let mut files: Vec<(String, Vec<u8>)> = (0..6)
        .map(|i| (format!("bin{i}.dat"), b"needle\0".to_vec()))
        .collect();
    files.push(("latin1.txt".into(), b"needle caf\xe9\n".to_vec()));
    files.push((
        "big.txt".into(),
        [b"needle\n".as_slice(), &[b'x'; 100]].concat(),
    ));
    files.push(("ok.txt".into(), b"needle\n".to_vec()));
    let borrowed: Vec<(&str, &[u8])> = files
        .iter()
        .map(|(n, c)| (n.as_str(), c.as_slice()))
        .collect();
    let dir = project(&borrowed);
    let mut options = Options::new(dir.path());
    options.max_file_bytes = 50;
    let engine = Hashline::new(options).unwrap();
    let result = search(&engine, "needle", |_| {});
    assert_eq!(paths(&result), ["ok.txt"]);
    assert_eq!(
        (
            result.skipped.binary,
            result.skipped.not_utf8,
            result.skipped.too_large
        ),
        (6, 1, 1)
    );
    let named: Vec<(&str, ErrorCode)> = result
        .skipped
        .files
        .iter()
        .map(|f| (f.path.as_str(), f.reason))
        .collect();
    assert_eq!(
        named,
        [
            ("big.txt", ErrorCode::TooLarge),
            ("bin0.dat", ErrorCode::Binary),
            ("bin1.dat", ErrorCode::Binary),
            ("bin2.dat", ErrorCode::Binary),
            ("latin1.txt", ErrorCode::NotUtf8),
        ]
    );
    assert!(result.text.contains(
        "Not searched: 6 binary files (bin0.dat, bin1.dat, bin2.dat and 3 more); 1 file not valid UTF-8 (latin1.txt); 1 file over the size limit of 50 bytes (big.txt)."
    ));
}

#[test]
fn at_the_limit_the_walk_stops_and_says_how_many_more_it_found() {
    let files: Vec<(String, &[u8])> = (0..300)
        .map(|i| {
            (
                format!("d{}/f{i}.txt", i % 10),
                b"needle\nneedle\nneedle\n".as_slice(),
            )
        })
        .collect();
    let borrowed: Vec<(&str, &[u8])> = files.iter().map(|(n, c)| (n.as_str(), *c)).collect();
    let dir = project(&borrowed);
    let result = search(&engine(&dir), "needle", |o| o.max_results = 4);
    assert_eq!(result.hits.len(), 4);
    assert!(result.stopped());
    // Had the walk gone on, it would have found all 900.
    assert!(result.more >= 2 && 4 + result.more < 900, "{}", result.more);
    assert!(result.text.contains(&format!(
        "stopped at the limit of 4: at least {} more matching lines were not shown",
        result.more
    )));

    let all = search(&engine(&dir), "needle", |o| o.max_results = 900);
    assert_eq!((all.hits.len(), all.more), (900, 0));
}

#[test]
fn refs_of_hits_are_the_refs_read_shows_whatever_the_line_endings() {
    let long = format!("needle {}", "é".repeat(MAX_LINE_CHARS + 10));
    let dir = project(&[
        ("bom.txt", "\u{FEFF}needle one\r\nplain\r\n".as_bytes()),
        ("cr.txt", b"a\rneedle two\r\rb\n"),
        ("mixed.txt", b"x\r\nneedle three\ny\r"),
        ("long.txt", format!("first\n{long}\nlast\n").as_bytes()),
    ]);
    let engine = engine(&dir);
    let result = search(&engine, "needle", |_| {});
    assert_eq!(result.hits.len(), 4);
    for hit in &result.hits {
        let doc = Document::from_bytes(&fs::read(dir.path().join(&hit.path)).unwrap()).unwrap();
        let index = hit.line.line - 1;
        // The session's view is lean: the data carries the ref the
        // text shows.
        assert_eq!(
            hit.line.reference,
            Ref::pair_of_line(&doc, index).to_string(),
            "{}",
            hit.path
        );
        assert!(
            result.text.contains(&format!("{} ", hit.line.reference)),
            "{}",
            hit.path
        );
        assert_eq!(hit.rev, doc.rev());
        assert_eq!(hit.line.truncated, hit.path == "long.txt");
        assert!(doc.line(index).starts_with(&hit.line.text));
    }
    let cr = result.hits.iter().find(|h| h.path == "cr.txt").unwrap();
    assert_eq!(cr.line.line, 2);
    engine
        .edit("cr.txt", &replace(&cr.line.reference, "found"))
        .unwrap();
    assert_eq!(
        fs::read(dir.path().join("cr.txt")).unwrap(),
        b"a\rfound\r\rb\n"
    );
}

#[test]
fn hits_and_their_context_count_as_seen_and_other_lines_do_not() {
    let dir = project(&[("a.txt", b"1\n2\nneedle\n4\n5\n6\n")]);
    let engine = engine(&dir);
    let result = search(&engine, "needle", |o| o.context = 1);
    let hit = &result.hits[0];
    assert_eq!(hit.before.iter().map(|l| l.line).collect::<Vec<_>>(), [2]);
    assert_eq!(hit.after.iter().map(|l| l.line).collect::<Vec<_>>(), [4]);
    engine
        .edit("a.txt", &replace(&hit.after[0].reference, "four"))
        .unwrap();
    let doc = Document::from_bytes(&fs::read(dir.path().join("a.txt")).unwrap()).unwrap();
    let unseen = Ref::of_line(&doc, 5).to_string();
    let err = engine.edit("a.txt", &replace(&unseen, "six")).unwrap_err();
    assert_eq!(err.code, ErrorCode::UnseenLines);
    assert_eq!(
        fs::read(dir.path().join("a.txt")).unwrap(),
        b"1\n2\nneedle\nfour\n5\n6\n"
    );
}

#[test]
fn a_hit_recorded_by_search_remaps_after_an_outside_edit() {
    let dir = project(&[("a.txt", b"x\nneedle\ny\n")]);
    let engine = engine(&dir);
    let hit = search(&engine, "needle", |_| {}).hits.remove(0);
    fs::write(dir.path().join("a.txt"), "new\nx\nneedle\ny\n").unwrap();
    engine
        .edit("a.txt", &replace(&hit.line.reference, "pin"))
        .unwrap();
    assert_eq!(
        fs::read(dir.path().join("a.txt")).unwrap(),
        b"new\nx\npin\ny\n"
    );
}

#[test]
fn nested_repetition_runs_in_linear_time() {
    let text = format!("{}b\n{}\n", "a".repeat(200_000), "a".repeat(40));
    let dir = project(&[("a.txt", text.as_bytes())]);
    let result = search(&engine(&dir), "^(a+)+$", |_| {});
    assert_eq!(
        result.hits.iter().map(|h| h.line.line).collect::<Vec<_>>(),
        [2]
    );
}

#[test]
fn a_cancelled_search_stops_and_records_no_line_as_seen() {
    let dir = project(&[("a.txt", b"other\nneedle\n"), ("b.txt", b"needle\n")]);
    let hl = engine(&dir);
    // The session showed line 1 only.
    hl.read_with(
        "a.txt",
        &crate::ReadOptions {
            limit: Some(1),
            ..Default::default()
        },
    )
    .unwrap();
    let cancel = Cancel::new();
    cancel.cancel();
    let err = hl
        .search_with(&SearchOptions::new("needle"), &cancel)
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::Cancelled);
    // The ref as another session's search shows it: this one saw none.
    let found = search(&engine(&dir), "needle", |_| {});
    let reference = &found.hits[0].line.reference;
    let err = hl.edit("a.txt", &replace(reference, "x")).unwrap_err();
    assert_eq!(err.code, ErrorCode::UnseenLines);
}

#[test]
fn invalid_patterns_globs_and_limits_are_invalid_requests() {
    let dir = project(&[("a.txt", b"x\n")]);
    let engine = engine(&dir);
    let cases: [(&str, Tune, &str); 6] = [
        ("(", |_| {}, "not a valid regular expression"),
        ("(?<=a)b", |_| {}, "look-around"),
        ("a\\nb", |_| {}, "cannot match across lines"),
        (
            "x",
            |o| o.include = vec!["*.{ts".into()],
            "include glob \"*.{ts\" is not valid",
        ),
        (
            "x",
            |o| o.exclude = vec!["[z-a]".into()],
            "exclude glob \"[z-a]\" is not valid",
        ),
        ("x", |o| o.max_results = 0, "at least 1"),
    ];
    for (pattern, tune, message) in cases {
        let mut options = SearchOptions::new(pattern);
        tune(&mut options);
        let err = engine.search(&options).unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidRequest, "{pattern}");
        assert!(err.message.contains(message), "{}", err.message);
    }
}

#[test]
fn options_select_lines_as_rg_does() {
    let dir = project(&[("a.txt", b"Total\ntotal\nsubtotal\na.b\naxb\n")]);
    let engine = engine(&dir);
    let lines = |pattern: &str, tune: fn(&mut SearchOptions)| -> Vec<String> {
        search(&engine, pattern, tune)
            .hits
            .into_iter()
            .map(|h| h.line.text)
            .collect()
    };
    assert_eq!(lines("total", |_| {}), ["total", "subtotal"]);
    assert_eq!(
        lines("total", |o| o.ignore_case = true),
        ["Total", "total", "subtotal"]
    );
    assert_eq!(lines("total", |o| o.word = true), ["total"]);
    assert_eq!(lines("a.b", |o| o.fixed_strings = true), ["a.b"]);
    assert_eq!(lines("total", |o| o.invert = true), ["Total", "a.b", "axb"]);
}

#[test]
fn globs_are_relative_to_the_root_and_exclusions_win() {
    let dir = project(&[
        ("src/a.ts", b"needle\n"),
        ("src/a.test.ts", b"needle\n"),
        ("src/deep/b.mjs", b"needle\n"),
        ("c.txt", b"needle\n"),
    ]);
    let engine = engine(&dir);
    let found = |tune: fn(&mut SearchOptions)| -> Vec<String> {
        paths(&search(&engine, "needle", tune))
            .into_iter()
            .map(String::from)
            .collect()
    };
    assert_eq!(
        found(|o| o.include = vec!["*.ts".into()]),
        ["src/a.test.ts", "src/a.ts"]
    );
    assert_eq!(
        found(|o| {
            o.include = vec!["*.{ts,mjs}".into()];
            o.exclude = vec!["*.test.ts".into()];
        }),
        ["src/a.ts", "src/deep/b.mjs"]
    );
    assert_eq!(
        found(|o| {
            o.paths = vec!["src".into()];
            o.include = vec!["src/deep/*".into()];
        }),
        ["src/deep/b.mjs"]
    );
    assert_eq!(found(|o| o.exclude = vec!["src/".into()]), ["c.txt"]);
}

#[cfg(unix)]
#[test]
fn links_out_of_the_root_are_not_followed_and_paths_outside_are_refused() {
    let outside = project(&[("secret.txt", b"needle\n")]);
    let dir = project(&[("in.txt", b"needle\n")]);
    std::os::unix::fs::symlink(outside.path(), dir.path().join("out")).unwrap();
    std::os::unix::fs::symlink(outside.path().join("secret.txt"), dir.path().join("s.txt"))
        .unwrap();
    let engine = engine(&dir);
    assert_eq!(paths(&search(&engine, "needle", |_| {})), ["in.txt"]);
    for path in ["out", "s.txt", "..", outside.path().to_str().unwrap()] {
        let mut options = SearchOptions::new("needle");
        options.paths = vec![path.into()];
        assert_eq!(
            engine.search(&options).unwrap_err().code,
            ErrorCode::OutsideRoot,
            "{path}"
        );
    }
}

#[test]
fn the_text_lists_hits_by_file_and_marks_them_among_context() {
    let dir = project(&[
        ("b.txt", b"needle\n"),
        ("a.txt", b"1\nneedle\n3\n4\n5\nneedle\n"),
    ]);
    let lean = search(&engine(&dir), "needle", |_| {});
    let pair = crate::hash::pair_tag(2, "needle");
    let want = format!("  2{}{} needle", char::from(pair[0]), char::from(pair[1]));
    assert_eq!(lean.text.lines().nth(3), Some(want.as_str()));
    let mut options = Options::new(dir.path());
    options.view = ViewStyle::Full;
    let engine = Hashline::new(options).unwrap();
    let plain = search(&engine, "needle", |_| {});
    let lines: Vec<&str> = plain.text.lines().collect();
    assert_eq!(lines[0], "Found 3 matching lines in 2 files.");
    assert!(lines[2].starts_with("a.txt REV:"));
    assert!(lines[3].starts_with("  2#") && lines[3].ends_with("|needle"));
    let with_context = search(&engine, "needle", |o| o.context = 1);
    let marks: Vec<String> = with_context
        .text
        .lines()
        .filter(|l| l.starts_with(">>> ") || l.starts_with("    ") || *l == "--")
        .map(|l| l.split('#').next().unwrap().to_owned())
        .collect();
    assert_eq!(
        marks,
        ["    1", ">>> 2", "    3", "--", "    5", ">>> 6", ">>> 1"]
    );
}
