//! Turns the loosely typed values hosts hand over (whatever the model sent)
//! into a typed `Request`, or an error the model can act on: every alias of
//! the request format is accepted, and nothing else is guessed at.
//!
//! Specified in `docs/format.md` §5.

use crate::error::{excerpt, Error, Result};
use crate::request::{
    split_content, CellFields, CellType, Cites, Field, Metadata, OpKind, Operation, Place, Request,
    Side, Value, AFTER, BEFORE, CELL_TYPE, CONTENT, KEEP_OUTPUTS, LITERAL, METADATA, NEW_STRING,
    OLD_STRING, OP, OPERATIONS, OPERATION_FIELDS, RAW, REF, REPLACE_ALL, REV, THROUGH,
};

impl Value {
    /// The kind of value, as messages name it (`a string`, `null`).
    pub fn type_name(&self) -> &'static str {
        match self {
            Value::Null => "null",
            Value::Bool(_) => "a boolean",
            Value::Number(_) => "a number",
            Value::String(_) => "a string",
            Value::Array(_) => "an array",
            Value::Object(_) => "an object",
        }
    }
}

impl Request {
    /// Decodes a request from loosely typed values, accepting every alias of
    /// [`REQUEST_FIELDS`](crate::REQUEST_FIELDS) and
    /// [`OPERATION_FIELDS`](crate::OPERATION_FIELDS); anything else is an
    /// `INVALID_REQUEST` the model can act on.
    pub fn from_value(value: &Value) -> Result<Request> {
        let Value::Object(fields) = value else {
            return Err(Error::invalid_request(format!(
                "The request must be an object with `operations` (or `oldString` and `newString`), not {}.",
                value.type_name()
            )));
        };
        let mut fields = Fields::new(fields, "the request");
        let operations = fields.take(&OPERATIONS)?;
        let rev = fields.take(&REV)?;
        let old_string = fields.take(&OLD_STRING)?;
        let new_string = fields.take(&NEW_STRING)?;
        let replace_all = fields.take(&REPLACE_ALL)?;
        // The fallback writes `newString` as sent already: `literal` is
        // accepted with it and changes nothing.
        let literal = flag(fields.take(&LITERAL)?, "the request", "literal")?;
        let raw = flag(fields.take(&RAW)?, "the request", "raw")?;
        let keep_outputs = flag(fields.take(&KEEP_OUTPUTS)?, "the request", "keepOutputs")?;
        fields.reject_unknown(
            "operations, rev, literal, raw, keepOutputs, or the fallback oldString, newString, replaceAll",
        )?;
        match (operations, old_string.is_some() || new_string.is_some()) {
            (Some(_), true) => Err(Error::invalid_request(
                "Send either `operations` or `oldString`/`newString`, not both.",
            )),
            (None, false) => Err(Error::invalid_request(
                "The request needs `operations`: [{ op, ref, through?, content? }], or `oldString` and `newString`.",
            )),
            (Some(ops), false) => {
                if replace_all.is_some() {
                    return Err(Error::invalid_request(
                        "`replaceAll` goes with `oldString`/`newString`, not with `operations`.",
                    ));
                }
                let sent_as_text = operations_from_text(ops)?;
                let ops = sent_as_text.as_ref().unwrap_or(ops);
                let Value::Array(items) = ops else {
                    return Err(Error::invalid_request(format!(
                        "`operations` must be an array of operations, not {}.",
                        ops.type_name()
                    )));
                };
                if items.is_empty() {
                    return Err(Error::invalid_request(
                        "`operations` is empty: give at least one operation.",
                    ));
                }
                let operations = items
                    .iter()
                    .enumerate()
                    .map(|(i, item)| {
                        let mut op = parse_operation(i + 1, item)?;
                        op.cell.raw = raw;
                        op.cell.keep_outputs = keep_outputs;
                        Ok(if literal { op.literal() } else { op })
                    })
                    .collect::<Result<Vec<_>>>()?;
                let rev = match rev {
                    None | Some(Value::Null) => None,
                    Some(v) => parse_rev(&string_field(v, "rev")?)?,
                };
                Ok(Request::Operations { operations, rev })
            }
            (None, true) => {
                if rev.is_some() {
                    return Err(Error::invalid_request(
                        "`rev` goes with `operations`, not with `oldString`/`newString`.",
                    ));
                }
                if raw {
                    return Err(Error::invalid_request(
                        "`raw` goes with `operations` citing the lines a read with `raw` showed, not with `oldString`/`newString` (which, in a notebook, replace text of its cells).",
                    ));
                }
                let old_string = old_string
                    .map(|v| text_field(v, "oldString"))
                    .transpose()?
                    .ok_or_else(|| Error::invalid_request("`newString` needs `oldString` (use an empty `oldString` to create a file)."))?;
                let new_string = new_string
                    .map(|v| text_field(v, "newString"))
                    .transpose()?
                    .ok_or_else(|| Error::invalid_request("`oldString` needs `newString` (use an empty `newString` to delete the text)."))?;
                let replace_all = match replace_all {
                    None | Some(Value::Null) => false,
                    Some(Value::Bool(b)) => *b,
                    Some(other) => {
                        return Err(Error::invalid_request(format!(
                            "`replaceAll` must be true or false, not {}.",
                            other.type_name()
                        )))
                    }
                };
                Ok(Request::Replace {
                    old_string,
                    new_string,
                    replace_all,
                })
            }
        }
    }
}

