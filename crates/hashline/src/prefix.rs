//! View prefixes copied into new content: `12ab ` (lean) and `12#A3F#9BC|`
//! (full), each maybe after the marker a result or a rejection shows lines
//! with (`+`, a space, `>>> `). A prefix is removed only when the engine can
//! prove the line a copy of a line a view of the same file showed: its tag
//! names that line of a version this session showed, with evidence that
//! ordinary text meets about never (`PROOF_BITS`). A prefix that names
//! nothing any view showed is the content's own text and is written as
//! sent. Anything between (too little evidence, or a match only with
//! another file's view or with the line's own text, as a quoted view would
//! have) is refused: the model resends without the prefixes, or asks for
//! the content to be written exactly as sent.
//!
//! Evidence is counted in bits: the chance that a line which is not a copy
//! carries a tag that matches is 2^-bits. A lean tag is one of 338 values
//! for a line number's parity (8.4 bits), a full prefix's HASH and ANCHOR
//! 24 bits; a tag that several shown versions give that line number counts
//! for less, since any of them would have matched.
//!
//! Specified in `docs/format.md` §7.

use crate::document::Document;
use crate::error::{excerpt, Error, ErrorCode};
use crate::hash::{anchor_hash, hashed_text, line_hash, Tag};
use crate::hash::{fits_parity, pair_tag, PAIR_VALUES};
use crate::reference::{Ref, RefTag};
use crate::store::Version;
use std::collections::HashSet;
use std::fmt::Write as _;

/// Evidence that proves a content's prefixes copies: a chance of 1 in
/// 65,536 that text which is no copy meets it, before the far smaller
/// chance that such text has lines in a prefix's form at all.
const PROOF_BITS: f64 = 16.0;
/// Bits of a HASH or an ANCHOR (3 hex digits).
const HEX_BITS: f64 = 12.0;

/// A view prefix at the start of a line of content.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Prefix {
    /// Bytes from the start of the line to the end of the prefix.
    pub len: usize,
    /// The line number it names (1-based).
    pub line: usize,
    /// The tag it names that line's text with.
    pub tag: RefTag,
}

impl Prefix {
    fn is_pair(&self) -> bool {
        matches!(self.tag, RefTag::Pair(_))
    }
}

/// The marker a result or a rejection shows a line with, if any.
fn marker_len(line: &str) -> usize {
    if line.starts_with(">>> ") {
        4
    } else {
        usize::from(line.starts_with(['+', ' ']))
    }
}

/// A full prefix, exactly as the engine prints it: `12#A3F#9BC|`
/// (uppercase hex, both tags), after a marker and any spaces; text that
/// only resembles one (`12:abc|` in a CSV, lowercase hex) is not one.
fn full(line: &str) -> Option<Prefix> {
    let b = line.as_bytes();
    let mut i = marker_len(line);
    while b.get(i) == Some(&b' ') {
        i += 1;
    }
    let digits = b[i..].iter().take_while(|c| c.is_ascii_digit()).count();
    if digits == 0 || digits > 12 {
        return None;
    }
    let number: usize = line[i..i + digits].parse().ok()?;
    i += digits;
    let mut tags = [None; 2];
    for tag in &mut tags {
        if b.get(i) != Some(&b'#') {
            return None;
        }
        let hex = line.get(i + 1..i + 4)?;
        if !hex
            .bytes()
            .all(|c| c.is_ascii_digit() || (b'A'..=b'F').contains(&c))
        {
            return None;
        }
        *tag = Tag::parse(hex);
        i += 4;
    }
    if number == 0 || b.get(i) != Some(&b'|') {
        return None;
    }
    Some(Prefix {
        len: i + 1,
        line: number,
        tag: RefTag::Full {
            hash: tags[0]?,
            anchor: tags[1],
        },
    })
}

