//! A notebook as the engine reads it: valid as nbformat judges it, its
//! cells in order, each with its type, id and source, and where every part
//! of it is in the file's text, so that a change copies everything it does
//! not touch byte for byte.

use super::json::{self, Container, Layout, Member};
use super::schema::{self, Version};
use serde_json::value::RawValue;
use serde_json::Value;

/// A valid notebook and where its parts are in `text`, the file's text.
pub(crate) struct Notebook<'a> {
    pub text: &'a str,
    pub version: Version,
    /// The `cells` array.
    pub array: Container,
    pub cells: Vec<Cell<'a>>,
    pub layout: Layout,
    /// The kernel the notebook names, for the view.
    pub kernel: Option<String>,
}

/// One cell: its type, id, source, and where its members are.
pub(crate) struct Cell<'a> {
    pub object: Container,
    pub members: Vec<Member<'a>>,
    /// `code`, `markdown`, `raw`, or a type from a later nbformat.
    pub kind: String,
    pub id: Option<String>,
    /// The source, its lines joined.
    pub source: String,
    /// The cell as JSON, for its outputs, metadata and attachments.
    pub value: Value,
}

/// A multiline string (`"text"` or `["line\n", "text"]`) as one string.
pub(crate) fn joined(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        Value::Array(items) => items.iter().filter_map(Value::as_str).collect(),
        _ => String::new(),
    }
}

impl<'a> Notebook<'a> {
    /// The notebook `text` holds, or why it holds none Jupyter would read:
    /// it does not parse, or it does not validate.
    pub(crate) fn parse(text: &'a str) -> Result<Notebook<'a>, String> {
        if text.starts_with('\u{feff}') {
            return Err("it starts with a byte order mark, which Jupyter's reader refuses".into());
        }
        let value: Value =
            serde_json::from_str(text).map_err(|e| format!("it is not valid JSON ({e})"))?;
        let version = schema::validate(&value)?;
        let raw: &RawValue = serde_json::from_str(text).map_err(|e| e.to_string())?;
        let (top, members) = json::object(text, raw)?;
        let cells_member = members
            .iter()
            .find(|m| m.key == "cells")
            .ok_or("the notebook has no `cells`")?;
        let (array, raws) = json::array(text, cells_member.raw)?;
        let values = value["cells"].as_array().cloned().unwrap_or_default();
        let mut cells = Vec::with_capacity(raws.len());
        let mut sorted = keys_sorted(&members);
        for (raw, value) in raws.into_iter().zip(values) {
            let (object, members) = json::object(text, raw)?;
            sorted &= keys_sorted(&members);
            cells.push(Cell {
                object,
                members,
                kind: value["cell_type"].as_str().unwrap_or_default().to_owned(),
                id: value.get("id").and_then(Value::as_str).map(str::to_owned),
                source: joined(&value["source"]),
                value,
            });
        }
        let kernel = value["metadata"]["kernelspec"]["name"]
            .as_str()
            .or_else(|| value["metadata"]["language_info"]["name"].as_str())
            .map(str::to_owned);
        let mut layout = Layout::of(text, &top, sorted);
        if let Some(unit) = cells.iter().find_map(|c| cell_unit(text, c)) {
            layout.unit = unit;
        }
        Ok(Notebook {
            text,
            version,
            array,
            cells,
            layout,
            kernel,
        })
    }

    /// The white space the line of the `cells` key starts with.
    pub(crate) fn array_indent(&self) -> &'a str {
        json::line_indent(self.text, self.array.span.start)
    }
}

/// The indent a cell's members have past the cell's own line, when both
/// start lines of their own: what cells are written with. Files exist whose
/// top keys are indented otherwise than everything below them.
fn cell_unit(text: &str, cell: &Cell<'_>) -> Option<String> {
    let first = cell.object.items.first()?;
    if !json::starts_line(text, first.start) || !json::starts_line(text, cell.object.span.start) {
        return None;
    }
    let outer = json::line_indent(text, cell.object.span.start);
    json::line_indent(text, first.start)
        .strip_prefix(outer)
        .filter(|unit| !unit.is_empty())
        .map(str::to_owned)
}

/// Whether the keys of an object come in the order Python's `sort_keys`
/// gives (by code point, which for UTF-8 is byte order).
fn keys_sorted(members: &[Member<'_>]) -> bool {
    members.windows(2).all(|w| w[0].key <= w[1].key)
}
