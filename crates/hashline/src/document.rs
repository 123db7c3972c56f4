//! The canonical form of a file: BOM removed, every line ending as LF, the
//! original endings and the final newline remembered so that writing back
//! reproduces every line the edit did not name byte for byte. Reading and
//! writing are inverse: any bytes read and written back are the same bytes,
//! and the bytes an edit writes read back as exactly the lines it meant.
//!
//! Specified in `docs/format.md` §1.

use crate::error::{Error, ErrorCode, Result};
use crate::known::Known;
use memchr::{memchr, memchr2, memchr_iter};
use std::borrow::Cow;
use std::ops::Range;
use std::sync::OnceLock;

pub(crate) const BOM: &[u8] = b"\xEF\xBB\xBF";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ending {
    Lf,
    CrLf,
    Cr,
}

impl Ending {
    pub fn as_str(self) -> &'static str {
        match self {
            Ending::Lf => "\n",
            Ending::CrLf => "\r\n",
            Ending::Cr => "\r",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Endings {
    Uniform(Ending),
    /// The ending of each terminated line, for files that mix them.
    PerLine(Vec<Ending>),
}

/// A file's text in canonical form (lines without terminators), with
/// what restores its exact bytes: BOM, line endings, final newline.
///
/// ```
/// let doc = hashline::Document::from_bytes(b"a\r\nb").unwrap();
/// assert_eq!(doc.lines().collect::<Vec<_>>(), ["a", "b"]);
/// assert_eq!(&doc.file_bytes()[..], b"a\r\nb");
/// ```
#[derive(Debug, Clone)]
pub struct Document {
    text: String,
    starts: Vec<usize>,
    endings: Endings,
    bom: bool,
    final_newline: bool,
    /// Computed on first use; a caller that hashed the file's bytes anyway
    /// can fill it in when the bytes are the canonical text.
    rev: OnceLock<String>,
    /// The digests of the lines views hashed, for a version kept to be
    /// viewed again (`keep_tags`).
    known: Known,
}

impl PartialEq for Document {
    fn eq(&self, other: &Self) -> bool {
        self.text == other.text
            && self.starts == other.starts
            && self.endings == other.endings
            && self.bom == other.bom
            && self.final_newline == other.final_newline
    }
}

impl Eq for Document {}

/// Lines to put in place of `range` (0-based line indexes, end exclusive).
/// An empty range inserts before `range.start`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Splice {
    pub range: Range<usize>,
    pub lines: Vec<String>,
}

impl Document {
    /// Reads a file's bytes: `NOT_UTF8` or `BINARY` when they are no text.
    pub fn from_bytes(bytes: &[u8]) -> Result<Document> {
        let (bom, body) = match bytes.strip_prefix(BOM) {
            Some(rest) => (true, rest),
            None => (false, bytes),
        };
        let text = std::str::from_utf8(body).map_err(|e| {
            let at = e.valid_up_to();
            let line = memchr_iter(b'\n', &body[..at]).count() + 1;
            Error::new(
                ErrorCode::NotUtf8,
                format!(
                    "The file is not valid UTF-8 (first invalid byte at offset {}, line {line}); it cannot be edited as text.",
                    at + usize::from(bom) * BOM.len()
                ),
            )
        })?;
        Ok(Document::build(text, bom))
    }

    /// The same, taking the bytes: a file with no BOM and no CR becomes the
    /// document's text without a copy.
    pub fn from_vec(bytes: Vec<u8>) -> Result<Document> {
        if bytes.starts_with(BOM) || memchr(b'\r', &bytes).is_some() {
            return Document::from_bytes(&bytes);
        }
        match String::from_utf8(bytes) {
            Ok(text) => Ok(Document::from_canonical(text, false)),
            Err(e) => Document::from_bytes(e.as_bytes()),
        }
    }

    /// A document from text that is already a string; a leading BOM
    /// character is treated as the file's BOM.
    pub fn from_text(text: &str) -> Document {
        match text.strip_prefix('\u{FEFF}') {
            Some(rest) => Document::build(rest, true),
            None => Document::build(text, false),
        }
    }

