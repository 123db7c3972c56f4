//! Boundary echoes: a content line that repeats the line just outside the
//! lines an operation replaces (or the line an insert is anchored on), as
//! models paste when they copy a range with one line too many. Such a line
//! is dropped only where a parse proves it an echo, kept where a parse
//! proves it the content's own, and otherwise refused when it is a repeat
//! that nothing explains: never judged by a rule that is right most of the
//! time.

use crate::syntax::EchoJudge;
use crate::text::Document;
use std::cell::OnceCell;
use std::collections::HashMap;
use std::ops::Range;

/// A boundary of an operation's content: its first line, which may repeat
/// the line before the range, or its last, which may repeat the line after.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Echo {
    /// The first content line repeats the line before the range.
    Before,
    /// The last content line repeats the line after the range.
    After,
}

/// `content` without the echoes `removed`.
pub(crate) fn without(content: &[String], removed: &[Echo]) -> Vec<String> {
    let from = usize::from(removed.contains(&Echo::Before));
    let to = content.len() - usize::from(removed.contains(&Echo::After));
    content[from..to.max(from)].to_vec()
}

/// What becomes of an operation's content at its boundaries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Boundary {
    /// Written as sent: no line repeats a neighbour, or the parse shows the
    /// repeat belongs to the content, or it is a blank line the file's own
    /// spacing allows there.
    Kept,
    /// These repeats are proven echoes: only the reading without them
    /// parses best.
    Dropped(Vec<Echo>),
    /// These repeats are neither proven echoes nor proven content.
    Doubtful(Vec<Echo>),
}

/// An operation's content as given and the lines around its range, to
/// judge the lines at its boundaries.
pub(crate) struct Echoes<'a> {
    pub given: &'a [String],
    pub before: Option<&'a str>,
    pub after: Option<&'a str>,
    /// The first and last of the replaced lines.
    pub first: Option<&'a str>,
    pub last: Option<&'a str>,
    /// The boundaries whose line carried a view prefix, proven a copy, that
    /// names the neighbour it repeats.
    pub named: &'a [Echo],
    /// The batch the range is in, and its place there.
    pub batch: &'a Layout<'a>,
    pub index: usize,
}

impl Echoes<'_> {
    /// The content without the echoes `removed`.
    pub(crate) fn without(&self, removed: &[Echo]) -> Vec<String> {
        without(self.given, removed)
    }

    /// The repeats at the content's boundaries: a first line equal to the
    /// line before the range, a last equal to the line after, unless the
    /// range itself began (or ended) with that same line, so that the
    /// content only keeps it.
    fn repeats(&self) -> Vec<Echo> {
        let repeats = |line: Option<&String>, neighbour: Option<&str>, edge: Option<&str>| {
            line.is_some_and(|l| Some(l.as_str()) == neighbour) && edge != neighbour
        };
        let mut found = Vec::new();
        if repeats(self.given.first(), self.before, self.first) {
            found.push(Echo::Before);
        }
        if repeats(self.given.last(), self.after, self.last) {
            found.push(Echo::After);
        }
        found
    }

    /// What becomes of the content's boundaries. With a parser for the
    /// file's language, the readings that drop repeats (leaving some
    /// content) are parsed with the batch's text around them: one reading
    /// with strictly fewer errors than every other decides. Otherwise a
    /// repeated blank line stands where the file's spacing has such runs
    /// of blank lines, and any other repeat is doubtful.
    pub(crate) fn judge(&self, judge: Option<&EchoJudge<'_>>, style: &BlankLines<'_>) -> Boundary {
        let repeats = self.repeats();
        // A repeat whose line carried the view prefix of that very
        // neighbour, proven a copy, is a proven echo.
        let (named, open): (Vec<Echo>, Vec<Echo>) = repeats
            .into_iter()
            .partition(|echo| self.named.contains(echo));
        let n = self.given.len();
        let mut readings: Vec<Vec<Echo>> = vec![named.clone()];
        for echo in &open {
            readings.push([named.as_slice(), &[*echo]].concat());
        }
        if open.len() == 2 {
            readings.push([named.as_slice(), &open].concat());
        }
        // Some content stays in every reading: a repeat that is the whole
        // content is no echo, since dropping it would leave nothing to
        // write, which is not what the model sent either.
        readings.retain(|r| r.len() < n);
        let Some(first) = readings.first() else {
            return Boundary::Kept;
        };
        if readings.len() == 1 {
            return match first {
                kept if kept.is_empty() => Boundary::Kept,
                dropped => Boundary::Dropped(dropped.clone()),
            };
        }
        if let Some(judge) = judge {
            let range = self.batch.items[self.index].0.clone();
            let errors: Option<Vec<usize>> = readings
                .iter()
                .map(|r| judge.errors_with(range.clone(), &self.without(r)))
                .collect();
            if let Some(errors) = errors {
                let fewest = errors.iter().copied().min().unwrap_or(0);
                let mut best = errors.iter().enumerate().filter(|(_, &e)| e == fewest);
                if let (Some((at, _)), None) = (best.next(), best.next()) {
                    return match &readings[at] {
                        kept if kept.is_empty() => Boundary::Kept,
                        dropped => Boundary::Dropped(dropped.clone()),
                    };
                }
            }
        }
        let doubtful: Vec<Echo> = open
            .into_iter()
            .filter(|&echo| {
                let neighbour = match echo {
                    Echo::Before => self.before,
                    Echo::After => self.after,
                };
                !neighbour.is_some_and(blank)
                    || style.stands_out(self.given, echo, self.batch, self.index)
            })
            .collect();
        match (doubtful.is_empty(), named.is_empty()) {
            (false, _) => Boundary::Doubtful(doubtful),
            (true, true) => Boundary::Kept,
            (true, false) => Boundary::Dropped(named),
        }
    }
}

