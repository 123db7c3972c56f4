//! Line references, full `LINE#HASH#ANCHOR` or lean `LINEab`: parsing what
//! models copy (tolerantly) and formatting what they are shown (strictly).
//!
//! Specified in `docs/format.md` §3.

use crate::document::Document;
use crate::error::{excerpt, Error, ErrorCode, Result};
use crate::hash::{anchor_hash, line_hash, pair_tag, Tag};
use std::fmt;

pub const EXPECTED_FORM: &str =
    "LINEab, e.g. 12ab (the line number and its two-letter tag), or LINE#HASH#ANCHOR, e.g. 12#A3F#9BC (HASH and ANCHOR are 3 hex digits); copy it from the view";

/// A parsed line reference, `LINE#HASH#ANCHOR` (ANCHOR optional).
///
/// ```
/// let r = hashline::Ref::parse("12#A3F#9BC").unwrap();
/// assert_eq!(r.line, 12);
/// assert_eq!(r.to_string(), "12#A3F#9BC");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Ref {
    /// 1-based line number in the version that was shown.
    pub line: usize,
    /// The tag that names the line's text: the full view's HASH and
    /// ANCHOR, or the lean view's two letters.
    pub tag: RefTag,
}

/// How a ref names its line's text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RefTag {
    /// The full view's `HASH#ANCHOR` (ANCHOR optional).
    Full {
        /// The line's HASH.
        hash: Tag,
        /// The ANCHOR: the HASH of the line with its neighbours, which
        /// tells identical lines apart.
        anchor: Option<Tag>,
    },
    /// The lean view's two lowercase letters.
    Pair([u8; 2]),
}

impl fmt::Display for Ref {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.tag {
            RefTag::Full { hash, anchor } => {
                write!(f, "{}#{hash}", self.line)?;
                if let Some(anchor) = anchor {
                    write!(f, "#{anchor}")?;
                }
                Ok(())
            }
            RefTag::Pair([a, b]) => write!(f, "{}{}{}", self.line, char::from(a), char::from(b)),
        }
    }
}

impl Ref {
    /// The full ref of line `index` (0-based) of `doc`.
    pub fn of_line(doc: &Document, index: usize) -> Ref {
        let prev = index.checked_sub(1).map(|i| doc.line(i));
        let next = (index + 1 < doc.line_count()).then(|| doc.line(index + 1));
        let line = doc.line(index);
        Ref {
            line: index + 1,
            tag: RefTag::Full {
                hash: line_hash(line),
                anchor: Some(anchor_hash(prev, line, next)),
            },
        }
    }

    /// The lean ref of line `index` (0-based) of `doc`.
    pub fn pair_of_line(doc: &Document, index: usize) -> Ref {
        Ref {
            line: index + 1,
            tag: RefTag::Pair(pair_tag(index + 1, doc.line(index))),
        }
    }

    /// The HASH of a full ref.
    pub fn hash(&self) -> Option<Tag> {
        match self.tag {
            RefTag::Full { hash, .. } => Some(hash),
            RefTag::Pair(_) => None,
        }
    }

    /// The ANCHOR of a full ref that has one.
    pub fn anchor(&self) -> Option<Tag> {
        match self.tag {
            RefTag::Full { anchor, .. } => anchor,
            RefTag::Pair(_) => None,
        }
    }

    /// Whether this is a lean ref (`12ab`).
    pub fn is_pair(&self) -> bool {
        matches!(self.tag, RefTag::Pair(_))
    }

    /// Whether this ref names line `index` of `doc` as it is there.
    pub fn matches(&self, doc: &Document, index: usize) -> bool {
        if index >= doc.line_count() {
            return false;
        }
        match self.tag {
            RefTag::Pair(tag) => pair_tag(index + 1, doc.line(index)) == tag,
            RefTag::Full { hash, anchor } => {
                let actual = Ref::of_line(doc, index);
                actual.hash() == Some(hash) && anchor.is_none_or(|a| Some(a) == actual.anchor())
            }
        }
    }