/// The operations array some models send as JSON text instead of an array:
/// text that starts with `[` can mean nothing else, so it is decoded; any
/// other string is left for the type check to refuse.
fn operations_from_text(value: &Value) -> Result<Option<Value>> {
    let Value::String(text) = value else {
        return Ok(None);
    };
    if !text.trim_start().starts_with('[') {
        return Ok(None);
    }
    let parsed: serde_json::Value = serde_json::from_str(text).map_err(|_| {
        Error::invalid_request(
            "`operations` must be an array of operations; the text given is not valid JSON.",
        )
    })?;
    Ok(Some(from_json(parsed)))
}

/// A decoded JSON value as the request's loosely typed value.
fn from_json(value: serde_json::Value) -> Value {
    match value {
        serde_json::Value::Null => Value::Null,
        serde_json::Value::Bool(b) => Value::Bool(b),
        serde_json::Value::Number(n) => Value::Number(n.as_f64().unwrap_or(f64::NAN)),
        serde_json::Value::String(s) => Value::String(s),
        serde_json::Value::Array(items) => Value::Array(items.into_iter().map(from_json).collect()),
        serde_json::Value::Object(fields) => {
            Value::Object(fields.into_iter().map(|(k, v)| (k, from_json(v))).collect())
        }
    }
}

/// A REV as the view shows it (`REV:72C4946C`) or bare, any case; an empty
/// string counts as none.
fn parse_rev(text: &str) -> Result<Option<String>> {
    let trimmed = text.trim();
    let bare = trimmed
        .strip_prefix("REV:")
        .or_else(|| trimmed.strip_prefix("rev:"))
        .unwrap_or(trimmed)
        .trim();
    if bare.is_empty() {
        return Ok(None);
    }
    if bare.len() == 8 && bare.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Ok(Some(bare.to_ascii_uppercase()));
    }
    Err(Error::invalid_request(format!(
        "`rev` {} is not a REV: it is 8 hex digits as the view's header shows it, e.g. 72C4946C. Leave it out if unsure.",
        excerpt(text)
    )))
}

fn string_field(value: &Value, name: &str) -> Result<String> {
    match value {
        Value::String(s) => Ok(s.clone()),
        other => Err(Error::invalid_request(format!(
            "`{name}` must be a string, not {}.",
            other.type_name()
        ))),
    }
}

/// A string that becomes text of the file, without a NUL byte.
fn text_field(value: &Value, name: &str) -> Result<String> {
    let text = string_field(value, name)?;
    refuse_nul(|| format!("`{name}`"), text.split('\n'))?;
    Ok(text)
}

