//! Line references `LINE#HASH#ANCHOR`: parsing what models copy (tolerantly)
//! and formatting what they are shown (strictly).

use crate::error::{excerpt, Error, ErrorCode, Result};
use crate::hash::{anchor_hash, line_hash, Tag};
use crate::text::Document;
use std::fmt;

pub const EXPECTED_FORM: &str =
    "LINE#HASH#ANCHOR, e.g. 12#A3F#9BC (HASH and ANCHOR are 3 hex digits; copy it from the view)";

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
    /// The line's HASH.
    pub hash: Tag,
    /// The ANCHOR: the HASH of the line with its neighbours, which tells
    /// identical lines apart.
    pub anchor: Option<Tag>,
}

impl fmt::Display for Ref {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}#{}", self.line, self.hash)?;
        if let Some(anchor) = self.anchor {
            write!(f, "#{anchor}")?;
        }
        Ok(())
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
            hash: line_hash(line),
            anchor: Some(anchor_hash(prev, line, next)),
        }
    }

    /// Whether this ref names line `index` of `doc` as it is there.
    pub fn matches(&self, doc: &Document, index: usize) -> bool {
        if index >= doc.line_count() {
            return false;
        }
        let actual = Ref::of_line(doc, index);
        actual.hash == self.hash && self.anchor.is_none_or(|a| Some(a) == actual.anchor)
    }

    /// Parses a ref as models write it: any case, spaces around the
    /// separators, `:` for `#`, a trailing `|content`, a leading `>>>`,
    /// `+`, `-` or `#HL `, and a missing ANCHOR.
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
        s = s.trim();
        for prefix in [">>>", "#HL ", "#hl "] {
            if let Some(rest) = s.strip_prefix(prefix) {
                s = rest.trim_start();
            }
        }
        if let Some(rest) = s.strip_prefix(['+', '-']) {
            s = rest.trim_start();
        }
        if s.is_empty() {
            return Err(invalid("it is empty"));
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
                hash: tag(parts[1], "the HASH")?,
                anchor: None,
            }),
            3 => Ok(Ref {
                line,
                hash: tag(parts[1], "the HASH")?,
                anchor: Some(tag(parts[2], "the ANCHOR")?),
            }),
            _ => Err(invalid("it has too many parts")),
        }
    }
}

/// A ref of the batch and the operation (1-based) that cites it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Cited {
    pub op: usize,
    pub reference: Ref,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(line: usize, hash: u16, anchor: Option<u16>) -> Ref {
        Ref {
            line,
            hash: Tag::from_bits(hash).unwrap(),
            anchor: anchor.map(|a| Tag::from_bits(a).unwrap()),
        }
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
        assert_eq!(first.hash, Ref::of_line(&doc, 1).hash);
        assert!(!first.matches(&doc, 1));
        assert!(!first.matches(&doc, 5));
    }
}
