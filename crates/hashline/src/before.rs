//! The version an edit replaced, as the description of the edit reads it:
//! either the whole old document, or, when the edit was spliced into the
//! old document's own buffer, the new document and the lines the splice
//! took out. The second form is what keeps an edit of a large file from
//! holding two copies of it.

use std::ops::Range;

use crate::document::Document;
use sha1::{Digest, Sha1};

/// The lines of the version an edit replaced.
pub(crate) trait Before {
    fn line_count(&self) -> usize;
    /// Line `index` (0-based) without its terminator.
    fn line(&self, index: usize) -> &str;
    /// Whether the last line ended with a line break.
    fn final_newline(&self) -> bool;
    /// Where line `index` started in the canonical text; the text's length
    /// for `index == line_count()`.
    fn offset_of_line(&self, index: usize) -> usize;
    /// Whether `new` holds exactly this text.
    fn same_text(&self, new: &Document) -> bool;
}

impl Before for Document {
    fn line_count(&self) -> usize {
        Document::line_count(self)
    }

    fn line(&self, index: usize) -> &str {
        Document::line(self, index)
    }

    fn final_newline(&self) -> bool {
        Document::final_newline(self)
    }

    fn offset_of_line(&self, index: usize) -> usize {
        Document::offset_of_line(self, index)
    }

    fn same_text(&self, new: &Document) -> bool {
        self.text() == new.text()
    }
}

/// What a change took out of a document, region by region, and what the
/// document was around it.
#[derive(Debug, Clone)]
pub(crate) struct Taken {
    /// The REV of the old version, if it was known when the change was
    /// taken.
    rev: Option<String>,
    pub(crate) parts: Vec<TakenPart>,
    pub(crate) line_count: usize,
    pub(crate) final_newline: bool,
    pub(crate) text_len: usize,
    /// The old version's bytes were its canonical text (no BOM, only LF
    /// endings), which the new document and the parts rebuild.
    pub(crate) canonical: bool,
}

/// One changed region: the old lines it replaced, where they were, and
/// where the lines that replaced them are in the new document. The lines
/// are kept as the text they were, with where each starts in it: a change
/// that takes out most of a file costs about that much text, not a string
/// per line.
#[derive(Debug, Clone)]
pub(crate) struct TakenPart {
    pub(crate) old: Range<usize>,
    pub(crate) new: Range<usize>,
    pub(crate) old_bytes: Range<usize>,
    /// The old text's bytes `old_bytes`.
    pub(crate) text: String,
    /// Where each line starts in `text`.
    pub(crate) starts: Vec<usize>,
}

impl TakenPart {
    /// Line `k` of the lines taken out, without its terminator.
    fn line(&self, k: usize) -> &str {
        let end = match self.starts.get(k + 1) {
            Some(&next) => next - 1,
            None => self.text.len() - usize::from(self.text.ends_with('\n')),
        };
        &self.text[self.starts[k]..end]
    }
}

impl Taken {
    /// What a change of `doc` takes out of it: `changes` are its regions,
    /// sorted and not overlapping, as old and new line ranges. Taken before
    /// the change is spliced into `doc`'s own buffer.
    pub(crate) fn of(
        doc: &Document,
        changes: impl IntoIterator<Item = (Range<usize>, Range<usize>)>,
    ) -> Taken {
        let parts = changes
            .into_iter()
            .map(|(old, new)| {
                let bytes = doc.offset_of_line(old.start)..doc.offset_of_line(old.end);
                TakenPart {
                    text: doc.text()[bytes.clone()].to_owned(),
                    starts: old
                        .clone()
                        .map(|i| doc.offset_of_line(i) - bytes.start)
                        .collect(),
                    old_bytes: bytes,
                    old,
                    new,
                }
            })
            .collect();
        Taken {
            rev: doc.known_rev().map(str::to_owned),
            parts,
            line_count: doc.line_count(),
            final_newline: doc.final_newline(),
            text_len: doc.text().len(),
            canonical: doc.bytes_are_canonical(),
        }
    }

    /// The REV of the old version: known when the change was taken, or
    /// hashed from its text, read through `new`, the document the splice
    /// made.
    pub(crate) fn rev(&self, new: &Document) -> String {
        if let Some(rev) = &self.rev {
            return rev.clone();
        }
        let mut sha = Sha1::new();
        self.each_run(new, |run| sha.update(run));
        hex::encode_upper(&sha.finalize()[..4])
    }

