//! Conservative repair of what models paste: view prefixes copied into new
//! content, and a neighbouring line echoed at a range's boundary. Each fix
//! applies only where it is unambiguous and is reported to the caller.

use crate::syntax::EchoJudge;
use crate::text::Document;
use std::cell::OnceCell;
use std::collections::HashMap;
use std::ops::Range;

/// The length of a view prefix (`12#A3F#9BC|`, optionally after a diff
/// marker `+`, ` ` or `>>> ` as the edit result shows them) at the start of
/// `line`. Only the exact form the engine prints counts, so text that merely
/// resembles a ref (`12:abc|` in a CSV, `- item` in Markdown) is left alone.
pub(crate) fn view_prefix_len(line: &str) -> Option<usize> {
    let b = line.as_bytes();
    let mut i = if line.starts_with(">>> ") {
        4
    } else if line.starts_with(['+', ' ']) {
        1
    } else {
        0
    };
    while i < b.len() && b[i] == b' ' {
        i += 1;
    }
    let digits = b[i..].iter().take_while(|c| c.is_ascii_digit()).count();
    if digits == 0 {
        return None;
    }
    i += digits;
    for _ in 0..2 {
        if b.get(i) != Some(&b'#') {
            return None;
        }
        let hex = b.get(i + 1..i + 4)?;
        if !hex
            .iter()
            .all(|c| c.is_ascii_digit() || (b'A'..=b'F').contains(c))
        {
            return None;
        }
        i += 4;
    }
    (b.get(i) == Some(&b'|')).then_some(i + 1)
}

/// The lines without their view prefixes, when every non-empty line carries
/// one (full, or lean with rising line numbers: `crate::lean`); `None`
/// otherwise (then nothing is stripped).
pub fn strip_view_prefixes(lines: &[String]) -> Option<Vec<String>> {
    let lengths = crate::lean::prefix_lengths(lines.iter().map(String::as_str), view_prefix_len)?;
    Some(
        lines
            .iter()
            .zip(lengths)
            .map(|(l, n)| l[n..].to_owned())
            .collect(),
    )
}

fn body(line: &str) -> &str {
    line.trim_end_matches(['\n', '\r'])
}

/// The same for a whole text (a `write`'s content), keeping its line
/// terminators; returns the text and the number of lines stripped.
pub fn strip_view_prefixes_text(text: &str) -> (String, usize) {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let Some(lengths) = crate::lean::prefix_lengths(lines.iter().map(|l| body(l)), view_prefix_len)
    else {
        return (text.to_owned(), 0);
    };
    let stripped = lengths.iter().filter(|&&n| n > 0).count();
    let out = lines.iter().zip(lengths).map(|(l, n)| &l[n..]).collect();
    (out, stripped)
}

/// Net count of opening minus closing brackets and markup tags, ignoring
/// strings roughly: enough to tell whether dropping an echoed line keeps a
/// block, or an element, balanced.
pub fn bracket_balance<'a>(lines: impl IntoIterator<Item = &'a str>) -> i64 {
    lines
        .into_iter()
        .map(|line| {
            let brackets: i64 = line
                .chars()
                .map(|c| match c {
                    '{' | '(' | '[' => 1,
                    '}' | ')' | ']' => -1,
                    _ => 0,
                })
                .sum();
            brackets + tag_balance(line)
        })
        .sum()
}

/// HTML elements that never have a closing tag.
const VOID_ELEMENTS: &[&str] = &[
    "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track",
    "wbr",
];

