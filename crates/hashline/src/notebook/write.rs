//! The new text of a notebook: its cells in their new order, each one the
//! change left alone copied from the file byte for byte, each changed one
//! with only its changed members written again, and each new one written
//! as Jupyter writes cells, in the file's own layout (indentation, key
//! order, escapes) where it has one.

use super::cells::{Cell, Notebook};
use super::json::{self, line_indent, Item, Json, Layout};
use crate::request::{CellType, Metadata, Value};
use std::borrow::Cow;

/// A source as nbformat writes it: its lines as `str.splitlines(True)`
/// splits them (at `\n`, `\r\n`, `\r`, `\v`, `\f`, `\x1c`-`\x1e`, `\x85`,
/// U+2028 and U+2029), each with its line break.
pub(crate) fn python_lines(source: &str) -> Vec<&str> {
    let mut lines = Vec::new();
    let mut start = 0;
    let mut chars = source.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        let end = match c {
            '\r' => match chars.next_if(|&(_, c)| c == '\n') {
                Some(_) => i + 2,
                None => i + 1,
            },
            '\n' | '\u{b}' | '\u{c}' | '\u{1c}' | '\u{1d}' | '\u{1e}' | '\u{85}' | '\u{2028}'
            | '\u{2029}' => i + c.len_utf8(),
            _ => continue,
        };
        lines.push(&source[start..end]);
        start = end;
    }
    if start < source.len() {
        lines.push(&source[start..]);
    }
    lines
}

fn source_json(source: &str) -> Json {
    Json::Array(
        python_lines(source)
            .into_iter()
            .map(|l| Json::String(l.to_owned()))
            .collect(),
    )
}

/// What becomes of a cell the request keeps.
#[derive(Debug, Clone, Default)]
pub(crate) struct Changed<'r> {
    /// Its new source.
    pub source: Option<String>,
    /// Its new type.
    pub kind: Option<CellType>,
    /// Its outputs and execution count are cleared.
    pub clear_outputs: bool,
    /// Keys of its metadata to set.
    pub metadata: Vec<&'r Metadata>,
}

/// A cell as it will be written.
pub(crate) enum Written<'r> {
    /// Cell `index` of the file, changed or not.
    Kept(usize, Changed<'r>),
    /// A new cell.
    New {
        kind: CellType,
        id: Option<String>,
        source: String,
    },
}

/// The notebook's text with `cells` in place of its cells, or why a change
/// cannot be written.
pub(crate) fn notebook(nb: &Notebook<'_>, cells: &[Written<'_>]) -> Result<String, String> {
    let text = nb.text;
    let indent = nb.array_indent();
    let cell_indent = match nb.array.items.first() {
        Some(first) => line_indent(text, first.start).to_owned(),
        None => nb.layout.inner(indent),
    };
    let items: Vec<Item<'_>> = cells
        .iter()
        .map(|cell| match cell {
            Written::Kept(i, changed) => Ok(Item::Kept(*i, edited(nb, *i, changed)?)),
            Written::New { kind, id, source } => Ok(Item::New(new_cell(
                nb,
                *kind,
                id.as_deref(),
                source,
                &cell_indent,
            ))),
        })
        .collect::<Result<_, String>>()?;
    let array = json::rebuild(text, &nb.array, &items, indent, &nb.layout);
    Ok(format!(
        "{}{array}{}",
        &text[..nb.array.span.start],
        &text[nb.array.span.end..]
    ))
}

/// Where a new member goes among `keys`: in order where the keys are
/// sorted, else last.
fn place(keys: &[&str], key: &str, sorted: bool) -> usize {
    if sorted {
        keys.iter().position(|k| *k > key).unwrap_or(keys.len())
    } else {
        keys.len()
    }
}

/// An object's items, kept or new, each with its key, for new members to
/// go among.
struct Members<'t> {
    items: Vec<(String, Item<'t>)>,
    sorted: bool,
}

impl<'t> Members<'t> {
    fn add(&mut self, key: &str, text: String) {
        let keys: Vec<&str> = self.items.iter().map(|(k, _)| k.as_str()).collect();
        let at = place(&keys, key, self.sorted);
        self.items.insert(at, (key.to_owned(), Item::New(text)));
    }

    fn into_items(self) -> Vec<Item<'t>> {
        self.items.into_iter().map(|(_, item)| item).collect()
    }
}

