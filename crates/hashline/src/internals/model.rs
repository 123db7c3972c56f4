//! A reference model of an edit batch, and a generator that turns any bytes
//! into a case (a file's bytes, valid text or not, and a loosely typed
//! request, valid or not). The fuzz targets and the crate's own property
//! tests share it, so both check the same invariants:
//!
//! - nothing panics, whatever the bytes;
//! - an error is the one the model predicts, and a session's file keeps its
//!   bytes;
//! - a success writes bytes that read back as the lines the model gives;
//!   every line the batch did not touch keeps its bytes; the line map the
//!   edit records sends each untouched line to its new place and no other
//!   line anywhere; and a ref from before the edit still finds its line.
//!
//! The model is written from the documented semantics (`docs/format.md` §1, §5), not
//! from the engine: it splits bytes into lines itself, computes refs with
//! the public hash functions, places each operation on plain lines and
//! applies the batch by walking the old lines.

use crate::edit::{prepare, EditInput, Edited};
use crate::plan::locate::Rule;
use crate::remap::LineMap;
use crate::{
    anchor_hash, line_hash, rev, Cites, Document, Error, ErrorCode, Hashline, OpKind, Options, Ref,
    Request, Side, Value,
};
use std::collections::HashMap;

/// Few distinct lines, so texts are full of duplicates; some look like
/// refs, some differ only in trailing white space (which HASH ignores).
const LINES: &[&str] = &[
    "",
    "}",
    "{",
    "x",
    "x  ",
    "  return x;",
    "\tindented",
    "fn a() {",
    "- item",
    "# heading",
    "12:abc|x",
    "1#ABC#DEF|echo",
    "é 日本 🎉",
    "  ",
    "\u{FEFF}bom-like",
];

/// Ref-shaped strings that must never parse.
const MALFORMED: &[&str] = &[
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
    "#",
    "1##ABC",
    "١#ABC",
    "1#ÀBC",
];

/// Reads decisions from bytes; past the end every byte is zero, so any
/// input, however short, decodes to a case.
pub struct Source<'a> {
    data: &'a [u8],
    at: usize,
}

impl<'a> Source<'a> {
    pub fn new(data: &'a [u8]) -> Self {
        Source { data, at: 0 }
    }

    fn byte(&mut self) -> u8 {
        let b = self.data.get(self.at).copied().unwrap_or(0);
        self.at += 1;
        b
    }

    fn below(&mut self, n: usize) -> usize {
        if n <= 1 {
            0
        } else {
            usize::from(self.byte()) % n
        }
    }

    /// True with probability `k`/16.
    fn chance(&mut self, k: u8) -> bool {
        self.byte() % 16 < k
    }

    fn pick<'b>(&mut self, items: &[&'b str]) -> &'b str {
        items[self.below(items.len())]
    }
}

/// One operation as the model understands it.
#[derive(Debug, Clone)]
pub struct Op {
    pub kind: OpKind,
    pub reference: Option<String>,
    pub through: Option<String>,
    pub content: Vec<String>,
    /// Where a move or a copy puts its lines: the side and the ref.
    pub place: Option<(Side, String)>,
}

#[derive(Debug, Clone)]
pub struct Case {
    /// The file's bytes: any bytes, text or not.
    pub bytes: Vec<u8>,
    /// Its lines, or why the engine cannot read it as text.
    pub lines: Result<Vec<String>, ErrorCode>,
    pub request: Value,
    pub ops: Vec<Op>,
    pub rev: Option<String>,
    /// The request breaks a rule of its shape (unknown op or field, wrong
    /// type, missing or surplus field): `INVALID_REQUEST` whatever else.
    pub malformed: bool,
    /// Which untouched line a session cites again, by its old ref, after
    /// the edit.
    pub probe: usize,
}

fn s(v: &str) -> Value {
    Value::String(v.to_owned())
}

const BOM: &[u8] = b"\xEF\xBB\xBF";

/// Pieces of files that are not only well-formed text: terminators in any
/// order, BOMs, NUL, stray and truncated UTF-8.
const TOKENS: &[&[u8]] = &[
    b"a",
    b"b",
    b"\r",
    b"\n",
    b"\r\n",
    b"\r",
    b"\n",
    b" ",
    b"\t",
    BOM,
    "é".as_bytes(),
    b"\0",
    b"\xFF",
    b"\xC3",
];

/// The bytes of a case's file. Mostly text: lines joined by LF, CRLF or
/// lone CR, uniform or mixed (a lone CR before an empty line's LF reads as
/// one CRLF, as any reader reads it), a BOM or not, a final newline or
/// not. Else a string of tokens, or bytes taken from the input as they are.
fn file(src: &mut Source<'_>) -> Vec<u8> {
    let mut out = Vec::new();
    match src.below(8) {
        6 => {
            for _ in 0..src.below(40) {
                out.extend_from_slice(TOKENS[src.below(TOKENS.len())]);
            }
            return out;
        }
        7 => {
            for _ in 0..src.below(48) {
                out.push(src.byte());
            }
            return out;
        }
        _ => {}
    }
    let lines: Vec<&str> = (0..src.below(24)).map(|_| src.pick(LINES)).collect();
    let style = src.below(4);
    if src.chance(4) {
        out.extend_from_slice(BOM);
    }
    let final_newline = src.chance(10) || lines.last().is_some_and(|l| l.is_empty());
    for (i, line) in lines.iter().enumerate() {
        out.extend_from_slice(line.as_bytes());
        if i + 1 < lines.len() || final_newline {
            out.extend_from_slice(match style {
                0 => b"\n",
                1 => b"\r\n",
                2 => b"\r",
                _ => [&b"\n"[..], b"\r\n", b"\r"][src.below(3)],
            });
        }
    }
    out
}

