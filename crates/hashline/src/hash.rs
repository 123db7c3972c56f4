//! The digests of the reference format: a line's HASH, its ANCHOR (the
//! line with its neighbours), a document's REV, and the lean view's pair
//! tag.
//!
//! The first letter of a pair tag comes from one half of the alphabet for
//! even line numbers and from the other half for odd ones, so the tags of
//! neighbouring lines always differ: a line number typed one off never
//! validates, even in a run of identical lines no content hash tells apart.
//!
//! Specified in `docs/format.md` §2.

use sha1::{Digest, Sha1};
use std::fmt;

/// Joins the parts of an ANCHOR; a character no source line is likely to hold.
pub const SEPARATOR: &str = "\u{241E}";

/// A 12-bit digest shown as three uppercase hex digits (a HASH or an ANCHOR).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Tag(u16);

impl Tag {
    /// The tag with these 12 bits, if they fit.
    pub fn from_bits(bits: u16) -> Option<Tag> {
        (bits < 0x1000).then_some(Tag(bits))
    }

    /// The tag as 12 bits.
    pub fn bits(self) -> u16 {
        self.0
    }

    /// Parses exactly three hex digits, either case.
    pub fn parse(hex: &str) -> Option<Tag> {
        if hex.len() != 3 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        u16::from_str_radix(hex, 16).ok().map(Tag)
    }

    /// The tag of a digest whose first 32 bits, big-endian, are `word`:
    /// its first 12 bits.
    pub(crate) fn from_word(word: u32) -> Tag {
        Tag((word >> 20) as u16)
    }

    fn from_digest(digest: &[u8]) -> Tag {
        Tag::from_word(first_word(digest))
    }
}

/// The first 32 bits of a digest, big-endian.
fn first_word(digest: &[u8]) -> u32 {
    u32::from_be_bytes([digest[0], digest[1], digest[2], digest[3]])
}

impl fmt::Display for Tag {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:03X}", self.0)
    }
}

/// The text that is hashed: trailing spaces and tabs never count, so an
/// editor that trims them does not invalidate refs; indentation does count.
pub fn hashed_text(line: &str) -> &str {
    line.trim_end_matches([' ', '\t'])
}

/// The HASH of a line: its text without trailing spaces and tabs.
///
/// ```
/// assert_eq!(hashline::line_hash("x = 1;  "), hashline::line_hash("x = 1;"));
/// ```
pub fn line_hash(line: &str) -> Tag {
    Tag::from_digest(&Sha1::digest(hashed_text(line).as_bytes()))
}

/// A missing neighbour (first or last line) counts as the empty string.
pub fn anchor_hash(prev: Option<&str>, line: &str, next: Option<&str>) -> Tag {
    let mut hasher = Sha1::new();
    hasher.update(hashed_text(prev.unwrap_or("")).as_bytes());
    hasher.update(SEPARATOR.as_bytes());
    hasher.update(hashed_text(line).as_bytes());
    hasher.update(SEPARATOR.as_bytes());
    hasher.update(hashed_text(next.unwrap_or("")).as_bytes());
    Tag::from_digest(&hasher.finalize())
}

/// REV: 8 uppercase hex digits of SHA-1 over the canonical text.
pub fn rev(canonical: &str) -> String {
    hex::encode_upper(&Sha1::digest(canonical.as_bytes())[..4])
}

/// The letters a pair tag starts with, by the parity of its line number.
pub const PAIR_FIRST: [&[u8; 13]; 2] = [b"abcdefghijklm", b"nopqrstuvwxyz"];
/// 13 first letters × 26 second letters.
pub(crate) const PAIR_VALUES: u32 = 338;

/// The pair tag of line `line_number` (1-based) holding `text`: the first 32
/// bits of SHA-1 over the hashed text, big-endian, modulo 338, spelled as a
/// first letter of the line number's parity (value / 26) and a second letter
/// (value % 26).
pub fn pair_tag(line_number: usize, text: &str) -> [u8; 2] {
    pair_of_word(
        line_number,
        first_word(&Sha1::digest(hashed_text(text).as_bytes())),
    )
}

