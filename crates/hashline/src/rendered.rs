//! Pieces of the engine's own output that are no line of a file, found
//! where a model copied them into content: a view's header and footer, an
//! edit result's headline, region headers, elisions and shift hints, a
//! search's summary and file headers, the `REV:` line a host's read shows
//! above its lines, and a full ref on its own line. The lines of a view
//! (`12ab text`) are `prefix`'s, and so is the judgement: a piece that names
//! a version of the file a view showed (by its REV) is proven a copy and
//! removed; any other is refused, since no rule can tell it from text that
//! only looks like one.
//!
//! Each form here is the one its renderer writes (`view`, `report`,
//! `search`, the JS layer's read tagging); the tests render each output and
//! find every piece of it.
//!
//! Specified in `docs/format.md` §7.

/// What a piece of output is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// `src/a.rs REV:72C4946C lines 1-4 of 4`, or `(empty file)`.
    ViewHeader,
    /// `src/a.rs REV:72C4946C` above a file's lines in search results.
    SearchHeader,
    /// `REV:72C4946C` above the lines of a host's read.
    RevLine,
    /// `(Showing lines 1-40 of 90. Read on with offset=41.)`.
    Footer,
    /// `Applied 1 operation to a.rs. REV 72C4946C -> 0533D3E9 (+1 -1)`.
    Headline,
    /// `@@ 4-6 @@` above a region of an edit result.
    Region,
    /// `  … 12 more lines of this change …`, `  … (3 lines moved to 40–42)`.
    Elision,
    /// `Lines moved: old 12-40 are now 13-41 (+1).`
    ShiftHints,
    /// `Found 3 matching lines in 2 files.`
    SearchSummary,
    /// `12#A3F#9BC` on its own: a ref, which names a line but is none.
    Ref,
    /// `    ...` between the parts of a rejection's lines, `--` between
    /// those of search results: ordinary text too (Python's ellipsis, an
    /// SQL comment), so a piece only among lines proven copied from a view.
    Separator,
    /// `-old text` (`-|old text` in the full style): a line an edit result
    /// shows as removed; ordinary text too, so a piece only among lines
    /// proven copied from a view, and where it is a line the file had.
    Removed,
}

impl Kind {
    /// What a message calls it.
    pub(crate) fn describe(self) -> &'static str {
        match self {
            Kind::ViewHeader => "the header of a view",
            Kind::SearchHeader => "a file's header in search results",
            Kind::RevLine => "the REV line a read shows above the lines",
            Kind::Footer => "the line a view ends with when there is more to read",
            Kind::Headline => "the first line of an edit's result",
            Kind::Region => "the header of a region of an edit's result",
            Kind::Elision => "the line an edit's result shows for lines it leaves out",
            Kind::ShiftHints => "the line an edit's result tells moved lines with",
            Kind::SearchSummary => "the first line of search results",
            Kind::Ref => "a ref on its own, which names a line but is none",
            Kind::Separator => "the line that separates parts of a rejection or of search results",
            Kind::Removed => "a line an edit's result shows as removed",
        }
    }
}

/// A piece of output, and the versions it names by their REV, if any.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Piece<'a> {
    pub kind: Kind,
    /// The path it names, where it names one.
    pub path: Option<&'a str>,
    /// The REVs it names (an edit result's headline names two).
    pub revs: Vec<&'a str>,
}

impl<'a> Piece<'a> {
    fn named(kind: Kind, path: Option<&'a str>, revs: Vec<&'a str>) -> Option<Self> {
        Some(Piece { kind, path, revs })
    }

    fn unnamed(kind: Kind) -> Option<Self> {
        Some(Piece {
            kind,
            path: None,
            revs: Vec::new(),
        })
    }
}

/// A REV: eight uppercase hex digits.
fn rev(text: &str) -> Option<&str> {
    (text.len() == 8
        && text
            .bytes()
            .all(|c| c.is_ascii_digit() || (b'A'..=b'F').contains(&c)))
    .then_some(text)
}

/// A positive decimal number as the renderers write it.
fn number(text: &str) -> Option<usize> {
    (!text.is_empty() && text.bytes().all(|c| c.is_ascii_digit()) && !text.starts_with('0'))
        .then(|| text.parse().ok())
        .flatten()
}

/// `a-b`: two numbers.
fn span(text: &str) -> Option<(usize, usize)> {
    let (a, b) = text.split_once('-')?;
    Some((number(a)?, number(b)?))
}

/// `a-b of n`.
fn span_of(text: &str) -> Option<()> {
    let (span_text, total) = text.split_once(" of ")?;
    span(span_text)?;
    number(total)?;
    Some(())
}