/// A lean prefix: `12ab` and a space or a tab, the first letter of the
/// line number's parity.
fn lean(line: &str) -> Option<Prefix> {
    let b = line.as_bytes();
    let mut i = marker_len(line);
    let digits = b[i..].iter().take_while(|c| c.is_ascii_digit()).count();
    if digits == 0 || digits > 12 {
        return None;
    }
    let number: usize = line[i..i + digits].parse().ok()?;
    i += digits;
    let tag = [*b.get(i)?, *b.get(i + 1)?];
    if number == 0 || !fits_parity(number, tag) || !matches!(b.get(i + 2), Some(b' ' | b'\t')) {
        return None;
    }
    Some(Prefix {
        len: i + 3,
        line: number,
        tag: RefTag::Pair(tag),
    })
}

/// The view prefix at the start of `line`, if it has one's form.
pub(crate) fn parse(line: &str) -> Option<Prefix> {
    full(line).or_else(|| lean(line))
}

/// The length of a full prefix at the start of `line`: the form no
/// ordinary text takes, which a written file should never hold.
pub(crate) fn full_len(line: &str) -> Option<usize> {
    full(line).map(|p| p.len)
}

/// What the engine makes of a content's prefixes.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Verdict {
    /// No line is proven to carry a prefix: the content is written as sent.
    Literal,
    /// Every prefix is proven a copy: the bytes to cut from each line (0
    /// for a line without one).
    Strip(Vec<usize>),
    /// Prefixes that name lines a view showed, but with too little
    /// evidence to be told from text that merely looks like them.
    Ambiguous(Vec<Doubt>),
}

/// A line whose prefix is neither proven nor ruled out.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Doubt {
    /// The line of the content (0-based).
    pub index: usize,
    /// The prefix, as sent.
    pub prefix: String,
    /// What speaks for it being a copy.
    pub named: Named,
}

/// What a prefix's tag matches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Named {
    /// A line of this file a view showed, with too little evidence to
    /// prove the prefix a copy.
    Here,
    /// A line another file's view showed, or the text after it: it looks
    /// copied from some view, but not from one of this file.
    Elsewhere,
    /// No line a view showed, but the prefix has a view's shape where it
    /// stands: a full ref's form, which text does not take, or the number
    /// of the very line it takes, as a view copied on past its end would.
    Shape,
    /// Nothing: beside prefixes that do name lines, it may be the
    /// content's own text, or a prefix made up.
    Nothing,
}

/// The versions a session showed, whose shown lines can vouch for a
/// prefix: those of the file being written, which can prove one a copy,
/// and those of other files, which can only show that it may be one. A
/// text the caller holds (`apply_to_text`) counts as shown whole: it is the
/// one view such a caller has.
#[derive(Clone, Copy, Default)]
pub(crate) struct Shown<'a> {
    file: &'a [Version],
    others: &'a [Version],
    text: Option<&'a Document>,
}

impl<'a> Shown<'a> {
    pub(crate) fn new(file: &'a [Version], others: &'a [Version]) -> Self {
        Shown {
            file,
            others,
            text: None,
        }
    }

    /// A text held by the caller, every line of it shown.
    pub(crate) fn text(doc: &'a Document) -> Self {
        Shown {
            text: Some(doc),
            ..Shown::default()
        }
    }

    /// The texts of the file that showed line `index`.
    fn file_lines(&self, index: usize) -> impl Iterator<Item = &'a Document> + '_ {
        self.file
            .iter()
            .filter(move |v| index < v.doc.line_count() && v.showed(index))
            .map(|v| &*v.doc)
            .chain(self.text.filter(|d| index < d.line_count()))
    }
}

/// Bits for a content line that is the shown line's own text, or a change
/// of it: as much again as a lean tag when the text is the same, little
/// when it is only alike (at least half its characters kept), since two
/// unrelated lines of prose keep half of each other's characters often: one
/// line alike is then never proof on its own.
const SAME_TEXT_BITS: f64 = 8.4;
const ALIKE_BITS: f64 = 2.0;
/// Bits for a prefix that names the very line its content line takes the
/// place of (line 12 of a replace of lines 12-14 that starts with `12ab`).
const IN_PLACE_BITS: f64 = 4.0;