/// The pair tag of line `line_number` whose hashed text's SHA-1 starts
/// with the 32 bits `word`.
pub(crate) fn pair_of_word(line_number: usize, word: u32) -> [u8; 2] {
    let v = word % PAIR_VALUES;
    [
        PAIR_FIRST[line_number % 2][(v / 26) as usize],
        b'a' + (v % 26) as u8,
    ]
}

/// Whether `tag` (lowercase) could be the pair tag of some line numbered
/// `line_number`: its first letter is of the number's parity.
pub fn fits_parity(line_number: usize, tag: [u8; 2]) -> bool {
    PAIR_FIRST[line_number % 2].contains(&tag[0]) && tag[1].is_ascii_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sha1_hex(s: &str) -> String {
        hex::encode_upper(Sha1::digest(s.as_bytes()))
    }

    #[test]
    fn line_hash_is_first_three_hex_digits_of_sha1() {
        let line = "    const total = items.length;";
        assert_eq!(line_hash(line).to_string(), sha1_hex(line)[..3]);
    }

    #[test]
    fn line_hash_ignores_trailing_spaces_and_tabs_but_not_indentation() {
        assert_eq!(line_hash("x = 1"), line_hash("x = 1 \t "));
        assert_ne!(line_hash("x = 1"), line_hash("  x = 1"));
    }

    #[test]
    fn anchor_hash_covers_both_neighbours_joined_by_the_separator() {
        let expected = sha1_hex("a\u{241E}b\u{241E}c");
        assert_eq!(
            anchor_hash(Some("a"), "b", Some("c")).to_string(),
            expected[..3]
        );
        let edge = sha1_hex("\u{241E}b\u{241E}");
        assert_eq!(anchor_hash(None, "b", None).to_string(), edge[..3]);
        assert_ne!(
            anchor_hash(Some("a"), "b", Some("c")),
            anchor_hash(Some("x"), "b", Some("c"))
        );
    }

    #[test]
    fn rev_is_eight_uppercase_hex_digits() {
        assert_eq!(rev("a\nb\n"), sha1_hex("a\nb\n")[..8]);
        assert_eq!(rev("").len(), 8);
    }

    #[test]
    fn tags_always_print_three_digits() {
        assert_eq!(Tag::from_bits(0xA).unwrap().to_string(), "00A");
        assert_eq!(Tag::parse("a3f").unwrap().to_string(), "A3F");
        assert!(Tag::parse("A3").is_none());
        assert!(Tag::parse("G00").is_none());
        assert!(Tag::parse("+12").is_none());
        assert!(Tag::from_bits(0x1000).is_none());
    }

    #[test]
    fn pair_tags_equal_the_reference_function_of_the_benchmark() {
        // Computed once with eval/editbench/lib/lean.mjs `pairTag`.
        for (n, line, tag) in [
            (1, "fn main() {", "ve"),
            (2, "    let x = 1;", "ay"),
            (3, "    println!(\"{x}\");", "sh"),
            (4, "}", "ao"),
            (5, "", "no"),
            (6, "", "ao"),
            (10, "}", "ao"),
            (11, "}", "no"),
            (12, "x = 1 \t ", "dz"),
            (12, "x = 1", "dz"),
            (1_234_567, "é ünïcode", "ze"),
            (8, "  return total;", "mk"),
        ] {
            assert_eq!(pair_tag(n, line), tag.as_bytes(), "{n} {line:?}");
        }
    }

    #[test]
    fn neighbouring_lines_never_share_a_pair_tag() {
        for n in 1..200 {
            assert_ne!(pair_tag(n, "}"), pair_tag(n + 1, "}"));
            assert!(fits_parity(n, pair_tag(n, "x")));
            assert!(!fits_parity(n + 1, pair_tag(n, "x")));
        }
    }
}