/// A line ending, as the model reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum End {
    Lf,
    CrLf,
    Cr,
}

/// One line of a file as bytes: its content and its terminator, if any.
pub type Line = (Vec<u8>, Option<End>);

/// Splits bytes into lines the way any reader does: one leading BOM is not
/// text; `\r\n`, `\n` and a lone `\r` each end a line; bytes after the
/// last terminator are a last line without one.
pub fn parse(bytes: &[u8]) -> (bool, Vec<Line>) {
    let (bom, body) = match bytes.strip_prefix(BOM) {
        Some(rest) => (true, rest),
        None => (false, bytes),
    };
    let mut lines = Vec::new();
    let mut content = Vec::new();
    let mut i = 0;
    while i < body.len() {
        let end = match body[i] {
            b'\n' => Some(End::Lf),
            b'\r' if body.get(i + 1) == Some(&b'\n') => Some(End::CrLf),
            b'\r' => Some(End::Cr),
            _ => None,
        };
        match end {
            Some(end) => {
                lines.push((std::mem::take(&mut content), Some(end)));
                i += if end == End::CrLf { 2 } else { 1 };
            }
            None => {
                content.push(body[i]);
                i += 1;
            }
        }
    }
    if !content.is_empty() {
        lines.push((content, None));
    }
    (bom, lines)
}

/// The lines of a file as text, or `NOT_UTF8`.
pub fn text_lines(bytes: &[u8]) -> Result<Vec<String>, ErrorCode> {
    parse(bytes)
        .1
        .into_iter()
        .map(|(content, _)| String::from_utf8(content).map_err(|_| ErrorCode::NotUtf8))
        .collect()
}

/// The REV of a file: over its lines, each with LF where it had any
/// terminator, without the BOM.
fn rev_of(bytes: &[u8]) -> String {
    let mut canonical = Vec::new();
    for (content, end) in parse(bytes).1 {
        canonical.extend_from_slice(&content);
        if end.is_some() {
            canonical.push(b'\n');
        }
    }
    rev(&String::from_utf8_lossy(&canonical))
}

/// A ref for line `index` (0-based) of `lines`, as the model might copy it:
/// exact, decorated the ways parsing tolerates, without ANCHOR, with a
/// wrong HASH or ANCHOR, past the end, malformed, or lean (right or wrong).
fn cite(src: &mut Source<'_>, lines: &[String], index: usize) -> String {
    let n = lines.len();
    let (hash, anchor) = tags(lines, index.min(n.saturating_sub(1)));
    let line = index + 1;
    let flip = |t: u16, by: u16| (t + by) % 0x1000;
    match src.below(24) {
        0 => format!("{line}#{:03X}", hash),
        1 => format!(
            "{line}#{:03X}#{:03X}",
            flip(hash, 1 + src.below(0xFFF) as u16),
            anchor
        ),
        2 => format!(
            "{line}#{:03X}#{:03X}",
            hash,
            flip(anchor, 1 + src.below(0xFFF) as u16)
        ),
        3 => format!("{}#{:03X}#{:03X}", n + 1 + src.below(3), hash, anchor),
        4 => src.pick(MALFORMED).to_owned(),
        5 => format!("{line}#{:03x}#{:03x}", hash, anchor),
        6 => format!(" {line} : {:03X} : {:03X} ", hash, anchor),
        7 => format!(
            ">>> {line}#{:03X}#{:03X}|{}",
            hash,
            anchor,
            lines.get(index).map_or("", String::as_str)
        ),
        8 => format!("+{line}#{:03X}#{:03X}|", hash, anchor),
        9 => format!("#HL {line}#{:03X}#{:03X}", hash, anchor),
        10 => lean(line, line, lines.get(index)),
        // The tag the line would have one number on, whose parity never
        // holds at this one.
        11 => lean(line, line + 1, lines.get(index)),
        _ => format!("{line}#{:03X}#{:03X}", hash, anchor),
    }
}

/// A lean ref of line `line` (1-based): the pair tag `text` (none past the
/// end) has as line `tagged_as`.
fn lean(line: usize, tagged_as: usize, text: Option<&String>) -> String {
    let tag = crate::pair_tag(tagged_as, text.map_or("", String::as_str));
    format!("{line}{}", String::from_utf8_lossy(&tag))
}

