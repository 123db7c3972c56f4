//! The lean view: `12ab content`, a line number and a two-letter pair tag.
//! Its tag, and the view style a session or call renders in.
//!
//! The first letter of a pair tag comes from one half of the alphabet for
//! even line numbers and from the other half for odd ones, so the tags of
//! neighbouring lines always differ: a line number typed one off never
//! validates, even in a run of identical lines no content hash tells apart.

use crate::hash::hashed_text;
use crate::reference::{Ref, RefTag};
use crate::text::Document;
use sha1::{Digest, Sha1};
use std::cell::Cell;

/// The letters a pair tag starts with, by the parity of its line number.
pub const PAIR_FIRST: [&[u8; 13]; 2] = [b"abcdefghijklm", b"nopqrstuvwxyz"];
/// 13 first letters × 26 second letters.
pub(crate) const PAIR_VALUES: u32 = 338;

/// How views, edit results and rejections show refs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ViewStyle {
    /// `12#A3F#9BC|content`.
    Full,
    /// `12ab content`: a third of the full view's tokens per line.
    #[default]
    Lean,
}

impl ViewStyle {
    /// `lean` or `full`, any case and surrounding spaces.
    pub fn parse(name: &str) -> Option<ViewStyle> {
        match name.trim().to_ascii_lowercase().as_str() {
            "lean" => Some(ViewStyle::Lean),
            "full" => Some(ViewStyle::Full),
            _ => None,
        }
    }
}

/// The pair tag of line `line_number` (1-based) holding `text`: the first 32
/// bits of SHA-1 over the hashed text, big-endian, modulo 338, spelled as a
/// first letter of the line number's parity (value / 26) and a second letter
/// (value % 26).
pub fn pair_tag(line_number: usize, text: &str) -> [u8; 2] {
    let digest = Sha1::digest(hashed_text(text).as_bytes());
    let v = u32::from_be_bytes([digest[0], digest[1], digest[2], digest[3]]) % PAIR_VALUES;
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

thread_local! {
    static STYLE: Cell<ViewStyle> = const { Cell::new(ViewStyle::Full) };
}

/// Runs `f` with refs rendered in `style`. Every renderer of one call (the
/// edit result, rejection windows, the refs named in messages) shows the
/// same shape, so the model keeps seeing the view it read; the style is
/// scoped to the call rather than passed through every renderer, and
/// restored even when `f` panics.
pub fn with_style<T>(style: ViewStyle, f: impl FnOnce() -> T) -> T {
    struct Restore(ViewStyle);
    impl Drop for Restore {
        fn drop(&mut self) {
            STYLE.with(|s| s.set(self.0));
        }
    }
    let _restore = Restore(STYLE.with(|s| s.replace(style)));
    f()
}

/// The style of the call in progress (`Full` outside `with_style`).
pub fn style() -> ViewStyle {
    STYLE.with(Cell::get)
}

/// For a lean ref that does not hold: when the line above or below carries
/// its tag, a hint that the line number was typed one off; else nothing.
/// Parity keeps such a tag from ever validating at the wrong number.
pub(crate) fn one_off_hint(doc: &Document, reference: &Ref) -> String {
    let RefTag::Pair(tag) = reference.tag else {
        return String::new();
    };
    let index = reference.line - 1;
    let meant: Vec<String> = [index.checked_sub(1), index.checked_add(1)]
        .into_iter()
        .flatten()
        .filter(|&i| i < doc.line_count() && pair_tag(i + 1, doc.line(i)) == tag)
        .map(|i| format!("{} ({})", i + 1, Ref::pair_of_line(doc, i)))
        .collect();
    if meant.is_empty() {
        return String::new();
    }
    format!(
        " The tag {} belongs to line{} {}: did you type the line number one off?",
        String::from_utf8_lossy(&tag),
        if meant.len() == 1 { "" } else { "s" },
        meant.join(" and ")
    )
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

    #[test]
    fn pair_tags_equal_the_reference_function_of_the_benchmark() {
        // Computed once with bench/editbench/lib/lean.mjs `pairTag`.
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

    #[test]
    fn the_style_is_scoped_to_the_call_and_restored_after_a_panic() {
        assert_eq!(style(), ViewStyle::Full);
        assert_eq!(with_style(ViewStyle::Lean, style), ViewStyle::Lean);
        let caught = std::panic::catch_unwind(|| with_style(ViewStyle::Lean, || panic!("x")));
        assert!(caught.is_err());
        assert_eq!(style(), ViewStyle::Full);
    }

    #[test]
    fn view_styles_parse_by_name() {
        assert_eq!(ViewStyle::parse(" Lean "), Some(ViewStyle::Lean));
        assert_eq!(ViewStyle::parse("full"), Some(ViewStyle::Full));
        assert_eq!(ViewStyle::parse("pair"), None);
        assert_eq!(ViewStyle::default(), ViewStyle::Lean);
    }
}
