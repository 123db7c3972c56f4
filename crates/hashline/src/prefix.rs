//! What of the engine's own output a model copied into new content, and
//! what the engine may take out of it. The view prefixes of lines (`12ab `,
//! `12#A3F#9BC|`, maybe after the marker a result or a rejection shows
//! lines with: `+`, spaces, `>>> `), a bare tag whose line was blank, the
//! note a view ends a line it cut with, and the other pieces of output
//! (`rendered`: headers, footers, a result's headline…) never land as the
//! file's text on a guess:
//!
//! - a prefix is removed only when the engine can prove the line a copy of
//!   a line a view of the same file showed: its tag names that line of a
//!   version the session showed, with evidence that ordinary text meets
//!   about never (`PROOF_BITS`); a prefix that names nothing any view showed
//!   is the content's own text and is written as sent;
//! - a line copied as a view cut it is written whole only where a view of
//!   the file showed exactly one line that is cut to that text: the engine
//!   holds it, and the model copied it unchanged;
//! - a piece of output is removed only where it names (by its REV) a
//!   version of the file a view showed;
//! - anything between is refused: the model resends without the copied
//!   text, or asks for the content to be written exactly as sent.
//!
//! Evidence is counted in bits: the chance that a line which is not a copy
//! carries a tag that matches is 2^-bits. A lean tag is one of 338 values
//! for a line number's parity (8.4 bits), a full prefix's HASH and ANCHOR
//! 24 bits; a tag that several shown versions give that line number counts
//! for less, since any of them would have matched.
//!
//! Specified in `docs/format.md` §7.

use crate::document::Document;
use crate::error::{excerpt, Doubted, Error, ErrorCode};
use crate::hash::{anchor_hash, hashed_text, line_hash, Tag};
use crate::hash::{fits_parity, pair_tag, PAIR_VALUES};
use crate::reference::{Ref, RefTag};
use crate::rendered::{self, Kind, Piece};
use crate::store::Version;
use crate::view::{ends_cut, shown_text, MAX_LINE_CHARS};
use std::cell::OnceCell;
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

/// Where a view line's number starts: after the marker a result or a
/// rejection shows a line with (`>>> `, `+`, a space), and the spaces a
/// rejection's or a search's lines are indented by.
fn number_start(line: &str) -> usize {
    let b = line.as_bytes();
    let mut i = if line.starts_with(">>> ") {
        4
    } else {
        usize::from(line.starts_with('+'))
    };
    while b.get(i) == Some(&b' ') {
        i += 1;
    }
    i
}

/// A full prefix, exactly as the engine prints it: `12#A3F#9BC|`
/// (uppercase hex, both tags), after a marker and any spaces; text that
/// only resembles one (`12:abc|` in a CSV, lowercase hex) is not one.
fn full(line: &str) -> Option<Prefix> {
    let b = line.as_bytes();
    let mut i = number_start(line);
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

/// A lean prefix: `12ab` (the first letter of the line number's parity)
/// and a space or a tab, or `12ab` alone, as a view's line of a blank line
/// reads once the space at its end is lost.
fn lean(line: &str) -> Option<Prefix> {
    let b = line.as_bytes();
    let mut i = number_start(line);
    let digits = b[i..].iter().take_while(|c| c.is_ascii_digit()).count();
    if digits == 0 || digits > 12 {
        return None;
    }
    let number: usize = line[i..i + digits].parse().ok()?;
    i += digits;
    let tag = [*b.get(i)?, *b.get(i + 1)?];
    if number == 0 || !fits_parity(number, tag) {
        return None;
    }
    let len = match b.get(i + 2) {
        Some(b' ' | b'\t') => i + 3,
        None => i + 2,
        Some(_) => return None,
    };
    Some(Prefix {
        len,
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

/// What the engine makes of a content's copied output.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Verdict {
    /// Nothing is proven copied: the content is written as sent.
    Literal,
    /// Every piece of output in it is proven a copy: what becomes of each
    /// line (some line is changed).
    Clean(Vec<Fix>),
    /// Lines that may be copied output, with too little evidence to be
    /// told from text that merely looks like it.
    Ambiguous(Vec<Doubt>),
}

/// What the clean-up does to one line of content.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Fix {
    /// Written as sent.
    Keep,
    /// Written without its first bytes, a view prefix proven a copy.
    Cut(usize),
    /// Left out: a piece of output proven a copy (a view's header naming a
    /// version of the file a view showed).
    Drop(Kind),
    /// Written as this whole line, which a view showed cut: the content has
    /// it as the view cut it, note included, after a prefix of `cut` bytes.
    Restore { cut: usize, line: String },
}

/// A line of content neither proven copied nor ruled out.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Doubt {
    /// The line of the content (0-based).
    pub index: usize,
    /// What of the line is in doubt, as sent: a prefix, or the line.
    pub text: String,
    pub why: Why,
}

/// Why a line is in doubt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Why {
    /// Its prefix, by what the prefix's tag matches.
    Prefix(Named),
    /// It is a piece of output that names no version of the file a view
    /// showed, or names none at all.
    Piece(Kind),
    /// It is a piece of output proven a copy, but the whole content:
    /// removing it would leave nothing to write.
    Whole(Kind),
    /// It ends with the note of a line a view cut, and no one line a view
    /// of this file showed is cut to its text.
    Cut,
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

/// The versions a session showed, whose shown lines can prove output
/// copied: those of the file being written (shown under `path`), which can
/// prove it a copy, and those of other files, which can only show that it
/// may be one. A text the caller holds (`apply_to_text`) counts as shown
/// whole: it is the one view such a caller has, made under a path of the
/// caller's choosing.
#[derive(Clone, Copy, Default)]
pub(crate) struct Shown<'a> {
    path: &'a str,
    file: &'a [Version],
    others: &'a [Version],
    text: Option<&'a Document>,
}

