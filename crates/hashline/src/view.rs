//! The tagged view a model reads: a header with the REV, one
//! `LINE#HASH#ANCHOR|content` line per file line, and how to read on.
//!
//! Specified in `docs/format.md` §4.

use crate::document::Document;
use crate::error::{Error, ErrorCode, Result};
use crate::hash::{pair_of_word, Tag};
use crate::reference::{Ref, RefTag};
use crate::tags::each_line;
use std::fmt::Write;
use std::ops::Range;
use std::sync::OnceLock;

pub const DEFAULT_LIMIT: usize = 2000;
/// Longer lines are cut in the view; their refs still hash the whole line.
pub const MAX_LINE_CHARS: usize = 2000;

/// How views, edit results and rejections show refs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ViewStyle {
    /// `12#A3F#9BC|content`.
    Full,
    /// `12ab content`: a third of the full view's tokens per line.
    #[default]
    Lean,
}

impl ViewStyle {
    /// `lean` or `full`, any case and surrounding spaces.
    pub fn parse(name: &str) -> Option<ViewStyle> {
        match name.trim().to_ascii_lowercase().as_str() {
            "lean" => Some(ViewStyle::Lean),
            "full" => Some(ViewStyle::Full),
            _ => None,
        }
    }
}

/// What a view of text held by the caller shows: lines `offset..offset +
/// limit` (1-based; the first 2,000 lines by default), in `view`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FormatViewOptions {
    /// The first line to show, 1-based.
    pub offset: Option<usize>,
    /// How many lines to show.
    pub limit: Option<usize>,
    /// The style of the view.
    pub view: ViewStyle,
}

/// A tagged view of some lines of a document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct View {
    /// What the model reads: a header, then `LINE#HASH#ANCHOR|content`
    /// lines, then how to read on.
    pub text: String,
    /// The REV of the whole document.
    pub rev: String,
    /// Lines in the document.
    pub total_lines: usize,
    /// 1-based, inclusive; `end_line < start_line` when nothing is shown.
    pub start_line: usize,
    /// The last line shown, 1-based, inclusive.
    pub end_line: usize,
}

/// `offset` is the 1-based first line; `limit` the number of lines.
pub fn render(
    doc: &Document,
    path: &str,
    offset: Option<usize>,
    limit: Option<usize>,
    style: ViewStyle,
) -> Result<View> {
    let total = doc.line_count();
    let offset = offset.unwrap_or(1).max(1);
    let limit = limit.unwrap_or(DEFAULT_LIMIT);
    if limit == 0 {
        return Err(Error::invalid_request("limit must be at least 1."));
    }
    if offset > total.max(1) {
        return Err(Error::new(
            ErrorCode::OutOfRange,
            format!("offset {offset} is past the end of {path} ({total} lines)."),
        ));
    }
    let start = offset - 1;
    let end = total.min(start.saturating_add(limit));
    // The content plus at most 15 bytes of ref and separator per line.
    let body: usize = (start..end).map(|i| doc.line(i).len() + 16).sum();
    let mut text = String::with_capacity(body + path.len() + 96);
    let header = |text: &mut String, rev: &str| {
        if total == 0 {
            let _ = writeln!(text, "{path} REV:{rev} (empty file)");
        } else {
            let _ = writeln!(text, "{path} REV:{rev} lines {offset}-{end} of {total}");
        }
    };
    let rev = if end - start >= PARALLEL_LINES && threads() > 1 && doc.known_rev().is_none() {
        // One SHA-1 over the whole text is a long single-threaded step;
        // it runs beside the lines' hashing and is written into the header
        // (a REV has a fixed length) once known.
        std::thread::scope(|scope| {
            let rev = scope.spawn(|| doc.rev());
            let placeholder = "0".repeat(REV_LEN);
            header(&mut text, &placeholder);
            render_lines(&mut text, doc, start..end, style);
            let rev = rev
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            let at = path.len() + " REV:".len();
            text.replace_range(at..at + REV_LEN, rev);
            rev.to_owned()
        })
    } else {
        let rev = doc.rev().to_owned();
        header(&mut text, &rev);
        render_lines(&mut text, doc, start..end, style);
        rev
    };
    if end < total {
        let _ = writeln!(
            text,
            "(Showing lines {offset}-{end} of {total}. Read on with offset={}.)",
            end + 1
        );
    }
    Ok(View {
        text,
        rev,
        total_lines: total,
        start_line: offset,
        end_line: end,
    })
}

