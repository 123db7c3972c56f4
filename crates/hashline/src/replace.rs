//! The `oldString`/`newString` fallback with OpenCode's semantics and error
//! texts, minus its faults: a tolerant match re-indents the new text to the
//! lines it matched and never touches a line outside them, `replaceAll` is
//! literal, and in a file whose lines end differently every line keeps its
//! own ending. An empty `oldString` creates the file.

use crate::document::{Document, Ending, Splice};
use crate::error::{list_numbers, Error, ErrorCode, Result};
use crate::report::window;
use crate::request::split_content;
use crate::view::ViewStyle;
use memchr::memchr_iter;
use std::ops::Range;

const IDENTICAL: &str = "No changes to apply: oldString and newString are identical.";
const NOT_FOUND: &str =
    "Could not find oldString in the file. It must match exactly, including whitespace, indentation, and line endings.";
const AMBIGUOUS: &str =
    "Found multiple matches for oldString. Provide more surrounding context to make the match unique.";

/// Files up to this many lines get the closest lines shown when nothing
/// matches; past it the search would cost more than it helps.
const NEAREST_SEARCH_LINES: usize = 20_000;
/// The closest-line search compares at most this many characters of each
/// line: a character diff is quadratic, and a minified line is megabytes.
const NEAREST_COMPARE_CHARS: usize = 160;
/// Matches shown with refs when oldString is ambiguous.
const SHOWN_MATCHES: usize = 5;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Replaced {
    pub splices: Vec<Splice>,
    /// The ending of each new line, splice by splice.
    pub endings: Vec<Vec<Ending>>,
    pub notes: Vec<String>,
    pub matches: usize,
}

fn normalize(s: &str) -> String {
    s.replace("\r\n", "\n").replace('\r', "\n")
}

/// The bytes of the file an empty `oldString` creates: exactly the text
/// given, terminators included, after the BOM of a file that held only a
/// BOM. Refused when the file already has content.
pub(crate) fn create(doc: &Document, path: &str, new: &str, replace_all: bool) -> Result<Vec<u8>> {
    if !doc.is_empty() {
        return Err(Error::invalid_request(format!(
            "oldString is empty, which creates a file, but {path} already exists and is not empty. Put the text to replace in oldString, or use operations."
        ))
        .with_path(path));
    }
    if replace_all {
        return Err(
            Error::invalid_request("replaceAll needs a non-empty oldString.").with_path(path),
        );
    }
    if new.is_empty() {
        return Err(Error::new(ErrorCode::NoChange, IDENTICAL).with_path(path));
    }
    let mut bytes = Vec::with_capacity(new.len() + 3);
    if doc.has_bom() && !new.starts_with('\u{FEFF}') {
        bytes.extend_from_slice("\u{FEFF}".as_bytes());
    }
    bytes.extend_from_slice(new.as_bytes());
    Ok(bytes)
}

/// Replaces in an existing document; an empty `old` creates a file
/// (`create`).
pub(crate) fn replace(
    doc: &Document,
    old: &str,
    new: &str,
    replace_all: bool,
    style: ViewStyle,
) -> Result<Replaced> {
    let old = normalize(old);
    let new = normalize(new);
    if old == new {
        return Err(Error::new(ErrorCode::NoChange, IDENTICAL));
    }
    let text = doc.text();
    let found: Vec<usize> = text.match_indices(old.as_str()).map(|(i, _)| i).collect();
    match found.len() {
        0 => tolerant(doc, &old, &new, style),
        n if n == 1 || replace_all => {
            let (splices, endings) = literal_splices(doc, &found, old.len(), &new);
            Ok(Replaced {
                splices,
                endings,
                notes: Vec::new(),
                matches: n,
            })
        }
        _ => {
            let mut lines: Vec<usize> = found.iter().map(|&at| line_of_offset(doc, at)).collect();
            lines.dedup();
            let shown_lines: Vec<usize> = lines.iter().copied().take(SHOWN_MATCHES).collect();
            let (shown_text, shown) = window(doc, &shown_lines, 1, style);
            let numbers: Vec<usize> = lines.iter().map(|l| l + 1).collect();
            let mut err = Error::new(
                ErrorCode::OldStringAmbiguous,
                format!(
                    "{AMBIGUOUS} It matches {} times (line{} {}); or cite the line with an operation:\n{shown_text}",
                    found.len(),
                    if numbers.len() == 1 { "" } else { "s" },
                    list_numbers(&numbers)
                ),
            );
            err.shown = shown;
            Err(err)
        }
    }
}