impl<'a> Shown<'a> {
    /// The versions of the file shown as `path`, and of other files.
    pub(crate) fn new(path: &'a str, file: &'a [Version], others: &'a [Version]) -> Self {
        Shown {
            path,
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

    /// Every line of the file a view showed, with the text it is in.
    fn shown_lines(&self) -> impl Iterator<Item = &'a str> + '_ {
        let versions = self.file.iter().flat_map(|v| {
            v.seen
                .iter()
                .flat_map(move |r| r.clone().filter(|&i| i < v.doc.line_count()))
                .map(move |i| v.doc.line(i))
        });
        versions.chain(self.text.into_iter().flat_map(Document::lines))
    }

    /// Every line any version of the file has.
    fn lines_had(&self) -> HashSet<&'a str> {
        self.file
            .iter()
            .map(|v| &*v.doc)
            .chain(self.text)
            .flat_map(Document::lines)
            .collect()
    }

    /// Whether `piece` names a version of the file a view showed: its REV,
    /// and the path the file is shown under where it names one (a text the
    /// caller holds was viewed under a path of the caller's choosing).
    fn shows(&self, piece: &Piece<'_>) -> bool {
        let path_fits = self.text.is_some() || piece.path.is_none_or(|p| p == self.path);
        let rev_fits = |rev: &str| {
            self.file.iter().any(|v| v.rev == rev) || self.text.is_some_and(|d| d.rev() == rev)
        };
        path_fits && piece.revs.iter().any(|r| rev_fits(r))
    }
}

/// Where an operation's content goes, as far as the operation says: the
/// line number (in the version read) its first line takes, and how many of
/// its lines take the place of lines it replaces (the others are inserted,
/// and push the lines at their numbers down).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Place {
    pub first: usize,
    pub replaced: usize,
}

impl Place {
    /// A whole file's new content: every line takes the place of the line
    /// at its number.
    pub(crate) const WHOLE: Place = Place {
        first: 1,
        replaced: usize::MAX,
    };

    /// Whether a prefix naming line `line` on content line `at` names the
    /// line that content line replaces.
    fn replaces(self, at: usize, line: usize) -> bool {
        at < self.replaced && self.first.checked_add(at) == Some(line)
    }

    /// Whether it names the line that content line is inserted before.
    fn pushes(self, at: usize, line: usize) -> bool {
        at >= self.replaced && self.first.checked_add(at) == Some(line)
    }
}

/// Bits for a content line that is the shown line's own text, or a change
/// of it: as much again as a lean tag when the text is the same; little
/// when the same text is a blank line, which a line often is; and when it
/// is only alike (at least half its characters kept), which two lines of
/// text are by chance about one time in several thousand, though a short
/// line is alike to a few words far more often than a long one.
const SAME_TEXT_BITS: f64 = 8.4;
const SAME_BLANK_BITS: f64 = 2.0;
const ALIKE_BITS: f64 = 4.0;
/// Bits for a prefix that names the very line its content line replaces
/// (line 12 of a replace of lines 12-14 that starts with `12ab`): a model
/// copies the line it edits. A line inserted before the line it names gains
/// nothing: that line stays, and text of its own is what an insert holds.
const IN_PLACE_BITS: f64 = 4.0;