/// Cell `index` of the file with `changed` applied: the members it does
/// not change copied as they are.
fn edited<'t>(
    nb: &Notebook<'t>,
    index: usize,
    changed: &Changed<'_>,
) -> Result<Cow<'t, str>, String> {
    let text = nb.text;
    let cell = &nb.cells[index];
    if changed.source.is_none()
        && changed.kind.is_none()
        && !changed.clear_outputs
        && changed.metadata.is_empty()
    {
        return Ok(Cow::Borrowed(&text[cell.object.span.clone()]));
    }
    let layout = &nb.layout;
    let member_indent = match cell.object.items.first() {
        Some(first) => line_indent(text, first.start).to_owned(),
        None => layout.inner(line_indent(text, cell.object.span.start)),
    };
    let code = match changed.kind {
        Some(kind) => kind == CellType::Code,
        None => cell.kind == "code",
    };
    let sorted = cell.members.windows(2).all(|w| w[0].key <= w[1].key);
    let mut members = Members {
        items: Vec::new(),
        sorted,
    };
    for (i, member) in cell.members.iter().enumerate() {
        let whole = cell.object.items[i].clone();
        let head = &text[whole.start..member.value.start];
        let with = |value: &str| Item::Kept(i, Cow::Owned(format!("{head}{value}")));
        let item = match member.key.as_str() {
            "source" => match &changed.source {
                Some(source) => {
                    let mut value = String::new();
                    let layout = nested(text, member, &member_indent, layout);
                    json::write(&mut value, &source_json(source), &member_indent, &layout);
                    with(&value)
                }
                None => Item::Kept(i, Cow::Borrowed(&text[whole])),
            },
            "cell_type" => match changed.kind {
                Some(kind) => {
                    let mut value = String::new();
                    json::string(&mut value, kind.name(), layout);
                    with(&value)
                }
                None => Item::Kept(i, Cow::Borrowed(&text[whole])),
            },
            "outputs" | "execution_count" if !code => continue,
            "outputs" if changed.clear_outputs => with("[]"),
            "execution_count" if changed.clear_outputs => with("null"),
            "attachments" if code => continue,
            "metadata" if !changed.metadata.is_empty() => with(&metadata(
                nb,
                cell,
                member,
                &changed.metadata,
                &member_indent,
            )?),
            _ => Item::Kept(i, Cow::Borrowed(&text[whole])),
        };
        members.items.push((member.key.clone(), item));
    }
    if code && cell.kind != "code" {
        for (key, value) in [
            ("execution_count", Json::Null),
            ("outputs", Json::Array(Vec::new())),
        ] {
            members.add(key, json::member(key, &value, &member_indent, layout));
        }
    }
    let indent = line_indent(text, cell.object.span.start);
    Ok(Cow::Owned(json::rebuild(
        text,
        &cell.object,
        &members.into_items(),
        indent,
        layout,
    )))
}

/// The layout to write a new value of `member` in: the indent its old
/// value's items had past `member_indent`, where they were on lines of
/// their own, else the file's.
fn nested<'l>(
    text: &str,
    member: &json::Member<'_>,
    member_indent: &str,
    layout: &'l Layout,
) -> Cow<'l, Layout> {
    let unit = json::array(text, member.raw).ok().and_then(|(array, _)| {
        let first = array.items.first()?;
        json::starts_line(text, first.start)
            .then(|| line_indent(text, first.start).strip_prefix(member_indent))
            .flatten()
            .filter(|unit| !unit.is_empty() && *unit != layout.unit)
            .map(str::to_owned)
    });
    match unit {
        Some(unit) => Cow::Owned(Layout {
            unit,
            ..layout.clone()
        }),
        None => Cow::Borrowed(layout),
    }
}