/// How long the file's runs of blank lines get before each kind of line,
/// found on first use.
pub(crate) struct BlankLines<'a> {
    doc: &'a Document,
    spacing: OnceCell<Spacing<'a>>,
}

/// The longest run of blank lines before a line: by the line's indentation
/// (`None`: the end of the file), and by its indentation and first word,
/// for every line of the file (0 where none come before it).
struct Spacing<'a> {
    by_indentation: HashMap<Option<usize>, usize>,
    by_word: HashMap<(usize, &'a str), usize>,
}

fn blank(line: &str) -> bool {
    line.trim().is_empty()
}

fn indentation(line: &str) -> usize {
    line.len() - line.trim_start().len()
}

/// The word a line starts with (`def`, `class`, `@property`, `#`, `}`):
/// what tells a file's definitions, which its spacing sets apart, from the
/// statements and comments around them.
fn first_word(line: &str) -> &str {
    let text = line.trim_start();
    let end = text
        .char_indices()
        .find(|&(i, c)| !(c.is_alphanumeric() || c == '_' || i == 0 && (c == '@' || c == '#')))
        .map_or(text.len(), |(i, _)| i);
    let end = if end == 0 {
        text.chars().next().map_or(0, char::len_utf8)
    } else {
        end
    };
    &text[..end]
}

impl<'a> BlankLines<'a> {
    pub(crate) fn new(doc: &'a Document) -> Self {
        BlankLines {
            doc,
            spacing: OnceCell::new(),
        }
    }

    fn spacing(&self) -> &Spacing<'a> {
        self.spacing.get_or_init(|| {
            let mut by_indentation = HashMap::new();
            let mut by_word = HashMap::new();
            let mut run = 0;
            for line in self.doc.lines() {
                if blank(line) {
                    run += 1;
                    continue;
                }
                let indent = indentation(line);
                let at = by_word.entry((indent, first_word(line))).or_insert(0);
                *at = run.max(*at);
                if run > 0 {
                    let at = by_indentation.entry(Some(indent)).or_insert(0);
                    *at = run.max(*at);
                }
                run = 0;
            }
            if run > 0 {
                by_indentation.insert(None, run);
            }
            Spacing {
                by_indentation,
                by_word,
            }
        })
    }

    /// Whether keeping the blank line `given` has at `echo`'s side, where
    /// `given` is the content of range `index` of `batch`, makes a run of
    /// blank lines longer than any the file has before a line like the one
    /// that ends the run: one with its indentation and first word, else one
    /// with its indentation. Files keep their spacing (two blank lines
    /// before a top-level function, one before an import or a method, none
    /// inside a block), so such a run is a slip far more often than a
    /// choice. The run is the one the whole batch leaves; where that cannot
    /// be told, nothing is judged.
    fn stands_out(&self, given: &[String], echo: Echo, batch: &Layout<'_>, index: usize) -> bool {
        let spacing = self.spacing();
        // A run longer than any in the file stands out whatever ends it.
        let cap = spacing.by_indentation.values().copied().max().unwrap_or(0) + 1;
        let leading = given.iter().take_while(|l| blank(l)).count();
        let trailing = given.iter().rev().take_while(|l| blank(l)).count();
        let all = leading == given.len();
        let run = || -> Option<(usize, Option<&str>)> {
            Some(match echo {
                Echo::Before if !all => (
                    batch.blanks_before(index, cap)? + leading,
                    Some(given[leading].as_str()),
                ),
                Echo::After if !all => {
                    let (after, next) = batch.blanks_after(index, cap)?;
                    (trailing + after, next)
                }
                _ => {
                    let (after, next) = batch.blanks_after(index, cap)?;
                    let before = batch.blanks_before(index, cap)?;
                    (before + given.len() + after, next)
                }
            })
        };
        run().is_some_and(|(run, next)| {
            let by_indentation = || {
                let key = next.map(indentation);
                spacing.by_indentation.get(&key).copied().unwrap_or(0)
            };
            let longest = next
                .and_then(|line| spacing.by_word.get(&(indentation(line), first_word(line))))
                .copied()
                .unwrap_or_else(by_indentation);
            run > longest
        })
    }
}

