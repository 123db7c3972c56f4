//! The `oldString`/`newString` fallback with OpenCode's semantics and error
//! texts, minus its faults: a tolerant match re-indents the new text to the
//! lines it matched and never touches a line outside them, and
//! `replaceAll` is literal. An empty `oldString` creates the file.

use crate::document::{Document, Splice};
use crate::error::{list_numbers, Error, ErrorCode, Result};
use crate::report::window;
use crate::request::split_content;
use crate::view::ViewStyle;

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
        1 => Ok(Replaced {
            splices: literal_splices(doc, &found, old.len(), &new),
            notes: Vec::new(),
            matches: 1,
        }),
        n if replace_all => Ok(Replaced {
            splices: literal_splices(doc, &found, old.len(), &new),
            notes: Vec::new(),
            matches: n,
        }),
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

/// Splices for literal matches at byte offsets `found` in the canonical
/// text: each covers the whole lines the match touches, with the text
/// around the match on those lines kept.
fn literal_splices(doc: &Document, found: &[usize], old_len: usize, new: &str) -> Vec<Splice> {
    let text = doc.text();
    let starts: Vec<usize> = line_starts(doc).collect();
    let line_at = |offset: usize| starts.partition_point(|&s| s <= offset).saturating_sub(1);
    let line_end = |line: usize| starts.get(line + 1).copied().unwrap_or(text.len());
    let mut splices: Vec<Splice> = Vec::new();
    let mut i = 0;
    while i < found.len() {
        let first = line_at(found[i]);
        let mut last = line_at(found[i] + old_len - 1);
        let mut j = i + 1;
        while j < found.len() && line_at(found[j]) <= last {
            last = last.max(line_at(found[j] + old_len - 1));
            j += 1;
        }
        let mut end = line_end(last);
        let mut chunk = String::new();
        let mut at = starts[first];
        for &m in &found[i..j] {
            chunk.push_str(&text[at..m]);
            chunk.push_str(new);
            at = m + old_len;
        }
        chunk.push_str(&text[at..end]);
        // A match that ended in a newline the new text lacks joins the next
        // line to this one; take that line into the splice.
        if !chunk.ends_with('\n') && text[..end].ends_with('\n') && last + 1 < starts.len() {
            last += 1;
            let next_end = line_end(last);
            chunk.push_str(&text[end..next_end]);
            end = next_end;
        }
        let lines = if end == text.len() && !doc.final_newline() {
            chunk.split('\n').map(str::to_owned).collect()
        } else {
            split_content(&chunk)
        };
        splices.push(Splice {
            range: first..last + 1,
            lines,
        });
        i = j;
    }
    splices
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
            Ok(Replaced {
                splices: vec![Splice {
                    range: start..start + k,
                    lines,
                }],
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
        let doc = Document::from_text(text);
        let r = replace(&doc, old, new, all, ViewStyle::Full)?;
        Ok(String::from_utf8(doc.splice(&r.splices).unwrap()).unwrap())
    }

    #[test]
    fn replaces_a_unique_exact_match_inside_a_line_and_across_lines() {
        assert_eq!(
            apply("let a = 1;\nlet b = 2;\n", "= 1", "= 10", false).unwrap(),
            "let a = 10;\nlet b = 2;\n"
        );
        assert_eq!(apply("a\nb\nc\n", "a\nb", "x", false).unwrap(), "x\nc\n");
        assert_eq!(apply("a\nb\nc\n", "b\n", "x", false).unwrap(), "a\nxc\n");
        assert_eq!(apply("a\nb", "b", "b\nc", false).unwrap(), "a\nb\nc");
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
}
