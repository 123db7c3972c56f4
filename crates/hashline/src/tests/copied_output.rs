//! No text of the engine's own output lands as a file's text on a guess:
//! views of random files are copied into content the way models copy them
//! (prefixes kept, the space after a blank line's tag lost, lines the view
//! cut, the view's header and footer, pieces of results and search
//! results), and what is written is what was meant, or nothing at all.
//! Every way content reaches a file is tried: an edit in a session, a
//! batch, text the caller holds, a whole file written through the host's
//! `write`, a patch.

use crate::prefix::parse;
use crate::rendered;
use crate::view::shown_text;
use crate::{
    apply_to_text, ErrorCode, FormatViewOptions, Hashline, OpKind, Operation, Options, ReadOptions,
    Request, SearchOptions, Value, ViewStyle,
};
use proptest::prelude::*;
use std::fs;

const NAME: &str = "f.txt";

/// A line of a random file: words, an indented call, a blank line, rarely
/// a line in the form of a piece of output (a document that shows one), or
/// a line longer than a view shows.
fn file_line() -> impl Strategy<Value = String> {
    prop_oneof![
        8 => "[a-z]{1,6}( [a-z]{1,6}){0,3}",
        3 => Just(String::new()),
        2 => "    [a-z]{1,6}\\(\\);",
        1 => prop::sample::select(vec![
            "src/x.rs REV:72C4946C lines 1-4 of 4",
            "    ...",
            "--",
            "@@ 1-2 @@",
        ])
        .prop_map(String::from),
        1 => (0u8..26, 2001usize..2080).prop_map(|(seed, len)| {
            (0..len).map(|i| char::from(b'a' + ((usize::from(seed) + i * 7) % 26) as u8)).collect()
        }),
    ]
}

/// What becomes of one line of the range in the content a model sends.
#[derive(Debug, Clone)]
enum Act {
    /// Copied from the view unchanged.
    Keep,
    /// Copied from the view, then changed: a word added (a change of it).
    Edit,
    /// The line's prefix kept, its text replaced by other text.
    Rewrite(String),
    /// Left out of the content.
    Drop,
}

fn act() -> impl Strategy<Value = Act> {
    prop_oneof![
        5 => Just(Act::Keep),
        3 => Just(Act::Edit),
        1 => "[A-Z][a-z]{1,6}( [a-z]{1,6}){0,2}".prop_map(Act::Rewrite),
        1 => Just(Act::Drop),
    ]
}

/// A piece of output copied into the content besides the view's lines.
#[derive(Debug, Clone, Copy)]
enum Extra {
    None,
    /// The header of the view the lines come from.
    Header,
    /// The `REV:` line a host's read shows above its lines.
    RevLine,
    /// The footer of a view that did not reach the end.
    Footer,
    /// The header of another file's view.
    OtherHeader,
    /// A line of another file's edit result: its headline, a region's header.
    ResultLine(usize),
    /// A line of search results: the summary, a file's header.
    SearchLine(usize),
    /// A line's full ref on its own.
    BareRef,
}

fn extra() -> impl Strategy<Value = Extra> {
    prop_oneof![
        4 => Just(Extra::None),
        2 => Just(Extra::Header),
        1 => Just(Extra::RevLine),
        1 => Just(Extra::Footer),
        1 => Just(Extra::OtherHeader),
        1 => (0usize..2).prop_map(Extra::ResultLine),
        1 => (0usize..2).prop_map(Extra::SearchLine),
        1 => Just(Extra::BareRef),
    ]
}

/// A model's copy of part of a view: the file, how it was read, the lines
/// replaced and what the content does with each, new lines, a piece of
/// other output, blank lines' tags that lost their space.
#[derive(Debug, Clone)]
struct Copy {
    file: Vec<String>,
    style: ViewStyle,
    /// The read's first line and how many it showed.
    offset: usize,
    limit: usize,
    /// The range replaced, 1-based, inside what the read showed.
    first: usize,
    acts: Vec<Act>,
    /// New lines (no prefix) inserted before the content line at each place.
    added: Vec<(usize, String)>,
    extra: Extra,
    /// Where the extra line goes among the content's lines.
    extra_at: usize,
    lose_space: bool,
}