    /// The same, taking the string: one with no BOM and no CR becomes the
    /// document's text without a copy.
    pub fn from_string(text: String) -> Document {
        if text.starts_with('\u{FEFF}') || memchr(b'\r', text.as_bytes()).is_some() {
            return Document::from_text(&text);
        }
        Document::from_canonical(text, false)
    }

    /// A document whose text has only LF endings already.
    fn from_canonical(text: String, bom: bool) -> Document {
        let bytes = text.as_bytes();
        let mut starts = Vec::with_capacity(bytes.len() / 32 + 1);
        if !bytes.is_empty() {
            starts.push(0);
            starts.extend(memchr_iter(b'\n', bytes).map(|i| i + 1));
            if starts.last() == Some(&bytes.len()) {
                starts.pop();
            }
        }
        let final_newline = bytes.last() == Some(&b'\n');
        Document {
            text,
            starts,
            endings: Endings::Uniform(Ending::Lf),
            bom,
            final_newline,
            rev: OnceLock::new(),
            known: Known::default(),
        }
    }

    fn build(body: &str, bom: bool) -> Document {
        if memchr(b'\r', body.as_bytes()).is_none() {
            return Document::from_canonical(body.to_owned(), bom);
        }
        let bytes = body.as_bytes();
        let mut text = String::with_capacity(body.len());
        let mut starts = Vec::new();
        let mut endings = Vec::new();
        let mut at = 0;
        while at < bytes.len() {
            starts.push(text.len());
            match memchr2(b'\r', b'\n', &bytes[at..]) {
                Some(i) => {
                    text.push_str(&body[at..at + i]);
                    text.push('\n');
                    let ending = if bytes[at + i] == b'\n' {
                        Ending::Lf
                    } else if bytes.get(at + i + 1) == Some(&b'\n') {
                        Ending::CrLf
                    } else {
                        Ending::Cr
                    };
                    at += i + ending.as_str().len();
                    endings.push(ending);
                }
                None => {
                    text.push_str(&body[at..]);
                    at = bytes.len();
                }
            }
        }
        let final_newline = starts.len() == endings.len() && !starts.is_empty();
        let endings = match endings.first() {
            Some(&first) if endings.iter().all(|&e| e == first) => Endings::Uniform(first),
            Some(_) => Endings::PerLine(endings),
            None => Endings::Uniform(Ending::Lf),
        };
        Document {
            text,
            starts,
            endings,
            bom,
            final_newline,
            rev: OnceLock::new(),
            known: Known::default(),
        }
    }

    /// The canonical text: what REV is computed over.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The number of lines.
    pub fn line_count(&self) -> usize {
        self.starts.len()
    }

    /// Whether the document has no lines.
    pub fn is_empty(&self) -> bool {
        self.starts.is_empty()
    }

    /// Whether the file starts with a byte order mark.
    pub fn has_bom(&self) -> bool {
        self.bom
    }

    /// Whether the last line ends with a line break.
    pub fn final_newline(&self) -> bool {
        self.final_newline
    }

    /// Where line `index` starts in the canonical text; the text's length
    /// for `index == line_count()`.
    pub(crate) fn offset_of_line(&self, index: usize) -> usize {
        self.starts.get(index).copied().unwrap_or(self.text.len())
    }

    /// Line `index` (0-based) without its terminator.
    pub fn line(&self, index: usize) -> &str {
        let start = self.starts[index];
        let end = match self.starts.get(index + 1) {
            Some(&next) => next - 1,
            None if self.final_newline => self.text.len() - 1,
            None => self.text.len(),
        };
        &self.text[start..end]
    }

    /// The lines, without terminators.
    pub fn lines(&self) -> impl ExactSizeIterator<Item = &str> + '_ {
        (0..self.line_count()).map(move |i| self.line(i))
    }

    /// The terminator line `index` has in the file, `None` for a last line
    /// without one.
    pub fn ending(&self, index: usize) -> Option<Ending> {
        if index + 1 == self.line_count() && !self.final_newline {
            return None;
        }
        Some(match &self.endings {
            Endings::Uniform(e) => *e,
            Endings::PerLine(v) => v[index],
        })
    }