fn tags(lines: &[String], index: usize) -> (u16, u16) {
    let Some(line) = lines.get(index) else {
        return (0, 0);
    };
    let prev = index.checked_sub(1).map(|i| lines[i].as_str());
    let next = lines.get(index + 1).map(String::as_str);
    (line_hash(line).bits(), anchor_hash(prev, line, next).bits())
}

fn content_lines(src: &mut Source<'_>) -> Vec<String> {
    (0..src.below(4))
        .map(|_| src.pick(LINES).to_owned())
        .collect()
}

/// Content as one string that splits back into exactly `lines`.
fn joined(lines: &[String]) -> String {
    if lines.is_empty() {
        String::new()
    } else {
        lines.join("\n") + "\n"
    }
}

/// The ops a case draws from: every op of the request format's table but
/// the block ops, which need a file in a language the engine parses, and
/// the cell ops, which need a notebook (a case's file is neither, and any
/// such op would refuse the whole batch).
fn kinds() -> Vec<OpKind> {
    OpKind::ALL
        .iter()
        .copied()
        .filter(|kind| !kind.shape().block && kind.cites() != Cites::Cell)
        .collect()
}

fn op_name(src: &mut Source<'_>, kind: OpKind) -> String {
    let name = kind.name();
    match src.below(4) {
        0 => name.replace('_', ""),
        1 => name.replace('_', "-").to_uppercase(),
        2 if name.contains('_') => {
            let (a, b) = name.split_once('_').unwrap_or((name, ""));
            let mut camel = a.to_owned();
            camel.extend(b.chars().take(1).flat_map(char::to_uppercase));
            camel.push_str(b.get(1..).unwrap_or(""));
            camel
        }
        _ => name.to_owned(),
    }
}

/// Decodes a case. Each operation is valid on its own most of the time; a
/// few decisions break the request's shape or its refs on purpose.
pub fn case(data: &[u8]) -> Case {
    let mut src = Source::new(data);
    let bytes = file(&mut src);
    let parsed = text_lines(&bytes);
    let lines = parsed.clone().unwrap_or_default();
    let n = lines.len();
    let mut malformed = false;
    let mut ops = Vec::new();
    let mut values = Vec::new();
    let count = if src.chance(1) { 0 } else { 1 + src.below(5) };
    let kinds = kinds();
    for _ in 0..count {
        let kind = kinds[src.below(kinds.len())];
        let shape = kind.shape();
        let first = src.below(n + 1);
        let last = (first + src.below(4)).saturating_sub(usize::from(src.chance(2)) * 2);
        let mut reference = shape.reference.then(|| cite(&mut src, &lines, first));
        let mut through = (shape.through && src.chance(6)).then(|| cite(&mut src, &lines, last));
        let mut place = shape.place.then(|| {
            let side = if src.chance(8) {
                Side::After
            } else {
                Side::Before
            };
            let at = src.below(n + 1);
            (side, cite(&mut src, &lines, at))
        });
        let content = if shape.content {
            content_lines(&mut src)
        } else {
            Vec::new()
        };
        let mut fields = vec![("op".to_owned(), s(&op_name(&mut src, kind)))];
        let ref_name = ["ref", "start", "pos", "startRef"][src.below(4)];
        let through_name = ["through", "end", "endRef"][src.below(3)];
        let content_name = ["content", "lines", "new_string", "replacement"][src.below(4)];
        if let Some(r) = reference.take() {
            fields.push((ref_name.to_owned(), s(&r)));
            // An empty ref counts as none: refless ops may carry one.
            if r.trim().is_empty() {
                malformed |= shape.reference;
            } else {
                reference = Some(r);
            }
        }
        if let Some(t) = through.take() {
            fields.push((through_name.to_owned(), s(&t)));
            through = Some(t).filter(|t| !t.trim().is_empty());
        }
        if let Some((side, r)) = place.take() {
            fields.push((side.name().to_owned(), s(&r)));
            if r.trim().is_empty() {
                malformed = true;
            } else {
                place = Some((side, r));
            }
        }
        if shape.content {
            let value = if src.chance(6) {
                Value::Array(content.iter().map(|l| s(l)).collect())
            } else {
                s(&joined(&content))
            };
            fields.push((content_name.to_owned(), value));
        }
        if src.byte() < 6 {
            malformed = true;
            match src.below(10) {
                0 => fields[0].1 = s("swap"),
                1 => fields.push(("indent".to_owned(), Value::Number(2.0))),
                2 => fields.push(("ref".to_owned(), Value::Number(first as f64 + 1.0))),
                3 => fields.push(("content".to_owned(), Value::Bool(true))),
                4 => fields.push(("content".to_owned(), Value::Array(vec![Value::Null]))),
                5 => {
                    fields.remove(0);
                }
                6 if !shape.content => fields.push(("content".to_owned(), s("x"))),
                7 if !shape.reference => fields.push(("ref".to_owned(), s("1#ABC"))),
                8 if !shape.through => fields.push(("through".to_owned(), s("1#ABC"))),
                // The place named twice: an empty place counts as none,
                // so only a second field of the same name is sure to be
                // refused.
                9 if shape.place => {
                    let side = if fields.iter().any(|(k, _)| k == "after") {
                        "after"
                    } else {
                        "before"
                    };
                    fields.push((side.to_owned(), s("1#ABC")));
                }
                9 => fields.push(("after".to_owned(), s("1#ABC"))),
                _ => fields.push(("op".to_owned(), s("delete"))),
            };
        }
        values.push(Value::Object(fields));
        ops.push(Op {
            kind,
            reference,
            through,
            content,
            place,
        });
    }
    let doc_rev = rev_of(&bytes);
    let rev = match src.below(8) {
        0 => Some(doc_rev.to_ascii_lowercase()),
        1 => Some("0BADBEEF".to_owned()),
        _ => None,
    };
    malformed |= ops.is_empty();
    let mut request = vec![("operations".to_owned(), Value::Array(values))];
    if let Some(r) = &rev {
        request.push(("rev".to_owned(), s(r)));
    }
    if src.chance(1) {
        malformed = true;
        request.push(match src.below(3) {
            0 => ("replaceAll".to_owned(), Value::Bool(true)),
            1 => ("oldString".to_owned(), s("x")),
            _ => ("extra".to_owned(), Value::Null),
        });
    }
    Case {
        probe: src.below(n.max(1)),
        bytes,
        lines: parsed,
        request: Value::Object(request),
        ops,
        rev,
        malformed,
    }
}

