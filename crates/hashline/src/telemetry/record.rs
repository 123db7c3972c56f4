//! One call as the record keeps it, and its line in the file: one JSON
//! object a line, written whole by one `write`. Read back, a line is
//! untrusted input (a disk may have cut it short, anyone who can write the
//! user's files may have planted it): every field is checked for the shape
//! the writer gives it, and a line that fails is skipped, never acted on.

use crate::error::Doubted;
use crate::request::OpKind;
use crate::view::ViewStyle;
use serde_json::{Map, Value as Json};
use std::borrow::Cow;

/// The format of a line; a line of another is skipped.
pub(super) const VERSION: u64 = 1;
/// A longer line is no line the writer made.
pub(crate) const MAX_LINE_BYTES: usize = 16 << 10;
/// Labels (host, model, call id) longer than this are cut when written and
/// refused when read.
const MAX_LABEL_CHARS: usize = 200;
/// Operations a record lists at most.
const MAX_OPS: usize = 256;

/// The tool a call was, as hosts offer it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Tool {
    /// A view of a file: `read`, or a host's own read the engine tagged.
    Read,
    /// An edit of one file.
    Edit,
    /// A search.
    Grep,
    /// Edits of several files as one change.
    Apply,
    /// A patch in the `*** Begin Patch` format.
    Patch,
    /// A host's write of a whole file, cleaned of copied view prefixes.
    Write,
}

impl Tool {
    /// Every tool.
    pub const ALL: [Tool; 6] = [
        Tool::Read,
        Tool::Edit,
        Tool::Grep,
        Tool::Apply,
        Tool::Patch,
        Tool::Write,
    ];

    /// The tool as records and filters name it.
    pub fn name(self) -> &'static str {
        match self {
            Tool::Read => "read",
            Tool::Edit => "edit",
            Tool::Grep => "grep",
            Tool::Apply => "apply",
            Tool::Patch => "patch",
            Tool::Write => "write",
        }
    }

    /// The tool `name` names.
    pub fn parse(name: &str) -> Option<Tool> {
        Tool::ALL.into_iter().find(|t| t.name() == name)
    }

    /// Whether a call of this tool changes files: an attempt at an edit.
    pub fn writes(self) -> bool {
        !matches!(self, Tool::Read | Tool::Grep)
    }
}

/// How a call ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// A call that changes nothing answered.
    Ok,
    /// A change was written (or, for a host's write, handed back to write).
    Applied,
    /// The call failed with this error code; nothing was written.
    Refused(Cow<'static, str>),
}

/// Lines of content the clean-up removed as proven copies of what the
/// engine showed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Cleaned {
    /// Lines whose view prefix (or other output of the engine) was removed.
    pub prefixes: u64,
    /// Boundary echoes dropped.
    pub echoes: u64,
}

/// Sizes of a call, in lines.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Lines {
    /// Lines of the file (after an edit: of the version written).
    pub file: u64,
    /// Lines the result showed the model.
    pub shown: u64,
    /// Lines an edit added.
    pub added: u64,
    /// Lines an edit removed.
    pub removed: u64,
}

/// Tokens of the call's texts, estimated (see `tokens`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Tokens {
    /// The tool call's arguments, as the model wrote them (JSON).
    pub request: u64,
    /// The text the model got back: a view, a result, an error's message.
    pub result: u64,
}