/// The evidence that `prefix`, followed by `rest`, was copied from a line
/// that `texts` (the texts that showed its line) have: whether a shown line
/// has its tag, and the bits that tell a copy from text that merely starts
/// like one. A tag is `log2(values / k)` bits, where k distinct tags of that
/// line number were shown and `values` is the size of the tag's space; it
/// counts only when the text after it is that line's text or a change of
/// it (for a lean tag: a full one stands alone), since a lean prefix
/// followed by unrelated text is more likely text of its own.
fn vouch<'t>(
    texts: impl Iterator<Item = &'t Document>,
    prefix: &Prefix,
    rest: &str,
) -> (bool, f64) {
    let index = prefix.line - 1;
    let (values, tag_of): (f64, fn(&Document, usize) -> Ref) = match prefix.tag {
        RefTag::Pair(_) => (f64::from(PAIR_VALUES), Ref::pair_of_line),
        RefTag::Full { .. } => ((2.0 * HEX_BITS).exp2(), Ref::of_line),
    };
    let texts: Vec<&Document> = texts.collect();
    let tags: HashSet<RefTag> = texts.iter().map(|d| tag_of(d, index).tag).collect();
    if !tags.contains(&prefix.tag) {
        return (false, 0.0);
    }
    let tag_bits = (values / tags.len() as f64).log2();
    // Text that happens to start with a line's full ref is not met outside
    // a copy: the 24 bits stand alone.
    if !prefix.is_pair() {
        return (true, tag_bits);
    }
    let lines = texts
        .iter()
        .filter(|d| tag_of(d, index).tag == prefix.tag)
        .map(|d| hashed_text(d.line(index)));
    let rest = hashed_text(rest);
    let relation = lines
        .map(|line| match line == rest {
            true => SAME_TEXT_BITS,
            false if alike(line, rest) => ALIKE_BITS,
            false => -1.0,
        })
        .fold(-1.0, f64::max);
    if relation < 0.0 {
        (true, 0.0)
    } else {
        (true, tag_bits + relation)
    }
}

/// Whether `new` is a change of `old`: at least half of the characters of
/// both kept, as a model's edit of a line it copied keeps them.
fn alike(old: &str, new: &str) -> bool {
    const MAX_CHARS: usize = 2_000;
    if old.len() > MAX_CHARS * 4 || new.len() > MAX_CHARS * 4 {
        return false;
    }
    similar::TextDiff::configure()
        .timeout(std::time::Duration::from_millis(5))
        .diff_chars(old, new)
        .ratio()
        >= 0.5
}

/// Bits of evidence that `prefix` was computed from `rest`, the text after
/// it, at its line number: a lean tag or HASH of that text, and a full
/// prefix's ANCHOR with the neighbouring content lines where they are the
/// neighbouring line numbers (or the start or end of a file).
fn own(prefix: &Prefix, rest: &str, prev: Option<&str>, next: Option<&str>) -> f64 {
    match prefix.tag {
        RefTag::Pair(tag) => {
            if pair_tag(prefix.line, rest) == tag {
                f64::from(PAIR_VALUES).log2()
            } else {
                0.0
            }
        }
        RefTag::Full { hash, anchor } => {
            if line_hash(rest) != hash {
                return 0.0;
            }
            let prev = if prefix.line == 1 { None } else { prev };
            let anchored = anchor.is_some_and(|a| {
                (prefix.line == 1 || prev.is_some()) && anchor_hash(prev, rest, next) == a
            });
            HEX_BITS * if anchored { 2.0 } else { 1.0 }
        }
    }
}