/// What a valid batch gives: the new lines, and for each old line its
/// index among them if no operation touched it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    pub lines: Vec<String>,
    pub kept: Vec<Option<usize>>,
}

/// What the model expects: the error code, or the outcome.
pub type Expected = Result<Outcome, ErrorCode>;

struct Item {
    kind: OpKind,
    range: std::ops::Range<usize>,
    anchor: Option<usize>,
    lines: Vec<String>,
    /// A move's or a copy's lines, place and gap: the two halves of a move
    /// carry it, and two moves are the same only if all of it is.
    relocation: Option<(std::ops::Range<usize>, usize, usize)>,
}

/// Whether two items are one operation given twice.
fn same(a: &Item, b: &Item) -> bool {
    a.kind == b.kind
        && a.range == b.range
        && a.anchor == b.anchor
        && a.lines == b.lines
        && a.relocation == b.relocation
}

/// A case's refs as the stale-ref policy (`docs/format.md` §6) reads them,
/// rule by rule, in the engine's order and by its names (`Rule`, and the
/// engine's `Judgement` in `plan/locate.rs`), in the model's own terms.
/// The model's world has one version, the current text: in a session its
/// read is that version stored, every line shown (a case's file is shorter
/// than a view); the pure form stores none.
struct Judgement<'a> {
    lines: &'a [String],
    cited: &'a [Ref],
    session: bool,
    /// The request's `rev` names the current text.
    named_current: bool,
    /// The refs are a reading of the current text: every one holds there.
    reading: bool,
}

impl Judgement<'_> {
    fn apply(&mut self, rule: Rule) -> Result<(), ErrorCode> {
        let n = self.lines.len();
        match rule {
            Rule::Holds => {
                self.reading = self.cited.iter().all(|r| self.holds(r));
                Ok(())
            }
            // No version but the current text is stored: nothing is
            // remapped, so nothing doubts the reading.
            Rule::Remapped | Rule::ReadLast | Rule::Doubted => Ok(()),
            Rule::Placed if self.reading => Ok(()),
            Rule::Placed => {
                let wrong = self.cited.iter().filter(|r| !self.holds(r));
                Err(if wrong.clone().all(|r| r.line > n) {
                    ErrorCode::OutOfRange
                } else {
                    ErrorCode::HashMismatch
                })
            }
            // The session's read showed every line; with no stored version,
            // no view showed any, whatever the request's `rev`.
            Rule::LeanShown if !self.session && self.cited.iter().any(Ref::is_pair) => {
                Err(ErrorCode::HashMismatch)
            }
            Rule::LeanShown => Ok(()),
            // One reading cannot disagree with itself.
            Rule::Agree => Ok(()),
            Rule::Anchored if self.session || self.named_current => Ok(()),
            Rule::Anchored => {
                let mut counts: HashMap<u16, usize> = HashMap::new();
                for line in self.lines {
                    *counts.entry(line_hash(line).bits()).or_default() += 1;
                }
                let repeated = |r: &Ref| {
                    r.anchor().is_none() && r.hash().is_some_and(|h| counts[&h.bits()] > 1)
                };
                if self.cited.iter().any(repeated) {
                    return Err(ErrorCode::HashMismatch);
                }
                Ok(())
            }
            // The session's read saw every line; the pure form guards none.
            Rule::Seen => Ok(()),
        }
    }

    /// Whether a ref holds in the current text: a lean one by its pair tag,
    /// a full one by HASH and ANCHOR (HASH alone without ANCHOR).
    fn holds(&self, r: &Ref) -> bool {
        let i = r.line - 1;
        if i >= self.lines.len() {
            return false;
        }
        if let crate::RefTag::Pair(tag) = r.tag {
            return crate::pair_tag(i + 1, &self.lines[i]) == tag;
        }
        let Some(cited_hash) = r.hash() else {
            return false;
        };
        let (hash, anchor) = tags(self.lines, i);
        cited_hash.bits() == hash && r.anchor().is_none_or(|a| a.bits() == anchor)
    }
}