/// One tool call. Nothing in it is a file's content or the model's text:
/// the path is replaced by its salted hash before the record is written.
#[derive(Debug, Clone, PartialEq)]
pub struct Record {
    /// When the call started, in milliseconds since the Unix epoch.
    pub at: u64,
    /// The host, by the name hashline gives it (`opencode`, `mcp`, `cli`…).
    pub host: Option<String>,
    /// The model that made the call, where the host gives it.
    pub model: Option<String>,
    /// The host's id of the tool call, where it gives one.
    pub call_id: Option<String>,
    /// The tool.
    pub tool: Tool,
    /// The ops of an edit's operations, in order (`old_string` for the
    /// `oldString` fallback, `create` for one that creates a file); read
    /// back from a file, each op once, in name order.
    pub ops: Vec<Cow<'static, str>>,
    /// The view the call's refs are shown in.
    pub view: ViewStyle,
    /// How it ended.
    pub outcome: Outcome,
    /// What an `AMBIGUOUS_ECHO` refusal doubted.
    pub doubt: Option<Doubted>,
    /// Refs of an older version were proven to still name their lines
    /// (stale refs recovered).
    pub remapped: bool,
    /// What the clean-up removed as proven copies.
    pub cleaned: Cleaned,
    /// The request asked for its content to be written exactly as sent.
    pub literal: bool,
    /// Content refused as in doubt was sent again as it was, and written as
    /// sent.
    pub resent: bool,
    /// Until written, the path of the file as the call named it (several,
    /// joined by line breaks, for a change of several files); written and
    /// read back, its salted hash (16 hex digits).
    pub path: Option<String>,
    /// Files a change of several touched.
    pub files: u64,
    /// Sizes in lines.
    pub lines: Lines,
    /// Tokens of the request and the result.
    pub tokens: Tokens,
    /// Milliseconds the engine worked on the call.
    pub ms: f64,
}

impl Record {
    /// A call of `tool` that started at `at`, ending as `outcome`, with
    /// nothing else known yet.
    pub fn new(at: u64, tool: Tool, view: ViewStyle) -> Record {
        Record {
            at,
            host: None,
            model: None,
            call_id: None,
            tool,
            ops: Vec::new(),
            view,
            outcome: Outcome::Ok,
            doubt: None,
            remapped: false,
            cleaned: Cleaned::default(),
            literal: false,
            resent: false,
            path: None,
            files: 0,
            lines: Lines::default(),
            tokens: Tokens::default(),
            ms: 0.0,
        }
    }

    /// The record's line, with its terminator; `path` as it is (the writer
    /// hashes it first).
    pub(super) fn line(&self) -> Vec<u8> {
        let mut o = Map::new();
        o.insert("v".into(), VERSION.into());
        o.insert("at".into(), self.at.into());
        for (key, value) in [
            ("host", &self.host),
            ("model", &self.model),
            ("callId", &self.call_id),
        ] {
            // A label of control characters alone is none: written empty,
            // it would not read back.
            if let Some(value) = value.as_deref().map(label).filter(|v| !v.is_empty()) {
                o.insert(key.into(), value.into());
            }
        }
        o.insert("tool".into(), self.tool.name().into());
        if !self.ops.is_empty() {
            let ops = self.ops.iter().take(MAX_OPS).map(|op| Json::from(&**op));
            o.insert("ops".into(), Json::Array(ops.collect()));
        }
        o.insert("view".into(), view_name(self.view).into());
        match &self.outcome {
            Outcome::Ok => o.insert("outcome".into(), "ok".into()),
            Outcome::Applied => o.insert("outcome".into(), "applied".into()),
            Outcome::Refused(code) => {
                o.insert("outcome".into(), "refused".into());
                o.insert("code".into(), Json::from(&**code))
            }
        };
        if let Some(doubt) = self.doubt {
            o.insert("doubt".into(), doubt.name().into());
        }
        for (key, set) in [
            ("remapped", self.remapped),
            ("literal", self.literal),
            ("resent", self.resent),
        ] {
            if set {
                o.insert(key.into(), true.into());
            }
        }
        counts(
            &mut o,
            "cleaned",
            &[
                ("prefixes", self.cleaned.prefixes),
                ("echoes", self.cleaned.echoes),
            ],
        );
        if let Some(path) = &self.path {
            o.insert("path".into(), path.as_str().into());
        }
        if self.files > 0 {
            o.insert("files".into(), self.files.into());
        }
        counts(
            &mut o,
            "lines",
            &[
                ("file", self.lines.file),
                ("shown", self.lines.shown),
                ("added", self.lines.added),
                ("removed", self.lines.removed),
            ],
        );
        counts(
            &mut o,
            "tokens",
            &[
                ("request", self.tokens.request),
                ("result", self.tokens.result),
            ],
        );
        o.insert("ms".into(), ((self.ms * 100.0).round() / 100.0).into());
        let mut line = serde_json::to_vec(&Json::Object(o)).unwrap_or_default();
        line.push(b'\n');
        line
    }