/// A NUL byte makes a file binary, and the engine edits no binary file: one
/// in new text is refused rather than written into a file that could then
/// not be edited again.
fn refuse_nul<'a>(
    what: impl FnOnce() -> String,
    lines: impl IntoIterator<Item = &'a str>,
) -> Result<()> {
    for (i, line) in lines.into_iter().enumerate() {
        if let Some(at) = memchr::memchr(0, line.as_bytes()) {
            let character = line[..at].chars().count() + 1;
            return Err(Error::invalid_request(format!(
                "{} holds a NUL byte (its line {}, character {character}); a text file cannot hold one. If the code needs that character, write it as an escape such as \\0.",
                what(),
                i + 1
            )));
        }
    }
    Ok(())
}

fn parse_operation(number: usize, value: &Value) -> Result<Operation> {
    let at = format!("operation {number}");
    let Value::Object(fields) = value else {
        return Err(Error::invalid_request(format!(
            "{at} must be an object like {{ \"op\": \"replace\", \"ref\": \"12#A3F#9BC\", \"content\": \"...\" }}, not {}.",
            value.type_name()
        )));
    };
    let mut fields = Fields::new(fields, &at);
    let op = fields.take(&OP)?;
    let reference = fields.take(&REF)?;
    let through = fields.take(&THROUGH)?;
    let content = fields.take(&CONTENT)?;
    let after = fields.take(&AFTER)?;
    let before = fields.take(&BEFORE)?;
    let cell_type = fields.take(&CELL_TYPE)?;
    let metadata = fields.take(&METADATA)?;
    let literal = flag(fields.take(&LITERAL)?, &at, "literal")?;
    fields.reject_unknown(
        &OPERATION_FIELDS
            .iter()
            .map(|f| f.name)
            .collect::<Vec<_>>()
            .join(", "),
    )?;

    let kind = match op {
        Some(Value::String(name)) => OpKind::from_name(name).ok_or_else(|| {
            Error::invalid_request(format!(
                "{at}: unknown op {}. Valid ops: {}.",
                excerpt(name),
                OpKind::names()
            ))
        })?,
        Some(other) => {
            return Err(Error::invalid_request(format!(
                "{at}: `op` must be a string (one of {}), not {}.",
                OpKind::names(),
                other.type_name()
            )))
        }
        None => {
            return Err(Error::invalid_request(format!(
                "{at} has no `op`. Valid ops: {}.",
                OpKind::names()
            )))
        }
    };
    let ref_text = |value: Option<&Value>, name: &str| -> Result<Option<String>> {
        match value {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) if s.trim().is_empty() => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(other) => Err(Error::invalid_request(format!(
                "{at} ({kind}): `{name}` must be a ref string like \"12#A3F#9BC\", not {}.",
                other.type_name()
            ))),
        }
    };
    let reference = ref_text(reference, "ref")?;
    let through = ref_text(through, "through")?;
    let after = ref_text(after, "after")?;
    let before = ref_text(before, "before")?;
    let content = match content {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(split_content(s)),
        Some(Value::Array(items)) => {
            let mut lines = Vec::with_capacity(items.len());
            for item in items {
                match item {
                    Value::String(s) if s.is_empty() => lines.push(String::new()),
                    Value::String(s) => lines.extend(split_content(s)),
                    other => {
                        return Err(Error::invalid_request(format!(
                            "{at} ({kind}): `content` must be a string or an array of strings; it holds {}.",
                            other.type_name()
                        )))
                    }
                }
            }
            Some(lines)
        }
        Some(other) => {
            return Err(Error::invalid_request(format!(
                "{at} ({kind}): `content` must be a string, not {}.",
                other.type_name()
            )))
        }
    };

    let shape = kind.shape();
    if shape.reference && reference.is_none() {
        return Err(Error::invalid_request(format!(
            "{at} ({kind}) needs `ref`: the ref of a line from the view, like \"12#A3F#9BC\"."
        )));
    }
    if !shape.reference && (reference.is_some() || through.is_some()) {
        return Err(Error::invalid_request(format!(
            "{at} ({kind}) takes no `ref` or `through`: it adds at the {} of the file. To add next to a line use {}.",
            if kind.cites() == Cites::Start { "start" } else { "end" },
            OpKind::names_or(&kind.on_lines())
        )));
    }
    if through.is_some() && shape.block {
        return Err(Error::invalid_request(format!(
            "{at} ({kind}) takes no `through`: it cites only the block's first line and the engine finds its last. To give the range yourself use {}.",
            OpKind::names_or(&kind.on_lines())
        )));
    }
    if through.is_some() && !shape.through {
        return Err(Error::invalid_request(format!(
            "{at} ({kind}) takes no `through`: only {} cover a range.",
            OpKind::names_where(|s| s.through)
        )));
    }
    let place = match (after, before, shape.place) {
        (Some(_), Some(_), true) => {
            return Err(Error::invalid_request(format!(
                "{at} ({kind}) has both `after` and `before`; give one: the ref of the line to put the lines after, or before."
            )))
        }
        (None, None, true) => {
            return Err(Error::invalid_request(format!(
                "{at} ({kind}) needs `after` or `before`: the ref of the line to put the lines after (or before). For the end of the file, `after` the last line; for the start, `before` line 1."
            )))
        }
        (Some(reference), None, true) => Some(Place {
            side: Side::After,
            reference,
        }),
        (None, Some(reference), true) => Some(Place {
            side: Side::Before,
            reference,
        }),
        (None, None, false) => None,
        (after, _, false) => {
            let field = if after.is_some() { "after" } else { "before" };
            return Err(Error::invalid_request(format!(
                "{at} ({kind}) takes no `{field}`: only {} take a place. To add new lines next to a line use insert_before or insert_after with `ref`.",
                OpKind::names_where(|s| s.place)
            )));
        }
    };
    let content = match (content, shape.content) {
        (Some(_), false) if shape.place => {
            return Err(Error::invalid_request(format!(
                "{at} ({kind}) takes no `content`: it takes lines `ref`..`through` as the file has them. To write new lines use replace or insert_before/insert_after."
            )))
        }
        (Some(_), false) => {
            return Err(Error::invalid_request(format!(
                "{at} ({kind}) takes no `content`; to put new lines in place of old ones use {}.",
                kind.replacing().map_or("replace", OpKind::name)
            )))
        }
        (None, true) => {
            return Err(Error::invalid_request(format!(
                "{at} ({kind}) needs `content`, the new lines as one string (\"\" for none)."
            )))
        }
        (content, _) => content.unwrap_or_default(),
    };
    refuse_nul(
        || format!("{at} ({kind}): `content`"),
        content.iter().map(String::as_str),
    )?;
    let cell_type = match (cell_type, shape.cell_type) {
        (Some(Value::String(name)), true) => Some(CellType::from_name(name).ok_or_else(|| {
            Error::invalid_request(format!(
                "{at} ({kind}): `cellType` {} is not a cell type: {}.",
                excerpt(name),
                cell_type_names()
            ))
        })?),
        (Some(other), true) => {
            return Err(Error::invalid_request(format!(
                "{at} ({kind}): `cellType` must be a string ({}), not {}.",
                cell_type_names(),
                other.type_name()
            )))
        }
        (None, true) => {
            return Err(Error::invalid_request(format!(
                "{at} ({kind}) needs `cellType`: {}.",
                cell_type_names()
            )))
        }
        (Some(_), false) => {
            return Err(Error::invalid_request(format!(
                "{at} ({kind}) takes no `cellType`: only {} do; to change a cell's type use set_cell_type.",
                OpKind::names_where(|s| s.cell_type)
            )))
        }
        (None, false) => None,
    };
    let metadata = match (metadata, shape.metadata) {
        (Some(value), true) => Some(metadata_field(&at, kind, value)?),
        (None, true) => {
            return Err(Error::invalid_request(format!(
                "{at} ({kind}) needs `metadata`: an object of the keys to set, e.g. {{\"tags\": [\"parameters\"]}} (null removes a key)."
            )))
        }
        (Some(_), false) => {
            return Err(Error::invalid_request(format!(
                "{at} ({kind}) takes no `metadata`: only {} does.",
                OpKind::names_where(|s| s.metadata)
            )))
        }
        (None, false) => None,
    };
    Ok(Operation {
        kind,
        reference,
        through,
        content,
        place,
        literal,
        cell: CellFields {
            cell_type,
            metadata,
            ..CellFields::default()
        },
    })
}