/// The evidence that `prefix`, followed by `rest`, was copied from a line
/// that `texts` (the texts that showed its line) have: whether a shown line
/// has its tag, and the bits that tell a copy from text that merely starts
/// like one. A tag is `log2(values / k)` bits, where k distinct tags of that
/// line number were shown and `values` is the size of the tag's space; it
/// counts only when the text after it is that line's text or a change of
/// it (for a lean tag: a full one stands alone), since a lean prefix
/// followed by unrelated text is more likely text of its own.
fn weigh<'t>(
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
            true if line.is_empty() => SAME_BLANK_BITS,
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

/// What the prefixes of a content say, on their own.
enum Prefixes {
    /// None names a line a view showed.
    Literal,
    /// All are proven copies.
    Strip,
    /// The lines whose prefix is in doubt, and why.
    Doubtful(Vec<(usize, Named)>),
}

/// The verdict on the prefixes `found` (content line, prefix) of `lines`,
/// content line `at[i]` counting the lines before it that are output of
/// other kinds (left out of the numbering a copied view gives its lines).
fn judge_prefixes<S: AsRef<str>>(
    lines: &[S],
    found: &[(usize, Prefix)],
    at: &[usize],
    shown: Shown<'_>,
    place: Option<Place>,
) -> Prefixes {
    if found.is_empty() {
        return Prefixes::Literal;
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
            let (here, bits) = weigh(shown.file_lines(index), prefix, rest(k));
            let replaces = place.is_some_and(|p| p.replaces(at[*i], prefix.line));
            let pushes = place.is_some_and(|p| p.pushes(at[*i], prefix.line));
            // Another file's view makes a prefix look copied only with the
            // text of that view's line, or a change of it (a full prefix
            // stands alone): a session that showed many files shows most
            // tags of a line number somewhere.
            let elsewhere = weigh(
                shown
                    .others
                    .iter()
                    .filter(|v| index < v.doc.line_count() && v.showed(index))
                    .map(|v| &*v.doc),
                prefix,
                rest(k),
            );
            let named = if here {
                Named::Here
            } else if elsewhere.1 > 0.0 || own(prefix, rest(k), beside(k, -1), beside(k, 1)) > 0.0 {
                Named::Elsewhere
            } else if replaces || pushes || !prefix.is_pair() {
                Named::Shape
            } else {
                Named::Nothing
            };
            let bonus = if bits > 0.0 && replaces {
                IN_PLACE_BITS
            } else {
                0.0
            };
            (bits + bonus, named)
        })
        .collect();
    if evidence.iter().all(|(_, n)| *n == Named::Nothing) {
        return Prefixes::Literal;
    }
    // Every prefix names a line of this file a view showed, and those
    // followed by that line's text, or a change of it, prove the content
    // a copy: then every prefix goes, a line added in the copy included.
    let proof: f64 = evidence.iter().map(|(b, _)| b).sum();
    let proven = proof >= PROOF_BITS;
    if proven && evidence.iter().all(|(_, n)| *n == Named::Here) {
        return Prefixes::Strip;
    }
    // In doubt: the prefixes that name no line of this file's views, and
    // those that do only when together they prove too little.
    Prefixes::Doubtful(
        found
            .iter()
            .zip(&evidence)
            .filter(|(_, (_, named))| *named != Named::Here || !proven)
            .map(|((i, _), &(_, named))| (*i, named))
            .collect(),
    )
}

/// Whether `text` ends as a line a view (or a host's read) cut ends.
fn is_cut(text: &str) -> bool {
    ends_cut(text) || rendered::host_cut(text).is_some()
}

/// The whole line, if exactly one line of this file's views is cut to
/// `text` as a view (or a host's read) shows it; `line` narrows the search
/// to the line the text's prefix names. Otherwise `None`: no line is, or
/// several that differ after the cut.
fn restored(shown: Shown<'_>, text: &str, line: Option<usize>) -> Option<String> {
    let text = text.trim_end();
    let host = rendered::host_cut(text);
    let fits = |full: &&str| match host {
        Some((head, units)) => rendered::host_cut_of(full, head, units),
        None => full.len() > MAX_LINE_CHARS && shown_text(full).trim_end() == text,
    };
    let mut candidates: Vec<&str> = match line {
        Some(n) => shown
            .file_lines(n - 1)
            .map(|d| d.line(n - 1))
            .filter(fits)
            .collect(),
        None => shown.shown_lines().filter(fits).collect(),
    };
    candidates.sort_unstable();
    candidates.dedup();
    match candidates[..] {
        [only] => Some(only.to_owned()),
        _ => None,
    }
}