fn line_starts(doc: &Document) -> impl Iterator<Item = usize> + '_ {
    let mut at = 0;
    doc.lines().map(move |l| {
        let start = at;
        at += l.len() + 1;
        start
    })
}

fn line_of_offset(doc: &Document, offset: usize) -> usize {
    line_starts(doc)
        .take_while(|&s| s <= offset)
        .count()
        .saturating_sub(1)
}

/// The ending for newString's line breaks when they are not as many as
/// the ones they replace (newString's breaks are LF whatever the file has;
/// when there are as many, each takes the ending of the one it replaces):
/// the one ending the replaced breaks share, or, replacing none, the ending
/// of the line they split; else the file's usual one.
fn shared_ending(doc: &Document, replaced: &[Ending], within: Option<Ending>) -> Ending {
    let shared = match replaced {
        [] => within,
        [first, rest @ ..] => rest.iter().all(|e| e == first).then_some(*first),
    };
    shared.unwrap_or_else(|| doc.dominant_ending())
}

/// Splices for literal matches at byte offsets `found` in the canonical
/// text: each covers the whole lines the matches touch, with the text
/// around the matches on those lines kept; and the ending of each of their
/// lines: a line break of the file keeps its own, one of newString gets
/// the one it replaces or `shared_ending`.
fn literal_splices(
    doc: &Document,
    found: &[usize],
    old_len: usize,
    new: &str,
) -> (Vec<Splice>, Vec<Vec<Ending>>) {
    let text = doc.text();
    let starts: Vec<usize> = line_starts(doc).collect();
    let line_at = |offset: usize| starts.partition_point(|&s| s <= offset).saturating_sub(1);
    let line_end = |line: usize| starts.get(line + 1).copied().unwrap_or(text.len());
    let ending_at = |offset: usize| {
        doc.ending(line_at(offset))
            .unwrap_or_else(|| doc.dominant_ending())
    };
    let breaks = |range: Range<usize>| {
        memchr_iter(b'\n', &text.as_bytes()[range.clone()]).map(move |k| ending_at(range.start + k))
    };
    let new_breaks = memchr_iter(b'\n', new.as_bytes()).count();
    let mut splices: Vec<Splice> = Vec::new();
    let mut all_endings = Vec::new();
    let mut j = 0;
    while j < found.len() {
        let first = line_at(found[j]);
        let mut last = first;
        let mut chunk = String::new();
        let mut endings = Vec::new();
        let mut at = starts[first];
        let mut shared = doc.dominant_ending();
        let end = loop {
            while j < found.len() && line_at(found[j]) <= last {
                let m = found[j];
                chunk.push_str(&text[at..m]);
                endings.extend(breaks(at..m));
                let replaced: Vec<Ending> = breaks(m..m + old_len).collect();
                shared = shared_ending(doc, &replaced, doc.ending(line_at(m)));
                endings.extend((0..new_breaks).map(|k| {
                    if new_breaks == replaced.len() {
                        replaced[k]
                    } else {
                        shared
                    }
                }));
                chunk.push_str(new);
                at = m + old_len;
                last = last.max(line_at(at - 1));
                j += 1;
            }
            let end = line_end(last);
            // A match that ended in a newline the new text lacks joins the
            // next line to this one: that line, and the matches on it, are
            // taken into the splice.
            let joins = at == end && !chunk.ends_with('\n') && text[..end].ends_with('\n');
            if joins && last + 1 < starts.len() {
                last += 1;
                continue;
            }
            break end;
        };
        chunk.push_str(&text[at..end]);
        endings.extend(breaks(at..end));
        // A final line break of the chunk ends its last line, wherever it
        // came from: the writer gives that line the file's final newline or
        // its absence (docs/format.md §1), so at the end of a file without
        // one, newString's last break is not written and no empty line is
        // made of it.
        let lines = split_content(&chunk);
        // The last line of a splice at the end of the file holds no break
        // when the match took the file's last one.
        endings.resize(lines.len(), shared);
        splices.push(Splice {
            range: first..last + 1,
            lines,
        });
        all_endings.push(endings);
    }
    (splices, all_endings)
}

fn indent(line: &str) -> &str {
    &line[..line.len() - line.trim_start().len()]
}

/// How the indentation of oldString maps onto the matched lines, learnt from
/// each pair of lines, so that newString's lines, nested deeper or not, get
/// the file's indentation (tabs for spaces, two spaces for four).
struct Reindent<'a> {
    pairs: Vec<(&'a str, &'a str)>,
    /// One level of indentation in oldString and in the file.
    unit: Option<(&'a str, &'a str)>,
}