/// The names of the cell types, for messages: `code, markdown or raw`.
fn cell_type_names() -> String {
    let names: Vec<&str> = CellType::ALL.iter().map(|t| t.name()).collect();
    match names.split_last() {
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
        None => String::new(),
    }
}

/// The keys of a cell's metadata to set: an object, or that object as JSON
/// text (as some models send objects), with no number that JSON cannot
/// hold.
fn metadata_field(at: &str, kind: OpKind, value: &Value) -> Result<Metadata> {
    let decoded;
    let value = match value {
        Value::String(text) if text.trim_start().starts_with('{') => {
            let parsed: serde_json::Value = serde_json::from_str(text).map_err(|_| {
                Error::invalid_request(format!(
                    "{at} ({kind}): `metadata` must be an object; the text given is not valid JSON."
                ))
            })?;
            decoded = from_json(parsed);
            &decoded
        }
        value => value,
    };
    let Value::Object(fields) = value else {
        return Err(Error::invalid_request(format!(
            "{at} ({kind}): `metadata` must be an object of the keys to set, not {}.",
            value.type_name()
        )));
    };
    fn finite(value: &Value) -> bool {
        match value {
            Value::Number(n) => n.is_finite(),
            Value::Array(items) => items.iter().all(finite),
            Value::Object(fields) => fields.iter().all(|(_, v)| finite(v)),
            _ => true,
        }
    }
    if !finite(value) {
        return Err(Error::invalid_request(format!(
            "{at} ({kind}): `metadata` holds a number JSON cannot write (NaN or an infinity)."
        )));
    }
    for (i, (key, _)) in fields.iter().enumerate() {
        if fields[..i].iter().any(|(k, _)| k == key) {
            return Err(Error::invalid_request(format!(
                "{at} ({kind}): `metadata` names the key {} twice.",
                excerpt(key)
            )));
        }
    }
    Ok(Metadata(fields.clone()))
}