    /// The ending new lines get: the most common one, LF on a tie or when
    /// the file has none.
    pub fn dominant_ending(&self) -> Ending {
        match &self.endings {
            Endings::Uniform(e) => *e,
            Endings::PerLine(v) => {
                let mut counts = [0usize; 3];
                for e in v {
                    counts[*e as usize] += 1;
                }
                [Ending::CrLf, Ending::Cr]
                    .into_iter()
                    .filter(|e| counts[*e as usize] > counts[Ending::Lf as usize])
                    .max_by_key(|e| counts[*e as usize])
                    .unwrap_or(Ending::Lf)
            }
        }
    }

    /// The file's bytes: BOM, lines and their original endings.
    pub fn to_bytes(&self) -> Vec<u8> {
        self.file_bytes().into_owned()
    }

    /// The file's text, a BOM as U+FEFF; the canonical text itself, not a
    /// copy, when that is what the file holds.
    pub fn into_file_text(self) -> String {
        if self.bytes_are_canonical() {
            return self.text;
        }
        self.write(&[], None, false).text
    }

    /// The file's bytes, borrowed when they are the canonical text.
    pub fn file_bytes(&self) -> Cow<'_, [u8]> {
        if self.bytes_are_canonical() {
            Cow::Borrowed(self.text.as_bytes())
        } else {
            Cow::Owned(self.write(&[], None, false).text.into_bytes())
        }
    }

    /// No BOM and only LF endings: the file's bytes are the canonical text.
    pub fn bytes_are_canonical(&self) -> bool {
        !self.bom && self.endings == Endings::Uniform(Ending::Lf)
    }

    /// REV: 8 uppercase hex digits of SHA-1 over the canonical text.
    pub fn rev(&self) -> &str {
        self.rev.get_or_init(|| crate::hash::rev(&self.text))
    }

    /// Whether `other` holds the same file: the same text, line endings,
    /// BOM and final newline.
    pub(crate) fn same_file(&self, other: &Document) -> bool {
        self.text == other.text
            && self.endings == other.endings
            && self.bom == other.bom
            && self.final_newline == other.final_newline
    }

    /// The REV, if it is computed already.
    pub(crate) fn known_rev(&self) -> Option<&str> {
        self.rev.get().map(String::as_str)
    }

    /// Keeps the digests of the lines views hash from now on, so that a
    /// later view of this version hashes only lines no view hashed before:
    /// for a version the store keeps.
    pub(crate) fn keep_tags(&self) {
        self.known.keep(self.line_count());
    }

    /// Keeps the digests of the lines views hash from now on, starting
    /// with those of `old` that a change kept: `runs` (a `LineMap`'s, as
    /// `(old_start, new_start, len)`) say where the change put them.
    pub(crate) fn keep_tags_from(&self, old: &Document, runs: &[(usize, usize, usize)]) {
        self.keep_tags();
        self.known
            .carry(&old.known, runs, old.line_count(), self.line_count());
    }

    /// The digests of lines hashed already, if they are kept.
    pub(crate) fn known(&self) -> &Known {
        &self.known
    }

    /// Fills in the REV, known already.
    pub(crate) fn know_rev(&self, rev: &str) {
        let _ = self.rev.set(rev.to_owned());
    }

    /// Fills in the REV from a SHA-1 of the file's bytes, when those are
    /// the canonical text (otherwise the digest is of something else).
    pub fn know_rev_from_digest(&self, digest: &[u8; 20]) {
        if self.bytes_are_canonical() {
            let _ = self.rev.set(hex::encode_upper(&digest[..4]));
        }
    }

    /// The file's bytes with `splices` applied (sorted by range, not
    /// overlapping). Lines outside the splices keep their bytes and endings;
    /// new lines get the dominant ending; the final newline is kept as the
    /// file had it (a file that had no lines gets one). A new line holding a
    /// line break could not be read back as one line, so it is refused.
    pub fn splice(&self, splices: &[Splice]) -> Result<Vec<u8>> {
        Self::check_new_lines(splices)?;
        Ok(self.write(splices, None, false).text.into_bytes())
    }

    /// The document `splice` writes. Its line index is taken from the lines
    /// as they are written instead of a scan of the new text, and a file
    /// whose bytes are its canonical text is not scanned for line endings
    /// or validated again: written from strings, it is one.
    pub fn spliced(&self, splices: &[Splice]) -> Result<Document> {
        self.spliced_ending(splices, None)
    }

    /// [`Document::spliced`], the new lines of splice `k` ending as
    /// `endings[k]` says, one ending a line, where given.
    fn spliced_ending(
        &self,
        splices: &[Splice],
        endings: Option<&[Vec<Ending>]>,
    ) -> Result<Document> {
        Self::check_new_lines(splices)?;
        let written = self.write(splices, endings, true);
        match written.starts {
            Some(starts) if written.only_lf && !written.text.starts_with('\u{FEFF}') => {
                let final_newline = written.text.ends_with('\n');
                Ok(Document {
                    text: written.text,
                    starts,
                    endings: Endings::Uniform(Ending::Lf),
                    bom: false,
                    final_newline,
                    rev: OnceLock::new(),
                    known: Known::default(),
                })
            }
            _ => Document::from_vec(written.text.into_bytes()),
        }
    }

    /// Applies `splices` as [`Document::spliced`] does, the new lines
    /// ending as `endings` says where it is given (`endings[k]` for the
    /// lines of splice `k`, one a line: an edit inside lines of a file
    /// whose lines end differently keeps each line's own ending). A
    /// document whose bytes are its canonical text is spliced in its own
    /// buffer, so that an edit of a large file does not hold two copies of
    /// it; one with a BOM or other line endings is spliced by copy. On an
    /// error the document is as it was.
    pub(crate) fn splice_in_place(
        &mut self,
        splices: &[Splice],
        endings: Option<&[Vec<Ending>]>,
    ) -> Result<()> {
        Self::check_new_lines(splices)?;
        let only_lf = endings.is_none_or(|e| e.iter().flatten().all(|&e| e == Ending::Lf));
        if self.bytes_are_canonical() && only_lf {
            self.splice_canonical(splices);
        } else {
            *self = self.spliced_ending(splices, endings)?;
        }
        Ok(())
    }

    /// The splice of a document whose bytes are its canonical text, with
    /// the lines and bytes `write` gives it: every line is written with a
    /// terminator, the last one loses it if the file had no final newline
    /// (unless it is empty, or the file had no line), and a first line
    /// starting with U+FEFF makes the file start with a BOM. The runs of
    /// kept lines move within the buffer; only the new lines are copied.
    fn splice_canonical(&mut self, splices: &[Splice]) {
        let removed: usize = splices.iter().map(|s| s.range.len()).sum();
        let added: usize = splices.iter().map(|s| s.lines.len()).sum();
        let new_bytes: usize = splices
            .iter()
            .flat_map(|s| &s.lines)
            .map(|l| l.len() + 1)
            .sum();
        let mut out = Pieces {
            list: Vec::with_capacity(2 * splices.len() + 1),
            added: String::with_capacity(new_bytes + 1),
            starts: Vec::with_capacity(self.line_count() - removed + added),
            len: 0,
        };
        let mut next = 0;
        for splice in splices {
            self.keep(next..splice.range.start, &mut out);
            for line in &splice.lines {
                out.starts.push(out.len);
                out.put(line);
                out.put("\n");
            }
            next = splice.range.end;
        }
        self.keep(next..self.line_count(), &mut out);
        let last_is_empty = out.starts.last().is_some_and(|&s| s + 1 == out.len);
        let terminated = self.final_newline || self.is_empty() || last_is_empty;
        if !terminated && !out.starts.is_empty() {
            out.drop_last_byte();
        }
        let mut bytes = std::mem::take(&mut self.text).into_bytes();
        out.apply(&mut bytes);
        // Each piece is whole lines of UTF-8 text or a new line's string, so
        // the bytes are UTF-8; checked rather than assumed, since a bug in
        // the moves would otherwise write a broken file.
        let text = String::from_utf8(bytes).expect("spliced pieces are whole UTF-8 lines");
        self.bom = text.starts_with('\u{FEFF}');
        self.final_newline = text.ends_with('\n');
        self.text = text;
        self.starts = out.starts;
        self.rev = OnceLock::new();
        self.known = Known::default();
    }

    /// Old lines `lines` kept as they are, with a terminator.
    fn keep(&self, lines: Range<usize>, out: &mut Pieces) {
        if lines.is_empty() {
            return;
        }
        let from = self.starts[lines.start];
        let to = self.offset_of_line(lines.end);
        let at = out.len;
        out.starts
            .extend(self.starts[lines].iter().map(|&s| s - from + at));
        out.keep(from, to);
        if to == self.text.len() && !self.final_newline {
            out.put("\n");
        }
    }

    fn check_new_lines(splices: &[Splice]) -> Result<()> {
        for (k, line) in splices.iter().flat_map(|s| &s.lines).enumerate() {
            if let Some(at) = memchr2(b'\r', b'\n', line.as_bytes()) {
                return Err(Error::invalid_request(format!(
                    "New line {} holds a line break ({:?} at byte {at}); content lines are given without terminators.",
                    k + 1,
                    &line[at..=at]
                )));
            }
        }
        Ok(())
    }

    /// The file's text with `splices` applied, new lines ending as
    /// `endings` gives where it does; with `index`, where each written line
    /// starts.
    fn write(&self, splices: &[Splice], endings: Option<&[Vec<Ending>]>, index: bool) -> Written {
        let new_ending = self.dominant_ending();
        let lines = self.line_count() + splices.iter().map(|s| s.lines.len()).sum::<usize>();
        let mut out = LineWriter {
            text: String::with_capacity(self.text.len() + self.text.len() / 16 + 16),
            held: None,
            starts: index.then(|| Vec::with_capacity(lines)),
            only_lf: true,
        };
        if self.bom {
            out.text.push('\u{FEFF}');
        }
        let mut next = 0;
        for (k, splice) in splices.iter().enumerate() {
            for i in next..splice.range.start {
                self.push_own(&mut out, i, new_ending);
            }
            let given = endings.and_then(|e| e.get(k));
            for (j, line) in splice.lines.iter().enumerate() {
                let ending = given.and_then(|g| g.get(j)).copied().unwrap_or(new_ending);
                out.push(line, ending, false);
            }
            next = splice.range.end;
        }
        for i in next..self.line_count() {
            self.push_own(&mut out, i, new_ending);
        }
        out.finish(self.final_newline || self.is_empty())
    }

    /// Line `i` as the file has it; a last line without a terminator gets
    /// `new_ending` when lines follow it now.
    fn push_own<'a>(&'a self, out: &mut LineWriter<'a>, i: usize, new_ending: Ending) {
        match self.ending(i) {
            Some(ending) => out.push(self.line(i), ending, true),
            None => out.push(self.line(i), new_ending, false),
        }
    }
}