impl<'a> Reindent<'a> {
    fn learn(pairs: &[(&'a str, &'a str)]) -> Reindent<'a> {
        let mut sorted = pairs.to_vec();
        sorted.sort_by_key(|(o, _)| o.len());
        sorted.dedup();
        let unit = sorted.iter().enumerate().find_map(|(i, (o1, d1))| {
            sorted[i + 1..].iter().find_map(|(o2, d2)| {
                let step = (o2.strip_prefix(o1)?, d2.strip_prefix(d1)?);
                (!step.0.is_empty() && !step.1.is_empty()).then_some(step)
            })
        });
        Reindent {
            pairs: sorted,
            unit,
        }
    }

    fn line(&self, line: String) -> String {
        if line.trim().is_empty() {
            return line;
        }
        let ws = indent(&line);
        let body = &line[ws.len()..];
        // The longest indentation of oldString that this line starts with.
        let Some((old, new)) = self.pairs.iter().rev().find(|(o, _)| ws.starts_with(o)) else {
            return line;
        };
        let rest = &ws[old.len()..];
        let rest = match self.unit {
            Some((old_unit, new_unit))
                if rest.len().is_multiple_of(old_unit.len())
                    && rest == old_unit.repeat(rest.len() / old_unit.len()) =>
            {
                new_unit.repeat(rest.len() / old_unit.len())
            }
            _ => rest.to_owned(),
        };
        format!("{new}{rest}{body}")
    }
}

/// Whole lines equal to `old`'s lines once leading and trailing white space
/// is ignored; used only when it is the single such block.
fn tolerant(doc: &Document, old: &str, new: &str, style: ViewStyle) -> Result<Replaced> {
    let old_lines = split_content(old);
    let k = old_lines.len();
    let wanted: Vec<&str> = old_lines.iter().map(|l| l.trim()).collect();
    let n = doc.line_count();
    let mut hits = Vec::new();
    if k > 0 && wanted.iter().any(|l| !l.is_empty()) && k <= n {
        for start in 0..=n - k {
            if (0..k).all(|j| doc.line(start + j).trim() == wanted[j]) {
                hits.push(start);
            }
        }
    }
    match hits.as_slice() {
        [start] => {
            let start = *start;
            let old_refs: Vec<&str> = old_lines.iter().map(String::as_str).collect();
            let matched: Vec<&str> = (start..start + k).map(|i| doc.line(i)).collect();
            let lines = reindent(&old_refs, &matched, split_content(new));
            // Whole lines replaced: each keeps its ending when there are as
            // many new ones.
            let own: Vec<Option<Ending>> = (start..start + k).map(|i| doc.ending(i)).collect();
            let replaced: Vec<Ending> = own.iter().flatten().copied().collect();
            let shared = shared_ending(doc, &replaced, None);
            let endings = if lines.len() == k {
                own.iter().map(|e| e.unwrap_or(shared)).collect()
            } else {
                vec![shared; lines.len()]
            };
            Ok(Replaced {
                splices: vec![Splice {
                    range: start..start + k,
                    lines,
                }],
                endings: vec![endings],
                notes: vec![format!(
                    "oldString matched lines {}-{} only with different white space; newString was re-indented to those lines' indentation.",
                    start + 1,
                    start + k
                )],
                matches: 1,
            })
        }
        [] => Err(not_found(doc, &wanted, style)),
        _ => {
            let (shown_text, shown) = window(doc, &hits, 1, style);
            let mut err = Error::new(
                ErrorCode::OldStringAmbiguous,
                format!("{AMBIGUOUS} Ignoring white space it matches {} places; or cite the line with an operation:\n{shown_text}", hits.len()),
            );
            err.shown = shown;
            Err(err)
        }
    }
}

/// The not-found error, showing the lines closest to oldString's first
/// non-blank line, with refs, so the retry can use operations instead.
fn not_found(doc: &Document, wanted: &[&str], style: ViewStyle) -> Error {
    let mut err = Error::new(ErrorCode::OldStringNotFound, NOT_FOUND);
    let best = closest_lines(doc, wanted);
    if best.is_empty() {
        return err;
    }
    let (shown_text, shown) = window(doc, &best, 1, style);
    err.message = format!("{NOT_FOUND} The closest lines are below; edit them with operations and these refs:\n{shown_text}");
    err.shown = shown;
    err
}