    /// Parses a ref as models write it: any case, spaces around the
    /// separators, `:` for `#`, a trailing `|content`, a leading `>>>`,
    /// `+` or `-`, and `#HL ` (each at most once, in any order), and a
    /// missing ANCHOR. Two letters after the line number (`12ab`, `12 ab`,
    /// `12#ab`, `12:ab`, then maybe ` content`) make a lean ref; three hex
    /// digits stay a full HASH.
    pub fn parse(input: &str) -> Result<Ref> {
        let invalid = |why: &str| {
            Error::new(
                ErrorCode::InvalidRef,
                format!(
                    "Invalid ref {}: {why}. Expected {EXPECTED_FORM}.",
                    excerpt(input)
                ),
            )
        };
        let mut s = input.trim();
        if let Some(bar) = s.find('|') {
            s = &s[..bar];
        }
        let s = undecorated(s.trim());
        if s.is_empty() {
            return Err(invalid("it is empty"));
        }
        if let Some(reference) = parse_lean(s) {
            return Ok(reference);
        }
        let parts: Vec<&str> = s.split(['#', ':']).map(str::trim).collect();
        let line_part = parts[0];
        if line_part.is_empty() || !line_part.bytes().all(|b| b.is_ascii_digit()) {
            return Err(invalid("it must start with a line number"));
        }
        let line: usize = line_part
            .parse()
            .map_err(|_| invalid("the line number is too large"))?;
        if line == 0 {
            return Err(invalid("line numbers start at 1"));
        }
        let tag = |part: &str, what: &str| {
            Tag::parse(part)
                .ok_or_else(|| invalid(&format!("{what} {} is not 3 hex digits", excerpt(part))))
        };
        match parts.len() {
            1 => Err(invalid("the HASH after the line number is missing")),
            2 => Ok(Ref {
                line,
                tag: RefTag::Full {
                    hash: tag(parts[1], "the HASH")?,
                    anchor: None,
                },
            }),
            3 => Ok(Ref {
                line,
                tag: RefTag::Full {
                    hash: tag(parts[1], "the HASH")?,
                    anchor: Some(tag(parts[2], "the ANCHOR")?),
                },
            }),
            _ => Err(invalid("it has too many parts")),
        }
    }
}

/// A ref without what a view put before it: a rejection's `>>>`, a diff's
/// `+` or `-`, an annotated view's `#HL ` (so a diff line of an annotated
/// view, `+ #HL 7#abc`, is a ref too). Each is taken once, whatever the
/// order; what is left must then be a ref on its own, so nothing here can
/// turn other text into one or change the line a ref names.
fn undecorated(mut s: &str) -> &str {
    let (mut rejection, mut diff, mut annotation) = (false, false, false);
    loop {
        if let Some(rest) = s.strip_prefix(">>>").filter(|_| !rejection) {
            rejection = true;
            s = rest.trim_start();
        } else if let Some(rest) = s.strip_prefix(['+', '-']).filter(|_| !diff) {
            diff = true;
            s = rest.trim_start();
        } else if let Some(rest) = annotated(s).filter(|_| !annotation) {
            annotation = true;
            s = rest.trim_start();
        } else {
            return s;
        }
    }
}

/// What follows an annotated view's `#HL ` (any case, then white space).
fn annotated(s: &str) -> Option<&str> {
    let rest = s.get(3..)?;
    (s[..3].eq_ignore_ascii_case("#hl") && rest.starts_with(char::is_whitespace)).then_some(rest)
}

/// A lean ref: the line number, then `#`, `:` or spaces (or nothing), then
/// exactly two letters, then nothing or whitespace and the line's content.
fn parse_lean(s: &str) -> Option<Ref> {
    let digits = s.bytes().take_while(u8::is_ascii_digit).count();
    let line: usize = s[..digits].parse().ok().filter(|&l| l > 0)?;
    let rest = s[digits..].trim_start();
    let rest = rest.strip_prefix(['#', ':']).unwrap_or(rest).trim_start();
    let token = rest.split(char::is_whitespace).next()?;
    Some(Ref {
        line,
        tag: RefTag::Pair(parse_pair(token)?),
    })
}

/// A ref of the batch and the operation (1-based) that cites it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Cited {
    pub op: usize,
    pub reference: Ref,
}