/// The text a batch leaves around its ranges: the old lines between them
/// and the other ranges' new content, read outward from one range only as
/// far as a run of blank lines goes.
pub(crate) struct Layout<'a> {
    doc: &'a Document,
    /// Each range of old lines and its new content; `None` where the
    /// content is not known yet (moved and copied lines).
    items: Vec<(Range<usize>, Option<&'a [String]>)>,
    /// The ranges in the order of the text, and each one's place in it.
    order: Vec<usize>,
    rank: Vec<usize>,
}

/// How many other ranges a walk steps over before it gives up, so that a
/// batch of many adjacent ranges stays linear to judge.
const WALK_RANGES: usize = 16;

impl<'a> Layout<'a> {
    pub(crate) fn new(doc: &'a Document, items: Vec<(Range<usize>, Option<&'a [String]>)>) -> Self {
        let mut order: Vec<usize> = (0..items.len()).collect();
        order.sort_by_key(|&i| (items[i].0.start, items[i].0.end));
        let mut rank = vec![0; items.len()];
        for (k, &i) in order.iter().enumerate() {
            rank[i] = k;
        }
        Layout {
            doc,
            items,
            order,
            rank,
        }
    }

    /// Whether range `a` and range `b` are both insertions at one place,
    /// whose order in the text this view does not know.
    fn same_place(&self, a: usize, b: usize) -> bool {
        let (a, b) = (&self.items[a].0, &self.items[b].0);
        a.is_empty() && b.is_empty() && a.start == b.start
    }

    /// The blank lines just before the content of range `index` in the
    /// batch's text, counted up to `cap`; `None` when they cannot be told.
    fn blanks_before(&self, index: usize, cap: usize) -> Option<usize> {
        let mut blanks = 0;
        let mut current = index;
        for _ in 0..WALK_RANGES {
            let rank = self.rank[current];
            let previous = rank.checked_sub(1).map(|k| self.order[k]);
            let floor = previous.map_or(0, |p| self.items[p].0.end);
            let start = self.items[current].0.start;
            if floor > start || previous.is_some_and(|p| self.same_place(p, current)) {
                return None;
            }
            for i in (floor..start).rev() {
                if !blank(self.doc.line(i)) {
                    return Some(blanks);
                }
                blanks += 1;
                if blanks >= cap {
                    return Some(blanks);
                }
            }
            let Some(previous) = previous else {
                return Some(blanks);
            };
            for line in self.items[previous].1?.iter().rev() {
                if !blank(line) {
                    return Some(blanks);
                }
                blanks += 1;
                if blanks >= cap {
                    return Some(blanks);
                }
            }
            current = previous;
        }
        None
    }

    /// The blank lines just after the content of range `index` in the
    /// batch's text, counted up to `cap`, and the line after them (`None`
    /// at the end of the text, or where `cap` was reached); `None` when
    /// they cannot be told.
    fn blanks_after(&self, index: usize, cap: usize) -> Option<(usize, Option<&'a str>)> {
        let mut blanks = 0;
        let mut current = index;
        for _ in 0..WALK_RANGES {
            let next = self.order.get(self.rank[current] + 1).copied();
            let ceiling = next.map_or(self.doc.line_count(), |n| self.items[n].0.start);
            let end = self.items[current].0.end;
            if ceiling < end || next.is_some_and(|n| self.same_place(n, current)) {
                return None;
            }
            for i in end..ceiling {
                let line = self.doc.line(i);
                if !blank(line) {
                    return Some((blanks, Some(line)));
                }
                blanks += 1;
                if blanks >= cap {
                    return Some((blanks, None));
                }
            }
            let Some(next) = next else {
                return Some((blanks, None));
            };
            for line in self.items[next].1? {
                if !blank(line) {
                    return Some((blanks, Some(line.as_str())));
                }
                blanks += 1;
                if blanks >= cap {
                    return Some((blanks, None));
                }
            }
            current = next;
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::Language;

    fn owned(lines: &[&str]) -> Vec<String> {
        lines.iter().map(|l| (*l).to_owned()).collect()
    }

    /// What becomes of the boundaries of `given` replacing line `at` of
    /// `text`, with a parser for `language` or none.
    fn judge(text: &str, at: usize, given: &[&str], language: Option<Language>) -> Boundary {
        let doc = Document::from_text(text);
        let given = owned(given);
        let batch = Layout::new(&doc, vec![(at..at + 1, Some(given.as_slice()))]);
        let echoes = Echoes {
            given: &given,
            before: at.checked_sub(1).map(|i| doc.line(i)),
            after: (at + 1 < doc.line_count()).then(|| doc.line(at + 1)),
            first: Some(doc.line(at)),
            last: Some(doc.line(at)),
            named: &[],
            batch: &batch,
            index: 0,
        };
        let parser = language.map(|l| EchoJudge::new(l, &doc, None).unwrap());
        echoes.judge(parser.as_ref(), &BlankLines::new(&doc))
    }

    const RUST: Option<Language> = Some(Language::Rust);

    #[test]
    fn an_echoed_closer_is_dropped_only_where_the_parse_proves_it() {
        let text = "fn f() {\n    a();\n}\n";
        let given = ["    if x {", "        a();", "    }", "}"];
        assert_eq!(
            judge(text, 1, &given, RUST),
            Boundary::Dropped(vec![Echo::After])
        );
        assert_eq!(
            judge(text, 1, &given, None),
            Boundary::Doubtful(vec![Echo::After])
        );
    }

    #[test]
    fn a_closer_the_content_needs_is_kept_where_dropping_it_breaks_the_parse() {
        let text = "fn f() {\n    a();\n}\n";
        assert_eq!(
            judge(text, 1, &["    {", "        b();", "}"], RUST),
            Boundary::Kept
        );
    }

    #[test]
    fn a_repeat_that_parses_either_way_is_doubtful() {
        let text = "fn f() {\n    a();\n    b();\n}\n";
        assert_eq!(
            judge(text, 1, &["    c();", "    b();"], RUST),
            Boundary::Doubtful(vec![Echo::After])
        );
    }

    #[test]
    fn content_made_only_of_both_neighbours_is_doubtful_unless_the_parse_decides() {
        assert_eq!(
            judge("a\nb\nc\n", 1, &["a", "c"], None),
            Boundary::Doubtful(vec![Echo::Before, Echo::After])
        );
    }

    #[test]
    fn a_repeated_blank_line_is_doubtful_only_where_the_file_never_has_such_a_run() {
        let single = "fn a() {}\n\nfn b() {}\n\nfn c() {}\n";
        let given = ["", "fn d() {}"];
        assert_eq!(
            judge(single, 2, &given, RUST),
            Boundary::Doubtful(vec![Echo::Before])
        );
        let doubled = "fn a() {}\n\nfn b() {}\n\n\nfn c() {}\n";
        assert_eq!(judge(doubled, 2, &given, RUST), Boundary::Kept);
    }

    #[test]
    fn spacing_is_judged_by_the_indentation_and_first_word_of_the_line_after_the_blank_lines() {
        let python = "def a():\n    x = 1\n\n    y = 2\n\n\ndef b():\n    pass\n";
        assert_eq!(
            judge(python, 3, &["", "    y = 3"], None),
            Boundary::Doubtful(vec![Echo::Before]),
            "two blank lines before an indented line: never in this file"
        );
        let python = "import os\n\nfrom x import y\n\nLIMIT = 3\n\n\ndef a():\n    pass\n";
        assert_eq!(
            judge(python, 2, &["", "from x import z"], None),
            Boundary::Doubtful(vec![Echo::Before]),
            "two blank lines before an import: never in this file"
        );
        assert_eq!(
            judge(python, 4, &["", "def b():"], None),
            Boundary::Kept,
            "two before a function: as the file has them"
        );
    }

    #[test]
    fn a_first_line_the_range_already_started_with_is_no_repeat() {
        let doc = Document::from_text("x\nx\ny\n");
        let given = owned(&["x", "z"]);
        let batch = Layout::new(&doc, vec![(1..3, Some(given.as_slice()))]);
        let echoes = Echoes {
            given: &given,
            before: Some("x"),
            after: None,
            first: Some("x"),
            last: Some("y"),
            named: &[],
            batch: &batch,
            index: 0,
        };
        assert_eq!(echoes.judge(None, &BlankLines::new(&doc)), Boundary::Kept);
    }
}