/// Opening minus closing markup tags in a line (`<div …>` +1, `</div>` -1;
/// self-closing tags, void elements, comments and declarations 0). A tag
/// counts only when its `>` is on the same line, so comparisons such as
/// `a < b` or `i<n` are not tags.
fn tag_balance(line: &str) -> i64 {
    // A C preprocessor line: `#include <stdio.h>` names a file.
    if line.trim_start().starts_with('#') {
        return 0;
    }
    let bytes = line.as_bytes();
    let mut balance = 0;
    let mut i = 0;
    while let Some(at) = memchr::memchr(b'<', &bytes[i..]) {
        let start = i + at + 1;
        i = start;
        let closing = bytes.get(start) == Some(&b'/');
        // `Option<T>`, `Vec::<u8>`, `a<<b`: a type's parameters follow a
        // name or `::`, where markup never opens a tag (it closes one
        // after text, `text</p>`).
        if !closing
            && start >= 2
            && (bytes[start - 2].is_ascii_alphanumeric()
                || matches!(bytes[start - 2], b'_' | b'$' | b':' | b'<'))
        {
            continue;
        }
        let name_start = start + usize::from(closing);
        let name_len = bytes[name_start..]
            .iter()
            .take_while(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b':'))
            .count();
        if name_len == 0 || !bytes[name_start].is_ascii_alphabetic() {
            continue;
        }
        // A tag's name ends at a space, `>` or `/`; `<B: 'static>` is a
        // bound, `<K, V>` a list of parameters.
        let name_end = name_start + name_len;
        if matches!(bytes[name_end - 1], b':' | b'.')
            || !bytes
                .get(name_end)
                .is_some_and(|b| b.is_ascii_whitespace() || matches!(b, b'>' | b'/'))
        {
            continue;
        }
        let Some(end) = memchr::memchr(b'>', &bytes[name_start + name_len..]) else {
            continue;
        };
        let end = name_start + name_len + end;
        let name = &line[name_start..name_start + name_len];
        let self_closing = bytes[end - 1] == b'/';
        let void = VOID_ELEMENTS.iter().any(|v| v.eq_ignore_ascii_case(name));
        if closing {
            balance -= 1;
        } else if !self_closing && !void {
            balance += 1;
        }
        i = end + 1;
    }
    balance
}

/// Which boundary echo was removed from an operation's content.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Echo {
    /// The first content line repeated the line before the range.
    Before,
    /// The last content line repeated the line after the range.
    After,
}

/// The lines an operation replaces, as the echo check needs them: the first
/// and the last, and their bracket balance. The balance is asked for only
/// when an echo is suspected, so a large batch does not rescan every range.
pub struct Replaced<'a, B: FnOnce() -> i64> {
    pub first: Option<&'a str>,
    pub last: Option<&'a str>,
    pub balance: B,
}

/// Trims a replace's content that repeats the line just before or after the
/// replaced lines. `before`/`after` are those neighbours, `replaced` the old
/// lines. A repeated line is dropped only when it is not blank, the range
/// did not already start (or end) with that same line, some content stays
/// (content made only of both neighbours is kept whole),
/// and, where the dropped lines open or close brackets, dropping them leaves
/// the content exactly as balanced as the lines it replaces. Returns which
/// echoes were removed.
pub fn trim_boundary_echo<B: FnOnce() -> i64>(
    content: &mut Vec<String>,
    before: Option<&str>,
    replaced: Replaced<'_, B>,
    after: Option<&str>,
) -> Vec<Echo> {
    let is_echo = |line: Option<&String>, neighbour: Option<&str>, edge: Option<&str>| match (
        line, neighbour,
    ) {
        (Some(line), Some(neighbour)) => {
            line == neighbour && !neighbour.trim().is_empty() && edge != Some(neighbour)
        }
        _ => false,
    };
    let lead = is_echo(content.first(), before, replaced.first);
    let tail = is_echo(content.last(), after, replaced.last);
    // Content that is nothing but the two neighbours has no reading in
    // which only one of them is an echo: it is kept whole.
    if !lead && !tail || lead && tail && content.len() <= 2 {
        return Vec::new();
    }
    let target = (replaced.balance)();
    let total = bracket_balance(content.iter().map(String::as_str));
    let first = content.first().map_or(0, |l| bracket_balance([l.as_str()]));
    let last = content.last().map_or(0, |l| bracket_balance([l.as_str()]));
    let fits = |drop_first: bool, drop_last: bool| {
        let dropped = usize::from(drop_first) + usize::from(drop_last);
        let balance = i64::from(drop_first) * first + i64::from(drop_last) * last;
        let zero_balance = (!drop_first || first == 0) && (!drop_last || last == 0);
        content.len() > dropped && (zero_balance || total - balance == target)
    };
    let (drop_first, drop_last) = [(true, true), (true, false), (false, true)]
        .into_iter()
        .find(|&(f, l)| (f || l) && (!f || lead) && (!l || tail) && fits(f, l))
        .unwrap_or((false, false));
    let mut removed = Vec::new();
    if drop_first {
        content.remove(0);
        removed.push(Echo::Before);
    }
    if drop_last {
        content.pop();
        removed.push(Echo::After);
    }
    removed
}