/// The outcome of `case` per the documented semantics. `session`: the
/// file is read from disk, which refuses NUL bytes, and the session's read
/// is a stored version of it (see `Judgement`).
pub fn expected(case: &Case, session: bool) -> Expected {
    if case.malformed {
        return Err(ErrorCode::InvalidRequest);
    }
    if session && case.bytes.contains(&0) {
        return Err(ErrorCode::Binary);
    }
    let lines = case.lines.as_ref().map_err(|code| *code)?;
    // A case's file is no notebook: an op on its cells refuses the batch
    // before any ref is read.
    if case.ops.iter().any(|op| op.kind.cites() == Cites::Cell) {
        return Err(ErrorCode::InvalidRequest);
    }
    let n = lines.len();
    let mut cited = Vec::new();
    for op in &case.ops {
        let place = op.place.as_ref().map(|(_, r)| r);
        for text in [op.reference.as_ref(), op.through.as_ref(), place]
            .into_iter()
            .flatten()
        {
            cited.push(Ref::parse(text).map_err(|_| ErrorCode::InvalidRef)?);
        }
    }
    let named_current = case
        .rev
        .as_deref()
        .is_some_and(|r| r.trim().to_ascii_uppercase() == rev_of(&case.bytes));
    let mut judgement = Judgement {
        lines,
        cited: &cited,
        session,
        named_current,
        reading: false,
    };
    for &rule in Rule::ALL {
        judgement.apply(rule)?;
    }

    let mut items: Vec<Item> = Vec::new();
    // The lines each copy reads, which no other operation may change.
    let mut copied: Vec<std::ops::Range<usize>> = Vec::new();
    let mut at = cited.iter();
    for op in &case.ops {
        let mut next = || at.next().map_or(0, |r| r.line - 1);
        let (range, anchor) = match op.kind {
            // The model's files have no language, where block ops are refused.
            OpKind::ReplaceBlock
            | OpKind::DeleteBlock
            | OpKind::InsertBeforeBlock
            | OpKind::InsertAfterBlock => return Err(ErrorCode::InvalidRequest),
            OpKind::ReplaceCell
            | OpKind::DeleteCell
            | OpKind::InsertCellBefore
            | OpKind::InsertCellAfter
            | OpKind::MoveCell
            | OpKind::SetCellType
            | OpKind::SetCellMetadata => return Err(ErrorCode::InvalidRequest),
            OpKind::Prepend => (0..0, None),
            OpKind::Append => (n..n, None),
            OpKind::InsertBefore => {
                let a = next();
                (a..a, Some(a))
            }
            OpKind::InsertAfter => {
                let a = next();
                (a + 1..a + 1, Some(a))
            }
            OpKind::Replace | OpKind::Delete => {
                let first = next();
                let last = if op.through.is_some() { next() } else { first };
                if last < first {
                    return Err(ErrorCode::InvalidRequest);
                }
                (first..last + 1, None)
            }
            OpKind::Move | OpKind::Copy => {
                let first = next();
                let last = if op.through.is_some() { next() } else { first };
                if last < first {
                    return Err(ErrorCode::InvalidRequest);
                }
                let anchor = next();
                let gap = match op.place.as_ref().map(|(side, _)| *side) {
                    Some(Side::After) => anchor + 1,
                    _ => anchor,
                };
                let source = first..last + 1;
                let moving = op.kind == OpKind::Move;
                // A move next to its own lines leaves them where they are.
                if moving && (gap == first || gap == last + 1) {
                    continue;
                }
                if moving && source.contains(&anchor) {
                    return Err(ErrorCode::Conflict);
                }
                let relocation = Some((source.clone(), anchor, gap));
                let halves = [
                    moving.then(|| (source.clone(), None, Vec::new())),
                    Some((gap..gap, Some(anchor), lines[source.clone()].to_vec())),
                ];
                if !moving {
                    copied.push(source);
                }
                for (range, anchor, lines) in halves.into_iter().flatten() {
                    let item = Item {
                        kind: op.kind,
                        range,
                        anchor,
                        lines,
                        relocation: relocation.clone(),
                    };
                    if !items.iter().any(|k| same(k, &item)) {
                        items.push(item);
                    }
                }
                continue;
            }
        };
        let item = Item {
            kind: op.kind,
            range,
            anchor,
            lines: op.content.clone(),
            relocation: None,
        };
        if !items.iter().any(|k| same(k, &item)) {
            items.push(item);
        }
    }
    for (i, a) in items.iter().enumerate() {
        for b in &items[i + 1..] {
            let both_ranges = !a.range.is_empty() && !b.range.is_empty();
            let overlap = both_ranges && a.range.start < b.range.end && b.range.start < a.range.end;
            let inside = |insert: &Item, range: &Item| {
                insert.range.is_empty()
                    && !range.range.is_empty()
                    && insert.anchor.is_some_and(|x| range.range.contains(&x))
            };
            // In an empty file the start and the end are one place, and a
            // prepend then an append is the only order there is.
            let start_and_end = matches!(
                (a.kind, b.kind),
                (OpKind::Prepend, OpKind::Append) | (OpKind::Append, OpKind::Prepend)
            );
            let same_place = a.range.is_empty()
                && b.range.is_empty()
                && a.range.start == b.range.start
                && !start_and_end;
            if overlap || inside(a, b) || inside(b, a) || same_place {
                return Err(ErrorCode::Conflict);
            }
        }
    }
    for source in &copied {
        let changed = |it: &Item| it.range.start < source.end && source.start < it.range.end;
        if items.iter().any(|it| !it.range.is_empty() && changed(it)) {
            return Err(ErrorCode::Conflict);
        }
    }
    let changes = items.iter().any(|item| {
        item.range.len() != item.lines.len()
            || item
                .range
                .clone()
                .zip(&item.lines)
                .any(|(i, l)| &lines[i] != l)
    });
    if !changes {
        return Err(ErrorCode::NoChange);
    }
    let mut out = Vec::new();
    let mut kept = vec![None; n];
    let mut i = 0;
    loop {
        let mut inserts: Vec<&Item> = items
            .iter()
            .filter(|it| it.range.is_empty() && it.range.start == i)
            .collect();
        inserts.sort_by_key(|it| it.kind == OpKind::Append);
        for insert in inserts {
            out.extend(insert.lines.iter().cloned());
        }
        if i == n {
            break;
        }
        match items
            .iter()
            .find(|it| !it.range.is_empty() && it.range.start == i)
        {
            Some(range) => {
                out.extend(range.lines.iter().cloned());
                i = range.range.end;
            }
            None => {
                kept[i] = Some(out.len());
                out.push(lines[i].clone());
                i += 1;
            }
        }
    }
    if &out == lines {
        return Err(ErrorCode::NoChange);
    }
    Ok(Outcome { lines: out, kept })
}