/// The verdict on a content's lines: the prefixes they carry are all
/// proven copies of lines this file's views showed (stripped), none looks
/// copied from any view (written as sent), or neither (refused). `first`
/// is the line number, in the version read, that the content's first line
/// takes the place of, where the operation says so.
pub(crate) fn judge<S: AsRef<str>>(lines: &[S], shown: Shown<'_>, first: Option<usize>) -> Verdict {
    let found: Vec<(usize, Prefix)> = lines
        .iter()
        .enumerate()
        .filter_map(|(i, l)| parse(l.as_ref()).map(|p| (i, p)))
        .collect();
    if found.is_empty() {
        return Verdict::Literal;
    }
    let rest = |k: usize| {
        let (i, p) = found[k];
        &lines[i].as_ref()[p.len..]
    };
    // A neighbour's text counts for an ANCHOR only where the content holds
    // it as the neighbouring line number, as a copied view does.
    let beside = |k: usize, step: isize| {
        let j = k.checked_add_signed(step)?;
        let (i, p) = found[k];
        let (ij, pj) = *found.get(j)?;
        (ij as isize == i as isize + step && pj.line as isize == p.line as isize + step)
            .then(|| rest(j))
    };
    let evidence: Vec<(f64, Named)> = (0..found.len())
        .map(|k| {
            let (i, prefix) = &found[k];
            let index = prefix.line - 1;
            let (here, bits) = vouch(shown.file_lines(index), prefix, rest(k));
            let in_place = first.is_some_and(|f| f + i == prefix.line);
            let named = if here {
                Named::Here
            } else if vouch(
                shown
                    .others
                    .iter()
                    .filter(|v| index < v.doc.line_count() && v.showed(index))
                    .map(|v| &*v.doc),
                prefix,
                rest(k),
            )
            .0 || own(prefix, rest(k), beside(k, -1), beside(k, 1)) > 0.0
            {
                Named::Elsewhere
            } else if in_place || !prefix.is_pair() {
                Named::Shape
            } else {
                Named::Nothing
            };
            let bonus = if bits > 0.0 && in_place {
                IN_PLACE_BITS
            } else {
                0.0
            };
            (bits + bonus, named)
        })
        .collect();
    if evidence.iter().all(|(_, n)| *n == Named::Nothing) {
        return Verdict::Literal;
    }
    // Every prefix names a line of this file a view showed, and those
    // followed by that line's text, or a change of it, prove the content
    // a copy: then every prefix goes, a line added in the copy included.
    let proof: f64 = evidence.iter().map(|(b, _)| b).sum();
    if evidence.iter().all(|(_, n)| *n == Named::Here) && proof >= PROOF_BITS {
        let mut cut = vec![0; lines.len()];
        for (i, p) in &found {
            cut[*i] = p.len;
        }
        return Verdict::Strip(cut);
    }
    Verdict::Ambiguous(
        found
            .iter()
            .zip(&evidence)
            .map(|((i, p), &(_, named))| Doubt {
                index: *i,
                prefix: lines[*i].as_ref()[..p.len].to_owned(),
                named,
            })
            .collect(),
    )
}

/// Whether any line of `lines` has a prefix's form: only then is there
/// anything to judge, and the versions that could vouch are gathered.
pub(crate) fn any<S: AsRef<str>>(lines: &[S]) -> bool {
    lines.iter().any(|l| parse(l.as_ref()).is_some())
}

/// The refusal of contents whose prefixes are neither proven nor ruled
/// out: which lines, what would be removed and why, and how to resend.
/// Each content is named (`operation 2's content`, `the content`);
/// `literal` says how to ask for a content to be written as sent.
pub(crate) fn ambiguous(path: &str, contents: &[(String, Vec<Doubt>)], literal: &str) -> Error {
    let mut message = String::from(
        "Edit rejected, nothing written: lines start like the refs of a view, and the engine cannot tell whether they were copied from one:\n",
    );
    for (what, doubts) in contents {
        for d in doubts {
            let _ = writeln!(
                message,
                "  {what}, line {}: {} {}",
                d.index + 1,
                excerpt(d.prefix.trim_end()),
                match d.named {
                    Named::Here =>
                        "names a line a view of this file showed, but that is too little to prove it a copy",
                    Named::Elsewhere =>
                        "looks copied from a view, but not from one of this file",
                    Named::Shape =>
                        "has the shape of a view's ref where it stands, though no view showed that line",
                    Named::Nothing => "names no line a view showed",
                }
            );
        }
    }
    let _ = write!(
        message,
        "Nothing was removed. If these are prefixes copied from a view, send the content again without them; if the text is meant as it is, {literal}."
    );
    Error::new(ErrorCode::AmbiguousEcho, message).with_path(path)
}