/// `content` without the echoes `removed`.
pub(crate) fn without(content: &[String], removed: &[Echo]) -> Vec<String> {
    let from = usize::from(removed.contains(&Echo::Before));
    let to = content.len() - usize::from(removed.contains(&Echo::After));
    content[from..to.max(from)].to_vec()
}

/// A replace's content as given and the lines around its range, to judge
/// its boundary lines beyond the rules of `trim_boundary_echo`.
pub(crate) struct Echoes<'a> {
    pub given: &'a [String],
    pub before: Option<&'a str>,
    pub after: Option<&'a str>,
    /// The first and last of the replaced lines.
    pub first: Option<&'a str>,
    pub last: Option<&'a str>,
    /// The batch the range is in, and its place there.
    pub batch: &'a Layout<'a>,
    pub index: usize,
}

impl Echoes<'_> {
    /// The content without the echoes `removed`.
    pub(crate) fn without(&self, removed: &[Echo]) -> Vec<String> {
        without(self.given, removed)
    }

    /// A better choice than `today`'s (what `trim_boundary_echo` removed),
    /// if there is one. With a parser for the file's language: the reading
    /// that parses with the fewest errors, when it parses better than
    /// today's, so an echo is trimmed if that mends the parse and a
    /// payload's own closer is kept if dropping it breaks the parse. Then,
    /// for a blank line the parse cannot judge: dropped when keeping it
    /// makes a run of blank lines the file's spacing never has there.
    pub(crate) fn judged(
        &self,
        judge: Option<&EchoJudge<'_>>,
        style: &BlankLines<'_>,
        today: &[Echo],
    ) -> Option<Vec<Echo>> {
        let range = self.batch.items[self.index].0.clone();
        let repeats = |line: Option<&String>, neighbour: Option<&str>, edge: Option<&str>| {
            line.is_some_and(|l| Some(l.as_str()) == neighbour) && edge != neighbour
        };
        let lead = repeats(self.given.first(), self.before, self.first);
        let tail = repeats(self.given.last(), self.after, self.last);
        let n = self.given.len();
        // Content that is nothing but the two neighbours has no reading in
        // which only one of them is an echo: it is written as given.
        if !lead && !tail || lead && tail && n <= 2 {
            return None;
        }
        let mut readings: Vec<Vec<Echo>> = vec![Vec::new()];
        if lead && n > 1 {
            readings.push(vec![Echo::Before]);
        }
        if tail && n > 1 {
            readings.push(vec![Echo::After]);
        }
        if lead && tail && n > 2 {
            readings.push(vec![Echo::Before, Echo::After]);
        }
        let today_at = readings.iter().position(|r| r == today)?;
        if let Some(judge) = judge {
            let errors: Option<Vec<usize>> = readings
                .iter()
                .map(|r| judge.errors_with(range.clone(), &self.without(r)))
                .collect();
            if let Some(errors) = errors {
                let fewest = errors.iter().copied().min().unwrap_or(0);
                if errors[today_at] > fewest {
                    let best = errors.iter().position(|&e| e == fewest).unwrap_or(0);
                    return Some(readings[best].clone());
                }
            }
        }
        let is_blank = |line: Option<&str>| line.is_some_and(blank);
        let mut chosen = today.to_vec();
        for (echo, is_echo, neighbour) in [
            (Echo::Before, lead, self.before),
            (Echo::After, tail, self.after),
        ] {
            if is_echo
                && is_blank(neighbour)
                && !chosen.contains(&echo)
                && style.stands_out(self.given, echo, self.batch, self.index)
            {
                chosen.push(echo);
            }
        }
        chosen.sort_by_key(|e| *e == Echo::After);
        (chosen != today && chosen.len() < n).then_some(chosen)
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

/// The bracket balance of any range of the document's lines in constant
/// time, from running sums made once, on first use.
pub(crate) struct RunningBalance<'a> {
    doc: &'a Document,
    sums: OnceCell<Vec<i64>>,
}

