//! Boundary echoes: a content line that repeats the line just outside the
//! lines an operation replaces (or the line an insert is anchored on), as
//! models paste when they copy a range with one line too many. Such a line
//! is dropped only where that is proven: it carried the neighbour's own ref,
//! or only the reading without it parses best. It is kept where a parse
//! proves it the content's own. Any other repeat, blank lines included, is
//! refused: the file's spacing, the brackets a line opens, a line the range
//! itself started with all make rules that are right most of the time, and
//! the rest of the time they would drop a line the model meant or keep one
//! it copied by mistake.
//!
//! Specified in `docs/format.md` §7.

use crate::syntax::EchoJudge;
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
    /// Written as sent: no line repeats a neighbour, the parse proves the
    /// repeat the content's own, or the repeat is the whole content.
    Kept,
    /// These repeats are proven echoes.
    Dropped(Vec<Echo>),
    /// These repeats are neither proven echoes nor proven content.
    Doubtful(Vec<Echo>),
}

/// An operation's content as given and the lines around its range, to
/// judge the lines at its boundaries.
pub(crate) struct Echoes<'a> {
    pub given: &'a [String],
    /// The lines of the document the content replaces (empty for an insert).
    pub range: Range<usize>,
    pub before: Option<&'a str>,
    pub after: Option<&'a str>,
    /// The boundaries whose line carried a view prefix, proven a copy, that
    /// names the neighbour it repeats.
    pub named: &'a [Echo],
}