/// A run of a spliced text: bytes `from..to` of the old text, or of the
/// new lines written one after another, to go at `at`.
struct Piece {
    new: bool,
    from: usize,
    to: usize,
    at: usize,
}

/// The runs of a spliced text in order, the new lines they take from,
/// where its lines start, and its length so far.
struct Pieces {
    list: Vec<Piece>,
    added: String,
    starts: Vec<usize>,
    len: usize,
}

impl Pieces {
    fn keep(&mut self, from: usize, to: usize) {
        self.list.push(Piece {
            new: false,
            from,
            to,
            at: self.len,
        });
        self.len += to - from;
    }

    /// New text, in the same run as the new text before it if nothing
    /// came between.
    fn put(&mut self, text: &str) {
        let from = self.added.len();
        self.added.push_str(text);
        let to = self.added.len();
        match self.list.last_mut() {
            Some(last) if last.new => last.to = to,
            _ => self.list.push(Piece {
                new: true,
                from,
                to,
                at: self.len,
            }),
        }
        self.len += text.len();
    }

    fn drop_last_byte(&mut self) {
        if let Some(last) = self.list.last_mut() {
            last.to -= 1;
            self.len -= 1;
        }
    }

    /// Turns `bytes`, the old text, into the new one. A kept run that moves
    /// left, taken first to last, lands on bytes no later run still needs
    /// (each run ends at or before the next one's start); one that moves
    /// right, taken last to first, likewise. New bytes go last, where no
    /// kept run lands.
    fn apply(&self, bytes: &mut Vec<u8>) {
        if self.len > bytes.len() {
            bytes.reserve_exact(self.len - bytes.len());
            bytes.resize(self.len, 0);
        }
        let kept = || self.list.iter().filter(|p| !p.new);
        for p in kept().filter(|p| p.at < p.from) {
            bytes.copy_within(p.from..p.to, p.at);
        }
        for p in kept().rev().filter(|p| p.at > p.from) {
            bytes.copy_within(p.from..p.to, p.at);
        }
        for p in self.list.iter().filter(|p| p.new) {
            bytes[p.at..p.at + (p.to - p.from)]
                .copy_from_slice(&self.added.as_bytes()[p.from..p.to]);
        }
        bytes.truncate(self.len);
    }
}