impl<'a> RunningBalance<'a> {
    pub(crate) fn new(doc: &'a Document) -> Self {
        RunningBalance {
            doc,
            sums: OnceCell::new(),
        }
    }

    pub(crate) fn of(&self, range: Range<usize>) -> i64 {
        let sums = self.sums.get_or_init(|| {
            let mut sum = 0;
            std::iter::once(0)
                .chain(self.doc.lines().map(|line| {
                    sum += bracket_balance([line]);
                    sum
                }))
                .collect()
        });
        sums[range.end] - sums[range.start]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markup_tags_count_in_the_balance_and_comparisons_do_not() {
        assert_eq!(bracket_balance(["<div class=\"a\">"]), 1);
        assert_eq!(bracket_balance(["</div>"]), -1);
        assert_eq!(bracket_balance(["<p>text</p>"]), 0);
        assert_eq!(
            bracket_balance(["<br>", "<img src=\"x\">", "<Foo />", "<!-- c -->"]),
            0
        );
        assert_eq!(bracket_balance(["<Card title={x}>"]), 1);
        assert_eq!(bracket_balance(["if a < b && c > d {"]), 1);
        assert_eq!(bracket_balance(["for (i = 0; i<n; i++) {"]), 1);
        assert_eq!(bracket_balance(["x << 2 >> 1"]), 0);
    }

    #[test]
    fn generics_and_includes_are_not_markup_tags() {
        assert_eq!(
            bracket_balance(["impl<B: 'static> Iterator for IterDefinedNames<B> {"]),
            1
        );
        assert_eq!(
            bracket_balance(["fn next(&mut self) -> Option<Self::Item> {"]),
            1
        );
        assert_eq!(
            bracket_balance(["let v: Vec<Vec<u8>> = Vec::<u8>::new();"]),
            0
        );
        assert_eq!(
            bracket_balance(["const [s, set] = useState<string>('');"]),
            0
        );
        assert_eq!(bracket_balance(["Map<String, List<Integer>> m;"]), 0);
        assert_eq!(bracket_balance(["#include <stdio.h>"]), 0);
    }

    #[test]
    fn an_echo_next_to_generic_code_is_trimmed_like_any_other() {
        let header = "impl<B: 'static> Iterator for IterDefinedNames<B> {";
        let mut content = v(&[header, "    type Item = Option<B>;"]);
        let echoes = trim(
            &mut content,
            Some(header),
            &["    type Item = B;"],
            Some("    fn next(&mut self) -> Option<Self::Item> {"),
        );
        assert_eq!(echoes, vec![Echo::Before]);
        assert_eq!(content, v(&["    type Item = Option<B>;"]));
    }

    fn v(lines: &[&str]) -> Vec<String> {
        lines.iter().map(|s| s.to_string()).collect()
    }

    fn trim(
        content: &mut Vec<String>,
        before: Option<&str>,
        replaced: &[&str],
        after: Option<&str>,
    ) -> Vec<Echo> {
        let replaced = Replaced {
            first: replaced.first().copied(),
            last: replaced.last().copied(),
            balance: || bracket_balance(replaced.iter().copied()),
        };
        trim_boundary_echo(content, before, replaced, after)
    }

    #[test]
    fn strips_prefixes_only_when_every_nonempty_line_has_one() {
        assert_eq!(
            strip_view_prefixes(&v(&[
                "1#A3F#9BC|a",
                "",
                "+2#0E1#44D|  b",
                ">>> 3#B20#7C1|c"
            ])),
            Some(v(&["a", "", "  b", "c"]))
        );
        assert_eq!(strip_view_prefixes(&v(&["1#A3F#9BC|a", "plain"])), None);
        assert_eq!(strip_view_prefixes(&v(&["", ""])), None);
    }

    #[test]
    fn leaves_text_that_only_resembles_a_prefix() {
        for line in [
            "- item",
            "12:abc|x",
            "12#abc#def|lowercase",
            "# heading",
            "#A3F#9BC|no line",
            "12#A3F|short",
            "-1#A3F#9BC|minus",
        ] {
            assert_eq!(strip_view_prefixes(&v(&[line])), None, "{line}");
        }
    }

    #[test]
    fn strips_prefixes_from_whole_text_keeping_terminators() {
        let (out, n) = strip_view_prefixes_text("1#A3F#9BC|a\r\n\n2#0E1#44D|b");
        assert_eq!((out.as_str(), n), ("a\r\n\nb", 2));
        let (out, n) = strip_view_prefixes_text("1#A3F#9BC|a\nplain\n");
        assert_eq!((out.as_str(), n), ("1#A3F#9BC|a\nplain\n", 0));
    }

    #[test]
    fn trims_an_echoed_neighbour_at_either_boundary() {
        let mut content = v(&["fn a() {", "  new();", "}"]);
        let removed = trim(&mut content, Some("fn a() {"), &["  old();"], Some("}"));
        assert_eq!(removed, vec![Echo::Before, Echo::After]);
        assert_eq!(content, v(&["  new();"]));
    }

    #[test]
    fn keeps_a_closing_bracket_the_content_needs() {
        // The content opens a block and closes it: the `}` is not an echo.
        let mut content = v(&["  if (x) {", "    y();", "}"]);
        let removed = trim(&mut content, None, &["  z();"], Some("}"));
        assert!(removed.is_empty());
        assert_eq!(content.len(), 3);
    }

    #[test]
    fn keeps_blank_lines_single_lines_and_lines_the_range_already_had() {
        let mut content = v(&["", "x"]);
        assert!(trim(&mut content, Some(""), &["y"], None).is_empty());
        let mut content = v(&["a"]);
        assert!(trim(&mut content, Some("a"), &["y"], None).is_empty());
        let mut content = v(&["a", "b"]);
        assert!(trim(&mut content, Some("a"), &["a", "c"], None).is_empty());
    }
}

#[cfg(test)]
mod judged_tests {
    use super::*;
    use crate::syntax::Language;

