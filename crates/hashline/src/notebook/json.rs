//! A notebook's JSON read with the place of every value, and new values
//! written in the layout of the text they go into.
//!
//! serde_json parses (with `raw_value`, each value comes back as a slice of
//! the input, whose place follows from the slice); what lies between the
//! values of a container (commas, keys, white space) is scanned here, a
//! grammar of four tokens, so that members can be removed and added
//! without touching the bytes around them. Nothing is ever written by
//! serialising a parsed value again: Python's number forms (`1e-05`) and
//! the escapes a file uses would not survive it.

use crate::request::Value;
use serde::de::{self, Deserialize, Deserializer, MapAccess, Visitor};
use serde_json::value::RawValue;
use std::borrow::Cow;
use std::collections::HashSet;
use std::fmt;
use std::fmt::Write as _;
use std::ops::Range;

/// An object's members in order, each key once: a key sent twice has two
/// values, and which one a reader takes is its own choice.
pub(crate) struct Members<'a>(pub Vec<(String, &'a RawValue)>);

impl<'de> Deserialize<'de> for Members<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Each;
        impl<'de> Visitor<'de> for Each {
            type Value = Members<'de>;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object")
            }

            fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<Members<'de>, M::Error> {
                let mut members: Vec<(String, &'de RawValue)> = Vec::new();
                let mut keys = HashSet::new();
                while let Some((key, value)) = map.next_entry::<String, &'de RawValue>()? {
                    if !keys.insert(key.clone()) {
                        return Err(de::Error::custom(format!("the key {key:?} appears twice")));
                    }
                    members.push((key, value));
                }
                Ok(Members(members))
            }
        }
        deserializer.deserialize_map(Each)
    }
}

/// Where `raw`, a slice of `text` that serde_json handed back, lies in it.
pub(crate) fn span(text: &str, raw: &RawValue) -> Range<usize> {
    let start = raw.get().as_ptr() as usize - text.as_ptr() as usize;
    start..start + raw.get().len()
}

/// An object or an array of the text: where it is, from its opening to its
/// closing bracket, and where each of its items is: for an object's member,
/// from its key to the end of its value.
#[derive(Debug, Clone)]
pub(crate) struct Container {
    pub span: Range<usize>,
    pub items: Vec<Range<usize>>,
}

/// A member of an object: its key, its value, and where its value is.
#[derive(Debug, Clone)]
pub(crate) struct Member<'a> {
    pub key: String,
    pub raw: &'a RawValue,
    pub value: Range<usize>,
}

/// The object `raw` of `text`, with its members.
pub(crate) fn object<'a>(
    text: &'a str,
    raw: &'a RawValue,
) -> Result<(Container, Vec<Member<'a>>), String> {
    let Members(members) =
        serde_json::from_str::<Members<'a>>(raw.get()).map_err(|e| e.to_string())?;
    let outer = span(text, raw);
    let mut items = Vec::with_capacity(members.len());
    let mut listed = Vec::with_capacity(members.len());
    let mut at = outer.start + 1;
    for (key, raw) in members {
        let value = span(text, raw);
        let key_start = key_start(text, at, value.start, listed.is_empty())
            .ok_or_else(|| format!("unexpected text before the value of {key:?}"))?;
        items.push(key_start..value.end);
        at = value.end;
        listed.push(Member { key, raw, value });
    }
    Ok((Container { span: outer, items }, listed))
}

/// The array `raw` of `text`, with its items.
pub(crate) fn array<'a>(
    text: &'a str,
    raw: &'a RawValue,
) -> Result<(Container, Vec<&'a RawValue>), String> {
    let values: Vec<&'a RawValue> = serde_json::from_str(raw.get()).map_err(|e| e.to_string())?;
    let items = values.iter().map(|v| span(text, v)).collect();
    Ok((
        Container {
            span: span(text, raw),
            items,
        },
        values,
    ))
}

fn skip_space(bytes: &[u8], mut at: usize) -> usize {
    while at < bytes.len() && matches!(bytes[at], b' ' | b'\t' | b'\n' | b'\r') {
        at += 1;
    }
    at
}