fn copy() -> impl Strategy<Value = Copy> {
    (
        prop::collection::vec(file_line(), 3..24),
        any::<bool>(),
        any::<prop::sample::Index>(),
        any::<prop::sample::Index>(),
        any::<prop::sample::Index>(),
        prop::collection::vec(act(), 1..6),
        prop::collection::vec((0usize..8, "[A-Z][a-z]{1,6}"), 0..2),
        extra(),
        0usize..8,
        any::<bool>(),
    )
        .prop_map(
            |(file, lean, offset, limit, first, acts, added, extra, extra_at, lose_space)| {
                let n = file.len();
                let offset = offset.index(n) + 1;
                let limit = limit.index(n - offset + 1) + 1;
                let first = offset + first.index(limit);
                let acts: Vec<Act> = acts.into_iter().take(offset + limit - first).collect();
                Copy {
                    file,
                    style: if lean {
                        ViewStyle::Lean
                    } else {
                        ViewStyle::Full
                    },
                    offset,
                    limit,
                    first,
                    acts,
                    added,
                    extra,
                    extra_at,
                    lose_space,
                }
            },
        )
}

impl Copy {
    fn text(&self) -> String {
        self.file.iter().map(|l| format!("{l}\n")).collect()
    }

    fn last(&self) -> usize {
        self.first + self.acts.len() - 1
    }

    /// A changed line's new text.
    fn edited(line: &str) -> String {
        format!("{line} x")
    }

    /// The content a model sends for the range, from the view's lines
    /// (`view[n]` the view's line of file line n), and the lines it means.
    fn content(
        &self,
        view: &dyn Fn(usize) -> String,
        extra: Option<&str>,
    ) -> (Vec<String>, Vec<String>) {
        let mut sent = Vec::new();
        let mut meant = Vec::new();
        for (k, act) in self.acts.iter().enumerate() {
            for (_, line) in self.added.iter().filter(|(at, _)| *at == k) {
                sent.push(line.clone());
                meant.push(line.clone());
            }
            let n = self.first + k;
            let original = &self.file[n - 1];
            let shown = view(n);
            let prefix = &shown[..parse(&shown).unwrap().len];
            match act {
                Act::Keep => {
                    sent.push(if self.lose_space {
                        shown.trim_end().to_owned()
                    } else {
                        shown.clone()
                    });
                    meant.push(original.clone());
                }
                Act::Edit if original.len() > crate::view::MAX_LINE_CHARS => {
                    sent.push(shown.clone());
                    meant.push(original.clone());
                }
                Act::Edit => {
                    sent.push(format!("{prefix}{}", Self::edited(original)));
                    meant.push(Self::edited(original));
                }
                Act::Rewrite(text) => {
                    sent.push(format!("{prefix}{text}"));
                    meant.push(text.clone());
                }
                Act::Drop => {}
            }
        }
        for (_, line) in self.added.iter().filter(|(at, _)| *at >= self.acts.len()) {
            sent.push(line.clone());
            meant.push(line.clone());
        }
        if let Some(extra) = extra {
            sent.insert(self.extra_at.min(sent.len()), extra.to_owned());
        }
        (sent, meant)
    }

    /// The file with the range replaced by `meant`.
    fn written(&self, meant: &[String]) -> String {
        let mut lines = self.file.clone();
        lines.splice(self.first - 1..self.last(), meant.iter().cloned());
        lines.iter().map(|l| format!("{l}\n")).collect()
    }
}

/// A session on a folder holding the copy's file and another, that read
/// the file as the copy says, made an edit of the other file and searched.
struct Scene {
    _dir: tempfile::TempDir,
    file: std::path::PathBuf,
    engine: Hashline,
    view: Vec<String>,
    result: Vec<String>,
    search: Vec<String>,
    other_header: String,
}