    /// The record a line holds, if it has exactly the shape the writer
    /// gives one; `None` for anything else (a torn line, a planted one, a
    /// line of another format or of a note).
    pub(crate) fn parse(line: &str) -> Option<Record> {
        let o = object(line)?;
        let tool = Tool::parse(o.get("tool")?.as_str()?)?;
        let view = ViewStyle::parse(o.get("view")?.as_str()?)?;
        let outcome = match o.get("outcome")?.as_str()? {
            "ok" => Outcome::Ok,
            "applied" => Outcome::Applied,
            "refused" => Outcome::Refused(Cow::Owned(code(o.get("code")?.as_str()?)?.to_owned())),
            _ => return None,
        };
        let ops = match o.get("ops") {
            None => Vec::new(),
            Some(ops) => {
                let ops = ops.as_array()?;
                if ops.len() > MAX_OPS {
                    return None;
                }
                // Read back, each op is told once, by the engine's own name
                // for it: a planted record of many ops holds no more memory
                // than a few names.
                let mut names = ops
                    .iter()
                    .map(|op| op_name(op.as_str()?).map(Cow::Borrowed))
                    .collect::<Option<Vec<_>>>()?;
                names.sort_unstable();
                names.dedup();
                names
            }
        };
        let doubt = match o.get("doubt") {
            None => None,
            Some(doubt) => Some(Doubted::parse(doubt.as_str()?)?),
        };
        let path = match o.get("path") {
            None => None,
            Some(path) => Some(hashed(path.as_str()?)?.to_owned()),
        };
        let [prefixes, echoes] = read_counts(&o, "cleaned", ["prefixes", "echoes"])?;
        let [file, shown, added, removed] =
            read_counts(&o, "lines", ["file", "shown", "added", "removed"])?;
        let [request, result] = read_counts(&o, "tokens", ["request", "result"])?;
        let ms = o
            .get("ms")?
            .as_f64()
            .filter(|ms| ms.is_finite() && *ms >= 0.0)?;
        Some(Record {
            at: at(&o)?,
            host: read_label(&o, "host")?,
            model: read_label(&o, "model")?,
            call_id: read_label(&o, "callId")?,
            tool,
            ops,
            view,
            outcome,
            doubt,
            remapped: flag(&o, "remapped")?,
            cleaned: Cleaned { prefixes, echoes },
            literal: flag(&o, "literal")?,
            resent: flag(&o, "resent")?,
            path,
            files: optional_count(&o, "files")?,
            lines: Lines {
                file,
                shown,
                added,
                removed,
            },
            tokens: Tokens { request, result },
            ms,
        })
    }
}

/// A note the writer leaves: how many records it could not keep (the queue
/// was full, or writing failed) since its last note.
pub(super) fn lost_line(at: u64, lost: u64) -> Vec<u8> {
    let mut line = format!("{{\"v\":{VERSION},\"at\":{at},\"lost\":{lost}}}").into_bytes();
    line.push(b'\n');
    line
}

/// The records a note says were lost, if the line is such a note.
pub(crate) fn parse_lost(line: &str) -> Option<u64> {
    let o = object(line)?;
    at(&o)?;
    o.get("lost")?.as_u64().filter(|n| *n <= MAX_COUNT)
}

