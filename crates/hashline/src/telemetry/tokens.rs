//! Tokens of the texts a call exchanges with the model, estimated. The
//! benchmarks count o200k tokens exactly (`eval/editbench/lib/tokens.mjs`),
//! but an exact tokenizer is 6 MB of vocabulary in the addon and costs
//! about 30 times a read of the same text: a record must cost the call a
//! few per cent at most. So a text is counted by the pieces o200k's
//! pre-tokeniser cuts it into (words, digit groups, runs of punctuation
//! and of white space), each weighted by what such a piece costs in o200k
//! on this repository's sources, their views and edit requests (median
//! error 2–6% a text, against 4–15% for bytes divided by four). A view,
//! which a read returns by the hundred kilobytes, is estimated from its
//! size alone (`view`): its lines each cost about the same for the ref,
//! and its text what text of that size costs.

use crate::request::Value;
use crate::view::ViewStyle;
use serde_json::Value as Json;

/// A byte's class for the pre-tokeniser's pieces.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Class {
    Lower,
    Upper,
    Digit,
    Space,
    Newline,
    Punct,
}

const fn classes() -> [Class; 256] {
    let mut table = [Class::Punct; 256];
    let mut b = 0;
    while b < 256 {
        table[b] = match b as u8 {
            b'a'..=b'z' => Class::Lower,
            b'A'..=b'Z' => Class::Upper,
            b'0'..=b'9' => Class::Digit,
            b' ' | b'\t' => Class::Space,
            b'\n' | b'\r' => Class::Newline,
            // The bytes of a multi-byte character: letters, as most are.
            0x80..=0xFF => Class::Lower,
            _ => Class::Punct,
        };
        b += 1;
    }
    table
}

static CLASS: [Class; 256] = classes();

/// The weights of each kind of piece, fitted by least squares (relative
/// error) against o200k counts of 393 files of this repository, their lean
/// and full views, 1,345 short excerpts and as many edit requests as JSON.
mod weight {
    /// A word (capitals then small letters, as `camelCase` splits).
    pub const WORD: f64 = 0.9162;
    /// Each letter of a word past its fifth.
    pub const LONG_WORD: f64 = 0.2531;
    /// A group of up to three digits.
    pub const DIGITS: f64 = 1.3559;
    /// A run of punctuation.
    pub const PUNCT: f64 = 0.8562;
    /// Each character of such a run past its first.
    pub const LONG_PUNCT: f64 = 0.1280;
    /// A run of line breaks (most join the indentation or punctuation
    /// around them).
    pub const NEWLINE: f64 = 0.0482;
    /// A run of spaces that is not the one space a word takes with it.
    pub const SPACES: f64 = 0.5109;
}

/// The estimated o200k tokens of `text`.
pub fn estimate(text: &str) -> u64 {
    let bytes = text.as_bytes();
    let n = bytes.len();
    let (mut words, mut long_words, mut digits, mut puncts) = (0u64, 0u64, 0u64, 0u64);
    let (mut long_puncts, mut newlines, mut spaces) = (0u64, 0u64, 0u64);
    let class = |i: usize| CLASS[bytes[i] as usize];
    let run = |mut i: usize, c: Class| {
        while i < n && class(i) == c {
            i += 1;
        }
        i
    };
    let mut i = 0;
    while i < n {
        let start = i;
        i = match class(i) {
            Class::Lower | Class::Upper => {
                let capitals = run(i, Class::Upper);
                let end = match run(capitals, Class::Lower) {
                    // All capitals: one word.
                    small if small == capitals => capitals,
                    small => small,
                };
                words += 1;
                long_words += (end - start).saturating_sub(5) as u64;
                end
            }
            Class::Digit => {
                let end = run(i, Class::Digit);
                digits += (end - start).div_ceil(3) as u64;
                end
            }
            Class::Punct => {
                let end = run(i, Class::Punct);
                puncts += 1;
                long_puncts += (end - start - 1) as u64;
                end
            }
            Class::Newline => {
                newlines += 1;
                run(i, Class::Newline)
            }
            Class::Space => {
                let end = run(i, Class::Space);
                let joins_next = end - start == 1
                    && end < n
                    && !matches!(class(end), Class::Space | Class::Newline);
                if !joins_next {
                    spaces += 1;
                }
                end
            }
        };
    }
    let tokens = weight::WORD * words as f64
        + weight::LONG_WORD * long_words as f64
        + weight::DIGITS * digits as f64
        + weight::PUNCT * puncts as f64
        + weight::LONG_PUNCT * long_puncts as f64
        + weight::NEWLINE * newlines as f64
        + weight::SPACES * spaces as f64;
    tokens.round() as u64
}

