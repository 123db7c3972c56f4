//! A reference model of an edit batch, and a generator that turns any bytes
//! into a case (a text and a loosely typed request, valid or not). The fuzz
//! targets and the property tests of `crates/hashline/tests/invariants.rs`
//! share it, so both check the same invariants:
//!
//! - nothing panics, whatever the bytes;
//! - an error is the one the model predicts, and a session's file keeps its
//!   bytes;
//! - a success gives the lines the model gives.
//!
//! The model is written from the documented semantics (DESIGN §2), not from
//! the engine: it computes refs with the public hash functions, places each
//! operation on plain lines and applies the batch by walking the old lines.

use hashline::{
    anchor_hash, apply_to_text, line_hash, rev, Document, ErrorCode, Hashline, OpKind, Options,
    Ref, Request, Value,
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
}

#[derive(Debug, Clone)]
pub struct Case {
    /// The text as a caller holds it (BOM as U+FEFF, original line endings).
    pub text: String,
    /// Its canonical lines.
    pub lines: Vec<String>,
    pub request: Value,
    pub ops: Vec<Op>,
    pub rev: Option<String>,
    /// The request breaks a rule of its shape (unknown op or field, wrong
    /// type, missing or surplus field): `INVALID_REQUEST` whatever else.
    pub malformed: bool,
}

fn s(v: &str) -> Value {
    Value::String(v.to_owned())
}

/// The text of a case: lines joined by LF, CRLF or lone CR (uniform), or
/// by LF and CRLF mixed; a BOM or not; a final newline or not.
fn text(src: &mut Source<'_>, lines: &[String]) -> String {
    let style = src.below(4);
    let bom = src.chance(4);
    let final_newline = src.chance(10) || lines.last().is_some_and(String::is_empty);
    let mut out = String::new();
    if bom {
        out.push('\u{FEFF}');
    }
    for (i, line) in lines.iter().enumerate() {
        out.push_str(line);
        if i + 1 < lines.len() || final_newline {
            out.push_str(match style {
                0 => "\n",
                1 => "\r\n",
                // Lone CR only uniformly: mixed with LF, "\r" before an
                // empty line's "\n" would read as one CRLF.
                2 => "\r",
                _ if src.chance(8) => "\r\n",
                _ => "\n",
            });
        }
    }
    out
}

/// A ref for line `index` (0-based) of `lines`, as the model might copy it:
/// exact, decorated the ways parsing tolerates, without ANCHOR, with a
/// wrong HASH or ANCHOR, past the end, or malformed.
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
        _ => format!("{line}#{:03X}#{:03X}", hash, anchor),
    }
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

const KINDS: [OpKind; 6] = [
    OpKind::Replace,
    OpKind::Delete,
    OpKind::InsertBefore,
    OpKind::InsertAfter,
    OpKind::Prepend,
    OpKind::Append,
];

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
    let lines: Vec<String> = (0..src.below(24))
        .map(|_| src.pick(LINES).to_owned())
        .collect();
    let text = text(&mut src, &lines);
    let n = lines.len();
    let mut malformed = false;
    let mut ops = Vec::new();
    let mut values = Vec::new();
    let count = if src.chance(1) { 0 } else { 1 + src.below(5) };
    for _ in 0..count {
        let kind = KINDS[src.below(KINDS.len())];
        let first = src.below(n + 1);
        let last = (first + src.below(4)).saturating_sub(usize::from(src.chance(2)) * 2);
        let mut reference = kind.needs_ref().then(|| cite(&mut src, &lines, first));
        let mut through = matches!(kind, OpKind::Replace | OpKind::Delete)
            .then(|| src.chance(6))
            .unwrap_or(false)
            .then(|| cite(&mut src, &lines, last));
        let content = if kind == OpKind::Delete {
            Vec::new()
        } else {
            content_lines(&mut src)
        };
        let mut fields = vec![("op".to_owned(), s(&op_name(&mut src, kind)))];
        let ref_name = ["ref", "start", "pos", "startRef"][src.below(4)];
        let through_name = ["through", "end", "endRef"][src.below(3)];
        let content_name = ["content", "lines", "new_string", "replacement"][src.below(4)];
        if let Some(r) = reference.take() {
            fields.push((ref_name.to_owned(), s(&r)));
            // An empty ref counts as none: refless ops may carry one.
            if r.trim().is_empty() {
                malformed |= kind.needs_ref();
            } else {
                reference = Some(r);
            }
        }
        if let Some(t) = through.take() {
            fields.push((through_name.to_owned(), s(&t)));
            through = Some(t).filter(|t| !t.trim().is_empty());
        }
        if kind != OpKind::Delete {
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
                0 => fields[0].1 = s("move"),
                1 => fields.push(("indent".to_owned(), Value::Number(2.0))),
                2 => fields.push(("ref".to_owned(), Value::Number(first as f64 + 1.0))),
                3 => fields.push(("content".to_owned(), Value::Bool(true))),
                4 => fields.push(("content".to_owned(), Value::Array(vec![Value::Null]))),
                5 => {
                    fields.remove(0);
                }
                6 if kind == OpKind::Delete => fields.push(("content".to_owned(), s("x"))),
                7 if !kind.needs_ref() => fields.push(("ref".to_owned(), s("1#ABC"))),
                8 if !matches!(kind, OpKind::Replace | OpKind::Delete) => {
                    fields.push(("through".to_owned(), s("1#ABC")))
                }
                _ => fields.push(("op".to_owned(), s("delete"))),
            };
        }
        values.push(Value::Object(fields));
        ops.push(Op {
            kind,
            reference,
            through,
            content,
        });
    }
    let doc_rev = rev(Document::from_text(&text).text());
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
        text,
        lines,
        request: Value::Object(request),
        ops,
        rev,
        malformed,
    }
}