/// The line's object, if it is one of this format.
fn object(line: &str) -> Option<Map<String, Json>> {
    if line.len() > MAX_LINE_BYTES {
        return None;
    }
    match serde_json::from_str::<Json>(line).ok()? {
        Json::Object(o) if o.get("v")?.as_u64()? == VERSION => Some(o),
        _ => None,
    }
}

/// The largest count a record holds: exact as a JSON number.
const MAX_COUNT: u64 = (1 << 53) - 1;
/// Times before 2000 or after 2200 are no time the writer gave.
const EARLIEST_MS: u64 = 946_684_800_000;
const LATEST_MS: u64 = 7_258_118_400_000;

fn at(o: &Map<String, Json>) -> Option<u64> {
    o.get("at")?
        .as_u64()
        .filter(|at| (EARLIEST_MS..LATEST_MS).contains(at))
}

pub(crate) fn view_name(view: ViewStyle) -> &'static str {
    match view {
        ViewStyle::Lean => "lean",
        ViewStyle::Full => "full",
    }
}

/// A label as written: cut to its length limit, control characters
/// (which could steer a terminal that shows it) left out.
fn label(text: &str) -> String {
    text.chars()
        .filter(|c| !c.is_control())
        .take(MAX_LABEL_CHARS)
        .collect()
}

/// A label as read: what `label` writes, else the line is refused.
fn read_label(o: &Map<String, Json>, key: &str) -> Option<Option<String>> {
    match o.get(key) {
        None => Some(None),
        Some(value) => {
            let text = value.as_str()?;
            let fits = text.chars().count() <= MAX_LABEL_CHARS
                && !text.is_empty()
                && !text.chars().any(char::is_control);
            fits.then(|| Some(text.to_owned()))
        }
    }
}

fn flag(o: &Map<String, Json>, key: &str) -> Option<bool> {
    match o.get(key) {
        None => Some(false),
        Some(value) => value.as_bool(),
    }
}

fn optional_count(o: &Map<String, Json>, key: &str) -> Option<u64> {
    match o.get(key) {
        None => Some(0),
        Some(value) => value.as_u64().filter(|n| *n <= MAX_COUNT),
    }
}

/// Writes the counts that are not zero as an object under `key`.
fn counts(o: &mut Map<String, Json>, key: &str, values: &[(&str, u64)]) {
    let fields: Map<String, Json> = values
        .iter()
        .filter(|(_, n)| *n > 0)
        .map(|(name, n)| ((*name).into(), Json::from(*n)))
        .collect();
    if !fields.is_empty() {
        o.insert(key.into(), Json::Object(fields));
    }
}

/// The counts `counts` wrote (zero where left out).
fn read_counts<const N: usize>(
    o: &Map<String, Json>,
    key: &str,
    names: [&str; N],
) -> Option<[u64; N]> {
    let mut out = [0; N];
    let Some(value) = o.get(key) else {
        return Some(out);
    };
    let fields = value.as_object()?;
    for (slot, name) in out.iter_mut().zip(names) {
        *slot = optional_count(fields, name)?;
    }
    Some(out)
}

/// An error code: capitals and underscores.
fn code(text: &str) -> Option<&str> {
    let fits =
        (1..=40).contains(&text.len()) && text.bytes().all(|b| b.is_ascii_uppercase() || b == b'_');
    fits.then_some(text)
}

/// An op's name: small letters and underscores.
fn op_name(text: &str) -> Option<&'static str> {
    let fits =
        (1..=40).contains(&text.len()) && text.bytes().all(|b| b.is_ascii_lowercase() || b == b'_');
    if !fits {
        return None;
    }
    Some(match text {
        "old_string" => "old_string",
        "create" => "create",
        // An op of another version of hashline.
        _ => OpKind::from_name(text).map_or("other", OpKind::name),
    })
}

/// A path's hash: 16 hex digits.
fn hashed(text: &str) -> Option<&str> {
    let fits = text.len() == 16 && text.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'));
    fits.then_some(text)
}