impl Case {
    /// The case in a form short enough to read in a failure report.
    pub fn describe(&self) -> String {
        let mut out = format!("bytes: {:?}\n", String::from_utf8_lossy(&self.bytes));
        for op in &self.ops {
            out.push_str(&format!(
                "  {} ref={:?} through={:?} place={:?} content={:?}\n",
                op.kind, op.reference, op.through, op.place, op.content
            ));
        }
        out.push_str(&format!("rev={:?} malformed={}", self.rev, self.malformed));
        out
    }
}

/// Checks bytes an edit wrote (`after`, from `before`) against the outcome
/// the model gives, and the line map the edit recorded, if given:
///
/// 1. `after` reads back as exactly the outcome's lines; the BOM stays as
///    it was, or is added where the first line starts with U+FEFF (which
///    would otherwise be read as a BOM);
/// 2. every untouched line keeps its bytes, content and terminator, except
///    that the last line takes the file's final newline (none if the file
///    had none, unless the line is empty and so exists only by its
///    terminator), a line that was last without a terminator gets one when
///    lines follow it, and an empty line that comes to follow the lone CR of
///    another untouched line is written CRLF (a lone CR and an LF side by
///    side would read as one CRLF);
/// 3. the last line, untouched or written, ends as the file did: with a
///    terminator if the file had a final newline (or no line), without one
///    if not, unless it is empty and so exists only by its terminator;
/// 4. the map sends each untouched old line to its new index and every
///    other old line nowhere.
pub fn check_written(
    before: &[u8],
    after: &[u8],
    outcome: &Outcome,
    map: Option<&LineMap>,
) -> Result<(), String> {
    let (bom, old) = parse(before);
    let (new_bom, new) = parse(after);
    let shown = || String::from_utf8_lossy(after).into_owned();
    let got: Vec<String> = new
        .iter()
        .map(|(content, _)| String::from_utf8_lossy(content).into_owned())
        .collect();
    if got != outcome.lines {
        return Err(format!(
            "the bytes {:?} read back as {got:?}, not {:?}",
            shown(),
            outcome.lines
        ));
    }
    let bom_char = outcome
        .lines
        .first()
        .is_some_and(|l| l.starts_with('\u{FEFF}'));
    if new_bom != (bom || bom_char) {
        return Err(format!("BOM {bom} became {new_bom} in {:?}", shown()));
    }
    let final_newline = old.last().is_none_or(|(_, end)| end.is_some());
    if let Some((content, end)) = new.last() {
        if end.is_some() != (final_newline || content.is_empty()) {
            return Err(format!(
                "the last line ends {end:?} in a file that had {} final newline: {:?}",
                if final_newline { "a" } else { "no" },
                shown()
            ));
        }
    }
    let mut untouched = vec![false; new.len()];
    for (i, j) in outcome.kept.iter().enumerate() {
        let Some(j) = *j else { continue };
        untouched[j] = true;
        let (content, own) = &old[i];
        let written = new[j].1;
        let last = j + 1 == new.len();
        let after_own_cr = j > 0 && untouched[j - 1] && new[j - 1].1 == Some(End::Cr);
        let want = match own {
            _ if last && !final_newline && !content.is_empty() => None,
            Some(End::Lf) if content.is_empty() && after_own_cr => Some(End::CrLf),
            Some(end) => Some(*end),
            None => written.filter(|_| !last),
        };
        if written != want {
            return Err(format!(
                "untouched old line {} (now {}) ends {written:?}, not {want:?}, in {:?}",
                i + 1,
                j + 1,
                shown()
            ));
        }
    }
    if let Some(map) = map {
        for (i, j) in outcome.kept.iter().enumerate() {
            if map.line(i) != *j {
                return Err(format!(
                    "the line map sends old line {} to {:?}, not {:?}",
                    i + 1,
                    map.line(i).map(|l| l + 1),
                    j.map(|l| l + 1)
                ));
            }
        }
    }
    Ok(())
}