/// A yes-or-no field: a boolean, or `"true"`/`"false"` as models sometimes
/// quote them; absent or null is no.
fn flag(value: Option<&Value>, at: &str, name: &str) -> Result<bool> {
    match value {
        None | Some(Value::Null) => Ok(false),
        Some(Value::Bool(b)) => Ok(*b),
        Some(Value::String(s)) if s.trim().eq_ignore_ascii_case("true") => Ok(true),
        Some(Value::String(s)) if s.trim().eq_ignore_ascii_case("false") => Ok(false),
        Some(other) => Err(Error::invalid_request(format!(
            "{at}: `{name}` must be true or false, not {}.",
            other.type_name()
        ))),
    }
}

/// The fields of one object, taken out by name so that whatever is left
/// over is reported as unknown.
struct Fields<'a> {
    fields: Vec<&'a (String, Value)>,
    context: &'a str,
}

impl<'a> Fields<'a> {
    fn new(fields: &'a [(String, Value)], context: &'a str) -> Self {
        Fields {
            fields: fields.iter().collect(),
            context,
        }
    }

    /// The value under the field's name or any alias; two of them at once is an error
    /// because the model's intent is then unclear.
    /// A known field set to null counts as absent: strict tool-calling
    /// schemas send every optional field, null when unused.
    fn take(&mut self, field: &Field) -> Result<Option<&'a Value>> {
        let mut found: Option<&'a (String, Value)> = None;
        let mut i = 0;
        while i < self.fields.len() {
            if field.names().any(|name| name == self.fields[i].0) {
                let field = self.fields.remove(i);
                if field.1 == Value::Null {
                    continue;
                }
                if let Some(first) = found {
                    return Err(Error::invalid_request(format!(
                        "{} has both `{}` and `{}`, which mean the same; send one.",
                        self.context, first.0, field.0
                    )));
                }
                found = Some(field);
            } else {
                i += 1;
            }
        }
        Ok(found.map(|(_, v)| v))
    }

    fn reject_unknown(&self, known: &str) -> Result<()> {
        match self.fields.first() {
            None => Ok(()),
            Some((name, _)) => Err(Error::invalid_request(format!(
                "{} has an unknown field `{name}`. Known fields: {known}.",
                self.context
            ))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorCode;

    fn s(v: &str) -> Value {
        Value::String(v.into())
    }

    fn obj(fields: &[(&str, Value)]) -> Value {
        Value::Object(
            fields
                .iter()
                .map(|(k, v)| (k.to_string(), v.clone()))
                .collect(),
        )
    }

    fn ops(items: Vec<Value>) -> Value {
        obj(&[("operations", Value::Array(items))])
    }

    #[test]
    fn content_splits_on_any_line_ending_and_drops_one_final_newline() {
        assert_eq!(split_content(""), Vec::<String>::new());
        assert_eq!(split_content("\n"), vec![""]);
        assert_eq!(split_content("a\nb\n"), vec!["a", "b"]);
        assert_eq!(split_content("a\r\nb\rc"), vec!["a", "b", "c"]);
        assert_eq!(split_content("a\n\n"), vec!["a", ""]);
    }

    #[test]
    fn parses_operations_with_aliases_and_op_spellings() {
        let req = Request::from_value(&obj(&[
            (
                "operations",
                Value::Array(vec![
                    obj(&[
                        ("op", s("insertAfter")),
                        ("pos", s("3#ABC")),
                        ("lines", Value::Array(vec![s("x"), s("y\nz")])),
                    ]),
                    obj(&[
                        ("type", s("replace")),
                        ("startRef", s("1#ABC")),
                        ("endRef", s("2#ABC")),
                        ("new_string", s("q")),
                    ]),
                ]),
            ),
            ("rev", s("72C4946C")),
        ]))
        .unwrap();
        let Request::Operations { operations, rev } = req else {
            panic!()
        };
        assert_eq!(rev.as_deref(), Some("72C4946C"));
        assert_eq!(operations[0].kind, OpKind::InsertAfter);
        assert_eq!(operations[0].content, vec!["x", "y", "z"]);
        assert_eq!(operations[1].through.as_deref(), Some("2#ABC"));
    }

    #[test]
    fn rejects_malformed_requests_with_a_reason() {
        let cases: Vec<(Value, &str)> = vec![
            (s("x"), "must be an object"),
            (obj(&[]), "needs `operations`"),
            (ops(vec![]), "is empty"),
            (obj(&[("operations", s("x"))]), "must be an array"),
            (ops(vec![s("x")]), "operation 1 must be an object"),
            (ops(vec![obj(&[("ref", s("1#ABC"))])]), "has no `op`"),
            (
                ops(vec![obj(&[("op", s("swap")), ("ref", s("1#ABC"))])]),
                "unknown op \"swap\"",
            ),
            (
                ops(vec![obj(&[("op", Value::Number(1.0))])]),
                "`op` must be a string",
            ),
            (
                ops(vec![obj(&[("op", s("replace")), ("content", s("x"))])]),
                "needs `ref`",
            ),
            (
                ops(vec![obj(&[("op", s("replace")), ("ref", s("1#ABC"))])]),
                "needs `content`",
            ),
            (
                ops(vec![obj(&[
                    ("op", s("delete")),
                    ("ref", s("1#ABC")),
                    ("content", s("x")),
                ])]),
                "takes no `content`",
            ),
            (
                ops(vec![obj(&[
                    ("op", s("append")),
                    ("ref", s("1#ABC")),
                    ("content", s("x")),
                ])]),
                "takes no `ref`",
            ),
            (
                ops(vec![obj(&[
                    ("op", s("insert_after")),
                    ("ref", s("1#ABC")),
                    ("through", s("2#ABC")),
                    ("content", s("x")),
                ])]),
                "takes no `through`",
            ),
            (
                ops(vec![obj(&[
                    ("op", s("replace")),
                    ("ref", Value::Number(3.0)),
                    ("content", s("x")),
                ])]),
                "must be a ref string",
            ),
            (
                ops(vec![obj(&[
                    ("op", s("replace")),
                    ("ref", s("1#ABC")),
                    ("content", Value::Bool(true)),
                ])]),
                "must be a string",
            ),
            (
                ops(vec![obj(&[
                    ("op", s("replace")),
                    ("ref", s("1#ABC")),
                    ("content", Value::Array(vec![Value::Null])),
                ])]),
                "holds null",
            ),
            (
                ops(vec![obj(&[
                    ("op", s("replace")),
                    ("ref", s("1#ABC")),
                    ("start", s("1#ABC")),
                    ("content", s("x")),
                ])]),
                "both `ref` and `start`",
            ),
            (
                ops(vec![obj(&[
                    ("op", s("replace")),
                    ("ref", s("1#ABC")),
                    ("content", s("x")),
                    ("indent", s("2")),
                ])]),
                "unknown field `indent`",
            ),
            (
                obj(&[("operations", Value::Array(vec![])), ("oldString", s("a"))]),
                "not both",
            ),
            (obj(&[("oldString", s("a"))]), "needs `newString`"),
            (
                obj(&[
                    ("oldString", s("a")),
                    ("newString", s("b")),
                    ("replaceAll", s("yes")),
                ]),
                "true or false",
            ),
            (
                obj(&[("oldString", Value::Number(1.0)), ("newString", s("b"))]),
                "`oldString` must be a string",
            ),
            (
                ops(vec![obj(&[
                    ("op", s("replace")),
                    ("ref", s("1#ABC")),
                    ("content", s("a\nb\0c")),
                ])]),
                "operation 1 (replace): `content` holds a NUL byte (its line 2, character 2)",
            ),
            (
                ops(vec![obj(&[
                    ("op", s("append")),
                    ("lines", Value::Array(vec![s("a"), s("\0")])),
                ])]),
                "operation 1 (append): `content` holds a NUL byte (its line 2, character 1)",
            ),
            (
                obj(&[("oldString", s("a")), ("newString", s("x\0"))]),
                "`newString` holds a NUL byte (its line 1, character 2)",
            ),
            (
                obj(&[("oldString", s("é\0")), ("newString", s("x"))]),
                "`oldString` holds a NUL byte (its line 1, character 2)",
            ),
        ];
        for (value, want) in cases {
            let err = Request::from_value(&value).unwrap_err();
            assert_eq!(err.code, ErrorCode::InvalidRequest);
            assert!(
                err.message.contains(want),
                "{want:?} not in {:?}",
                err.message
            );
        }
    }

    #[test]
    fn move_and_copy_take_a_range_and_exactly_one_place_and_no_content() {
        let parsed = |fields: &[(&str, Value)]| {
            let Request::Operations { mut operations, .. } =
                Request::from_value(&ops(vec![obj(fields)])).unwrap()
            else {
                panic!()
            };
            operations.remove(0)
        };
        let op = parsed(&[
            ("op", s("Move")),
            ("ref", s("2ab")),
            ("through", s("4cd")),
            ("after", s("9ef")),
        ]);
        assert_eq!(op.kind, OpKind::Move);
        assert_eq!(op.through.as_deref(), Some("4cd"));
        assert_eq!(
            op.place,
            Some(Place {
                side: Side::After,
                reference: "9ef".into()
            })
        );
        let op = parsed(&[
            ("op", s("copy")),
            ("ref", s("2ab")),
            ("before", s("1ef")),
            ("after", Value::Null),
        ]);
        assert_eq!(op.place.map(|p| p.side), Some(Side::Before));

        let cases: Vec<(Vec<(&str, Value)>, &str)> = vec![
            (
                vec![("op", s("move")), ("ref", s("2ab"))],
                "operation 1 (move) needs `after` or `before`",
            ),
            (
                vec![
                    ("op", s("copy")),
                    ("ref", s("2ab")),
                    ("after", s("3ab")),
                    ("before", s("4ab")),
                ],
                "has both `after` and `before`",
            ),
            (
                vec![("op", s("move")), ("after", s("3ab"))],
                "operation 1 (move) needs `ref`",
            ),
            (
                vec![
                    ("op", s("move")),
                    ("ref", s("2ab")),
                    ("after", s("3ab")),
                    ("content", s("x")),
                ],
                "(move) takes no `content`",
            ),
            (
                vec![
                    ("op", s("insert_after")),
                    ("ref", s("2ab")),
                    ("after", s("3ab")),
                    ("content", s("x")),
                ],
                "(insert_after) takes no `after`",
            ),
            (
                vec![("op", s("delete")), ("ref", s("2ab")), ("before", s("3ab"))],
                "(delete) takes no `before`",
            ),
            (
                vec![
                    ("op", s("copy")),
                    ("ref", s("2ab")),
                    ("after", Value::Number(3.0)),
                ],
                "`after` must be a ref string",
            ),
        ];
        for (fields, want) in cases {
            let err = Request::from_value(&ops(vec![obj(&fields)])).unwrap_err();
            assert_eq!(err.code, ErrorCode::InvalidRequest);
            assert!(
                err.message.contains(want),
                "{want:?} not in {:?}",
                err.message
            );
        }
    }

    #[test]
    fn operations_sent_as_json_text_are_decoded_under_every_alias() {
        let text = r#" [{"op":"insert_after","ref":"3#ABC","content":"x\ny","literal":null}]"#;
        for name in ["operations", "ops", "edits"] {
            let Request::Operations { operations, .. } =
                Request::from_value(&obj(&[(name, s(text))])).unwrap()
            else {
                panic!()
            };
            assert_eq!(operations.len(), 1);
            assert_eq!(operations[0].kind, OpKind::InsertAfter);
            assert_eq!(operations[0].reference.as_deref(), Some("3#ABC"));
            assert_eq!(operations[0].content, vec!["x", "y"]);
        }
        let err = Request::from_value(&obj(&[("ops", s("[oops"))])).unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidRequest);
        assert!(err.message.contains("not valid JSON"), "{}", err.message);
        // Text that is not an array is not taken for one.
        let err =
            Request::from_value(&obj(&[("operations", s("{\"op\":\"append\"}"))])).unwrap_err();
        assert!(
            err.message
                .contains("must be an array of operations, not a string"),
            "{}",
            err.message
        );
    }

    #[test]
    fn null_fields_count_as_absent() {
        let req = Request::from_value(&obj(&[
            (
                "operations",
                Value::Array(vec![obj(&[
                    ("op", s("append")),
                    ("ref", Value::Null),
                    ("content", s("x")),
                ])]),
            ),
            ("oldString", Value::Null),
            ("rev", Value::Null),
        ]))
        .unwrap();
        assert!(matches!(req, Request::Operations { rev: None, .. }));
    }

    #[test]
    fn messages_quote_only_the_start_of_huge_values() {
        let huge = "x".repeat(1 << 20);
        let err = Request::from_value(&obj(&[(
            "operations",
            Value::Array(vec![obj(&[("op", s(&huge))])]),
        )]))
        .unwrap_err();
        assert!(err.message.len() < 400, "{}", err.message.len());
    }

    #[test]
    fn parses_the_fallback() {
        let req = Request::from_value(&obj(&[
            ("oldString", s("a")),
            ("newString", s("b")),
            ("replaceAll", Value::Bool(true)),
        ]))
        .unwrap();
        assert_eq!(
            req,
            Request::Replace {
                old_string: "a".into(),
                new_string: "b".into(),
                replace_all: true
            }
        );
    }
}