/// The piece of output `line` is, if it is one whole, as a model copies it
/// (white space at its end lost or kept). Separators and removed lines are
/// not found here: they are ordinary text as well (`contextual`).
pub(crate) fn piece(line: &str) -> Option<Piece<'_>> {
    let line = line.trim_end();
    if let Some(found) = header(line) {
        return Some(found);
    }
    if let Some(rest) = line.strip_prefix("REV:") {
        return rev(rest).and_then(|r| Piece::named(Kind::RevLine, None, vec![r]));
    }
    if let Some(found) = headline(line) {
        return Some(found);
    }
    let unnamed = footer(line)
        .or_else(|| region(line))
        .or_else(|| elision(line))
        .or_else(|| shift_hints(line))
        .or_else(|| search_summary(line))
        .or_else(|| full_ref(line));
    unnamed.and_then(Piece::unnamed)
}

/// `path REV:R lines a-b of n`, `path REV:R (empty file)`, `path REV:R`.
fn header(line: &str) -> Option<Piece<'_>> {
    let (path, tail) = line.rsplit_once(" REV:")?;
    if path.trim().is_empty() {
        return None;
    }
    let (found, kind) = match tail.split_once(' ') {
        None => (rev(tail)?, Kind::SearchHeader),
        Some((r, "(empty file)")) => (rev(r)?, Kind::ViewHeader),
        Some((r, lines)) => {
            span_of(lines.strip_prefix("lines ")?)?;
            (rev(r)?, Kind::ViewHeader)
        }
    };
    Piece::named(kind, Some(path), vec![found])
}

/// `… REV A -> B (+x -y)`.
fn headline(line: &str) -> Option<Piece<'_>> {
    let (_, tail) = line.rsplit_once(". REV ")?;
    let (old, tail) = tail.split_once(" -> ")?;
    let (new, counts) = tail.split_once(' ')?;
    let (added, removed) = counts
        .strip_prefix("(+")?
        .strip_suffix(')')?
        .split_once(" -")?;
    let count = |n: &str| n == "0" || number(n).is_some();
    (count(added) && count(removed)).then_some(())?;
    Piece::named(Kind::Headline, None, vec![rev(old)?, rev(new)?])
}

/// `(Showing lines a-b of n. Read on with offset=m.)`.
fn footer(line: &str) -> Option<Kind> {
    let inner = line.strip_prefix("(Showing lines ")?.strip_suffix(".)")?;
    let (lines, offset) = inner.split_once(". Read on with offset=")?;
    span_of(lines)?;
    number(offset)?;
    Some(Kind::Footer)
}

/// `@@ a-b @@`, `@@ (file is now empty) @@`.
fn region(line: &str) -> Option<Kind> {
    let inner = line.strip_prefix("@@ ")?.strip_suffix(" @@")?;
    (inner == "(file is now empty)" || span(inner).is_some()).then_some(Kind::Region)
}

/// `  … k more lines of this change …`, `  … (k lines moved to …)`,
/// `  … (k lines copied from …)`.
fn elision(line: &str) -> Option<Kind> {
    let inner = line.trim_start().strip_prefix("… ")?;
    if let Some(count) = inner.strip_suffix(" more lines of this change …") {
        return number(count).map(|_| Kind::Elision);
    }
    let inner = inner.strip_prefix('(')?.strip_suffix(')')?;
    let (count, rest) = inner.split_once(' ')?;
    number(count)?;
    let rest = rest
        .strip_prefix("lines ")
        .or_else(|| rest.strip_prefix("line "))?;
    ["moved to ", "moved from ", "copied from "]
        .iter()
        .any(|verb| rest.starts_with(verb))
        .then_some(Kind::Elision)
}

/// `Lines moved: old … is now … (±k); …; and k more ranges.`
fn shift_hints(line: &str) -> Option<Kind> {
    let hints = line.strip_prefix("Lines moved: old ")?.strip_suffix('.')?;
    (hints.contains(" now ") && hints.contains(')')).then_some(Kind::ShiftHints)
}

/// `Found k matching lines in m files…`, `Found k lines not matching in …`.
fn search_summary(line: &str) -> Option<Kind> {
    let rest = line.strip_prefix("Found ")?;
    let (count, rest) = rest.split_once(' ')?;
    number(count)?;
    let rest = [
        "matching lines in ",
        "matching line in ",
        "lines not matching in ",
        "line not matching in ",
    ]
    .iter()
    .find_map(|p| rest.strip_prefix(p))?;
    let (files, _) = rest.split_once(' ')?;
    number(files)?;
    rest.split_once(' ')?
        .1
        .starts_with("file")
        .then_some(Kind::SearchSummary)
}

/// `12#A3F#9BC` alone, after the marker a result or rejection puts before
/// a line: a full ref is printed in messages, never as a file's line.
fn full_ref(line: &str) -> Option<Kind> {
    let line = line
        .trim_start_matches(">>> ")
        .trim_start_matches('+')
        .trim_start();
    let (number_text, tags) = line.split_once('#')?;
    number(number_text)?;
    let (hash, anchor) = tags.split_once('#')?;
    let hex = |t: &str| {
        t.len() == 3
            && t.bytes()
                .all(|c| c.is_ascii_digit() || (b'A'..=b'F').contains(&c))
    };
    (hex(hash) && hex(anchor)).then_some(Kind::Ref)
}