/// The engine's pure form: the request, then the file's bytes as a
/// document, then the edit, with no store.
fn run_pure(case: &Case, cleanup: bool) -> Result<Edited, Error> {
    let request = Request::from_value(&case.request)?;
    let doc = Document::from_bytes(&case.bytes)?;
    let input = EditInput::text(&doc, "text", cleanup, crate::SyntaxCheck::Off);
    prepare(&input, &request)?.apply(doc)
}

/// Checks one case against the engine's pure form, with clean-up off so
/// content is taken as given. Panics (a finding) on any disagreement.
pub fn check_pure(case: &Case) {
    let want = expected(case, false);
    let got = run_pure(case, false);
    match (&want, &got) {
        (Err(code), Err(err)) => assert_eq!(*code, err.code, "{}\n{err:?}", case.describe()),
        (Ok(outcome), Ok(edited)) => {
            let written = edited.doc.to_bytes();
            if let Err(problem) = check_written(&case.bytes, &written, outcome, Some(&edited.map)) {
                panic!("{problem}\n{}", case.describe());
            }
        }
        _ => panic!(
            "model {:?}, engine {:?}\n{}",
            want.as_ref().map(|o| &o.lines),
            got.as_ref()
                .map(|e| e.doc.lines().collect::<Vec<_>>())
                .map_err(|e| e.to_string()),
            case.describe()
        ),
    }
}

/// With clean-up on, content may lose echoed lines or prefixes, so only
/// what clean-up cannot change is checked: errors found before content is
/// looked at stay the same, and a success leaves every line outside the
/// operations' ranges as it was.
pub fn check_cleanup(case: &Case) {
    let want = expected(case, false);
    let got = run_pure(case, true);
    match (&want, &got) {
        (Err(code), _)
            if matches!(
                code,
                ErrorCode::InvalidRequest
                    | ErrorCode::InvalidRef
                    | ErrorCode::OutOfRange
                    | ErrorCode::HashMismatch
                    | ErrorCode::NotUtf8
            ) =>
        {
            assert_eq!(
                Err(*code),
                got.as_ref().map(|_| ()).map_err(|e| e.code),
                "{}",
                case.describe()
            )
        }
        (_, Ok(edited)) => {
            let got: Vec<&str> = edited.doc.lines().collect();
            let lines = case.lines.as_ref().expect("an edit of a text");
            let (head, tail) = span(case, lines.len());
            let kept = lines.len().saturating_sub(tail);
            assert!(got.len() >= head + kept, "{}", case.describe());
            assert_eq!(&lines[..head], &got[..head], "{}", case.describe());
            assert_eq!(
                &lines[tail.min(lines.len())..],
                &got[got.len() - kept..],
                "{}",
                case.describe()
            );
        }
        _ => {}
    }
}

/// The old lines a valid batch may change lie in `head..tail`: from the
/// first line or insertion point any operation names to the last.
fn span(case: &Case, n: usize) -> (usize, usize) {
    let line = |r: &Option<String>| {
        r.as_deref()
            .and_then(|r| Ref::parse(r).ok())
            .map(|r| r.line - 1)
    };
    let mut head = n;
    let mut tail = 0;
    for op in &case.ops {
        let (start, end) = match op.kind {
            OpKind::ReplaceBlock
            | OpKind::DeleteBlock
            | OpKind::InsertBeforeBlock
            | OpKind::InsertAfterBlock
            | OpKind::ReplaceCell
            | OpKind::DeleteCell
            | OpKind::InsertCellBefore
            | OpKind::InsertCellAfter
            | OpKind::MoveCell
            | OpKind::SetCellType
            | OpKind::SetCellMetadata => continue,
            OpKind::Prepend => (0, 0),
            OpKind::Append => (n, n),
            OpKind::InsertBefore => {
                let a = line(&op.reference).unwrap_or(0);
                (a, a)
            }
            OpKind::InsertAfter => {
                let a = line(&op.reference).unwrap_or(0) + 1;
                (a, a)
            }
            OpKind::Replace | OpKind::Delete => {
                let a = line(&op.reference).unwrap_or(0);
                (a, line(&op.through).unwrap_or(a) + 1)
            }
            OpKind::Move | OpKind::Copy => {
                let a = line(&op.reference).unwrap_or(0);
                let b = line(&op.through).unwrap_or(a) + 1;
                let place = op.place.as_ref().map(|(side, r)| {
                    let at = line(&Some(r.clone())).unwrap_or(0);
                    if *side == Side::After {
                        at + 1
                    } else {
                        at
                    }
                });
                let gap = place.unwrap_or(a);
                (a.min(gap), b.max(gap))
            }
        };
        head = head.min(start);
        tail = tail.max(end);
    }
    (head.min(n), tail.min(n))
}

