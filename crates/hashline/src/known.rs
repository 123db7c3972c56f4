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

    pub(crate) fn kept(&self) -> bool {
        self.0.get().is_some()
    }
}
