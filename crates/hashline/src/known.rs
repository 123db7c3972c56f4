//! The first words of the SHA-1 of a document's lines, kept with the
//! document so that a line a session shows again is not hashed again. A
//! module of its own, below `document` and `tags`, since the document keeps
//! them and the view fills them.

use crate::hash::Tag;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;

/// The first words of the SHA-1 of one line: of its hashed text, and of
/// its ANCHOR message when asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Words {
    pub(crate) line: u32,
    pub(crate) anchor: u32,
}

impl Words {
    /// The line's HASH.
    pub fn hash(&self) -> Tag {
        Tag::from_word(self.line)
    }

    /// The line's ANCHOR, when it was asked for.
    pub fn anchor(&self) -> Tag {
        Tag::from_word(self.anchor)
    }
}

/// The words of the lines of one version hashed so far, one slot a line:
/// the line's word in the low 32 bits, its ANCHOR's 12 bits above them, and
/// a bit for each saying it is known. Slots are atomic so that the threads
/// of a large view fill theirs side by side. A copy of a document starts
/// without any (they are a cache of its text, never its meaning).
#[derive(Debug, Default)]
pub(crate) struct Known(OnceLock<Box<[AtomicU64]>>);

const LINE_KNOWN: u64 = 1 << 63;
const ANCHOR_KNOWN: u64 = 1 << 62;
/// A slot's line word and the bit saying it is known, without its ANCHOR.
const LINE_ONLY: u64 = LINE_KNOWN | 0xFFFF_FFFF;

impl Clone for Known {
    fn clone(&self) -> Known {
        Known::default()
    }
}

impl Known {
    /// Starts keeping the words of `lines` lines.
    pub(crate) fn keep(&self, lines: usize) {
        self.0
            .get_or_init(|| (0..lines).map(|_| AtomicU64::new(0)).collect());
    }

    /// The words of line `index`, if it was hashed (with its ANCHOR when
    /// `anchors`).
    pub(crate) fn get(&self, index: usize, anchors: bool) -> Option<Words> {
        let slot = self.0.get()?.get(index)?.load(Ordering::Relaxed);
        let wanted = if anchors {
            LINE_KNOWN | ANCHOR_KNOWN
        } else {
            LINE_KNOWN
        };
        (slot & wanted == wanted).then_some(Words {
            line: slot as u32,
            // The ANCHOR keeps its first 12 bits, all a tag is made of.
            anchor: (((slot >> 32) & 0xFFF) as u32) << 20,
        })
    }

    pub(crate) fn put(&self, index: usize, words: Words, anchors: bool) {
        let Some(slot) = self.0.get().and_then(|slots| slots.get(index)) else {
            return;
        };
        let mut value = LINE_KNOWN | u64::from(words.line);
        if anchors {
            value |= ANCHOR_KNOWN | (u64::from(words.anchor >> 20) << 32);
        }
        slot.fetch_or(value, Ordering::Relaxed);
    }

    /// Takes from `old`, the words of the version a change replaced, the
    /// words of the lines the change kept: `runs` of `(old, new, len)`
    /// lines, in versions of `old_lines` and `new_lines` lines. A kept line
    /// keeps its HASH, and its ANCHOR unless a neighbour of it is not the
    /// same line in both versions: the first and the last line of a run,
    /// next to a changed region, unless the run starts both versions or
    /// ends both.
    pub(crate) fn carry(
        &self,
        old: &Known,
        runs: &[(usize, usize, usize)],
        old_lines: usize,
        new_lines: usize,
    ) {
        let (Some(from), Some(to)) = (old.0.get(), self.0.get()) else {
            return;
        };
        for &(o, n, len) in runs {
            for k in 0..len {
                let (Some(slot), Some(target)) = (from.get(o + k), to.get(n + k)) else {
                    continue;
                };
                let slot = slot.load(Ordering::Relaxed);
                if slot & LINE_KNOWN == 0 {
                    continue;
                }
                let same_before = k > 0 || (o == 0 && n == 0);
                let same_after = k + 1 < len || (o + len == old_lines && n + len == new_lines);
                let value = if same_before && same_after {
                    slot
                } else {
                    slot & LINE_ONLY
                };
                target.fetch_or(value, Ordering::Relaxed);
            }
        }
    }

    pub(crate) fn kept(&self) -> bool {
        self.0.get().is_some()
    }
}