/// A REV is 8 hex digits.
const REV_LEN: usize = 8;

/// Views at least this long are rendered on several threads: hashing every
/// line twice dominates their cost, and lines hash independently.
const PARALLEL_LINES: usize = 16_384;

/// The number of threads large views use; asking the system costs several
/// system calls, which small views must not pay every time.
fn threads() -> usize {
    static THREADS: OnceLock<usize> = OnceLock::new();
    *THREADS.get_or_init(|| {
        std::thread::available_parallelism()
            .map_or(1, |n| n.get())
            .min(8)
    })
}

/// Appends lines `range` (0-based) to `out`, one view line each,
/// newline-terminated.
fn render_lines(out: &mut String, doc: &Document, range: Range<usize>, style: ViewStyle) {
    if range.len() < PARALLEL_LINES || threads() < 2 {
        render_run(out, doc, range, style);
        return;
    }
    let chunk = range.len().div_ceil(threads());
    let part = |t: usize| {
        let from = range.start + t * chunk;
        from..(from + chunk).min(range.end)
    };
    let run = |t: usize| {
        let mut text = String::new();
        render_run(&mut text, doc, part(t), style);
        text
    };
    // The calling thread renders the first part while the others render
    // theirs: one thread fewer to start, and the first part goes straight
    // into `out`.
    let rest: Vec<String> = std::thread::scope(|scope| {
        let handles: Vec<_> = (1..threads())
            .map(|t| scope.spawn(move || run(t)))
            .collect();
        render_run(out, doc, part(0), style);
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            })
            .collect()
    });
    out.reserve(rest.iter().map(String::len).sum());
    for part in rest {
        out.push_str(&part);
    }
}

/// The lines of a run are hashed in batches (`tags`), then written.
fn render_run(out: &mut String, doc: &Document, range: Range<usize>, style: ViewStyle) {
    let bytes: usize = range.clone().map(|i| doc.line(i).len()).sum();
    out.reserve(bytes + range.len() * 16);
    let full = style == ViewStyle::Full;
    each_line(doc, range, full, |index, words| {
        let tag = match style {
            ViewStyle::Lean => RefTag::Pair(pair_of_word(index + 1, words.line)),
            ViewStyle::Full => RefTag::Full {
                hash: words.hash(),
                anchor: Some(words.anchor()),
            },
        };
        push_tagged(out, doc.line(index), index, tag);
        out.push('\n');
    });
}

/// One view line in `style`, `LINE#HASH#ANCHOR|content` or `LINEab
/// content`, without a newline.
pub fn push_line(out: &mut String, doc: &Document, index: usize, style: ViewStyle) {
    let r = match style {
        ViewStyle::Lean => Ref::pair_of_line(doc, index),
        ViewStyle::Full => Ref::of_line(doc, index),
    };
    push_tagged(out, doc.line(index), index, r.tag);
}

/// Line `index` (0-based), holding `line`, with its tag.
fn push_tagged(out: &mut String, line: &str, index: usize, tag: RefTag) {
    // Numbers and tags are pushed as they are rather than through `fmt`,
    // which costs more per line than the hashing on small views.
    let mut number = itoa::Buffer::new();
    out.push_str(number.format(index + 1));
    match tag {
        RefTag::Pair([a, b]) => {
            out.push(char::from(a));
            out.push(char::from(b));
            out.push(' ');
        }
        RefTag::Full { hash, anchor } => {
            out.push('#');
            push_tag(out, hash);
            if let Some(anchor) = anchor {
                out.push('#');
                push_tag(out, anchor);
            }
            out.push('|');
        }
    }
    push_content(out, line);
}