/// The cell's metadata object with the keys of `sets` set (or, for null,
/// removed); a key set to the value it has keeps its bytes. Metadata that
/// cannot be read member by member (a key twice, whose value a reader picks
/// as it likes) is not written over.
fn metadata(
    nb: &Notebook<'_>,
    cell: &Cell<'_>,
    member: &json::Member<'_>,
    sets: &[&Metadata],
    member_indent: &str,
) -> Result<String, String> {
    let text = nb.text;
    let layout = &nb.layout;
    let (object, members) = json::object(text, member.raw).map_err(|why| {
        format!("set_cell_metadata changes metadata that cannot be read member by member ({why})")
    })?;
    let inner = match object.items.first() {
        Some(first) => line_indent(text, first.start).to_owned(),
        None => layout.inner(member_indent),
    };
    let old = &cell.value["metadata"];
    let set: Vec<&(String, Value)> = sets.iter().flat_map(|m| m.0.iter()).collect();
    let value_of = |key: &str| set.iter().rev().find(|(k, _)| k == key).map(|(_, v)| v);
    let mut items = Members {
        items: Vec::new(),
        sorted: layout.sorted && members.windows(2).all(|w| w[0].key <= w[1].key),
    };
    for (i, m) in members.iter().enumerate() {
        let whole = object.items[i].clone();
        match value_of(&m.key) {
            Some(Value::Null) => {}
            Some(value) if !same(&old[&m.key], value) => {
                let mut written = String::new();
                json::write(
                    &mut written,
                    &Json::from_value(value, layout),
                    &inner,
                    layout,
                );
                let head = &text[whole.start..m.value.start];
                items.items.push((
                    m.key.clone(),
                    Item::Kept(i, Cow::Owned(format!("{head}{written}"))),
                ));
            }
            _ => items
                .items
                .push((m.key.clone(), Item::Kept(i, Cow::Borrowed(&text[whole])))),
        }
    }
    let mut added: Vec<&str> = Vec::new();
    for (key, value) in &set {
        if *value == Value::Null
            || members.iter().any(|m| m.key == *key)
            || added.contains(&key.as_str())
        {
            continue;
        }
        added.push(key);
        let value = value_of(key).unwrap_or(value);
        items.add(
            key,
            json::member(key, &Json::from_value(value, layout), &inner, layout),
        );
    }
    Ok(json::rebuild(
        text,
        &object,
        &items.into_items(),
        member_indent,
        layout,
    ))
}

/// Whether a value of the file and one a host handed over are the same
/// JSON value.
fn same(old: &serde_json::Value, new: &Value) -> bool {
    match (old, new) {
        (serde_json::Value::Null, Value::Null) => true,
        (serde_json::Value::Bool(a), Value::Bool(b)) => a == b,
        (serde_json::Value::Number(a), Value::Number(b)) => a.as_f64() == Some(*b),
        (serde_json::Value::String(a), Value::String(b)) => a == b,
        (serde_json::Value::Array(a), Value::Array(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(a, b)| same(a, b))
        }
        (serde_json::Value::Object(a), Value::Object(b)) => {
            a.len() == b.len() && b.iter().all(|(k, v)| a.get(k).is_some_and(|a| same(a, v)))
        }
        _ => false,
    }
}

/// The key order of a new cell of `kind`: nbformat's (sorted), unless the
/// file's cells keep another order, which the nearest cell of the same
/// type gives (keys it lacks go last).
fn key_order(nb: &Notebook<'_>, kind: CellType, keys: &[&'static str]) -> Vec<&'static str> {
    let mut sorted = keys.to_vec();
    sorted.sort_unstable();
    if nb.layout.sorted {
        return sorted;
    }
    let Some(model) = nb
        .cells
        .iter()
        .find(|c| c.kind == kind.name())
        .or_else(|| nb.cells.first())
    else {
        return sorted;
    };
    let rank = |key: &str| {
        model
            .members
            .iter()
            .position(|m| m.key == key)
            .unwrap_or(usize::MAX)
    };
    sorted.sort_by_key(|k| rank(k));
    sorted
}

/// A new cell as Jupyter writes one: empty metadata, no outputs and no
/// execution count for code, an id where the notebook has ids.
fn new_cell(
    nb: &Notebook<'_>,
    kind: CellType,
    id: Option<&str>,
    source: &str,
    indent: &str,
) -> String {
    let layout: &Layout = &nb.layout;
    let mut keys = vec!["cell_type", "metadata", "source"];
    if kind == CellType::Code {
        keys.extend(["execution_count", "outputs"]);
    }
    if id.is_some() {
        keys.push("id");
    }
    let fields = key_order(nb, kind, &keys)
        .into_iter()
        .map(|key| {
            let value = match key {
                "cell_type" => Json::String(kind.name().to_owned()),
                "metadata" => Json::Object(Vec::new()),
                "source" => source_json(source),
                "execution_count" => Json::Null,
                "outputs" => Json::Array(Vec::new()),
                _ => Json::String(id.unwrap_or_default().to_owned()),
            };
            (key.to_owned(), value)
        })
        .collect();
    let mut out = String::new();
    json::write(&mut out, &Json::Object(fields), indent, layout);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_source_is_split_as_python_splitlines_keeps_ends() {
        assert_eq!(python_lines(""), Vec::<&str>::new());
        assert_eq!(python_lines("a\n"), vec!["a\n"]);
        assert_eq!(
            python_lines("a\rb\r\nc\u{2028}d\u{b}e\u{85}f"),
            vec!["a\r", "b\r\n", "c\u{2028}", "d\u{b}", "e\u{85}", "f"]
        );
        assert_eq!(python_lines("\n\n"), vec!["\n", "\n"]);
    }
}