/// Whether `line` is a view's line of a line a view of the file showed: its
/// prefix names that line, followed by its text or a change of it.
fn shown_line(shown: Shown<'_>, line: &str) -> bool {
    parse(line).is_some_and(|p| weigh(shown.file_lines(p.line - 1), &p, &line[p.len..]).1 > 0.0)
}

/// The verdict on a content's lines: the output copied into them is all
/// proven copied from this file's views (cleaned), none of them looks
/// copied (written as sent), or neither (refused, naming only the lines in
/// doubt). `place` says where the content goes, where the operation says.
pub(crate) fn judge<S: AsRef<str>>(lines: &[S], shown: Shown<'_>, place: Option<Place>) -> Verdict {
    // A line in a piece's form is the file's own text where the file has it
    // (a document that shows a view), and a view's line of such text where
    // its prefix names that line of a view of the file.
    let lines_had = OnceCell::new();
    let had = |text: &str| lines_had.get_or_init(|| shown.lines_had()).contains(text);
    let pieces: Vec<Option<Piece<'_>>> = lines
        .iter()
        .map(|l| {
            let l = l.as_ref();
            rendered::piece(l).filter(|_| !had(l) && !shown_line(shown, l))
        })
        .collect();
    // The number each line would have in a copied view: pieces of output
    // around a view's lines have none.
    let at: Vec<usize> = pieces
        .iter()
        .scan(0, |count, p| {
            let at = *count;
            *count += usize::from(p.is_none());
            Some(at)
        })
        .collect();
    let found: Vec<(usize, Prefix)> = lines
        .iter()
        .enumerate()
        .filter(|(i, _)| pieces[*i].is_none())
        .filter_map(|(i, l)| parse(l.as_ref()).map(|p| (i, p)))
        .collect();
    let mut fixes = vec![Fix::Keep; lines.len()];
    let mut doubts = Vec::new();
    let doubt = |index: usize, text: &str, why: Why| Doubt {
        index,
        text: text.to_owned(),
        why,
    };
    let strip = match judge_prefixes(lines, &found, &at, shown, place) {
        Prefixes::Literal => false,
        Prefixes::Strip => {
            for (i, p) in &found {
                fixes[*i] = Fix::Cut(p.len);
            }
            true
        }
        Prefixes::Doubtful(named) => {
            for (i, named) in named {
                let p = found.iter().find(|(j, _)| *j == i).map(|(_, p)| p.len);
                let prefix = &lines[i].as_ref()[..p.unwrap_or(0)];
                doubts.push(doubt(i, prefix.trim_end(), Why::Prefix(named)));
            }
            false
        }
    };
    for (i, line) in lines.iter().enumerate() {
        let line = line.as_ref();
        if let Some(piece) = &pieces[i] {
            if shown.shows(piece) {
                fixes[i] = Fix::Drop(piece.kind);
            } else {
                doubts.push(doubt(i, line, Why::Piece(piece.kind)));
            }
            continue;
        }
        let cut = match fixes[i] {
            Fix::Cut(n) => n,
            _ => 0,
        };
        let text = &line[cut..];
        if is_cut(text) && !had(text) {
            let named = (cut > 0)
                .then(|| found.iter().find(|(j, _)| *j == i))
                .flatten();
            match restored(shown, text, named.map(|(_, p)| p.line)) {
                Some(whole) => fixes[i] = Fix::Restore { cut, line: whole },
                None => doubts.push(doubt(i, text, Why::Cut)),
            }
            continue;
        }
        // Among lines proven copied from a view, a separator of its parts
        // or a line it showed as removed is the view's too.
        if strip && cut == 0 {
            if let Some(kind) = rendered::contextual(line, had).filter(|_| !had(line)) {
                doubts.push(doubt(i, line, Why::Piece(kind)));
            }
        }
    }
    if !lines.is_empty() && fixes.iter().all(|f| matches!(f, Fix::Drop(_))) {
        for (i, fix) in fixes.iter().enumerate() {
            if let Fix::Drop(kind) = fix {
                doubts.push(doubt(i, lines[i].as_ref(), Why::Whole(*kind)));
            }
        }
    }
    if !doubts.is_empty() {
        doubts.sort_by_key(|d| d.index);
        return Verdict::Ambiguous(doubts);
    }
    if fixes.iter().all(|f| *f == Fix::Keep) {
        Verdict::Literal
    } else {
        Verdict::Clean(fixes)
    }
}