/// Three uppercase hex digits.
fn push_tag(out: &mut String, tag: Tag) {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    let bits = usize::from(tag.bits());
    for shift in [8, 4, 0] {
        out.push(char::from(HEX[(bits >> shift) & 0xF]));
    }
}

fn push_content(out: &mut String, line: &str) {
    // A line of no more bytes than the limit has no more characters either:
    // it is shown whole without decoding it to count them.
    if line.len() <= MAX_LINE_CHARS {
        out.push_str(line);
        return;
    }
    match line.char_indices().nth(MAX_LINE_CHARS) {
        None => out.push_str(line),
        Some((cut, _)) => {
            let chars = line.chars().count();
            out.push_str(&line[..cut]);
            let _ = write!(
                out,
                "{CUT_NOTE_START}{MAX_LINE_CHARS} of {chars}{CUT_NOTE_END}"
            );
        }
    }
}

/// The note a view ends a line it cut with: `… (line cut at 2000 of 2516
/// characters; its ref covers the whole line)`.
const CUT_NOTE_START: &str = "… (line cut at ";
const CUT_NOTE_END: &str = " characters; its ref covers the whole line)";

/// A line as a view shows it: whole, or cut with the note.
pub(crate) fn shown_text(line: &str) -> std::borrow::Cow<'_, str> {
    if line.len() <= MAX_LINE_CHARS {
        return line.into();
    }
    let mut out = String::new();
    push_content(&mut out, line);
    out.into()
}