/// Past this many bytes a text is estimated from its first `SAMPLE_BYTES`,
/// scaled by its size: the estimate of a result cut at 16 MiB should not
/// cost more than the edit.
const SAMPLE_BYTES: usize = 256 << 10;

/// `estimate`, from a sample of a long text.
pub fn estimate_bounded(text: &str) -> u64 {
    if text.len() <= SAMPLE_BYTES {
        return estimate(text);
    }
    let mut cut = SAMPLE_BYTES;
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    let sample = estimate(&text[..cut]);
    (sample as f64 * text.len() as f64 / cut as f64).round() as u64
}

/// The estimated tokens of a tool call's arguments as the model wrote them:
/// `value` as compact JSON text, as the benchmarks count requests.
pub fn arguments(value: &Value) -> u64 {
    fn json(value: &Value) -> Json {
        match value {
            Value::Null => Json::Null,
            Value::Bool(b) => Json::Bool(*b),
            Value::Number(n) => serde_json::Number::from_f64(*n).map_or(Json::Null, Json::Number),
            Value::String(s) => Json::String(s.clone()),
            Value::Array(items) => Json::Array(items.iter().map(json).collect()),
            Value::Object(fields) => {
                Json::Object(fields.iter().map(|(k, v)| (k.clone(), json(v))).collect())
            }
        }
    }
    estimate_bounded(&serde_json::to_string(&json(value)).unwrap_or_default())
}

/// Bytes of a view's text per token, and tokens per line (the ref, its
/// separator and the line break), fitted on the views of the same files.
fn view_weights(style: ViewStyle) -> (f64, f64) {
    match style {
        ViewStyle::Lean => (3.997, 3.620),
        ViewStyle::Full => (3.907, 9.292),
    }
}

/// The estimated tokens of a view of `bytes` bytes showing lines
/// `first..=last` in `style`, from its size alone: its text (what is left
/// once the refs are taken out) costs what text of that size does, and each
/// line its ref.
pub fn view(bytes: usize, first: usize, last: usize, style: ViewStyle) -> u64 {
    let lines = (last + 1).saturating_sub(first.max(1));
    let refs = if lines == 0 {
        0
    } else {
        // A lean ref is the number, two letters and a space; a full one
        // the number and `#A3F#9BC|`.
        let per_ref = match style {
            ViewStyle::Lean => 3,
            ViewStyle::Full => 9,
        };
        digits_from(first.max(1), last) + per_ref * lines
    };
    view_lines(bytes.saturating_sub(refs), lines, style)
}

/// The estimated tokens of `lines` lines of `text_bytes` bytes of text in
/// all, each shown after its ref in `style` (a host's own view, tagged).
pub fn view_lines(text_bytes: usize, lines: usize, style: ViewStyle) -> u64 {
    let (bytes_per_token, per_line) = view_weights(style);
    (text_bytes as f64 / bytes_per_token + per_line * lines as f64).round() as u64
}

/// The digits of the numbers `first..=last`, written out.
fn digits_from(first: usize, last: usize) -> usize {
    let mut total = 0;
    let mut low = first;
    let mut width = 1;
    let mut ceiling = 10usize;
    while low <= last {
        if low < ceiling {
            let high = last.min(ceiling - 1);
            total += (high - low + 1) * width;
            low = high + 1;
        }
        width += 1;
        ceiling = match ceiling.checked_mul(10) {
            Some(c) => c,
            None => usize::MAX,
        };
    }
    total
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digits_of_a_range_of_line_numbers_are_counted_across_decades() {
        let naive = |a: usize, b: usize| (a..=b).map(|n| n.to_string().len()).sum::<usize>();
        for (a, b) in [(1, 9), (1, 10), (7, 123), (95, 10_050), (1, 1), (5, 4)] {
            assert_eq!(digits_from(a, b), naive(a, b), "{a}..={b}");
        }
    }

    #[test]
    fn an_empty_text_costs_nothing_and_a_word_about_one() {
        assert_eq!(estimate(""), 0);
        assert_eq!(estimate("hello"), 1);
        assert_eq!(estimate_bounded(""), 0);
        assert_eq!(view(0, 1, 0, ViewStyle::Lean), 0);
    }

    #[test]
    fn a_long_text_is_estimated_from_a_sample_in_proportion() {
        let line = "    let total = items.iter().map(|item| item.price * 3).sum::<u64>();\n";
        let text = line.repeat(20_000);
        let whole = estimate(&text) as f64;
        let sampled = estimate_bounded(&text) as f64;
        assert!(
            (sampled - whole).abs() / whole < 0.01,
            "{sampled} vs {whole}"
        );
    }
}