    fn owned(lines: &[&str]) -> Vec<String> {
        lines.iter().map(|l| (*l).to_owned()).collect()
    }

    /// The choice for replacing line `at` of `doc` with `given`, after
    /// `today`'s, with a Rust parser or none.
    fn choose(
        text: &str,
        at: usize,
        given: &[&str],
        today: &[Echo],
        rust: bool,
    ) -> Option<Vec<Echo>> {
        let doc = Document::from_text(text);
        let given = owned(given);
        let batch = Layout::new(&doc, vec![(at..at + 1, Some(given.as_slice()))]);
        let echoes = Echoes {
            given: &given,
            before: at.checked_sub(1).map(|i| doc.line(i)),
            after: (at + 1 < doc.line_count()).then(|| doc.line(at + 1)),
            first: Some(doc.line(at)),
            last: Some(doc.line(at)),
            batch: &batch,
            index: 0,
        };
        let judge = rust.then(|| EchoJudge::new(Language::Rust, &doc, None).unwrap());
        echoes.judged(judge.as_ref(), &BlankLines::new(&doc), today)
    }

    #[test]
    fn an_echoed_closer_the_rules_kept_is_dropped_when_that_mends_the_parse() {
        let text = "fn f() {\n    a();\n}\n";
        let given = ["    if x {", "        a();", "    }", "}"];
        assert_eq!(choose(text, 1, &given, &[], true), Some(vec![Echo::After]));
        assert_eq!(choose(text, 1, &given, &[], false), None);
    }

