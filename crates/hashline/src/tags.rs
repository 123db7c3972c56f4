//! The digests of many lines of a document at once, for views: each line's
//! hashed text, and with it its ANCHOR message (the line between its
//! neighbours, joined by the separator), hashed side by side in lanes
//! (`digests`). What comes out is the first 32 bits of each SHA-1, from
//! which `hash` makes the HASH, the ANCHOR and the pair tag exactly as it
//! does for one line.

use crate::digests::Padded;
use crate::document::Document;
use crate::hash::{hashed_text, SEPARATOR};
use crate::known::Words;
use std::ops::Range;

/// Lines hashed per batch: enough to keep every lane busy, few enough for
/// the batch's bytes to stay in the cache between copying and hashing.
const CHUNK: usize = 512;

/// Calls `each` with every line of `range` of `doc`, in order, and its
/// words; `anchor` is 0 unless `anchors`. Lines whose words the document
/// keeps are not hashed again.
pub fn each_line(
    doc: &Document,
    range: Range<usize>,
    anchors: bool,
    mut each: impl FnMut(usize, Words),
) {
    let n = doc.line_count();
    let sep = SEPARATOR.as_bytes();
    let mut padded = Padded::default();
    let mut starts: Vec<usize> = Vec::with_capacity(CHUNK + 2);
    let mut ranges: Vec<Range<usize>> = Vec::with_capacity(CHUNK);
    let mut lines = vec![0u32; CHUNK];
    let mut anchor_words = vec![0u32; if anchors { CHUNK } else { 0 }];
    let known = doc.known();
    let mut from = range.start;
    while from < range.end {
        let to = (from + CHUNK).min(range.end);
        if known.kept() && (from..to).all(|i| known.get(i, anchors).is_some()) {
            for i in from..to {
                if let Some(words) = known.get(i, anchors) {
                    each(i, words);
                }
            }
            from = to;
            continue;
        }
        // An ANCHOR needs the lines on either side of the batch too; the
        // first line's missing neighbour is the empty text before the first
        // separator, the last one's the empty text after the last.
        let (lo, hi) = if anchors {
            (from.saturating_sub(1), (to + 1).min(n))
        } else {
            (from, to)
        };
        padded.clear();
        starts.clear();
        let bytes: usize = (lo..hi).map(|i| doc.line(i).len()).sum();
        padded.reserve(bytes + (hi - lo + 1) * sep.len());
        if anchors && lo == 0 {
            padded.push(sep);
        }
        for i in lo..hi {
            starts.push(padded.len());
            padded.push(hashed_text(doc.line(i)).as_bytes());
            if anchors {
                padded.push(sep);
            }
        }
        starts.push(padded.len());
        let end_of = |i: usize| starts[i + 1 - lo] - if anchors { sep.len() } else { 0 };
        let buffer = padded.finish();
        ranges.clear();
        ranges.extend((from..to).map(|i| starts[i - lo]..end_of(i)));
        buffer.first_words(&ranges, &mut lines[..to - from]);
        if anchors {
            ranges.clear();
            ranges.extend((from..to).map(|i| {
                let start = if i == 0 { 0 } else { starts[i - 1 - lo] };
                let end = if i + 1 < n {
                    end_of(i + 1)
                } else {
                    end_of(i) + sep.len()
                };
                start..end
            }));
            buffer.first_words(&ranges, &mut anchor_words[..to - from]);
        }
        for i in from..to {
            let k = i - from;
            let words = Words {
                line: lines[k],
                anchor: if anchors { anchor_words[k] } else { 0 },
            };
            known.put(i, words, anchors);
            each(i, words);
        }
        from = to;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hash::{anchor_hash, line_hash, pair_of_word, pair_tag, Tag};

    #[test]
    fn the_words_of_every_line_give_the_tags_of_one_line_at_a_time() {
        let lines: Vec<String> = (0..1300)
            .map(|i| match i % 7 {
                0 => String::new(),
                1 => "}  \t".to_owned(),
                _ => format!("{}line {} é", " ".repeat(i % 9), "x".repeat(i % 130)),
            })
            .collect();
        for text in [
            lines.join("\n") + "\n",
            lines.join("\n"),
            "one".to_owned(),
            "\n".to_owned(),
        ] {
            let doc = Document::from_text(&text);
            let n = doc.line_count();
            for range in [0..n, 1..n.min(2), n / 3..n, n.saturating_sub(1)..n] {
                for anchors in [true, false] {
                    let mut seen = Vec::new();
                    each_line(&doc, range.clone(), anchors, |i, words| {
                        let prev = i.checked_sub(1).map(|p| doc.line(p));
                        let next = (i + 1 < n).then(|| doc.line(i + 1));
                        assert_eq!(Tag::from_word(words.line), line_hash(doc.line(i)), "{i}");
                        assert_eq!(
                            pair_of_word(i + 1, words.line),
                            pair_tag(i + 1, doc.line(i))
                        );
                        if anchors {
                            assert_eq!(
                                Tag::from_word(words.anchor),
                                anchor_hash(prev, doc.line(i), next),
                                "{i}"
                            );
                        }
                        seen.push(i);
                    });
                    assert_eq!(seen, range.clone().collect::<Vec<_>>());
                }
            }
        }
    }

    #[test]
    fn words_kept_from_one_view_are_the_words_hashed_for_the_next() {
        let text: String = (0..2000)
            .map(|i| format!("l{} {}\n", i % 37, "é".repeat(i % 5)))
            .collect();
        let fresh = Document::from_text(&text);
        let kept = Document::from_text(&text);
        kept.keep_tags();
        let collect = |doc: &Document, range: Range<usize>, anchors: bool| {
            let mut out = Vec::new();
            each_line(doc, range, anchors, |i, w| out.push((i, w)));
            out
        };
        // A lean view first keeps the lines' words only; a full view then
        // hashes the ANCHORs, and a view of part of it takes all it needs.
        assert_eq!(
            collect(&kept, 100..900, false),
            collect(&fresh, 100..900, false)
        );
        let full = |doc: &Document, r: Range<usize>| -> Vec<(usize, Tag, Tag)> {
            collect(doc, r, true)
                .into_iter()
                .map(|(i, w)| (i, Tag::from_word(w.line), Tag::from_word(w.anchor)))
                .collect()
        };
        assert_eq!(full(&kept, 0..2000), full(&fresh, 0..2000));
        assert!((0..2000).all(|i| kept.known().get(i, true).is_some()));
        assert_eq!(full(&kept, 513..1700), full(&fresh, 513..1700));
        assert_eq!(collect(&kept, 0..2000, false).len(), 2000);
        assert_eq!(
            collect(&kept, 3..40, false)
                .iter()
                .map(|(i, w)| pair_of_word(i + 1, w.line))
                .collect::<Vec<_>>(),
            (3..40)
                .map(|i| pair_tag(i + 1, fresh.line(i)))
                .collect::<Vec<_>>()
        );
    }
}