fn scene(copy: &Copy) -> Scene {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join(NAME);
    fs::write(&file, copy.text()).unwrap();
    fs::write(dir.path().join("other.txt"), "zeta\neta\n").unwrap();
    let mut options = Options::new(dir.path());
    options.view = copy.style;
    let engine = Hashline::new(options).unwrap();
    let other = engine.read("other.txt").unwrap().view.text;
    let other_header = other.lines().next().unwrap().to_owned();
    let append = Request::Operations {
        operations: vec![Operation::new(OpKind::Append, None, None, "theta")],
        rev: None,
    };
    let result = engine.edit("other.txt", &append).unwrap().output;
    let search = engine.search(&SearchOptions::new("theta")).unwrap().text;
    let view = engine
        .read_with(
            NAME,
            &ReadOptions {
                offset: Some(copy.offset),
                limit: Some(copy.limit),
                ..Default::default()
            },
        )
        .unwrap()
        .view
        .text;
    Scene {
        _dir: dir,
        file,
        engine,
        view: view.lines().map(str::to_owned).collect(),
        result: result.lines().map(str::to_owned).collect(),
        search: search
            .lines()
            .filter(|l| !l.is_empty())
            .map(str::to_owned)
            .collect(),
        other_header,
    }
}

impl Scene {
    /// The view's line of file line `n`.
    fn line(&self, copy: &Copy, n: usize) -> String {
        self.view[n - copy.offset + 1].clone()
    }

    fn extra(&self, copy: &Copy) -> Option<String> {
        let rev = self.view[0].split(" REV:").nth(1).unwrap()[..8].to_owned();
        match copy.extra {
            Extra::None => None,
            Extra::Header => Some(self.view[0].clone()),
            Extra::RevLine => Some(format!("REV:{rev}")),
            Extra::Footer => self
                .view
                .last()
                .filter(|l| l.starts_with("(Showing"))
                .cloned(),
            Extra::OtherHeader => Some(self.other_header.clone()),
            Extra::ResultLine(k) => Some(self.result[k].clone()),
            Extra::SearchLine(k) => Some(self.search[k].clone()),
            Extra::BareRef => {
                let doc = crate::Document::from_text(&copy.text());
                Some(crate::Ref::of_line(&doc, copy.first - 1).to_string())
            }
        }
    }

    fn request(&self, copy: &Copy, content: &[String]) -> Request {
        let reference = |n: usize| {
            self.line(copy, n)[..parse(&self.line(copy, n)).unwrap().len]
                .trim_end_matches(['|', ' '])
                .to_owned()
        };
        let through = reference(copy.last());
        replacing(&reference(copy.first), &through, content)
    }
}

/// A replace of lines `first..=through` by `lines`, given as lines.
fn replacing(first: &str, through: &str, lines: &[String]) -> Request {
    Request::Operations {
        operations: vec![Operation {
            content: lines.to_vec(),
            ..Operation::new(OpKind::Replace, Some(first), Some(through), "")
        }],
        rev: None,
    }
}

/// What a send did: written (and the text), or refused (and the code).
fn outcome(result: crate::Result<()>, file: &std::path::Path) -> Result<String, ErrorCode> {
    result
        .map(|()| fs::read_to_string(file).unwrap())
        .map_err(|e| e.code)
}