/// Whether any line of `lines` may be copied output: only then is there
/// anything to judge, and the versions that could prove it copied are
/// gathered.
pub(crate) fn may_hold<S: AsRef<str>>(lines: &[S]) -> bool {
    lines.iter().any(|l| {
        let l = l.as_ref();
        parse(l).is_some() || rendered::piece(l).is_some() || is_cut(l)
    })
}

/// `lines` with the fixes of a `Clean` verdict applied.
pub(crate) fn clean<S: AsRef<str>>(lines: &[S], fixes: &[Fix]) -> Vec<String> {
    lines
        .iter()
        .zip(fixes)
        .filter_map(|(l, fix)| match fix {
            Fix::Keep => Some(l.as_ref().to_owned()),
            Fix::Cut(n) => Some(l.as_ref()[*n..].to_owned()),
            Fix::Drop(_) => None,
            Fix::Restore { line, .. } => Some(line.clone()),
        })
        .collect()
}

/// The view prefixes, proven copies, that the first and the last line the
/// clean-up keeps carried.
pub(crate) fn edges<S: AsRef<str>>(lines: &[S], fixes: &[Fix]) -> [Option<Prefix>; 2] {
    let prefix = |(l, fix): (&S, &Fix)| match fix {
        Fix::Cut(_) | Fix::Restore { cut: 1.., .. } => parse(l.as_ref()),
        _ => None,
    };
    let kept = || {
        lines
            .iter()
            .zip(fixes)
            .filter(|(_, f)| !matches!(f, Fix::Drop(_)))
    };
    [
        kept().next().and_then(prefix),
        kept().last().and_then(prefix),
    ]
}

/// How many lines of a `Clean` verdict lose a view prefix.
fn prefixes_removed(fixes: &[Fix]) -> usize {
    fixes
        .iter()
        .filter(|f| matches!(f, Fix::Cut(_) | Fix::Restore { cut: 1.., .. }))
        .count()
}

/// What a `Clean` verdict did besides removing prefixes, a clause each.
fn other_fixes(fixes: &[Fix]) -> Vec<String> {
    fixes
        .iter()
        .enumerate()
        .filter_map(|(i, fix)| match fix {
            Fix::Drop(kind) => Some(format!(
                "left out line {} of the content, {}, copied with it: it names a version a view of this file showed",
                i + 1,
                kind.describe()
            )),
            Fix::Restore { .. } => Some(format!(
                "wrote line {} of the content whole: it was copied as a view cut it, with the view's note, and is the line that view showed",
                i + 1
            )),
            _ => None,
        })
        .collect()
}

/// What a `Clean` verdict did, for a note on `what` (`operation 2`).
pub(crate) fn describe(what: &str, fixes: &[Fix]) -> String {
    let mut done = Vec::new();
    if prefixes_removed(fixes) > 0 {
        done.push(
            "removed the view prefixes (LINEab or LINE#HASH#ANCHOR|) copied into its content; they name lines the views showed"
                .to_owned(),
        );
    }
    done.extend(other_fixes(fixes));
    format!("{what}: {}.", done.join("; "))
}

/// What a `Clean` verdict did to a whole file's new content, as the result
/// of a host's `write` says it.
fn describe_write(fixes: &[Fix]) -> String {
    let mut sentences = Vec::new();
    match prefixes_removed(fixes) {
        0 => {}
        n => sentences.push(format!(
            "Removed the view prefixes (LINEab or LINE#HASH#ANCHOR|) from {} of content before writing: they name lines this file's views showed.",
            crate::error::plural(n, "line", "lines")
        )),
    }
    for clause in other_fixes(fixes) {
        let mut chars = clause.chars();
        let first = chars.next().map(|c| c.to_ascii_uppercase());
        sentences.push(format!("{}{}.", first.unwrap_or_default(), chars.as_str()));
    }
    sentences.join(" ")
}

/// The refusal of contents with lines neither proven copied nor ruled out:
/// which lines, and why, and how to resend. Each content is named
/// (`operation 2's content`, `the content`); `literal` says how to ask for
/// a content to be written as sent.
pub(crate) fn ambiguous(path: &str, contents: &[(String, Vec<Doubt>)], literal: &str) -> Error {
    let mut message = String::from(
        "Edit rejected, nothing written: lines start like the refs of a view or hold other text the engine shows, and the engine cannot tell whether they were copied from it:\n",
    );
    for (what, doubts) in contents {
        for d in doubts {
            let _ = writeln!(
                message,
                "  {what}, line {}: {} {}",
                d.index + 1,
                excerpt(&d.text),
                reason(d.why)
            );
        }
    }
    let _ = write!(
        message,
        "Nothing was removed. If these are prefixes or other text copied from what the engine showed, send the content again without them (a line a view cut cannot be sent whole: leave it out of the lines replaced); if the text is meant as it is, {literal}."
    );
    Error::new(ErrorCode::AmbiguousEcho, message)
        .with_path(path)
        .with_doubted(Doubted::Output)
}