/// Where the key of a member starts, scanning from `from` (just after the
/// opening brace or the previous value): white space, a comma unless it is
/// the first member, white space, then the key, which must be followed by
/// a colon and the value at `value`.
fn key_start(text: &str, from: usize, value: usize, first: bool) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut at = skip_space(bytes, from);
    if !first {
        if bytes.get(at) != Some(&b',') {
            return None;
        }
        at = skip_space(bytes, at + 1);
    }
    let start = at;
    if bytes.get(at) != Some(&b'"') {
        return None;
    }
    at += 1;
    loop {
        match bytes.get(at)? {
            b'\\' => at += 2,
            b'"' => break,
            _ => at += 1,
        }
    }
    at = skip_space(bytes, at + 1);
    if bytes.get(at) != Some(&b':') {
        return None;
    }
    (skip_space(bytes, at + 1) == value).then_some(start)
}

/// The white space a line starts with, for the line `at` is on.
pub(crate) fn line_indent(text: &str, at: usize) -> &str {
    let start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let rest = &text[start..];
    &rest[..rest.len() - rest.trim_start_matches([' ', '\t']).len()]
}

/// Whether what starts at `at` starts a line of its own: only spaces or
/// tabs before it on its line, and a line before that.
pub(crate) fn starts_line(text: &str, at: usize) -> bool {
    text[..at].trim_end_matches([' ', '\t']).ends_with('\n')
}

/// How a file writes its JSON, as far as new text must follow it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Layout {
    /// The line break between items, or `None` when containers are written
    /// on one line.
    pub newline: Option<&'static str>,
    /// One level of indentation.
    pub unit: String,
    /// Between a key and its value.
    pub colon: &'static str,
    /// Between items on one line.
    pub comma: &'static str,
    /// Characters past ASCII are written as `\u` escapes.
    pub ascii: bool,
    /// `\u` escapes use uppercase hex digits.
    pub upper_hex: bool,
    /// Keys are sorted.
    pub sorted: bool,
}

impl Layout {
    /// nbformat's: `json.dumps(indent=1, sort_keys=True, separators=(",", ": "), ensure_ascii=False)`.
    pub(crate) fn nbformat() -> Layout {
        Layout {
            newline: Some("\n"),
            unit: " ".to_owned(),
            colon: ": ",
            comma: ", ",
            ascii: false,
            upper_hex: false,
            sorted: true,
        }
    }

    /// The layout of `text`, whose top object is `top`; `sorted` says
    /// whether its objects sort their keys. What the text does not show
    /// is nbformat's.
    pub(crate) fn of(text: &str, top: &Container, sorted: bool) -> Layout {
        let mut layout = Layout::nbformat();
        layout.sorted = sorted;
        if let Some(first) = top.items.first() {
            let lead = &text[top.span.start + 1..first.start];
            match lead.rfind('\n') {
                Some(at) => {
                    layout.newline = Some(if lead[..at].ends_with('\r') {
                        "\r\n"
                    } else {
                        "\n"
                    });
                    layout.unit = lead[at + 1..].to_owned();
                }
                None => {
                    layout.newline = None;
                    layout.unit = String::new();
                }
            }
            // Between the first key and its value.
            let key = &text[first.clone()];
            if let Some(colon) = after_key(key) {
                layout.colon = if key[colon..].starts_with(": ") {
                    ": "
                } else {
                    ":"
                };
            }
            if let Some(second) = top.items.get(1) {
                let gap = &text[first.end..second.start];
                layout.comma = if gap == "," { "," } else { ", " };
            }
        }
        let (ascii, upper_hex) = escapes(text);
        layout.ascii = ascii;
        layout.upper_hex = upper_hex;
        layout
    }

    /// The indentation of the items of a container whose own line is
    /// indented by `indent`.
    pub(crate) fn inner(&self, indent: &str) -> String {
        format!("{indent}{}", self.unit)
    }
}