/// A lean tag as cited: exactly two ASCII letters, lower-cased.
pub(crate) fn parse_pair(text: &str) -> Option<[u8; 2]> {
    match text.as_bytes() {
        [a, b] if a.is_ascii_alphabetic() && b.is_ascii_alphabetic() => {
            Some([a.to_ascii_lowercase(), b.to_ascii_lowercase()])
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(line: usize, hash: u16, anchor: Option<u16>) -> Ref {
        Ref {
            line,
            tag: RefTag::Full {
                hash: Tag::from_bits(hash).unwrap(),
                anchor: anchor.map(|a| Tag::from_bits(a).unwrap()),
            },
        }
    }

    #[test]
    fn parses_lean_refs_in_every_spelling_and_keeps_three_hex_digits_full() {
        let want = Ref {
            line: 12,
            tag: RefTag::Pair(*b"ab"),
        };
        for input in [
            "12ab",
            "12 ab",
            "12#ab",
            "12:ab",
            "12AB",
            "12 # Ab",
            "12ab    let x = 1;",
            "12ab|x",
            ">>> 12ab x",
            "+12ab x",
            "-12ab",
            " 12ab\tx",
        ] {
            assert_eq!(Ref::parse(input).unwrap(), want, "{input}");
        }
        assert_eq!(want.to_string(), "12ab");
        assert_eq!(Ref::parse("12#abc").unwrap(), r(12, 0xABC, None));
        assert_eq!(
            Ref::parse("12#ab#9BC").unwrap_err().code,
            ErrorCode::InvalidRef
        );
        assert_eq!(Ref::parse("0ab").unwrap_err().code, ErrorCode::InvalidRef);
        assert_eq!(Ref::parse("12a").unwrap_err().code, ErrorCode::InvalidRef);
    }

    #[test]
    fn a_lean_ref_matches_its_line_only_at_its_line_number() {
        let doc = Document::from_text("}\n}\n}\nx\n");
        for i in 0..3 {
            let own = Ref::pair_of_line(&doc, i);
            assert!(own.matches(&doc, i));
            assert!(!own.matches(&doc, i + 1), "line {} cited one off", i + 1);
            assert!(i == 0 || !own.matches(&doc, i - 1));
        }
        assert!(!Ref::pair_of_line(&doc, 3).matches(&doc, 9));
    }

    #[test]
    fn parses_the_canonical_form() {
        assert_eq!(Ref::parse("12#A3F#9BC").unwrap(), r(12, 0xA3F, Some(0x9BC)));
        assert_eq!(Ref::parse("12#A3F#9BC").unwrap().to_string(), "12#A3F#9BC");
    }

    #[test]
    fn tolerates_what_models_copy() {
        let want = r(12, 0xA3F, Some(0x9BC));
        for input in [
            "12#a3f#9bc",
            " 12 # A3F # 9BC ",
            "12:A3F:9BC",
            "12#A3F#9BC|    const total = items.length;",
            ">>> 12#A3F#9BC|x",
            "+12#A3F#9BC|x",
            "-12#A3F#9BC",
            "#HL 12#A3F#9BC|",
        ] {
            assert_eq!(Ref::parse(input).unwrap(), want, "{input}");
        }
        assert_eq!(Ref::parse("12#A3F").unwrap(), r(12, 0xA3F, None));
        assert_eq!(Ref::parse("12:a3f|x").unwrap(), r(12, 0xA3F, None));
    }

    #[test]
    fn a_diff_marker_and_the_annotation_prefix_are_taken_in_any_order() {
        assert_eq!(Ref::parse("+ #HL 7#abc").unwrap(), r(7, 0xABC, None));
        let want = r(12, 0xA3F, Some(0x9BC));
        for input in [
            "+ #HL 12#A3F#9BC|x",
            "+#HL 12#A3F#9BC",
            "- #hl 12#a3f#9bc|",
            "#HL + 12#A3F#9BC",
            "#HL -12#A3F#9BC|x",
            ">>> + #HL 12#A3F#9BC|x",
            "+ >>> #HL 12:A3F:9BC",
            "#HL >>> -12#A3F#9BC",
        ] {
            assert_eq!(Ref::parse(input).unwrap(), want, "{input}");
        }
        let lean = Ref {
            line: 12,
            tag: RefTag::Pair(*b"ab"),
        };
        for input in ["+ #HL 12ab x", "-#HL 12ab", "#HL +12ab"] {
            assert_eq!(Ref::parse(input).unwrap(), lean, "{input}");
        }
        // Each once: a view never shows a marker twice.
        for input in [
            "++12#A3F#9BC",
            "+ -12#A3F",
            "#HL #HL 12#A3F",
            ">>> >>> 12ab",
            "#HL12#A3F",
        ] {
            assert_eq!(
                Ref::parse(input).unwrap_err().code,
                ErrorCode::InvalidRef,
                "{input}"
            );
        }
    }

    #[test]
    fn rejects_malformed_refs_with_the_expected_form() {
        for input in [
            "",
            "12",
            "A3F#12",
            "0#A3F",
            "12#A3",
            "12#A3FF",
            "12#XYZ",
            "12#A3F#9BC#1",
            "-A3F",
            "99999999999999999999999#A3F",
        ] {
            let err = Ref::parse(input).unwrap_err();
            assert_eq!(err.code, ErrorCode::InvalidRef, "{input}");
            assert!(err.message.contains("12#A3F#9BC"), "{}", err.message);
        }
    }

    #[test]
    fn of_line_matches_its_own_line_only() {
        let doc = Document::from_text("}\n}\nx\n");
        let first = Ref::of_line(&doc, 0);
        assert!(first.matches(&doc, 0));
        // Same text, different neighbours: the hash alone matches, the anchor does not.
        assert_eq!(first.hash(), Ref::of_line(&doc, 1).hash());
        assert!(!first.matches(&doc, 1));
        assert!(!first.matches(&doc, 5));
    }
}