/// A line a host's read cut, as the host shows it (OpenCode: `... (line
/// truncated to 2000 chars)` after the line's first 2,000 UTF-16 units),
/// where the host's plugin tagged it with the ref of the whole line: the
/// text shown of the line, and the length it was cut at.
pub(crate) fn host_cut(text: &str) -> Option<(&str, usize)> {
    let (head, note) = text.trim_end().rsplit_once("... (line truncated to ")?;
    let units = number(note.strip_suffix(" chars)")?)?;
    Some((head, units))
}

/// Whether `line` may be the whole line a host cut to `head` at `units`
/// UTF-16 units: it goes on past them (one unit fewer where the cut would
/// have split a character).
pub(crate) fn host_cut_of(line: &str, head: &str, units: usize) -> bool {
    let shown = head.encode_utf16().count();
    line.len() > head.len()
        && line.starts_with(head)
        && (units.saturating_sub(1)..=units).contains(&shown)
}

/// The piece a line is among lines proven copied from a view, where
/// ordinary text can take its form too: a separator of a rejection's or
/// search's lines, or a line an edit result shows as removed (`-text`,
/// `-|text`), `had` saying whether the file had a line with that text.
pub(crate) fn contextual(line: &str, had: impl Fn(&str) -> bool) -> Option<Kind> {
    match line.trim_end() {
        "    ..." | "--" => Some(Kind::Separator),
        _ if line.starts_with("-|") => Some(Kind::Removed),
        _ => line
            .strip_prefix('-')
            .filter(|old| had(old))
            .map(|_| Kind::Removed),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::document::Document;
    use crate::view::{render, ViewStyle};

    #[test]
    fn every_header_and_footer_a_view_renders_is_found_with_the_rev_it_names() {
        let text: String = (1..=30).map(|i| format!("line {i}\n")).collect();
        let doc = Document::from_text(&text);
        for style in [ViewStyle::Lean, ViewStyle::Full] {
            for path in ["f.txt", "src/dir with spaces/é.rs", "a REV:12345678.txt"] {
                let view = render(&doc, path, Some(3), Some(5), style).unwrap();
                let lines: Vec<&str> = view.text.lines().collect();
                let header = piece(lines[0]).unwrap();
                assert_eq!(header.kind, Kind::ViewHeader);
                assert_eq!(header.path, Some(path));
                assert_eq!(header.revs, [view.rev.as_str()]);
                assert_eq!(piece(lines.last().unwrap()).unwrap().kind, Kind::Footer);
                for line in &lines[1..lines.len() - 1] {
                    assert_eq!(piece(line), None, "{line}");
                }
            }
        }
        let empty = render(
            &Document::from_text(""),
            "e.txt",
            None,
            None,
            ViewStyle::Lean,
        )
        .unwrap();
        assert_eq!(
            piece(empty.text.trim_end()).map(|p| p.kind),
            Some(Kind::ViewHeader)
        );
    }

    #[test]
    fn text_that_only_mentions_a_rev_or_a_span_is_no_piece() {
        for line in [
            "REV:abcdef12",
            "see REV:1234567",
            "src/a.rs REV:72C4946C lines 1 to 4",
            "Showing lines 1-4 of 9.",
            "@@ -1,4 +1,5 @@",
            "@@ 1-4",
            "Found 3 errors in 2 files.",
            "12#abc#def",
            "12#A3F",
            "Lines moved: none",
            "… and more",
            "the REV 1234ABCD -> 5678ABCD change",
        ] {
            assert_eq!(piece(line), None, "{line}");
        }
    }

    #[test]
    fn a_line_a_hosts_read_cut_is_found_and_fits_only_the_lines_it_begins() {
        let line = "é".repeat(2100);
        let head: String = line.chars().take(2000).collect();
        let shown = format!("{head}... (line truncated to 2000 chars)");
        assert_eq!(host_cut(&shown), Some((head.as_str(), 2000)));
        assert!(host_cut_of(&line, &head, 2000));
        assert!(!host_cut_of(&head, &head, 2000));
        assert!(!host_cut_of(&format!("x{line}"), &head, 2000));
        assert!(!host_cut_of(&line, &head[..10], 2000));
        assert_eq!(host_cut("wait... (line truncated to many chars)"), None);
    }

    #[test]
    fn separators_and_removed_lines_are_pieces_only_where_the_caller_says_so() {
        let none = |_: &str| false;
        assert_eq!(contextual("    ...", none), Some(Kind::Separator));
        assert_eq!(contextual("--", none), Some(Kind::Separator));
        assert_eq!(contextual("-|old", none), Some(Kind::Removed));
        assert_eq!(contextual("- item", none), None);
        assert_eq!(contextual("-old", |t| t == "old"), Some(Kind::Removed));
        assert_eq!(contextual("        ...", none), None);
    }
}