/// Written exactly as meant, or refused as an echo in doubt with nothing
/// written; a request that changes nothing may say so instead.
fn meant_or_refused(
    got: Result<String, ErrorCode>,
    meant: &str,
    before: &str,
    after: &str,
    sent: &[String],
) -> Result<(), TestCaseError> {
    match got {
        Ok(text) => prop_assert_eq!(text, meant, "sent {:?}", sent),
        Err(ErrorCode::AmbiguousEcho) => prop_assert_eq!(after, before),
        Err(ErrorCode::NoChange) => {
            prop_assert_eq!(after, before);
            prop_assert_eq!(meant, before, "sent {:?}", sent);
        }
        Err(code) => prop_assert!(false, "{:?} for {:?}", code, sent),
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 192, ..ProptestConfig::default() })]

    /// A range copied from a session's view, with pieces of other output,
    /// sent as an edit or in a batch: written as meant or refused.
    #[test]
    fn a_copied_view_sent_as_an_edit_or_a_batch_is_written_as_meant_or_refused(
        copy in copy(),
        batch in any::<bool>(),
    ) {
        let scene = scene(&copy);
        let (sent, meant) = copy.content(&|n| scene.line(&copy, n), scene.extra(&copy).as_deref());
        let request = scene.request(&copy, &sent);
        let before = fs::read_to_string(&scene.file).unwrap();
        let result = if batch {
            let Request::Operations { operations, .. } = &request else { unreachable!() };
            let op = &operations[0];
            let entry = Value::Object(vec![
                ("path".into(), Value::String(NAME.into())),
                ("operations".into(), Value::Array(vec![Value::Object(vec![
                    ("op".into(), Value::String("replace".into())),
                    ("ref".into(), Value::String(op.reference.clone().unwrap())),
                    ("through".into(), Value::String(op.through.clone().unwrap())),
                    ("content".into(), Value::Array(sent.iter().cloned().map(Value::String).collect())),
                ])])),
            ]);
            scene.engine.apply_batch(&Value::Array(vec![entry])).map(|_| ())
        } else {
            scene.engine.edit(NAME, &request).map(|_| ())
        };
        let got = outcome(result, &scene.file);
        let after = fs::read_to_string(&scene.file).unwrap();
        meant_or_refused(got, &copy.written(&meant), &before, &after, &sent)?;
    }

    /// The same copy of a view the caller made of text it holds.
    #[test]
    fn a_copied_view_of_text_the_caller_holds_is_written_as_meant_or_refused(copy in copy()) {
        let text = copy.text();
        let view: Vec<String> = crate::format_view_with(
            text.as_str(),
            NAME,
            &FormatViewOptions { offset: Some(copy.offset), limit: Some(copy.limit), view: copy.style },
        )
        .unwrap()
        .text
        .lines()
        .map(str::to_owned)
        .collect();
        let line = |n: usize| view[n - copy.offset + 1].clone();
        let extra = match copy.extra {
            Extra::Header => Some(view[0].clone()),
            Extra::Footer => view.last().filter(|l| l.starts_with("(Showing")).cloned(),
            _ => None,
        };
        let (sent, meant) = copy.content(&line, extra.as_deref());
        let doc = crate::Document::from_text(&text);
        let full = |n: usize| crate::Ref::of_line(&doc, n - 1).to_string();
        let request = replacing(&full(copy.first), &full(copy.last()), &sent);
        let got = apply_to_text(&text, &request, true).map(|(t, _)| t).map_err(|e| e.code);
        meant_or_refused(got, &copy.written(&meant), &text, &text, &sent)?;
    }

    /// A whole file written with the lines of the view that showed all of
    /// it, changed as the copy says, through the host's `write` and as a
    /// file a patch adds.
    #[test]
    fn a_whole_file_written_from_a_copied_view_is_written_as_meant_or_refused(copy in copy()) {
        let copy = Copy { offset: 1, limit: copy.file.len(), first: 1, ..copy };
        let copy = Copy { acts: copy.acts.iter().cloned().chain(std::iter::repeat(Act::Keep)).take(copy.file.len()).collect(), ..copy };
        let scene = scene(&copy);
        let (sent, meant) = copy.content(&|n| scene.line(&copy, n), scene.extra(&copy).as_deref());
        let written: String = sent.iter().map(|l| format!("{l}\n")).collect();
        let meant: String = meant.iter().map(|l| format!("{l}\n")).collect();
        match scene.engine.strip_view_prefixes(NAME, &written) {
            Ok(stripped) => prop_assert_eq!(&stripped.text, &meant, "sent {:?}", sent),
            Err(err) => prop_assert_eq!(err.code, ErrorCode::AmbiguousEcho, "{}", err.message),
        }
        // The same file added by a patch.
        let added: Vec<String> = sent.iter().map(|l| format!("+{l}")).collect();
        let patch = format!("*** Begin Patch\n*** Add File: {NAME}\n{}\n*** End Patch", added.join("\n"));
        let before = fs::read_to_string(&scene.file).unwrap();
        let result = scene.engine.plan_patch(&patch).and_then(|plan| scene.engine.commit_patch(&plan));
        let after = fs::read_to_string(&scene.file).unwrap();
        match result {
            Ok(_) => prop_assert_eq!(&after, &meant, "sent {:?}", sent),
            Err(err) => {
                prop_assert_eq!(err.code, ErrorCode::AmbiguousEcho, "{}", err.message);
                prop_assert_eq!(after, before);
            }
        }
    }

    /// A patch whose lines are copied from the view: context and removed
    /// lines with their prefixes, added lines with the prefix of the line
    /// they replace, other output among the added lines.
    #[test]
    fn a_patch_copied_from_a_view_is_applied_as_meant_or_refused(copy in copy()) {
        let scene = scene(&copy);
        let (sent, meant) = copy.content(&|n| scene.line(&copy, n), scene.extra(&copy).as_deref());
        let mut hunk: Vec<String> = (copy.first..=copy.last())
            .map(|n| format!("-{}", scene.line(&copy, n)))
            .collect();
        hunk.extend(sent.iter().map(|l| format!("+{l}")));
        let patch = format!(
            "*** Begin Patch\n*** Update File: {NAME}\n@@\n{}\n*** End Patch",
            hunk.join("\n")
        );
        let before = fs::read_to_string(&scene.file).unwrap();
        let result = scene
            .engine
            .plan_patch(&patch)
            .and_then(|plan| scene.engine.commit_patch(&plan))
            .map(|_| ());
        let after = fs::read_to_string(&scene.file).unwrap();
        match result {
            Ok(()) => prop_assert_eq!(after, copy.written(&meant), "sent {:?}", hunk),
            Err(err) => {
                prop_assert_eq!(&after, &before);
                prop_assert!(
                    matches!(err.code, ErrorCode::AmbiguousEcho | ErrorCode::ContextNotFound | ErrorCode::ContextAmbiguous | ErrorCode::NoChange),
                    "{:?}: {}", err.code, err.message
                );
            }
        }
    }

    /// A range copied unchanged but for one line changed or one added, the
    /// view's header above it and blank lines' tags without their space:
    /// the lines prove it a copy, and it is written as meant.
    #[test]
    fn a_copied_range_with_its_header_and_bare_blank_tags_is_written_as_meant(
        copy in copy(),
        header in any::<bool>(),
    ) {
        let acts: Vec<Act> = copy.acts.iter().map(|_| Act::Keep).collect();
        let copy = Copy {
            acts,
            added: vec![(copy.acts.len(), "Added line".into())],
            extra: if header { Extra::Header } else { Extra::None },
            extra_at: 0,
            lose_space: true,
            ..copy
        };
        // A copy proves itself by a line with text of its own in the view;
        // a repeat of a line next to the range is another question.
        let range = &copy.file[copy.first - 1..copy.last()];
        prop_assume!(range.iter().any(|l| !l.is_empty()));
        prop_assume!(copy.first == 1 || copy.file[copy.first - 2] != range[0]);
        prop_assume!(copy.file.get(copy.last()).is_none_or(|l| l != "Added line"));
        let scene = scene(&copy);
        let (sent, meant) = copy.content(&|n| scene.line(&copy, n), scene.extra(&copy).as_deref());
        let result = scene.engine.edit(NAME, &scene.request(&copy, &sent));
        prop_assert!(result.is_ok(), "{:?}: {}", sent, result.unwrap_err().message);
        prop_assert_eq!(fs::read_to_string(&scene.file).unwrap(), copy.written(&meant));
    }
}