/// A line no generated file or content has, to see where an edit landed.
const PROBE: &str = "probe: where did this land?";

/// The same case through a session on a real file: the same outcome as the
/// pure form, a rejected edit leaves the file's bytes as they were, and a
/// written one passes `check_written`. Then one untouched line is cited
/// again by its ref from before the edit: the session must find it where
/// the edit moved it, or reject the ref if it also holds, elsewhere, in the
/// text as it is now; it must never land on another line.
pub fn check_session(case: &Case, dir: &std::path::Path) {
    let path = dir.join("f.txt");
    std::fs::write(&path, &case.bytes).unwrap();
    let mut options = Options::new(dir);
    options.cleanup = false;
    let session = Hashline::new(options).unwrap();
    let read = session.read("f.txt");
    let want = expected(case, true);
    let got = Request::from_value(&case.request).and_then(|r| session.edit("f.txt", &r));
    let bytes = std::fs::read(&path).unwrap();
    let outcome = match (&want, &got) {
        (Err(code), Err(err)) => {
            assert_eq!(*code, err.code, "{}\n{err:?}", case.describe());
            assert_eq!(bytes, case.bytes, "{}", case.describe());
            return;
        }
        (Ok(outcome), Ok(_)) => {
            if let Err(problem) = check_written(&case.bytes, &bytes, outcome, None) {
                panic!("{problem}\n{}", case.describe());
            }
            outcome
        }
        _ => panic!(
            "model {:?}, session {:?}\n{}",
            want.as_ref().map(|o| &o.lines),
            got.as_ref().map(|_| ()).map_err(|e| e.to_string()),
            case.describe()
        ),
    };
    assert!(read.is_ok(), "{}", case.describe());
    let old = case.lines.as_ref().expect("an edit of a text");
    let Some((i, j)) = outcome
        .kept
        .iter()
        .enumerate()
        .filter_map(|(i, j)| Some((i, (*j)?)))
        .nth(case.probe % old.len().max(1))
        .or_else(|| {
            outcome
                .kept
                .iter()
                .enumerate()
                .find_map(|(i, j)| Some((i, (*j)?)))
        })
    else {
        return;
    };
    let (hash, anchor) = tags(old, i);
    let stale = format!("{}#{hash:03X}#{anchor:03X}", i + 1);
    let request = Request::Operations {
        operations: vec![crate::Operation::new(
            OpKind::Replace,
            Some(&stale),
            None,
            PROBE,
        )],
        rev: None,
    };
    let holds_now = i < outcome.lines.len() && tags(&outcome.lines, i) == (hash, anchor);
    let again = session.edit("f.txt", &request);
    let now = std::fs::read(&path).unwrap();
    if holds_now && i != j {
        let err = again.expect_err(&format!("{stale} is ambiguous\n{}", case.describe()));
        assert_eq!(err.code, ErrorCode::HashMismatch, "{}", case.describe());
        assert_eq!(now, bytes, "{}", case.describe());
        return;
    }
    if let Err(err) = again {
        panic!(
            "{stale} (old line {}, now {}) was refused: {err:?}\n{}",
            i + 1,
            j + 1,
            case.describe()
        );
    }
    let mut lines = outcome.lines.clone();
    lines[j] = PROBE.to_owned();
    let kept = (0..lines.len()).map(|k| (k != j).then_some(k)).collect();
    if let Err(problem) = check_written(&bytes, &now, &Outcome { lines, kept }, None) {
        panic!(
            "{stale} (old line {}, now {}): {problem}\n{}",
            i + 1,
            j + 1,
            case.describe()
        );
    }
}

/// A ref parses to itself once formatted, accepts every decoration the
/// format allows, and a rejection names the expected form.
pub fn check_parse(input: &str) {
    match Ref::parse(input) {
        Ok(r) => {
            assert!(r.line >= 1, "{input:?}");
            let canonical = r.to_string();
            for variant in [
                canonical.clone(),
                canonical.to_ascii_lowercase(),
                canonical.replace('#', ":"),
                format!(">>> {canonical}|content"),
                format!("+{canonical}"),
                format!("#HL {canonical}|"),
                format!("+ #HL {canonical}|content"),
                format!("#HL -{canonical}"),
                format!("  {canonical}  "),
            ] {
                assert_eq!(
                    Ref::parse(&variant).ok(),
                    Some(r),
                    "{input:?} -> {variant:?}"
                );
            }
        }
        Err(err) => {
            assert_eq!(err.code, ErrorCode::InvalidRef, "{input:?}");
            assert!(
                err.message.contains("LINE#HASH#ANCHOR"),
                "{input:?}: {}",
                err.message
            );
        }
    }
}