/// What the model expects: the error code, or the new lines.
pub type Expected = Result<Vec<String>, ErrorCode>;

struct Item {
    kind: OpKind,
    range: std::ops::Range<usize>,
    anchor: Option<usize>,
    lines: Vec<String>,
}

/// The outcome of `case` per the documented semantics. `vouched`: a stored
/// version (a session's read) vouches for the text, so a ref without
/// ANCHOR may name a line whose text repeats.
pub fn expected(case: &Case, vouched: bool) -> Expected {
    if case.malformed {
        return Err(ErrorCode::InvalidRequest);
    }
    let lines = &case.lines;
    let n = lines.len();
    let mut cited = Vec::new();
    for op in &case.ops {
        for text in [&op.reference, &op.through].into_iter().flatten() {
            cited.push(Ref::parse(text).map_err(|_| ErrorCode::InvalidRef)?);
        }
    }
    let holds = |r: &Ref| {
        let i = r.line - 1;
        if i >= n {
            return false;
        }
        let (hash, anchor) = tags(lines, i);
        r.hash.bits() == hash && r.anchor.is_none_or(|a| a.bits() == anchor)
    };
    let wrong: Vec<&Ref> = cited.iter().filter(|r| !holds(r)).collect();
    if !wrong.is_empty() {
        return Err(if wrong.iter().all(|r| r.line > n) {
            ErrorCode::OutOfRange
        } else {
            ErrorCode::HashMismatch
        });
    }
    let named_current = case.rev.as_deref().is_some_and(|r| {
        r.trim().to_ascii_uppercase() == rev(Document::from_text(&case.text).text())
    });
    if !vouched && !named_current {
        let mut counts: HashMap<u16, usize> = HashMap::new();
        for line in lines {
            *counts.entry(line_hash(line).bits()).or_default() += 1;
        }
        if cited
            .iter()
            .any(|r| r.anchor.is_none() && counts[&r.hash.bits()] > 1)
        {
            return Err(ErrorCode::HashMismatch);
        }
    }

    let mut items: Vec<Item> = Vec::new();
    let mut at = cited.iter();
    for op in &case.ops {
        let mut next = || at.next().map_or(0, |r| r.line - 1);
        let (range, anchor) = match op.kind {
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
        };
        let item = Item {
            kind: op.kind,
            range,
            anchor,
            lines: op.content.clone(),
        };
        let same = items.iter().any(|k| {
            k.kind == item.kind
                && k.range == item.range
                && k.anchor == item.anchor
                && k.lines == item.lines
        });
        if !same {
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
            let same_place =
                a.range.is_empty() && b.range.is_empty() && a.range.start == b.range.start;
            if overlap || inside(a, b) || inside(b, a) || same_place {
                return Err(ErrorCode::Conflict);
            }
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
    let mut i = 0;
    loop {
        if let Some(insert) = items
            .iter()
            .find(|it| it.range.is_empty() && it.range.start == i)
        {
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
                out.push(lines[i].clone());
                i += 1;
            }
        }
    }
    if &out == lines {
        return Err(ErrorCode::NoChange);
    }
    Ok(out)
}

impl Case {
    /// The case in a form short enough to read in a failure report.
    pub fn describe(&self) -> String {
        let mut out = format!("text: {:?}\n", self.text);
        for op in &self.ops {
            out.push_str(&format!(
                "  {} ref={:?} through={:?} content={:?}\n",
                op.kind, op.reference, op.through, op.content
            ));
        }
        out.push_str(&format!("rev={:?} malformed={}", self.rev, self.malformed));
        out
    }
}

/// Checks one case against the engine's pure form, with clean-up off so
/// content is taken as given. Panics (a finding) on any disagreement.
pub fn check_pure(case: &Case) {
    let want = expected(case, false);
    let got = Request::from_value(&case.request)
        .and_then(|request| apply_to_text(&case.text, &request, false));
    match (&want, &got) {
        (Err(code), Err(err)) => assert_eq!(*code, err.code, "{}\n{err:?}", case.describe()),
        (Ok(lines), Ok((text, _))) => {
            let doc = Document::from_text(text);
            let got: Vec<&str> = doc.lines().collect();
            assert_eq!(lines.clone(), got, "{}", case.describe());
            assert_eq!(
                doc.has_bom(),
                case.text.starts_with('\u{FEFF}'),
                "{}",
                case.describe()
            );
        }
        _ => panic!(
            "model {:?}, engine {:?}\n{}",
            want,
            got.as_ref().map(|(t, _)| t).map_err(|e| e.to_string()),
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
    let got = Request::from_value(&case.request)
        .and_then(|request| apply_to_text(&case.text, &request, true));
    match (&want, &got) {
        (Err(code), _)
            if matches!(
                code,
                ErrorCode::InvalidRequest
                    | ErrorCode::InvalidRef
                    | ErrorCode::OutOfRange
                    | ErrorCode::HashMismatch
            ) =>
        {
            assert_eq!(
                Err(*code),
                got.as_ref().map(|_| ()).map_err(|e| e.code),
                "{}",
                case.describe()
            )
        }
        (_, Ok((text, _))) => {
            let doc = Document::from_text(text);
            let got: Vec<&str> = doc.lines().collect();
            let lines = &case.lines;
            let (head, tail) = span(case);
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
fn span(case: &Case) -> (usize, usize) {
    let n = case.lines.len();
    let line = |r: &Option<String>| {
        r.as_deref()
            .and_then(|r| Ref::parse(r).ok())
            .map(|r| r.line - 1)
    };
    let mut head = n;
    let mut tail = 0;
    for op in &case.ops {
        let (start, end) = match op.kind {
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
        };
        head = head.min(start);
        tail = tail.max(end);
    }
    (head.min(n), tail.min(n))
}

/// The same case through a session on a real file: the same outcome as the
/// pure form, and a rejected edit leaves the file's bytes as they were.
pub fn check_session(case: &Case, dir: &std::path::Path) {
    let path = dir.join("f.txt");
    std::fs::write(&path, &case.text).unwrap();
    let mut options = Options::new(dir);
    options.cleanup = false;
    let session = Hashline::new(options).unwrap();
    session.read("f.txt", None, None, false).unwrap();
    let want = expected(case, true);
    let got = Request::from_value(&case.request).and_then(|r| session.edit("f.txt", &r, false));
    let bytes = std::fs::read(&path).unwrap();
    match (&want, &got) {
        (Err(code), Err(err)) => {
            assert_eq!(*code, err.code, "{}\n{err:?}", case.describe());
            assert_eq!(bytes, case.text.as_bytes(), "{}", case.describe());
        }
        (Ok(lines), Ok(_)) => {
            let doc = Document::from_bytes(&bytes).unwrap();
            let got: Vec<&str> = doc.lines().collect();
            assert_eq!(lines.clone(), got, "{}", case.describe());
        }
        _ => panic!(
            "model {:?}, session {:?}\n{}",
            want,
            got.as_ref().map(|_| ()).map_err(|e| e.to_string()),
            case.describe()
        ),
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