/// The judgement for a whole text (a file's new content), its lines'
/// terminators kept: the text, maybe without proven prefixes, and how many
/// lines lost one; or the refusal, `literal` saying how to ask for the
/// text to be written as sent.
pub(crate) fn strip_text(
    text: &str,
    path: &str,
    shown: Shown<'_>,
    literal: &str,
) -> crate::error::Result<(String, usize)> {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let bodies: Vec<&str> = lines
        .iter()
        .map(|l| l.trim_end_matches(['\n', '\r']))
        .collect();
    match judge(&bodies, shown, Some(1)) {
        Verdict::Literal => Ok((text.to_owned(), 0)),
        Verdict::Strip(cut) => Ok((
            lines.iter().zip(&cut).map(|(l, &n)| &l[n..]).collect(),
            cut.iter().filter(|&&n| n > 0).count(),
        )),
        Verdict::Ambiguous(doubts) => Err(ambiguous(
            path,
            &[("the content".to_owned(), doubts)],
            literal,
        )),
    }
}

/// `lines` with the cut of a `Strip` verdict applied.
pub(crate) fn strip<S: AsRef<str>>(lines: &[S], cut: &[usize]) -> Vec<String> {
    lines
        .iter()
        .zip(cut)
        .map(|(l, &n)| l.as_ref()[n..].to_owned())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    fn shown(text: &str, seen: std::ops::Range<usize>) -> Version {
        let doc = Arc::new(Document::from_text(text));
        Version {
            rev: doc.rev().to_owned(),
            doc,
            seen: vec![seen],
            carried: Vec::new(),
            parent: None,
            read_at: 1,
        }
    }

    fn lean_line(n: usize, text: &str) -> String {
        let t = pair_tag(n, text);
        format!("{n}{}{} {text}", char::from(t[0]), char::from(t[1]))
    }

    /// The lean prefix of line `n` holding `old`, before `new`.
    fn lean_changed(n: usize, old: &str, new: &str) -> String {
        format!("{} {new}", &lean_line(n, old)[..n.to_string().len() + 2])
    }

    #[test]
    fn text_that_only_looks_like_a_prefix_is_written_as_sent() {
        for content in [
            &["3rd party"][..],
            &["25th December 2024"],
            &["8am standup"],
            &["1px solid red"],
            &["4bc + 9"],
            &["1st place", "3rd place"],
            &["9pm party", "10am brunch"],
            &[
                "- item",
                "12:abc|x",
                "12#abc#def|lowercase",
                "#A3F#9BC|no line",
            ],
            &["12#A3F|short"],
        ] {
            assert_eq!(
                judge(content, Shown::default(), Some(5)),
                Verdict::Literal,
                "{content:?}"
            );
        }
    }

    #[test]
    fn a_full_ref_or_a_lean_one_numbered_as_the_line_it_takes_is_refused_though_nothing_was_shown()
    {
        for (content, first) in [
            (&["12#ABC#DEF|names nothing"][..], None),
            (&["line", "2ab made up past the end"], Some(1)),
        ] {
            let verdict = judge(content, Shown::default(), first);
            assert!(
                matches!(verdict, Verdict::Ambiguous(ref d) if d.iter().all(|d| d.named == Named::Shape)),
                "{content:?}: {verdict:?}"
            );
        }
    }

    #[test]
    fn unchanged_lines_copied_from_a_view_of_the_file_are_proven_copies() {
        let text = "fn main() {\n    let x = 1;\n}\n";
        let doc = Document::from_text(text);
        let file = [shown(text, 0..3)];
        let lean: Vec<String> = (0..3).map(|i| lean_line(i + 1, doc.line(i))).collect();
        let full: Vec<String> = (0..3)
            .map(|i| format!("{}|{}", Ref::of_line(&doc, i), doc.line(i)))
            .collect();
        for lines in [&lean[..], &lean[1..2], &full[..], &full[1..2]] {
            let Verdict::Strip(cut) = judge(lines, Shown::new(&file, &[]), None) else {
                panic!("not proven: {lines:?}")
            };
            let want: Vec<&str> = lines.iter().map(|l| &l[parse(l).unwrap().len..]).collect();
            assert_eq!(strip(lines, &cut), want);
        }
    }

    #[test]
    fn a_copy_of_another_files_view_or_a_quoted_view_is_refused_not_stripped() {
        let text = "fn main() {\n    let x = 1;\n}\n";
        let doc = Document::from_text(text);
        let other = [shown(text, 0..3)];
        let lean: Vec<String> = (0..3).map(|i| lean_line(i + 1, doc.line(i))).collect();
        for shown in [Shown::new(&[], &other), Shown::default()] {
            let Verdict::Ambiguous(doubts) = judge(&lean, shown, None) else {
                panic!("not refused")
            };
            assert!(doubts.iter().all(|d| d.named == Named::Elsewhere));
        }
    }

    #[test]
    fn one_changed_lean_line_is_no_proof_alone_even_in_its_own_place() {
        let file = [shown("a();\n    total += 1;\n", 0..2)];
        let line = lean_changed(2, "    total += 1;", "    total += 2;");
        let shown = Shown::new(&file, &[]);
        for first in [Some(2), Some(5)] {
            let verdict = judge(&[line.as_str()], shown, first);
            assert!(
                matches!(verdict, Verdict::Ambiguous(ref d) if d.len() == 1 && d[0].named == Named::Here),
                "{verdict:?}"
            );
        }
    }

    #[test]
    fn changed_lines_are_vouched_for_by_the_view_that_showed_them() {
        let text = "alpha();\nbeta();\ngamma();\ndelta();\n";
        let doc = Document::from_text(text);
        let changed: Vec<String> = (0..3)
            .map(|i| lean_changed(i + 1, doc.line(i), &doc.line(i).replace("();", "(1);")))
            .collect();
        let file = [shown(text, 0..4)];
        assert!(matches!(
            judge(&changed, Shown::new(&file, &[]), None),
            Verdict::Strip(_)
        ));
        // The same lines against a view that did not show them.
        let unseen = [shown(text, 3..4)];
        assert_eq!(
            judge(&changed, Shown::new(&unseen, &[]), None),
            Verdict::Literal
        );
    }

    #[test]
    fn lines_that_name_shown_lines_but_go_on_with_other_text_are_refused_never_stripped() {
        // Text that starts with the number and tag of shown lines, then
        // something else: what a copy would look like, not what it says.
        let text = "alpha();\nbeta();\ngamma();\ndelta();\n";
        let doc = Document::from_text(text);
        let file = [shown(text, 0..4)];
        let unrelated: Vec<String> = (0..4)
            .map(|i| lean_changed(i + 1, doc.line(i), "items 42 and the total"))
            .collect();
        let verdict = judge(&unrelated, Shown::new(&file, &[]), Some(1));
        assert!(
            matches!(verdict, Verdict::Ambiguous(ref d) if d.iter().all(|d| d.named == Named::Here)),
            "{verdict:?}"
        );
    }

    #[test]
    fn a_proven_prefix_beside_one_that_names_nothing_is_refused() {
        let text = "a\nb\nc\nd\n";
        let doc = Document::from_text(text);
        let file = [shown(text, 0..4)];
        let mut lines: Vec<String> = (0..3).map(|i| lean_line(i + 1, doc.line(i))).collect();
        lines.push("5zz invented".into());
        let Verdict::Ambiguous(doubts) = judge(&lines, Shown::new(&file, &[]), None) else {
            panic!()
        };
        assert_eq!(
            doubts.iter().map(|d| d.named).collect::<Vec<_>>(),
            [Named::Here, Named::Here, Named::Here, Named::Nothing]
        );
    }

    #[test]
    fn a_text_held_by_the_caller_vouches_for_the_full_prefixes_of_its_lines() {
        let doc = Document::from_text("one\ntwo\nthree\n");
        let line = format!("{}|TWO", Ref::of_line(&doc, 1));
        assert!(matches!(
            judge(&[line.as_str()], Shown::text(&doc), Some(2)),
            Verdict::Strip(_)
        ));
    }
}