impl Echoes<'_> {
    /// The content without the echoes `removed`.
    pub(crate) fn without(&self, removed: &[Echo]) -> Vec<String> {
        without(self.given, removed)
    }

    /// The repeats at the content's boundaries: a first line equal to the
    /// line before the range, a last equal to the line after.
    fn repeats(&self) -> Vec<Echo> {
        let repeats = |line: Option<&String>, neighbour: Option<&str>| {
            line.is_some_and(|l| Some(l.as_str()) == neighbour)
        };
        let mut found = Vec::new();
        if repeats(self.given.first(), self.before) {
            found.push(Echo::Before);
        }
        if repeats(self.given.last(), self.after) {
            found.push(Echo::After);
        }
        found
    }

    /// What becomes of the content's boundaries. A repeat whose line
    /// carried the neighbour's own ref is dropped. For each other repeat,
    /// with a parser for the file's language, every reading that drops some
    /// of them (leaving some content) is parsed in place: the repeat is an
    /// echo when a reading that drops it adds no parse error to the file and
    /// every reading that keeps it adds some, and the content's own the
    /// other way round; otherwise, and without a parser, it is doubtful.
    pub(crate) fn judge(&self, judge: Option<&EchoJudge<'_>>) -> Boundary {
        let repeats = self.repeats();
        let n = self.given.len();
        // Content made only of the two lines around its range says "delete
        // the range" as well as "write both lines again", and a parse that
        // prefers one reading cannot say which the model meant.
        if n == 2 && repeats.len() == 2 {
            return Boundary::Doubtful(repeats);
        }
        let (named, open): (Vec<Echo>, Vec<Echo>) = repeats
            .into_iter()
            .partition(|echo| self.named.contains(echo));
        // Repeats that carried their line's ref and are all the content:
        // dropped, they would leave nothing, which is not what was sent.
        if !named.is_empty() && named.len() >= n {
            return Boundary::Doubtful(named);
        }
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
        let open: Vec<Echo> = open
            .into_iter()
            .filter(|echo| readings.iter().any(|r| r.contains(echo)))
            .collect();
        let mut dropped = named.clone();
        dropped.retain(|echo| readings.iter().all(|r| r.contains(echo)));
        let mut doubtful = Vec::new();
        let errors: Option<(usize, Vec<usize>)> = match judge {
            Some(judge) if !open.is_empty() => judge.errors_before().zip(
                readings
                    .iter()
                    .map(|r| judge.errors_with(self.range.clone(), &self.without(r)))
                    .collect(),
            ),
            _ => None,
        };
        for echo in open {
            let fewest = |drops: bool| {
                errors.as_ref().and_then(|(_, errors)| {
                    readings
                        .iter()
                        .zip(errors)
                        .filter(|(r, _)| r.contains(&echo) == drops)
                        .map(|(_, &e)| e)
                        .min()
                })
            };
            // Proof is a reading that adds no error to the file's parse
            // against readings that all add some: a text that already fails
            // to parse can be mended by chance, which proves nothing.
            let before = errors.as_ref().map(|(b, _)| *b);
            match (before, fewest(true), fewest(false)) {
                (Some(b), Some(drop), Some(keep)) if drop <= b && keep > b => dropped.push(echo),
                (Some(b), Some(drop), Some(keep)) if keep <= b && drop > b => {}
                _ => doubtful.push(echo),
            }
        }
        if !doubtful.is_empty() {
            Boundary::Doubtful(doubtful)
        } else if dropped.is_empty() {
            Boundary::Kept
        } else {
            dropped.sort_by_key(|e| *e == Echo::After);
            Boundary::Dropped(dropped)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::document::Document;
    use crate::syntax::Language;

    fn owned(lines: &[&str]) -> Vec<String> {
        lines.iter().map(|l| (*l).to_owned()).collect()
    }

    /// What becomes of the boundaries of `given` replacing line `at` of
    /// `text`, with a parser for `language` or none.
    fn judge(text: &str, at: usize, given: &[&str], language: Option<Language>) -> Boundary {
        let doc = Document::from_text(text);
        let given = owned(given);
        let echoes = Echoes {
            given: &given,
            range: at..at + 1,
            before: at.checked_sub(1).map(|i| doc.line(i)),
            after: (at + 1 < doc.line_count()).then(|| doc.line(at + 1)),
            named: &[],
        };
        let parser = language.map(|l| EchoJudge::new(l, &doc, None).unwrap());
        echoes.judge(parser.as_ref())
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
    fn each_repeat_is_judged_on_its_own_by_the_readings_that_keep_it_and_drop_it() {
        // The last line's `}` is an echo: every reading that keeps it fails
        // to parse. The first line's statement parses kept or dropped.
        let text = "fn f() {\n    a();\n    b();\n}\n";
        assert_eq!(
            judge(text, 2, &["    a();", "    c();", "}"], RUST),
            Boundary::Doubtful(vec![Echo::Before])
        );
    }

    #[test]
    fn a_reading_that_mends_a_file_which_failed_to_parse_proves_nothing() {
        // The stray last `}` fails the file's parse already. Dropping the
        // content's closer mends it by chance, and would end `g` early.
        let text = "fn f() {\n    a();\n}\n}\n";
        assert_eq!(
            judge(text, 1, &["    fn g() {", "    b();", "}"], RUST),
            Boundary::Doubtful(vec![Echo::After])
        );
    }

    #[test]
    fn content_made_only_of_both_neighbours_is_doubtful_whatever_the_parse() {
        assert_eq!(
            judge("a\nb\nc\n", 1, &["a", "c"], None),
            Boundary::Doubtful(vec![Echo::Before, Echo::After])
        );
        // Only the reading that drops the second line parses, yet the model
        // may have meant to delete line 2.
        let text = "fn f() {\n    a();\n}\n";
        assert_eq!(
            judge(text, 1, &["fn f() {", "}"], RUST),
            Boundary::Doubtful(vec![Echo::Before, Echo::After])
        );
    }

    #[test]
    fn a_repeat_that_carried_its_lines_ref_and_is_the_whole_content_is_doubtful() {
        let given = owned(&["a"]);
        let named = [Echo::Before];
        let echoes = Echoes {
            given: &given,
            range: 1..2,
            before: Some("a"),
            after: Some("c"),
            named: &named,
        };
        assert_eq!(echoes.judge(None), Boundary::Doubtful(vec![Echo::Before]));
    }

    #[test]
    fn a_repeated_blank_line_is_doubtful_whatever_the_files_spacing() {
        let given = ["", "fn d() {}"];
        for text in [
            "fn a() {}\n\nfn b() {}\n\nfn c() {}\n",
            "fn a() {}\n\nfn b() {}\n\n\nfn c() {}\n",
        ] {
            assert_eq!(
                judge(text, 2, &given, RUST),
                Boundary::Doubtful(vec![Echo::Before])
            );
        }
    }

    #[test]
    fn a_repeat_that_is_the_whole_content_is_kept() {
        assert_eq!(judge("row\nx\nend\n", 1, &["row"], None), Boundary::Kept);
    }

    #[test]
    fn a_first_line_the_range_also_started_with_is_still_a_repeat() {
        // Line 1 and line 2 are both `x`: the content's `x` may be line 2
        // kept, or line 1 copied by mistake, and the two give other files.
        let given = owned(&["x", "z"]);
        let echoes = Echoes {
            given: &given,
            range: 1..3,
            before: Some("x"),
            after: None,
            named: &[],
        };
        assert_eq!(echoes.judge(None), Boundary::Doubtful(vec![Echo::Before]));
        let named = [Echo::Before];
        let echoes = Echoes {
            named: &named,
            ..echoes
        };
        assert_eq!(echoes.judge(None), Boundary::Dropped(vec![Echo::Before]));
    }
}