    /// The old version's canonical text, read through `new`.
    pub(crate) fn old_text(&self, new: &Document) -> String {
        let mut text = Vec::with_capacity(self.text_len);
        self.each_run(new, |run| text.extend_from_slice(run));
        // Runs of whole lines of two texts, each of whole UTF-8 lines.
        String::from_utf8(text).expect("the old text is whole UTF-8 lines")
    }

    /// The old version's canonical text, in order, as runs of bytes: the
    /// lines kept, from `new`, and the lines each part took out. A run of
    /// kept lines has the same bytes in both texts but for its last line
    /// break: a line last in one text and not in the other may lack it in
    /// that one (in a file without a final newline).
    pub(crate) fn each_run<'a>(&'a self, new: &'a Document, mut each: impl FnMut(&'a [u8])) {
        let (mut old_at, mut new_line) = (0, 0);
        for part in &self.parts {
            kept_run(new, new_line, part.old_bytes.start - old_at, &mut each);
            each(part.text.as_bytes());
            (old_at, new_line) = (part.old_bytes.end, part.new.end);
        }
        kept_run(new, new_line, self.text_len - old_at, &mut each);
    }

    /// The old version, read through `new`, the document the splice made.
    pub(crate) fn with<'a>(&'a self, new: &'a Document) -> Replaced<'a> {
        Replaced { taken: self, new }
    }
}

/// `len` bytes of the old text, kept as the lines of `new` from `line` on.
fn kept_run<'a>(new: &'a Document, line: usize, len: usize, each: &mut impl FnMut(&'a [u8])) {
    let text = new.text().as_bytes();
    let from = new.offset_of_line(line);
    let to = from + len;
    if to <= text.len() {
        each(&text[from..to]);
    } else {
        debug_assert_eq!(to, text.len() + 1);
        each(&text[from..]);
        each(b"\n");
    }
}

/// The old version of an edit spliced in place: the lines the splice took
/// out, and every other line from the new document, where it moved.
pub(crate) struct Replaced<'a> {
    taken: &'a Taken,
    new: &'a Document,
}

/// Where an old line is now.
enum Place<'a> {
    /// Line `.1` of the lines a splice took out.
    Taken(&'a TakenPart, usize),
    /// Kept, as this line of the new document; `.1` is the part before it.
    Kept(usize, Option<&'a TakenPart>),
}

impl<'a> Replaced<'a> {
    fn place(&self, index: usize) -> Place<'a> {
        let parts = &self.taken.parts;
        // Parts are sorted and do not overlap: the last one starting at or
        // before `index` holds it, or is the last one before it.
        let before = parts
            .partition_point(|p| p.old.start <= index)
            .checked_sub(1)
            .map(|k| &parts[k]);
        match before {
            Some(p) if p.old.contains(&index) => Place::Taken(p, index - p.old.start),
            Some(p) => Place::Kept(p.new.end + (index - p.old.end), Some(p)),
            None => Place::Kept(index, None),
        }
    }
}

impl Before for Replaced<'_> {
    fn line_count(&self) -> usize {
        self.taken.line_count
    }

    fn line(&self, index: usize) -> &str {
        match self.place(index) {
            Place::Taken(part, k) => part.line(k),
            Place::Kept(now, _) => self.new.line(now),
        }
    }

    fn final_newline(&self) -> bool {
        self.taken.final_newline
    }

    fn offset_of_line(&self, index: usize) -> usize {
        if index >= self.taken.line_count {
            return self.taken.text_len;
        }
        match self.place(index) {
            Place::Taken(part, k) => part.old_bytes.start + part.starts[k],
            Place::Kept(now, None) => self.new.offset_of_line(now),
            Place::Kept(now, Some(part)) => {
                self.new.offset_of_line(now) - self.new.offset_of_line(part.new.end)
                    + part.old_bytes.end
            }
        }
    }

    /// Kept lines are the same in both where no splice before them changed
    /// the line count; only the others are compared.
    fn same_text(&self, new: &Document) -> bool {
        let taken = self.taken;
        if taken.line_count != new.line_count()
            || taken.final_newline != new.final_newline()
            || taken.text_len != new.text().len()
        {
            return false;
        }
        let mut next = 0;
        let mut shifted = false;
        for part in &taken.parts {
            let compare = if shifted { next } else { part.old.start };
            if !(compare..part.old.end).all(|i| self.line(i) == new.line(i)) {
                return false;
            }
            next = part.old.end;
            shifted = part.new.end != part.old.end;
        }
        // The line counts are equal, so nothing after the last part moved.
        true
    }
}