    #[test]
    fn a_closer_the_payload_needs_is_kept_when_dropping_it_breaks_the_parse() {
        let text = "fn f() {\n    a();\n}\n";
        let given = ["    {", "        b();", "}"];
        assert_eq!(choose(text, 1, &given, &[Echo::After], true), Some(vec![]));
    }

    #[test]
    fn readings_that_parse_alike_leave_the_rules_choice() {
        let text = "fn f() {\n    a();\n    b();\n}\n";
        let given = ["    c();", "    b();"];
        assert_eq!(choose(text, 1, &given, &[Echo::After], true), None);
    }

    #[test]
    fn an_echoed_blank_line_goes_only_where_the_file_never_has_such_a_run_of_blank_lines() {
        let single = "fn a() {}\n\nfn b() {}\n\nfn c() {}\n";
        let given = ["", "fn d() {}"];
        assert_eq!(
            choose(single, 2, &given, &[], true),
            Some(vec![Echo::Before])
        );
        let doubled = "fn a() {}\n\nfn b() {}\n\n\nfn c() {}\n";
        assert_eq!(choose(doubled, 2, &given, &[], true), None);
    }

    #[test]
    fn spacing_is_judged_by_the_indentation_of_the_line_after_the_blank_lines() {
        let python = "def a():\n    x = 1\n\n    y = 2\n\n\ndef b():\n    pass\n";
        assert_eq!(
            choose(python, 3, &["", "    y = 3"], &[], false),
            Some(vec![Echo::Before]),
            "two blank lines before an indented line: never in this file"
        );
        assert_eq!(
            choose(python, 6, &["", "def c():"], &[], false),
            Some(vec![Echo::Before]),
            "three before a top-level line: never either"
        );
        assert_eq!(
            choose("x\ny\n\n", 1, &["z", ""], &[], false),
            Some(vec![Echo::After]),
            "one blank line at the end of the file, never two"
        );
        let braces = "fn a() {\n    x();\n}\n\nfn b() {}\n";
        assert_eq!(
            choose(braces, 2, &["}", ""], &[], false),
            Some(vec![Echo::After])
        );
        assert_eq!(
            choose("a\n\n\nb\nc\n", 3, &["b", ""], &[], false),
            None,
            "the file has two blank lines before an unindented line"
        );
    }

    #[test]
    fn spacing_is_judged_by_the_first_word_of_the_line_after_the_blank_lines() {
        // Two blank lines before a top-level function, one before the rest.
        let python = "import os\n\nfrom x import y\n\nLIMIT = 3\n\n\ndef a():\n    pass\n";
        assert_eq!(
            choose(python, 2, &["", "from x import z"], &[], false),
            Some(vec![Echo::Before]),
            "two blank lines before an import: never in this file"
        );
        assert_eq!(
            choose(python, 4, &["", "def b():"], &[], false),
            None,
            "two before a function: as the file has them"
        );
        assert_eq!(
            choose(python, 4, &["", "TIMEOUT = 3"], &[], false),
            None,
            "a line like none in the file: judged by its indentation alone"
        );
    }

    #[test]
    fn content_made_only_of_both_neighbours_is_written_as_given() {
        let text = "a\nb\nc\n";
        assert_eq!(choose(text, 1, &["a", "c"], &[], false), None);
        assert_eq!(choose("\nb\n\nx\n", 1, &["", ""], &[], false), None);
    }
}