/// Where the colon after a member's key is, in the member's text.
fn after_key(member: &str) -> Option<usize> {
    let bytes = member.as_bytes();
    let mut at = 1;
    loop {
        match bytes.get(at)? {
            b'\\' => at += 2,
            b'"' => break,
            _ => at += 1,
        }
    }
    let colon = skip_space(bytes, at + 1);
    (bytes.get(colon) == Some(&b':')).then_some(colon)
}

/// Whether the strings of `text` escape every character past ASCII (it
/// has such escapes and no such character raw), and whether its `\u`
/// escapes use uppercase hex digits.
fn escapes(text: &str) -> (bool, bool) {
    let raw_non_ascii = !text.is_ascii();
    let mut escaped_non_ascii = false;
    let mut upper = false;
    let mut lower = false;
    let bytes = text.as_bytes();
    let mut at = 0;
    while let Some(found) = memchr::memchr(b'\\', &bytes[at..]) {
        let i = at + found;
        match bytes.get(i + 1) {
            Some(b'u') => {
                if let Some(hex) = text.get(i + 2..i + 6) {
                    upper |= hex.bytes().any(|b| b.is_ascii_uppercase());
                    lower |= hex.bytes().any(|b| b.is_ascii_lowercase());
                    escaped_non_ascii |= u32::from_str_radix(hex, 16).is_ok_and(|c| c >= 0x80);
                }
                at = i + 6;
            }
            _ => at = i + 2,
        }
        if at >= bytes.len() {
            break;
        }
    }
    (escaped_non_ascii && !raw_non_ascii, upper && !lower)
}

/// A value to write.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Json {
    Null,
    Bool(bool),
    /// A number as it is written.
    Number(String),
    String(String),
    Array(Vec<Json>),
    Object(Vec<(String, Json)>),
}

impl Json {
    /// A value a host handed over; an object's keys sorted when the layout
    /// sorts them.
    pub(crate) fn from_value(value: &Value, layout: &Layout) -> Json {
        match value {
            Value::Null => Json::Null,
            Value::Bool(b) => Json::Bool(*b),
            Value::Number(n) => Json::Number(python_number(*n)),
            Value::String(s) => Json::String(s.clone()),
            Value::Array(items) => {
                Json::Array(items.iter().map(|v| Json::from_value(v, layout)).collect())
            }
            Value::Object(fields) => {
                let mut fields: Vec<(String, Json)> = fields
                    .iter()
                    .map(|(k, v)| (k.clone(), Json::from_value(v, layout)))
                    .collect();
                if layout.sorted {
                    fields.sort_by(|a, b| a.0.cmp(&b.0));
                }
                Json::Object(fields)
            }
        }
    }
}

/// A number as Python's `json` writes it: a whole number as an integer
/// (the loosely typed values hosts hand over keep no other trace of one),
/// any other as `repr` does (`1e-05`, `0.1`, `1.5e+16`).
pub(crate) fn python_number(n: f64) -> String {
    const EXACT: f64 = 9_007_199_254_740_992.0;
    if n.fract() == 0.0 && n.abs() < EXACT {
        return format!("{}", n as i64);
    }
    let scientific = format!("{n:e}");
    let (mantissa, exponent) = scientific.split_once('e').unwrap_or((&scientific, "0"));
    let exponent: i32 = exponent.parse().unwrap_or(0);
    let (sign, mantissa) = match mantissa.strip_prefix('-') {
        Some(rest) => ("-", rest),
        None => ("", mantissa),
    };
    let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
    if (-4..16).contains(&exponent) {
        let point = exponent + 1;
        let body = if point <= 0 {
            format!("0.{}{digits}", "0".repeat((-point) as usize))
        } else if point as usize >= digits.len() {
            format!("{digits}{}.0", "0".repeat(point as usize - digits.len()))
        } else {
            format!(
                "{}.{}",
                &digits[..point as usize],
                &digits[point as usize..]
            )
        };
        format!("{sign}{body}")
    } else {
        let head = if digits.len() > 1 {
            format!("{}.{}", &digits[..1], &digits[1..])
        } else {
            digits
        };
        let exponent_sign = if exponent < 0 { '-' } else { '+' };
        format!("{sign}{head}e{exponent_sign}{:02}", exponent.abs())
    }
}