/// A line waiting to be written, with the ending it will get; `own` when
/// that ending is the one the line has in the file.
struct Held<'a> {
    line: &'a str,
    ending: Ending,
    own: bool,
}

/// What `LineWriter` wrote.
struct Written {
    /// The file's text (a BOM as U+FEFF).
    text: String,
    /// Where each line starts in `text`, when asked for.
    starts: Option<Vec<usize>>,
    /// Whether every line ending written is LF.
    only_lf: bool,
}

/// Writes lines so that the bytes read back as exactly these lines. Every
/// line keeps the ending it is given, except where two written boundaries
/// would read as one, which is handled here and only here.
struct LineWriter<'a> {
    text: String,
    /// The last line pushed, held back until it is known whether it is
    /// last (only the last line may lack a terminator) and what follows it.
    held: Option<Held<'a>>,
    starts: Option<Vec<usize>>,
    only_lf: bool,
}

impl<'a> LineWriter<'a> {
    fn push(&mut self, line: &'a str, ending: Ending, own: bool) {
        let mut next = Held { line, ending, own };
        match self.held.take() {
            Some(mut held) => {
                // A lone CR followed by an empty line's LF reads back as one
                // CRLF: a line would vanish. This is the only pair of
                // endings that can merge (CRLF and LF end in LF, which
                // nothing extends; a CR followed by a line's content or by
                // another CR stays a CR). One of the two becomes CRLF, one
                // byte more at the boundary: the line whose ending is not its
                // own if there is one, else the empty line, which then keeps
                // the LF it had and the line before keeps every byte. CRLF
                // can follow a lone CR and precede anything without merging,
                // so the change never spreads to the next boundary (turning
                // the CR into LF could merge with a lone CR before it; the
                // LF into CR, with an empty line after it).
                if held.ending == Ending::Cr && line.is_empty() && ending == Ending::Lf {
                    if held.own {
                        next.ending = Ending::CrLf;
                    } else {
                        held.ending = Ending::CrLf;
                    }
                }
                self.put(held.line, Some(held.ending));
            }
            // A first line that starts with U+FEFF, in a file without a BOM,
            // would be read back as a BOM and lose that character; written
            // after a BOM it stays the line it is.
            None if line.starts_with('\u{FEFF}') && !self.text.starts_with('\u{FEFF}') => {
                self.text.push('\u{FEFF}');
            }
            None => {}
        }
        self.held = Some(next);
    }