/// New lines re-indented the way `old` (lines as the caller wrote them)
/// maps onto `matched` (the file's lines they matched ignoring white
/// space), pair by pair; blank lines teach nothing.
pub(crate) fn reindent(old: &[&str], matched: &[&str], new: Vec<String>) -> Vec<String> {
    let pairs: Vec<(&str, &str)> = old
        .iter()
        .zip(matched)
        .filter(|(o, _)| !o.trim().is_empty())
        .map(|(o, m)| (indent(o), indent(m)))
        .collect();
    let reindent = Reindent::learn(&pairs);
    new.into_iter().map(|l| reindent.line(l)).collect()
}

/// Up to three lines (0-based, sorted) most like the first non-blank line of
/// `wanted`, for a rejection to show with refs; none when nothing is close.
pub(crate) fn closest_lines(doc: &Document, wanted: &[&str]) -> Vec<usize> {
    let clip = |s: &str| -> String { s.chars().take(NEAREST_COMPARE_CHARS).collect() };
    let probe = clip(
        wanted
            .iter()
            .map(|l| l.trim())
            .find(|l| !l.is_empty())
            .unwrap_or(""),
    );
    if probe.is_empty() || doc.line_count() > NEAREST_SEARCH_LINES {
        return Vec::new();
    }
    let wanted_grams = bigrams(&probe);
    let mut scored: Vec<(f32, usize)> = doc
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| (dice(&bigrams(&clip(l.trim())), &wanted_grams), i))
        .filter(|(score, _)| *score >= 0.6)
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    let mut best: Vec<usize> = scored.into_iter().take(3).map(|(_, i)| i).collect();
    best.sort_unstable();
    best
}

/// The character pairs of a line, sorted, for a similarity that costs one
/// pass per line rather than an edit distance per pair of lines.
fn bigrams(s: &str) -> Vec<(char, char)> {
    let chars: Vec<char> = s.chars().collect();
    let mut grams: Vec<(char, char)> = chars.windows(2).map(|w| (w[0], w[1])).collect();
    grams.sort_unstable();
    grams
}

/// Dice's coefficient of two sorted bigram lists: 1 for the same pairs.
fn dice(a: &[(char, char)], b: &[(char, char)]) -> f32 {
    if a.is_empty() || b.is_empty() {
        return 0.0;
    }
    let (mut i, mut j, mut shared) = (0, 0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                shared += 1;
                i += 1;
                j += 1;
            }
        }
    }
    2.0 * shared as f32 / (a.len() + b.len()) as f32
}

#[cfg(test)]
mod tests {
    use super::*;

    fn apply(text: &str, old: &str, new: &str, all: bool) -> Result<String> {
        Ok(String::from_utf8(written(text.as_bytes(), old, new, all)?).unwrap())
    }

    /// The bytes a replace writes into a file of `bytes`.
    fn written(bytes: &[u8], old: &str, new: &str, all: bool) -> Result<Vec<u8>> {
        let doc = Document::from_bytes(bytes)?;
        let r = replace(&doc, old, new, all, ViewStyle::Full)?;
        let mut doc = doc;
        doc.splice_in_place(&r.splices, Some(&r.endings))?;
        Ok(doc.to_bytes())
    }

    /// Each case: the file, oldString, newString, replaceAll, the bytes written.
    type Case<'a> = (&'a [u8], &'a str, &'a str, bool, &'a [u8]);