/// Writes `value`, whose own line is indented by `indent`.
pub(crate) fn write(out: &mut String, value: &Json, indent: &str, layout: &Layout) {
    match value {
        Json::Null => out.push_str("null"),
        Json::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Json::Number(n) => out.push_str(n),
        Json::String(s) => string(out, s, layout),
        Json::Array(items) => {
            let texts: Vec<String> = items
                .iter()
                .map(|item| {
                    let mut text = String::new();
                    write(&mut text, item, &layout.inner(indent), layout);
                    text
                })
                .collect();
            out.push_str(&fresh(&texts, '[', ']', indent, layout));
        }
        Json::Object(fields) => {
            let texts: Vec<String> = fields
                .iter()
                .map(|(key, item)| member(key, item, &layout.inner(indent), layout))
                .collect();
            out.push_str(&fresh(&texts, '{', '}', indent, layout));
        }
    }
}

/// A member `"key": value`, on a line indented by `indent`.
pub(crate) fn member(key: &str, value: &Json, indent: &str, layout: &Layout) -> String {
    let mut text = String::new();
    string(&mut text, key, layout);
    text.push_str(layout.colon);
    write(&mut text, value, indent, layout);
    text
}

/// A new container of `items` (each written already), its own line
/// indented by `indent`.
fn fresh(items: &[String], open: char, close: char, indent: &str, layout: &Layout) -> String {
    let mut out = String::new();
    out.push(open);
    if !items.is_empty() {
        match layout.newline {
            Some(newline) => {
                let inner = layout.inner(indent);
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    out.push_str(newline);
                    out.push_str(&inner);
                    out.push_str(item);
                }
                out.push_str(newline);
                out.push_str(indent);
            }
            None => out.push_str(&items.join(layout.comma)),
        }
    }
    out.push(close);
    out
}

/// Writes a string as Python's `json` does, `ensure_ascii` as the layout
/// says: `"`, `\` and the controls with short forms escaped so, other
/// controls as `\u00XX`; past ASCII, either raw or as `\u` escapes
/// (surrogate pairs past the first plane).
pub(crate) fn string(out: &mut String, s: &str, layout: &Layout) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 || (layout.ascii && !(' '..='~').contains(&c)) => {
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    if layout.upper_hex {
                        let _ = write!(out, "\\u{unit:04X}");
                    } else {
                        let _ = write!(out, "\\u{unit:04x}");
                    }
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// An item of a container being written again: one of its own, with its
/// text (changed or not), or a new one.
pub(crate) enum Item<'t> {
    Kept(usize, Cow<'t, str>),
    New(String),
}

/// The container `c` of `text` with `items` in place of its own, its own
/// line indented by `indent`. Between two items that were neighbours the
/// text between them stays; between others goes the text between its
/// first two items (or, with fewer, the layout's separator).
pub(crate) fn rebuild(
    text: &str,
    c: &Container,
    items: &[Item<'_>],
    indent: &str,
    layout: &Layout,
) -> String {
    let open = &text[c.span.start..c.span.start + 1];
    let close = &text[c.span.end - 1..c.span.end];
    if items.is_empty() {
        return format!("{open}{close}");
    }
    let inner = match c.items.first() {
        Some(first) => line_indent(text, first.start).to_owned(),
        None => layout.inner(indent),
    };
    let (lead, trail, separator) = match (c.items.first(), c.items.last()) {
        (Some(first), Some(last)) => (
            text[c.span.start + 1..first.start].to_owned(),
            text[last.end..c.span.end - 1].to_owned(),
            match c.items.get(1) {
                Some(second) => text[first.end..second.start].to_owned(),
                None => separator(&inner, layout),
            },
        ),
        _ => match layout.newline {
            Some(newline) => (
                format!("{newline}{inner}"),
                format!("{newline}{indent}"),
                separator(&inner, layout),
            ),
            None => (String::new(), String::new(), separator(&inner, layout)),
        },
    };
    let mut out = String::with_capacity(c.span.len());
    out.push_str(open);
    out.push_str(&lead);
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            match (&items[i - 1], item) {
                (Item::Kept(a, _), Item::Kept(b, _)) if *b == a + 1 => {
                    out.push_str(&text[c.items[*a].end..c.items[*b].start]);
                }
                _ => out.push_str(&separator),
            }
        }
        match item {
            Item::Kept(_, kept) => out.push_str(kept),
            Item::New(new) => out.push_str(new),
        }
    }
    out.push_str(&trail);
    out.push_str(close);
    out
}