/// Why a line is in doubt, as a message says it after the line.
fn reason(why: Why) -> String {
    match why {
        Why::Prefix(Named::Here) => {
            "names a line a view of this file showed, but that is too little to prove it a copy".to_owned()
        }
        Why::Prefix(Named::Elsewhere) => {
            "looks copied from a view, but not from one of this file".to_owned()
        }
        Why::Prefix(Named::Shape) => {
            "has the shape of a view's ref where it stands, though no view showed that line".to_owned()
        }
        Why::Prefix(Named::Nothing) => {
            "names no line a view showed, though other lines carry prefixes that do".to_owned()
        }
        Why::Piece(kind @ (Kind::ViewHeader | Kind::SearchHeader | Kind::RevLine | Kind::Headline)) => {
            format!("is {}, but names no version of this file a view showed", kind.describe())
        }
        Why::Piece(kind) => format!("is {}, and nothing in it says it was copied", kind.describe()),
        Why::Whole(kind) => format!(
            "is {}, copied from a view of this file, and all there is: left out, nothing would remain",
            kind.describe()
        ),
        Why::Cut => "ends with the note of a line a view cut, and no one line a view of this file showed reads so up to the cut: the rest of the line is not in the content".to_owned(),
    }
}

/// The judgement for a whole text (a file's new content), its lines'
/// terminators kept: the text, maybe cleaned, how many lines the clean-up
/// changed and the note that says how; or the refusal, `literal` saying how
/// to ask for the text to be written as sent.
pub(crate) fn strip_text(
    text: &str,
    path: &str,
    shown: Shown<'_>,
    literal: &str,
) -> crate::error::Result<(String, usize, Option<String>)> {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let bodies: Vec<&str> = lines
        .iter()
        .map(|l| l.trim_end_matches(['\n', '\r']))
        .collect();
    match judge(&bodies, shown, Some(Place::WHOLE)) {
        Verdict::Literal => Ok((text.to_owned(), 0, None)),
        Verdict::Clean(fixes) => {
            let mut out = String::with_capacity(text.len());
            for ((line, body), fix) in lines.iter().zip(&bodies).zip(&fixes) {
                let end = &line[body.len()..];
                match fix {
                    Fix::Keep => out.push_str(line),
                    Fix::Cut(n) => out.push_str(&line[*n..]),
                    Fix::Drop(_) => {}
                    Fix::Restore { line: whole, .. } => {
                        out.push_str(whole);
                        out.push_str(end);
                    }
                }
            }
            let changed = fixes.iter().filter(|f| **f != Fix::Keep).count();
            Ok((out, changed, Some(describe_write(&fixes))))
        }
        Verdict::Ambiguous(doubts) => Err(ambiguous(
            path,
            &[("the content".to_owned(), doubts)],
            literal,
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    fn shown(text: &str, seen: std::ops::Range<usize>) -> Version {
        let doc = Arc::new(Document::from_text(text));
        Version {
            rev: doc.rev().to_owned(),
            doc: doc.into(),
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

    /// Content replacing lines from `first` on, `replaced` of them.
    fn replacing(first: usize, replaced: usize) -> Option<Place> {
        Some(Place { first, replaced })
    }

    fn file(file: &[Version]) -> Shown<'_> {
        Shown::new("f.txt", file, &[])
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
            &["3rd"],
        ] {
            assert_eq!(
                judge(content, Shown::default(), replacing(5, 1)),
                Verdict::Literal,
                "{content:?}"
            );
        }
    }

    #[test]
    fn a_full_ref_or_a_lean_one_numbered_as_the_line_it_takes_is_refused_though_nothing_was_shown()
    {
        for (content, place) in [
            (&["12#ABC#DEF|names nothing"][..], None),
            (&["line", "2ab made up past the end"], replacing(1, 1)),
        ] {
            let verdict = judge(content, Shown::default(), place);
            assert!(
                matches!(verdict, Verdict::Ambiguous(ref d) if d.iter().all(|d| d.why == Why::Prefix(Named::Shape))),
                "{content:?}: {verdict:?}"
            );
        }
    }

    #[test]
    fn unchanged_lines_copied_from_a_view_of_the_file_are_proven_copies() {
        let text = "fn main() {\n    let x = 1;\n}\n";
        let doc = Document::from_text(text);
        let versions = [shown(text, 0..3)];
        let lean: Vec<String> = (0..3).map(|i| lean_line(i + 1, doc.line(i))).collect();
        let full: Vec<String> = (0..3)
            .map(|i| format!("{}|{}", Ref::of_line(&doc, i), doc.line(i)))
            .collect();
        for lines in [&lean[..], &lean[1..2], &full[..], &full[1..2]] {
            let Verdict::Clean(fixes) = judge(lines, file(&versions), None) else {
                panic!("not proven: {lines:?}")
            };
            let want: Vec<&str> = lines.iter().map(|l| &l[parse(l).unwrap().len..]).collect();
            assert_eq!(clean(lines, &fixes), want);
        }
    }

    #[test]
    fn a_copy_of_another_files_view_or_a_quoted_view_is_refused_not_stripped() {
        let text = "fn main() {\n    let x = 1;\n}\n";
        let doc = Document::from_text(text);
        let other = [shown(text, 0..3)];
        let lean: Vec<String> = (0..3).map(|i| lean_line(i + 1, doc.line(i))).collect();
        for shown in [Shown::new("f.txt", &[], &other), Shown::default()] {
            let Verdict::Ambiguous(doubts) = judge(&lean, shown, None) else {
                panic!("not refused")
            };
            assert!(doubts
                .iter()
                .all(|d| d.why == Why::Prefix(Named::Elsewhere)));
        }
    }

    #[test]
    fn a_tag_another_files_view_showed_for_that_line_but_with_other_text_is_written_as_sent() {
        let other = [shown("one\ntwo\nthree\n", 0..3)];
        let line = lean_changed(3, "three", "party notices");
        assert_eq!(
            judge(&[line.as_str()], Shown::new("f.txt", &[], &other), None),
            Verdict::Literal
        );
    }

    #[test]
    fn one_changed_lean_line_is_proven_only_where_it_replaces_the_line_it_names() {
        let versions = [shown("a();\n    total += 1;\n", 0..2)];
        let line = lean_changed(2, "    total += 1;", "    total += 2;");
        let lines = [line.as_str()];
        assert!(matches!(
            judge(&lines, file(&versions), replacing(2, 1)),
            Verdict::Clean(_)
        ));
        // Inserted before line 2, or replacing another line: too little.
        for place in [replacing(2, 0), replacing(5, 1), None] {
            let verdict = judge(&lines, file(&versions), place);
            assert!(
                matches!(verdict, Verdict::Ambiguous(ref d) if d.len() == 1 && d[0].why == Why::Prefix(Named::Here)),
                "{place:?}: {verdict:?}"
            );
        }
    }

    #[test]
    fn a_bare_tag_whose_line_was_blank_is_a_prefix_whose_text_alone_proves_little() {
        let text = "a();\n\nb();\n";
        let versions = [shown(text, 0..3)];
        let bare = lean_line(2, "").trim_end().to_owned();
        // Alone, even where it replaces its line: a blank line is common.
        assert!(matches!(
            judge(&[bare.as_str()], file(&versions), replacing(2, 1)),
            Verdict::Ambiguous(_)
        ));
        // In a copied range, it goes with the others.
        let copy = [lean_line(1, "a();"), bare, lean_line(3, "b();")];
        let Verdict::Clean(fixes) = judge(&copy, file(&versions), replacing(1, 3)) else {
            panic!()
        };
        assert_eq!(clean(&copy, &fixes), ["a();", "", "b();"]);
    }

    #[test]
    fn changed_lines_are_proven_copies_by_the_view_that_showed_them() {
        let text = "alpha();\nbeta();\ngamma();\ndelta();\n";
        let doc = Document::from_text(text);
        let changed: Vec<String> = (0..3)
            .map(|i| lean_changed(i + 1, doc.line(i), &doc.line(i).replace("();", "(1);")))
            .collect();
        let versions = [shown(text, 0..4)];
        assert!(matches!(
            judge(&changed, file(&versions), None),
            Verdict::Clean(_)
        ));
        // The same lines against a view that did not show them.
        let unseen = [shown(text, 3..4)];
        assert_eq!(judge(&changed, file(&unseen), None), Verdict::Literal);
    }

    #[test]
    fn lines_that_name_shown_lines_but_go_on_with_other_text_are_refused_never_stripped() {
        // Text that starts with the number and tag of shown lines, then
        // something else: what a copy would look like, not what it says.
        let text = "alpha();\nbeta();\ngamma();\ndelta();\n";
        let doc = Document::from_text(text);
        let versions = [shown(text, 0..4)];
        let unrelated: Vec<String> = (0..4)
            .map(|i| lean_changed(i + 1, doc.line(i), "items 42 and the total"))
            .collect();
        let verdict = judge(&unrelated, file(&versions), replacing(1, 4));
        assert!(
            matches!(verdict, Verdict::Ambiguous(ref d) if d.len() == 4 && d.iter().all(|d| d.why == Why::Prefix(Named::Here))),
            "{verdict:?}"
        );
    }

    #[test]
    fn only_the_prefix_that_names_nothing_beside_proven_ones_is_in_doubt() {
        let text = "a\nb\nc\nd\n";
        let doc = Document::from_text(text);
        let versions = [shown(text, 0..4)];
        let mut lines: Vec<String> = (0..3).map(|i| lean_line(i + 1, doc.line(i))).collect();
        lines.push("5zz invented".into());
        let Verdict::Ambiguous(doubts) = judge(&lines, file(&versions), None) else {
            panic!()
        };
        assert_eq!(
            doubts.iter().map(|d| (d.index, d.why)).collect::<Vec<_>>(),
            [(3, Why::Prefix(Named::Nothing))]
        );
    }

    #[test]
    fn a_text_held_by_the_caller_proves_the_full_prefixes_of_its_lines_copies() {
        let doc = Document::from_text("one\ntwo\nthree\n");
        let line = format!("{}|TWO", Ref::of_line(&doc, 1));
        assert!(matches!(
            judge(&[line.as_str()], Shown::text(&doc), replacing(2, 1)),
            Verdict::Clean(_)
        ));
    }

    #[test]
    fn a_line_in_a_pieces_form_that_the_file_has_is_its_own_text_copied_or_kept() {
        let text = "see:\nsrc/a.rs REV:72C4946C lines 1-4 of 4\n    ...\nend\n";
        let doc = Document::from_text(text);
        let versions = [shown(text, 0..4)];
        let copy: Vec<String> = (0..4).map(|i| lean_line(i + 1, doc.line(i))).collect();
        let Verdict::Clean(fixes) = judge(&copy, file(&versions), replacing(1, 4)) else {
            panic!()
        };
        assert_eq!(clean(&copy, &fixes), doc.lines().collect::<Vec<_>>());
        let kept = ["see also:", "src/a.rs REV:72C4946C lines 1-4 of 4"];
        assert_eq!(
            judge(&kept, file(&versions), replacing(1, 2)),
            Verdict::Literal
        );
    }

    #[test]
    fn a_header_is_left_out_only_where_it_names_a_version_of_this_file_a_view_showed() {
        let text = "one\ntwo\n";
        let versions = [shown(text, 0..2)];
        let rev = versions[0].rev.clone();
        let doc = Document::from_text(text);
        let copy = [
            format!("f.txt REV:{rev} lines 1-2 of 2"),
            lean_line(1, "one"),
            lean_line(2, "two"),
        ];
        let Verdict::Clean(fixes) = judge(&copy, file(&versions), replacing(1, 2)) else {
            panic!()
        };
        assert_eq!(clean(&copy, &fixes), ["one", "two"]);
        // Another path, another REV, or the header alone: refused.
        for header in [
            format!("g.txt REV:{rev} lines 1-2 of 2"),
            "f.txt REV:0000AAAA lines 1-2 of 2".to_owned(),
        ] {
            let lines = [header.clone(), lean_line(1, "one"), lean_line(2, "two")];
            let verdict = judge(&lines, file(&versions), replacing(1, 2));
            assert!(
                matches!(verdict, Verdict::Ambiguous(ref d) if d.len() == 1 && d[0].index == 0),
                "{verdict:?}"
            );
        }
        let alone = [copy[0].clone()];
        assert!(matches!(
            judge(&alone, file(&versions), replacing(1, 1)),
            Verdict::Ambiguous(ref d) if d[0].why == Why::Whole(Kind::ViewHeader)
        ));
        // A text held by the caller was viewed under a path of its choosing.
        let other_path = [
            format!("any/path REV:{} lines 1-2 of 2", doc.rev()),
            "x".into(),
        ];
        assert!(matches!(
            judge(&other_path, Shown::text(&doc), None),
            Verdict::Clean(_)
        ));
    }
}