    /// Every case is run, and every wrong one named, before failing.
    fn check(cases: &[Case<'_>]) {
        let wrong: Vec<String> = cases
            .iter()
            .filter_map(|&(file, old, new, all, want)| {
                let got = written(file, old, new, all).unwrap();
                (got != want).then(|| {
                    format!(
                        "{:?} {old:?} -> {new:?} gave {:?}, not {:?}",
                        String::from_utf8_lossy(file),
                        String::from_utf8_lossy(&got),
                        String::from_utf8_lossy(want)
                    )
                })
            })
            .collect();
        assert!(wrong.is_empty(), "\n{}", wrong.join("\n"));
    }

    #[test]
    fn an_edit_inside_one_line_of_a_mixed_ending_file_keeps_that_lines_ending() {
        check(&[
            (b"a\r\nb\nc\r\n", "b", "B", false, b"a\r\nB\nc\r\n"),
            (b"a\nb\r\nc\n", "b", "B", false, b"a\nB\r\nc\n"),
            (b"a\r\nb\rc\r\n", "b", "B", false, b"a\r\nB\rc\r\n"),
            (b"x y\r\nx\nx\r\n", "x", "z", true, b"z y\r\nz\nz\r\n"),
        ]);
    }

    #[test]
    fn new_line_breaks_take_the_endings_of_the_ones_they_replace_or_of_the_lines_they_split() {
        check(&[
            // As many breaks as oldString spanned: each keeps the one it replaces.
            (
                b"a\r\nb\nc\r\nd\r\n",
                "b\nc",
                "B\nC",
                false,
                b"a\r\nB\nC\r\nd\r\n",
            ),
            // More breaks, inside a line: the line's own ending.
            (
                b"a\r\nb\nc\r\n",
                "b",
                "b1\nb2",
                false,
                b"a\r\nb1\nb2\nc\r\n",
            ),
            (b"a\nb\r\nc\n", "b", "b1\nb2", false, b"a\nb1\r\nb2\r\nc\n"),
            // Another count of breaks that share an ending: that one.
            (
                b"a\r\nb\nc\r\nd\r\n",
                "b\nc",
                "x\ny\nz",
                false,
                b"a\r\nx\ny\nz\r\nd\r\n",
            ),
            (
                b"a\r\nb\nc\nd\r\ne\r\n",
                "b\nc\nd",
                "x\ny",
                false,
                b"a\r\nx\ny\r\ne\r\n",
            ),
            // Another count of breaks that differ: the file's usual ending.
            (
                b"a\r\nb\nc\r\nd\ne\r\n",
                "b\nc\nd",
                "x\ny\nz\nw",
                false,
                b"a\r\nx\r\ny\r\nz\r\nw\ne\r\n",
            ),
        ]);
    }

    #[test]
    fn a_whitespace_tolerant_match_in_a_mixed_ending_file_keeps_each_lines_ending() {
        check(&[
            (
                b"a\r\n  b\n  c\r\nd\r\n",
                "b\nc",
                "B\nC",
                false,
                b"a\r\n  B\n  C\r\nd\r\n",
            ),
            (
                b"a\r\n\tb\nd\r\n",
                "  b",
                "  B1\n  B2",
                false,
                b"a\r\n\tB1\n\tB2\nd\r\n",
            ),
        ]);
    }

    #[test]
    fn a_file_without_a_final_newline_keeps_lacking_one_and_gains_no_line_at_its_end() {
        check(&[
            // newString's last line break would end the file: not written.
            (b"a\nb", "b", "c\n", false, b"a\nc"),
            (b"a\r\nb", "b", "c\n", false, b"a\r\nc"),
            (b"a\rb", "b", "c\n", false, b"a\rc"),
            (b"a\r\nb\nc", "c", "d\n", false, b"a\r\nb\nd"),
            (b"\xEF\xBB\xBFa\nb", "b", "c\n", false, b"\xEF\xBB\xBFa\nc"),
            (b"b", "b", "c\n", false, b"c"),
            (b"b\nb", "b", "c\n", true, b"c\n\nc"),
            (b"a\nb", "a\nb", "x\ny\n", false, b"x\ny"),
            (b"a\r\nb", "a\nb", "x\ny\n", false, b"x\r\ny"),
            (b"a\rb", "a\nb", "x\ny\n", false, b"x\ry"),
            (b"a\r\nb\nc", "b\nc", "x\ny\n", false, b"a\r\nx\ny"),
            // Nothing in place of the last line: the line before becomes
            // last, and ends as the file did.
            (b"a\nb", "b", "", false, b"a"),
            (b"a\r\nb", "b", "", false, b"a"),
            (b"a\rb", "b", "", false, b"a"),
            (b"a\r\nb\nc", "c", "", false, b"a\r\nb"),
            (b"a\nb", "a\nb", "", false, b""),
            (b"\xEF\xBB\xBFa\r\nb", "a\nb", "", false, b"\xEF\xBB\xBF"),
            // An empty last line exists only by its line break: kept.
            (b"a\nb", "b", "c\n\n", false, b"a\nc\n\n"),
            (b"a\r\nb", "b", "c\n\n", false, b"a\r\nc\r\n\r\n"),
            (b"a\rb", "b", "c\n\n", false, b"a\rc\r\r"),
            (b"a\r\nb\nc", "c", "d\n\n", false, b"a\r\nb\nd\n\n"),
            (b"a\rb\rc\r\nd", "d", "e\n\n", false, b"a\rb\rc\r\ne\r\r"),
            (b"a\nb", "b", "\n", false, b"a\n\n"),
            (b"a\n\nb", "b", "", false, b"a\n\n"),
            (b"b", "b", "\n", false, b"\n"),
        ]);
    }

    #[test]
    fn a_whitespace_tolerant_match_at_the_end_of_a_file_without_a_final_newline_writes_what_a_literal_one_does(
    ) {
        for (new, want) in [
            ("c\n", &b"a\r\nc"[..]),
            ("", b"a"),
            ("c\n\n", b"a\r\nc\r\n\r\n"),
        ] {
            for old in ["b", " b"] {
                let got = written(b"a\r\nb", old, new, false).unwrap();
                assert_eq!(
                    String::from_utf8_lossy(&got),
                    String::from_utf8_lossy(want),
                    "{old:?} -> {new:?}"
                );
            }
        }
    }

    #[test]
    fn replace_all_of_line_breaks_joins_the_lines_once_each() {
        assert_eq!(apply("a\nb\nc\n", "\n", "", true).unwrap(), "abc\n");
        assert_eq!(apply("a\nb\nc\n", "\n", " ", true).unwrap(), "a b c \n");
        assert_eq!(apply("ab\na\n\n\na", "\n", "", true).unwrap(), "abaa");
    }

    #[test]
    fn replace_all_is_literal_and_handles_several_matches_per_line() {
        assert_eq!(
            apply("x x\ny\nx\n", "x", "$&", true).unwrap(),
            "$& $&\ny\n$&\n"
        );
    }

    #[test]
    fn errors_keep_opencode_texts() {
        let doc = Document::from_text("a\na\n");
        assert_eq!(
            replace(&doc, "a", "a", false, ViewStyle::Full)
                .unwrap_err()
                .message,
            IDENTICAL
        );
        let err = replace(&doc, "a", "b", false, ViewStyle::Full).unwrap_err();
        assert_eq!(err.code, ErrorCode::OldStringAmbiguous);
        assert!(err.message.starts_with(AMBIGUOUS));
        let err = replace(&doc, "zzz", "b", false, ViewStyle::Full).unwrap_err();
        assert_eq!(err.code, ErrorCode::OldStringNotFound);
        assert!(err.message.starts_with(NOT_FOUND));
    }

    #[test]
    fn a_whitespace_tolerant_match_reindents_the_new_text_and_touches_nothing_else() {
        let text = "fn a() {\n    if x {\n        y();\n    }\n}\n";
        let out = apply(text, "if x {\n    y();\n}", "if x {\n    z();\n}", false).unwrap();
        assert_eq!(out, "fn a() {\n    if x {\n        z();\n    }\n}\n");
    }

    #[test]
    fn not_found_shows_the_closest_lines_with_refs() {
        let doc = Document::from_text("fn main() {\n    let total = items.len();\n}\n");
        let err =
            replace(&doc, "let totl = items.len();", "x", false, ViewStyle::Full).unwrap_err();
        assert!(err.message.contains(">>> 2#"), "{}", err.message);
        assert_eq!(err.shown, vec![0..3]);
    }

    mod mixed_endings {
        use super::*;
        use crate::document::Ending;
        use proptest::prelude::*;

        const ENDINGS: [Ending; 3] = [Ending::Lf, Ending::CrLf, Ending::Cr];

        /// A file of short lines from a small alphabet (so that oldString
        /// often matches several times), each line with any ending, the last
        /// with or without one.
        fn file() -> impl Strategy<Value = (Vec<(String, Ending)>, bool)> {
            let line =
                prop::sample::select(vec!["", "a", "b", "ab", "a b", "ba"]).prop_map(str::to_owned);
            (
                prop::collection::vec((line, prop::sample::select(ENDINGS.to_vec())), 1..10),
                any::<bool>(),
            )
        }

        fn bytes_of(lines: &[(String, Ending)], final_newline: bool) -> Vec<u8> {
            let mut bytes = Vec::new();
            for (i, (line, ending)) in lines.iter().enumerate() {
                bytes.extend_from_slice(line.as_bytes());
                if i + 1 < lines.len() || final_newline {
                    bytes.extend_from_slice(ending.as_str().as_bytes());
                }
            }
            bytes
        }

        /// A file's lines, each with its ending (none for a last line
        /// without one).
        type Lines = Vec<(String, Option<Ending>)>;

        /// The lines of written bytes with their endings.
        fn lines_of(bytes: &[u8]) -> Lines {
            let doc = Document::from_bytes(bytes).unwrap();
            (0..doc.line_count())
                .map(|i| (doc.line(i).to_owned(), doc.ending(i)))
                .collect()
        }

        /// The first line of `got` that is not as `want` says, content and
        /// ending, if any; a line more or less counts.
        fn first_difference(got: &Lines, want: &Lines) -> Option<usize> {
            let ends = |i: usize, ending: Ending| want.get(i).is_some_and(|w| w.1 == Some(ending));
            let blank = |i: usize| want.get(i).is_some_and(|w| w.0.is_empty());
            // A lone CR before an empty line's LF would read as one CRLF:
            // one of the two is written CRLF instead.
            let merged = |i: usize| {
                got[i].1 == Some(Ending::CrLf)
                    && ((i > 0 && ends(i - 1, Ending::Cr) && ends(i, Ending::Lf) && blank(i))
                        || (ends(i, Ending::Cr) && ends(i + 1, Ending::Lf) && blank(i + 1)))
            };
            (0..got.len().max(want.len())).find(|&i| match (got.get(i), want.get(i)) {
                (Some(g), Some(w)) => g.0 != w.0 || (g.1 != w.1 && !merged(i)),
                _ => true,
            })
        }

        /// What a literal replace of the canonical text must give, line by
        /// line: the text, and the ending of each line break in it. A break
        /// of the file keeps its ending; a break of newString takes the one
        /// it replaces when newString has as many as the match spanned, else
        /// the one ending those share (or, replacing none, the ending of the
        /// line it splits), else the file's usual one. The file keeps its
        /// final newline or its absence (`docs/format.md` §1).
        fn expected(doc: &Document, found: &[usize], old: &str, new: &str) -> Lines {
            let text = doc.text();
            // The ending of the break at each offset of the canonical text, and the line of each offset.
            let mut break_at = std::collections::HashMap::new();
            let mut line_at = Vec::new();
            let mut at = 0;
            for (i, line) in doc.lines().enumerate() {
                line_at.extend(std::iter::repeat_n(i, line.len() + 1));
                at += line.len();
                if let Some(ending) = doc.ending(i) {
                    break_at.insert(at, ending);
                    at += 1;
                }
            }
            let mut out = String::new();
            let mut breaks = Vec::new();
            let mut at = 0;
            let mut fallback = doc.dominant_ending();
            let keep = |from: usize, to: usize, out: &mut String, breaks: &mut Vec<Ending>| {
                for (k, c) in text[from..to].char_indices() {
                    if c == '\n' {
                        breaks.push(break_at[&(from + k)]);
                    }
                }
                out.push_str(&text[from..to]);
            };
            for &m in found {
                keep(at, m, &mut out, &mut breaks);
                let old_breaks: Vec<Ending> = (m..m + old.len())
                    .filter_map(|p| break_at.get(&p).copied())
                    .collect();
                let candidates: std::collections::BTreeSet<u8> = if old_breaks.is_empty() {
                    doc.ending(line_at[m])
                        .into_iter()
                        .map(|e| e as u8)
                        .collect()
                } else {
                    old_breaks.iter().map(|&e| e as u8).collect()
                };
                fallback = match candidates.iter().collect::<Vec<_>>()[..] {
                    [&one] => ENDINGS.into_iter().find(|e| *e as u8 == one).unwrap(),
                    _ => doc.dominant_ending(),
                };
                let new_breaks = new.matches('\n').count();
                for k in 0..new_breaks {
                    breaks.push(if new_breaks == old_breaks.len() {
                        old_breaks[k]
                    } else {
                        fallback
                    });
                }
                out.push_str(new);
                at = m + old.len();
            }
            keep(at, text.len(), &mut out, &mut breaks);
            // A file with a final newline keeps one, even where the match took it.
            if doc.final_newline() && !out.is_empty() && !out.ends_with('\n') {
                out.push('\n');
                breaks.push(fallback);
            }
            // A file without one keeps lacking one, even where newString
            // ends in a line break or the line before the match becomes
            // last; but an empty last line exists only by its break.
            let last_is_empty = out == "\n" || out.ends_with("\n\n");
            if !doc.final_newline() && out.ends_with('\n') && !last_is_empty {
                out.pop();
                breaks.pop();
            }
            let mut lines: Vec<&str> = out.split('\n').collect();
            if out.is_empty() || out.ends_with('\n') {
                lines.pop();
            }
            lines
                .into_iter()
                .enumerate()
                .map(|(i, l)| (l.to_owned(), breaks.get(i).copied()))
                .collect()
        }

        /// A file of distinct lines, each indented one way or another, each
        /// with any ending, the last with or without one.
        fn indented() -> impl Strategy<Value = (Vec<(String, Ending)>, bool)> {
            let indent = prop::sample::select(vec!["", " ", "  ", "\t"]);
            (
                prop::collection::vec((indent, prop::sample::select(ENDINGS.to_vec())), 1..8),
                any::<bool>(),
            )
                .prop_map(|(lines, final_newline)| {
                    let lines = lines
                        .into_iter()
                        .enumerate()
                        .map(|(i, (ws, e))| (format!("{ws}l{i}"), e))
                        .collect();
                    (lines, final_newline)
                })
        }

        proptest! {
            #![proptest_config(ProptestConfig { cases: 1000, ..ProptestConfig::default() })]

            #[test]
            fn a_whitespace_tolerant_replace_keeps_every_other_line_and_the_endings_of_the_lines_it_replaces(
                (lines, final_newline) in indented(),
                range in (0usize..8, 1usize..4),
                count in 0usize..4,
                trailing_breaks in 0usize..3,
                old_break in any::<bool>(),
            ) {
                let n = lines.len();
                let first = range.0 % n;
                let last = (first + range.1).min(n);
                let bytes = bytes_of(&lines, final_newline);
                let doc = Document::from_bytes(&bytes).unwrap();
                // Indented as no line of the file is: only the tolerant match finds them.
                let mut old = lines[first..last].iter().map(|(l, _)| format!("   {}", l.trim())).collect::<Vec<_>>().join("\n");
                if old_break {
                    old.push('\n');
                }
                let new = (0..count).map(|k| format!("   n{k}")).collect::<Vec<_>>().join("\n") + &"\n".repeat(trailing_breaks);
                // The whole lines matched become newString's lines: its text
                // split on line breaks, one final break dropped.
                let new_lines: Vec<&str> = if new.is_empty() {
                    Vec::new()
                } else {
                    new.strip_suffix('\n').unwrap_or(&new).split('\n').collect()
                };
                let out = written(&bytes, &old, &new, false).unwrap();
                let replaced: Vec<Option<Ending>> = (first..last).map(|i| doc.ending(i)).collect();
                let ends: Vec<Ending> = replaced.iter().flatten().copied().collect();
                let shared = if !ends.is_empty() && ends.iter().all(|&e| e == ends[0]) { ends[0] } else { doc.dominant_ending() };
                let own = |part: &[(String, Ending)]| part.iter().map(|(l, e)| (l.clone(), Some(*e))).collect::<Lines>();
                let mut want = own(&lines[..first]);
                want.extend(new_lines.iter().enumerate().map(|(k, l)| {
                    let ending = if new_lines.len() == replaced.len() { replaced[k].unwrap_or(shared) } else { shared };
                    (l.trim().to_owned(), Some(ending))
                }));
                want.extend(own(&lines[last..]));
                // The file keeps its final newline or its absence; an empty
                // last line exists only by its break.
                if let Some((line, ending)) = want.last_mut() {
                    if !final_newline && !line.is_empty() {
                        *ending = None;
                    }
                }
                let mut got = lines_of(&out);
                // newString's lines take the indentation of the lines they replace.
                for (line, _) in got.iter_mut().skip(first).take(new_lines.len()) {
                    *line = line.trim().to_owned();
                }
                let wrong = first_difference(&got, &want);
                prop_assert!(wrong.is_none(), "line {:?}: {:?} {:?} -> {:?} gave {:?}, not {:?}", wrong.map(|i| i + 1), String::from_utf8_lossy(&bytes), old, new, String::from_utf8_lossy(&out), want);
            }
        }

        proptest! {
            #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

            #[test]
            fn a_replace_in_a_mixed_ending_file_keeps_every_lines_own_ending(
                (lines, final_newline) in file(),
                cut in (0usize..64, 1usize..6),
                new in prop::collection::vec(prop::sample::select(vec!["a", "b", "X", "\n", " "]), 0..6),
            ) {
                let bytes = bytes_of(&lines, final_newline);
                let doc = Document::from_bytes(&bytes).unwrap();
                let text = doc.text().to_owned();
                prop_assume!(!text.is_empty());
                let start = cut.0 % text.len();
                let end = (start + cut.1).min(text.len());
                let old = &text[start..end];
                let new = new.concat();
                let found: Vec<usize> = text.match_indices(old).map(|(i, _)| i).collect();
                prop_assume!(old != new);
                let out = written(&bytes, old, &new, found.len() > 1).unwrap();
                let want = expected(&doc, &found, old, &new);
                let got = lines_of(&out);
                let wrong = first_difference(&got, &want);
                prop_assert!(wrong.is_none(), "line {:?}: {:?} {:?} -> {:?} gave {:?}, not {:?}", wrong.map(|i| i + 1), String::from_utf8_lossy(&bytes), old, new, got, want);
            }
        }
    }
}