fn separator(inner: &str, layout: &Layout) -> String {
    match layout.newline {
        Some(newline) => format!(",{newline}{inner}"),
        None => layout.comma.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_written_as_python_writes_them() {
        for (n, text) in [
            (1.0, "1"),
            (-3.0, "-3"),
            (0.1, "0.1"),
            (1e-5, "1e-05"),
            (0.0001, "0.0001"),
            (1.5e16, "1.5e+16"),
            (123456789.125, "123456789.125"),
            (2.5e-7, "2.5e-07"),
            (1e22, "1e+22"),
            (-0.5, "-0.5"),
        ] {
            assert_eq!(python_number(n), text, "{n}");
        }
    }

    #[test]
    fn strings_are_escaped_as_python_escapes_them() {
        let mut layout = Layout::nbformat();
        let mut out = String::new();
        string(
            &mut out,
            "a\"b\\c\n\r\t\u{8}\u{c}\u{1b}\u{7f}é\u{2028}😀/",
            &layout,
        );
        assert_eq!(
            out,
            "\"a\\\"b\\\\c\\n\\r\\t\\b\\f\\u001b\u{7f}é\u{2028}😀/\""
        );
        layout.ascii = true;
        layout.upper_hex = true;
        let mut out = String::new();
        string(&mut out, "\u{1b}é😀", &layout);
        assert_eq!(out, "\"\\u001B\\u00E9\\uD83D\\uDE00\"");
    }

    #[test]
    fn members_keep_their_order_their_places_and_refuse_a_second_key() {
        let text = "{ \"b\" : [1, 2],\n \"a\":\"x\\\"\" }";
        let raw: &RawValue = serde_json::from_str(text).unwrap();
        let (c, members) = object(text, raw).unwrap();
        assert_eq!(members[0].key, "b");
        assert_eq!(&text[members[0].value.clone()], "[1, 2]");
        assert_eq!(&text[c.items[1].clone()], "\"a\":\"x\\\"\"");
        let twice = "{\"a\": 1, \"a\": 2}";
        let raw: &RawValue = serde_json::from_str(twice).unwrap();
        assert!(object(twice, raw).unwrap_err().contains("twice"));
    }

    #[test]
    fn a_container_written_again_keeps_the_gaps_between_neighbours() {
        let text = "[\n  1,\n  2,   3\n]";
        let raw: &RawValue = serde_json::from_str(text).unwrap();
        let (c, _) = array(text, raw).unwrap();
        let layout = Layout::nbformat();
        let items = [
            Item::Kept(1, Cow::Borrowed("2")),
            Item::Kept(2, Cow::Borrowed("3")),
            Item::New("4".into()),
        ];
        assert_eq!(
            rebuild(text, &c, &items, "", &layout),
            "[\n  2,   3,\n  4\n]"
        );
        let empty = "{}";
        let raw: &RawValue = serde_json::from_str(empty).unwrap();
        let (c, _) = object(empty, raw).unwrap();
        let items = [Item::New("\"k\": 1".into())];
        assert_eq!(
            rebuild(empty, &c, &items, "  ", &layout),
            "{\n   \"k\": 1\n  }"
        );
        assert_eq!(
            rebuild(
                text,
                &array(text, serde_json::from_str(text).unwrap()).unwrap().0,
                &[],
                "",
                &layout
            ),
            "[]"
        );
    }
}