#[test]
fn every_line_of_a_view_a_result_a_search_and_a_rejection_is_a_files_line_or_a_known_piece() {
    let long = "y".repeat(2100);
    let mut lines: Vec<String> = (1..=40).map(|i| format!("line {i}")).collect();
    lines[5] = long.clone();
    lines[9] = String::new();
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    for style in [ViewStyle::Lean, ViewStyle::Full] {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join(NAME), &text).unwrap();
        let mut options = Options::new(dir.path());
        options.view = style;
        let engine = Hashline::new(options).unwrap();
        let file_lines: Vec<String> = lines.iter().map(|l| shown_text(l).into_owned()).collect();
        let is_file_line = |l: &str| {
            parse(l).is_some_and(|p| {
                file_lines
                    .iter()
                    .any(|f| *f == l[p.len..] || f.trim_end() == l[p.len..].trim_end())
            })
        };
        let known = |l: &str| {
            is_file_line(l)
                || rendered::piece(l).is_some()
                || rendered::contextual(l, |t| lines.iter().any(|f| f == t)).is_some()
        };
        let view = engine
            .read_with(
                NAME,
                &ReadOptions {
                    offset: Some(2),
                    limit: Some(30),
                    ..Default::default()
                },
            )
            .unwrap()
            .view
            .text;
        for l in view.lines() {
            assert!(known(l), "view line {l:?}");
        }
        let refs: Vec<String> = view
            .lines()
            .skip(1)
            .take(30)
            .map(|l| {
                l[..parse(l).unwrap().len]
                    .trim_end_matches(['|', ' '])
                    .to_owned()
            })
            .collect();
        // A result with a changed region, a long one left out in part, and
        // lines moved below.
        let many: Vec<String> = (0..90).map(|i| format!("new {i}")).collect();
        let request = Request::Operations {
            operations: vec![
                Operation::new(
                    OpKind::Replace,
                    Some(&refs[1]),
                    Some(&refs[2]),
                    &many.join("\n"),
                ),
                Operation::new(OpKind::Delete, Some(&refs[20]), None, ""),
            ],
            rev: None,
        };
        let result = engine.edit(NAME, &request).unwrap().output;
        // A move long enough that its result shows only its ends.
        engine.read(NAME).unwrap();
        let moved = crate::Document::from_text(&fs::read_to_string(dir.path().join(NAME)).unwrap());
        let at = |n: usize| crate::Ref::of_line(&moved, n - 1).to_string();
        let relocate = Request::Operations {
            operations: vec![Operation::relocate(
                OpKind::Move,
                &at(100),
                Some(&at(125)),
                crate::Side::After,
                &at(1),
            )],
            rev: None,
        };
        let moved = engine.edit(NAME, &relocate).unwrap().output;
        assert!(moved.contains("lines moved from"), "{moved}");
        let result = format!("{result}{moved}");
        let now = fs::read_to_string(dir.path().join(NAME)).unwrap();
        let now_lines: Vec<String> = now.lines().map(|l| shown_text(l).into_owned()).collect();
        for l in result.lines() {
            let new_line = parse(l).is_some_and(|p| now_lines.iter().any(|f| *f == l[p.len..]));
            let prose = l.starts_with("Note: ") || l.starts_with("Refs from earlier views");
            assert!(known(l) || new_line || prose, "result line {l:?}");
        }
        let search = engine
            .search(&SearchOptions {
                context: 1,
                ..SearchOptions::new("line 3")
            })
            .unwrap()
            .text;
        for l in search.lines().filter(|l| !l.is_empty()) {
            let new_line = parse(l).is_some_and(|p| now_lines.iter().any(|f| *f == l[p.len..]));
            assert!(known(l) || new_line, "search line {l:?}");
        }
        // A rejection shows the lines it cites with markers and `    ...`.
        let stale = Request::Operations {
            operations: vec![
                Operation::new(OpKind::Delete, Some("6#AAA#BBB"), None, ""),
                Operation::new(OpKind::Delete, Some("29#AAA#BBB"), None, ""),
            ],
            rev: None,
        };
        let rejection = engine.edit(NAME, &stale).unwrap_err().message.clone();
        let shown: Vec<&str> = rejection
            .lines()
            .filter(|l| l.starts_with(">>> ") || l.starts_with("    "))
            .collect();
        assert!(shown.iter().any(|l| l.trim() == "..."), "{rejection}");
        for l in shown {
            let new_line = parse(l).is_some_and(|p| now_lines.iter().any(|f| *f == l[p.len..]));
            assert!(known(l) || new_line, "rejection line {l:?}");
        }
    }
}