    /// An empty last line exists only as the terminator of the line before
    /// it, so it keeps its own terminator even in a file that had no final
    /// newline; otherwise it would vanish.
    fn finish(mut self, final_newline: bool) -> Written {
        if let Some(held) = self.held.take() {
            let ending = (final_newline || held.line.is_empty()).then_some(held.ending);
            self.put(held.line, ending);
        }
        Written {
            text: self.text,
            starts: self.starts,
            only_lf: self.only_lf,
        }
    }

    fn put(&mut self, line: &str, ending: Option<Ending>) {
        if let Some(starts) = &mut self.starts {
            starts.push(self.text.len());
        }
        self.text.push_str(line);
        if let Some(ending) = ending {
            self.only_lf &= ending == Ending::Lf;
            self.text.push_str(ending.as_str());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(bytes: &[u8]) -> Document {
        Document::from_bytes(bytes).unwrap()
    }

    #[test]
    fn lf_file_round_trips_and_counts_lines() {
        for bytes in [&b""[..], b"\n", b"a", b"a\n", b"a\nb", b"a\n\n", b"\n\n\n"] {
            let d = doc(bytes);
            assert_eq!(d.to_bytes(), bytes, "{:?}", bytes);
        }
        assert_eq!(doc(b"").line_count(), 0);
        assert_eq!(doc(b"\n").line_count(), 1);
        assert_eq!(doc(b"a\nb").line_count(), 2);
        assert_eq!(doc(b"a\n\n").line_count(), 2);
    }

    #[test]
    fn crlf_bom_mixed_and_lone_cr_round_trip_byte_for_byte() {
        for bytes in [
            &b"\xEF\xBB\xBFa\r\nb\r\n"[..],
            b"a\r\nb\nc\rd",
            b"\r",
            b"\r\r\n\n",
            b"x\r\ny",
        ] {
            let d = doc(bytes);
            assert_eq!(d.to_bytes(), bytes, "{:?}", bytes);
        }
    }

    #[test]
    fn from_vec_equals_from_bytes_for_every_kind_of_file() {
        for bytes in [&b""[..], b"a\nb", b"\xEF\xBB\xBFa\r\n", b"a\rb\n", b"x\n\n"] {
            assert_eq!(Document::from_vec(bytes.to_vec()).unwrap(), doc(bytes));
        }
        assert_eq!(
            Document::from_vec(b"\xFF".to_vec()).unwrap_err().code,
            ErrorCode::NotUtf8
        );
    }

    #[test]
    fn a_rev_known_from_the_bytes_digest_equals_the_computed_one() {
        use sha1::{Digest, Sha1};
        for bytes in [&b"a\nb\n"[..], b"a\r\nb\r\n"] {
            let known = doc(bytes);
            known.know_rev_from_digest(&Sha1::digest(bytes).into());
            assert_eq!(known.rev(), doc(bytes).rev(), "{bytes:?}");
        }
    }

    #[test]
    fn canonical_text_has_no_bom_and_only_lf() {
        let d = doc(b"\xEF\xBB\xBFa\r\nb\rc");
        assert_eq!(d.text(), "a\nb\nc");
        assert_eq!(d.lines().collect::<Vec<_>>(), ["a", "b", "c"]);
        assert!(d.has_bom());
        assert!(!d.final_newline());
        assert_eq!(d.ending(0), Some(Ending::CrLf));
        assert_eq!(d.ending(1), Some(Ending::Cr));
        assert_eq!(d.ending(2), None);
    }

    #[test]
    fn splice_keeps_untouched_line_endings_and_uses_dominant_for_new_lines() {
        let d = doc(b"a\r\nb\nc\r\nd\r\n");
        let out = d
            .splice(&[Splice {
                range: 1..2,
                lines: vec!["B".into(), "B2".into()],
            }])
            .unwrap();
        assert_eq!(out, b"a\r\nB\r\nB2\r\nc\r\nd\r\n");
    }

    #[test]
    fn splice_keeps_missing_final_newline_when_appending() {
        let d = doc(b"a\r\nb");
        let out = d
            .splice(&[Splice {
                range: 2..2,
                lines: vec!["c".into()],
            }])
            .unwrap();
        assert_eq!(out, b"a\r\nb\r\nc");
    }

    #[test]
    fn an_empty_last_line_left_by_an_edit_is_kept_as_a_line() {
        let d = doc(b"a\n\nb");
        let out = d
            .splice(&[Splice {
                range: 2..3,
                lines: vec![],
            }])
            .unwrap();
        assert_eq!(out, b"a\n\n");
        assert_eq!(doc(&out).lines().collect::<Vec<_>>(), ["a", ""]);
    }

    #[test]
    fn splice_into_an_empty_file_ends_with_a_newline() {
        let d = doc(b"");
        let out = d
            .splice(&[Splice {
                range: 0..0,
                lines: vec!["x".into()],
            }])
            .unwrap();
        assert_eq!(out, b"x\n");
    }

    #[test]
    fn deleting_every_line_leaves_an_empty_file_with_its_bom() {
        let d = doc(b"\xEF\xBB\xBFa\nb");
        let out = d
            .splice(&[Splice {
                range: 0..2,
                lines: vec![],
            }])
            .unwrap();
        assert_eq!(out, b"\xEF\xBB\xBF");
    }

    fn lines_of(bytes: &[u8]) -> Vec<String> {
        doc(bytes).lines().map(str::to_owned).collect()
    }

    #[test]
    fn a_lone_cr_and_an_empty_line_brought_together_stay_two_lines() {
        // Both untouched: the empty line becomes CRLF, `a` keeps its CR.
        let d = doc(b"a\rb\n\nc\n");
        let out = d
            .splice(&[Splice {
                range: 1..2,
                lines: vec![],
            }])
            .unwrap();
        assert_eq!(out, b"a\r\r\nc\n");
        assert_eq!(lines_of(&out), ["a", "", "c"]);
        // A new empty line after an untouched lone CR is the one that adapts.
        let d = doc(b"x\na\r");
        let out = d
            .splice(&[Splice {
                range: 2..2,
                lines: vec![String::new()],
            }])
            .unwrap();
        assert_eq!(out, b"x\na\r\r\n");
        assert_eq!(lines_of(&out), ["x", "a", ""]);
        // A new line ending in the dominant lone CR, before an untouched
        // empty line, adapts too; the empty line keeps its LF.
        let d = doc(b"p\rq\r\r\n\n");
        let out = d
            .splice(&[Splice {
                range: 2..3,
                lines: vec!["n".into()],
            }])
            .unwrap();
        assert_eq!(out, b"p\rq\rn\r\n\n");
        assert_eq!(lines_of(&out), ["p", "q", "n", ""]);
    }

    #[test]
    fn a_first_line_starting_with_a_bom_character_is_not_read_as_a_bom() {
        let d = doc(b"x\n\xEF\xBB\xBFy\n");
        let out = d
            .splice(&[Splice {
                range: 0..1,
                lines: vec![],
            }])
            .unwrap();
        assert_eq!(out, b"\xEF\xBB\xBF\xEF\xBB\xBFy\n");
        assert_eq!(lines_of(&out), ["\u{FEFF}y"]);
        for bytes in [
            &b"\xEF\xBB\xBF\xEF\xBB\xBFy"[..],
            b"\xEF\xBB\xBF",
            b"\xEF\xBB\xBF\r",
        ] {
            assert_eq!(doc(bytes).to_bytes(), bytes, "{bytes:?}");
        }
    }

    #[test]
    fn a_new_line_holding_a_line_break_is_refused() {
        let d = doc(b"a\n");
        for line in ["x\ry", "x\n", "\r"] {
            let err = d
                .splice(&[Splice {
                    range: 0..1,
                    lines: vec![line.into()],
                }])
                .unwrap_err();
            assert_eq!(err.code, ErrorCode::InvalidRequest, "{line:?}");
        }
    }

    #[test]
    fn invalid_utf8_is_reported_with_its_line() {
        let err = Document::from_bytes(b"ok\nbad \xFF here\n").unwrap_err();
        assert_eq!(err.code, ErrorCode::NotUtf8);
        assert!(err.message.contains("line 2"), "{}", err.message);
    }
}