/// Whether `text` ends with the note a view puts on a line it cut (white
/// space after it lost or not): what precedes it is not the whole line.
pub(crate) fn ends_cut(text: &str) -> bool {
    let Some(head) = text.trim_end().strip_suffix(CUT_NOTE_END) else {
        return false;
    };
    let Some((_, counts)) = head.rsplit_once(CUT_NOTE_START) else {
        return false;
    };
    counts.split_once(" of ").is_some_and(|(at, of)| {
        [at, of]
            .iter()
            .all(|n| !n.is_empty() && n.bytes().all(|c| c.is_ascii_digit()))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn view_shows_header_refs_and_content() {
        let doc = Document::from_text("a\nb\n");
        let view = render(&doc, "f.txt", None, None, ViewStyle::Full).unwrap();
        let lines: Vec<&str> = view.text.lines().collect();
        assert_eq!(lines[0], format!("f.txt REV:{} lines 1-2 of 2", view.rev));
        assert_eq!(lines[1], format!("{}|a", Ref::of_line(&doc, 0)));
        assert_eq!(lines[2], format!("{}|b", Ref::of_line(&doc, 1)));
        assert_eq!(lines.len(), 3);
        assert_eq!(
            (view.start_line, view.end_line, view.total_lines),
            (1, 2, 2)
        );
    }

    #[test]
    fn offset_and_limit_select_lines_and_the_footer_says_how_to_read_on() {
        let text: String = (1..=10).map(|i| format!("line {i}\n")).collect();
        let doc = Document::from_text(&text);
        let view = render(&doc, "f", Some(3), Some(4), ViewStyle::Full).unwrap();
        assert_eq!((view.start_line, view.end_line), (3, 6));
        assert!(view.text.lines().nth(1).unwrap().starts_with("3#"));
        assert!(view
            .text
            .ends_with("(Showing lines 3-6 of 10. Read on with offset=7.)\n"));
    }

    #[test]
    fn a_view_rendered_on_several_threads_equals_one_rendered_line_by_line() {
        let text: String = (0..PARALLEL_LINES * 2 + 7)
            .map(|i| format!("{}line {}\n", " ".repeat(i % 5), i % 97))
            .collect();
        let doc = Document::from_text(&text);
        let view = render(&doc, "f", None, Some(usize::MAX), ViewStyle::Full).unwrap();
        let mut expected = String::new();
        for i in 0..doc.line_count() {
            expected.push_str(&format!("{}|{}\n", Ref::of_line(&doc, i), doc.line(i)));
        }
        assert_eq!(view.text.split_once('\n').unwrap().1, expected);
    }

    #[test]
    fn a_large_views_header_names_the_rev_of_the_whole_text() {
        let text: String = (0..PARALLEL_LINES * 2)
            .map(|i| format!("x{}\n", i % 13))
            .collect();
        let doc = Document::from_text(&text);
        let total = doc.line_count();
        for path in ["f", "dossier/é 🚀.txt"] {
            let view = render(&doc, path, Some(2), Some(usize::MAX), ViewStyle::Lean).unwrap();
            let rev = crate::hash::rev(&text);
            assert_eq!(view.rev, rev);
            let header = view.text.lines().next().unwrap();
            assert_eq!(
                header,
                format!("{path} REV:{rev} lines 2-{total} of {total}")
            );
        }
    }

    #[test]
    fn the_lean_view_shows_line_number_pair_tag_and_a_space_on_every_thread() {
        let doc = Document::from_text("fn main() {\n    let x = 1;\n    println!(\"{x}\");\n}\n");
        let view = render(&doc, "src/lib.rs", None, None, ViewStyle::Lean).unwrap();
        assert_eq!(
            view.text,
            format!(
                "src/lib.rs REV:{} lines 1-4 of 4\n1ve fn main() {{\n2ay     let x = 1;\n3sh     println!(\"{{x}}\");\n4ao }}\n",
                view.rev
            )
        );
        let text: String = (0..PARALLEL_LINES + 3)
            .map(|i| format!("l{}\n", i % 7))
            .collect();
        let doc = Document::from_text(&text);
        let view = render(&doc, "f", None, Some(usize::MAX), ViewStyle::Lean).unwrap();
        let expected: String = (0..doc.line_count())
            .map(|i| format!("{} {}\n", Ref::pair_of_line(&doc, i), doc.line(i)))
            .collect();
        assert_eq!(view.text.split_once('\n').unwrap().1, expected);
    }

    #[test]
    fn offset_past_the_end_is_out_of_range() {
        let doc = Document::from_text("a\n");
        assert_eq!(
            render(&doc, "f", Some(3), None, ViewStyle::Full)
                .unwrap_err()
                .code,
            ErrorCode::OutOfRange
        );
        assert!(render(
            &Document::from_text(""),
            "f",
            Some(1),
            None,
            ViewStyle::Lean
        )
        .unwrap()
        .text
        .contains("(empty file)"));
    }

    #[test]
    fn long_lines_are_cut_but_their_ref_hashes_the_whole_line() {
        let long = "é".repeat(MAX_LINE_CHARS + 5);
        let doc = Document::from_text(&format!("{long}\n"));
        let view = render(&doc, "f", None, None, ViewStyle::Full).unwrap();
        let line = view.text.lines().nth(1).unwrap();
        assert!(line.starts_with(&format!("{}|", Ref::of_line(&doc, 0))));
        assert!(line.contains(&format!("of {} characters", MAX_LINE_CHARS + 5)));
        assert_eq!(line.matches('é').count(), MAX_LINE_CHARS);
    }

    #[test]
    fn a_cut_line_is_shown_as_the_view_shows_it_and_its_note_is_found() {
        let long = format!("{}tail", "x".repeat(MAX_LINE_CHARS));
        let doc = Document::from_text(&format!("short\n{long}\n"));
        let view = render(&doc, "f", None, None, ViewStyle::Lean).unwrap();
        let shown = view.text.lines().nth(2).unwrap().split_once(' ').unwrap().1;
        assert_eq!(shown_text(&long), shown);
        assert!(ends_cut(shown) && ends_cut(&format!("{shown}  ")));
        assert_eq!(shown_text("short"), "short");
        assert!(!ends_cut("short") && !ends_cut(&long));
        assert!(!ends_cut(
            "x (line cut at some of many characters; its ref covers the whole line)"
        ));
    }

    #[test]
    fn view_styles_parse_by_name() {
        assert_eq!(ViewStyle::parse(" Lean "), Some(ViewStyle::Lean));
        assert_eq!(ViewStyle::parse("full"), Some(ViewStyle::Full));
        assert_eq!(ViewStyle::parse("pair"), None);
        assert_eq!(ViewStyle::default(), ViewStyle::Lean);
    }
}
