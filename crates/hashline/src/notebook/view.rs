//! The notebook view (`docs/format.md` §10): the cells as one text, each a
//! header line (`# %% [code] id=a1b2c3d4`) and its source lines, which take
//! refs as the lines of any file do; and, shown after each cell but no
//! line of that text, its outputs, attachments and metadata in a few
//! read-only lines that start with `»`.

use super::cells::{joined, Cell, Notebook};
use super::schema::json_mime;
use crate::document::Document;
use crate::error::Result;
use crate::view::{self, View, ViewStyle};
use serde_json::Value;
use std::ops::Range;

/// What starts every line of the view that is no line of the cells: the
/// outputs, attachments and metadata of a cell, and what the view says of
/// the notebook.
pub(crate) const MARK: &str = "  » ";

/// Text lines of an output the view shows, at most.
const OUTPUT_LINES: usize = 3;
/// Characters of an output's line, or of a cell's metadata, the view shows
/// at most.
const OUTPUT_CHARS: usize = 160;

/// The cells of a notebook as one text: each cell's header line, then its
/// source lines.
pub(crate) struct Cells {
    pub doc: Document,
    /// The line of each cell's header, in order.
    pub headers: Vec<usize>,
}

/// A cell's header line: its type, and its id, or, in a notebook without
/// ids, its number. Headers differ from each other, so that a ref to one
/// holds in no other place, now or in a version read before: with ids the
/// header stays as long as the cell does; without, a cell's number changes
/// when a cell comes or goes before it, and refs to its header no longer
/// hold (the refs to its source lines are remapped as any line's).
/// The type and id are written escaped as Rust escapes a string for
/// debugging, so that a header is always one line: nbformat's id pattern
/// takes a final line break, and a later nbformat's cell type may hold
/// any. Ids have no backslash, so an escaped id is no other cell's.
pub(crate) fn header(kind: &str, id: Option<&str>, index: usize) -> String {
    let kind = kind.escape_debug();
    match id {
        Some(id) => format!("# %% [{kind}] id={}", id.escape_debug()),
        None => format!("# %% [{kind}] cell {}", index + 1),
    }
}

/// Whether `line` reads as a cell's header (`header` writes it): how the
/// cells of a kept version, which is text alone, are told apart. A source
/// line may read so too; whoever relies on it must fail safe when it does.
pub(crate) fn looks_like_header(line: &str) -> bool {
    line.starts_with("# %% [") && (line.contains("] id=") || line.contains("] cell "))
}

/// The id a header line names, if it names one.
pub(crate) fn header_id(line: &str) -> Option<&str> {
    let at = line.rfind("] id=")?;
    looks_like_header(line).then(|| &line[at + "] id=".len()..])
}

/// A source's lines, as a file of that text has them.
pub(crate) fn source_lines(source: &str) -> Document {
    Document::from_string(source.to_owned())
}

impl Cells {
    /// The cells of `nb`; the text takes `rev`, the REV of the notebook's
    /// file, as its own.
    pub(crate) fn of(nb: &Notebook<'_>, rev: &str) -> Cells {
        let mut text = String::new();
        let mut headers = Vec::with_capacity(nb.cells.len());
        let mut line = 0;
        for (i, cell) in nb.cells.iter().enumerate() {
            headers.push(line);
            text.push_str(&header(&cell.kind, cell.id.as_deref(), i));
            text.push('\n');
            line += 1;
            for source_line in source_lines(&cell.source).lines() {
                text.push_str(source_line);
                text.push('\n');
                line += 1;
            }
        }
        let doc = Document::from_string(text);
        debug_assert_eq!(doc.line_count(), line);
        with_rev(&doc, rev);
        Cells { doc, headers }
    }

    /// The cell line `line` is in.
    pub(crate) fn cell_of(&self, line: usize) -> usize {
        self.headers
            .partition_point(|&h| h <= line)
            .saturating_sub(1)
    }

    /// The lines of cell `cell`: its header, then its source.
    pub(crate) fn lines_of(&self, cell: usize) -> Range<usize> {
        let end = self
            .headers
            .get(cell + 1)
            .copied()
            .unwrap_or(self.doc.line_count());
        self.headers[cell]..end
    }

    /// Whether line `line` is a cell's header.
    pub(crate) fn is_header(&self, line: usize) -> bool {
        self.headers.binary_search(&line).is_ok()
    }
}

/// Gives `doc` the REV `rev` (8 hex digits): the cells are shown, cited and
/// kept under the REV of the notebook's file, the version they come from.
pub(crate) fn with_rev(doc: &Document, rev: &str) {
    doc.know_rev(rev);
    debug_assert_eq!(doc.rev(), rev);
}

/// The notebook view of lines `offset..offset + limit` of the cells.
pub(crate) fn render(
    nb: &Notebook<'_>,
    cells: &Cells,
    path: &str,
    offset: Option<usize>,
    limit: Option<usize>,
    style: ViewStyle,
) -> Result<View> {
    let mut view = view::render(&cells.doc, path, offset, limit, style)?;
    let shown = view.start_line.saturating_sub(1)..view.end_line;
    let mut text = String::with_capacity(view.text.len() * 2);
    let mut rows = view.text.split_inclusive('\n');
    text.push_str(rows.next().unwrap_or_default());
    text.push_str(&about(nb));
    for line in shown.clone() {
        text.push_str(rows.next().unwrap_or_default());
        let cell = cells.cell_of(line);
        if cells.lines_of(cell).end == line + 1 {
            for row in extra(&nb.cells[cell]) {
                text.push_str(MARK);
                text.push_str(&row);
                text.push('\n');
            }
        }
    }
    for row in rows {
        text.push_str(row);
    }
    view.text = text;
    Ok(view)
}

/// The line under the view's header: what the notebook is, and how to read
/// the view.
pub(crate) fn about(nb: &Notebook<'_>) -> String {
    let kernel = nb
        .kernel
        .as_deref()
        .map(|k| format!(", kernel {}", plain(k)))
        .unwrap_or_default();
    format!(
        "{MARK}notebook: nbformat {}.{}{}, {} cell{}{kernel}; a cell's header line (# %%) cites the cell; lines after » are outputs and metadata, not editable\n",
        nb.version.major,
        nb.version.minor,
        if nb.version.has_ids() { "" } else { " (cells without ids)" },
        nb.cells.len(),
        if nb.cells.len() == 1 { "" } else { "s" }
    )
}

/// What the view shows of a cell besides its lines: its metadata, its
/// attachments, and each output, summarised; each value shown through
/// `plain`, and every row through it again, so that no value of the file
/// can start a line of the view that looks like a line of the cells.
pub(crate) fn extra(cell: &Cell<'_>) -> Vec<String> {
    let mut rows = summary(cell);
    for row in &mut rows {
        *row = plain(row);
    }
    rows
}

fn summary(cell: &Cell<'_>) -> Vec<String> {
    let mut rows = Vec::new();
    if let Some(metadata) = cell.value["metadata"].as_object().filter(|m| !m.is_empty()) {
        let text = serde_json::to_string(metadata).unwrap_or_default();
        rows.push(format!("metadata {}", cut(&text)));
    }
    if let Some(attachments) = cell.value["attachments"].as_object() {
        for (name, bundle) in attachments {
            rows.push(format!("attachment {name:?}: {}", mimes(bundle)));
        }
    }
    for output in cell.value["outputs"].as_array().into_iter().flatten() {
        output_rows(output, &mut rows);
    }
    rows
}

fn output_rows(output: &Value, rows: &mut Vec<String>) {
    let kind = output["output_type"].as_str().unwrap_or("output");
    match kind {
        "stream" => {
            let text = joined(&output["text"]);
            let name = plain(output["name"].as_str().unwrap_or("stream"));
            rows.push(format!("{name}: {}", count(text.lines().count(), "line")));
            text_rows(&text, rows);
        }
        "execute_result" | "display_data" => {
            let head = match (kind, output["execution_count"].as_u64()) {
                ("execute_result", Some(n)) => format!("result [{n}]"),
                ("execute_result", None) => "result".to_owned(),
                _ => "display".to_owned(),
            };
            rows.push(format!("{head}: {}", mimes(&output["data"])));
            text_rows(&joined(&output["data"]["text/plain"]), rows);
        }
        "error" => {
            let evalue = joined(&output["evalue"]);
            let first = plain(evalue.lines().next().unwrap_or_default());
            rows.push(format!(
                "error: {}{}",
                plain(output["ename"].as_str().unwrap_or_default()),
                if first.is_empty() {
                    String::new()
                } else {
                    format!(": {}", cut(&first))
                }
            ));
        }
        other => rows.push(plain(other)),
    }
}

/// The first lines of an output's text, and how many more there are.
fn text_rows(text: &str, rows: &mut Vec<String>) {
    let lines: Vec<&str> = text.lines().collect();
    for line in lines.iter().take(OUTPUT_LINES) {
        rows.push(cut(&plain(line)));
    }
    if lines.len() > OUTPUT_LINES {
        rows.push(format!(
            "… {} more",
            count(lines.len() - OUTPUT_LINES, "line")
        ));
    }
}

/// Each mime type of a bundle with its size: lines for text, bytes for
/// data (base64 counted as the bytes it holds), a widget by its model.
fn mimes(bundle: &Value) -> String {
    let Some(bundle) = bundle.as_object() else {
        return String::new();
    };
    let parts: Vec<String> = bundle
        .iter()
        .map(|(mime, data)| {
            let size = if mime == "application/vnd.jupyter.widget-view+json" {
                let model = data["model_id"].as_str().unwrap_or_default();
                let model = plain(model);
                format!("widget {}", model.get(..8).unwrap_or(&model))
            } else if json_mime(mime) {
                bytes(serde_json::to_string(data).map_or(0, |t| t.len()))
            } else {
                let text = joined(data);
                if mime.starts_with("text/")
                    || mime.ends_with("+xml")
                    || mime.ends_with("javascript")
                {
                    count(text.lines().count(), "line")
                } else {
                    let encoded = text.bytes().filter(|b| !b.is_ascii_whitespace()).count();
                    let padding = text
                        .trim_end()
                        .bytes()
                        .rev()
                        .take_while(|&b| b == b'=')
                        .count();
                    bytes((encoded / 4 * 3).saturating_sub(padding))
                }
            };
            format!("{} {size}", plain(mime))
        })
        .collect();
    parts.join(", ")
}

fn count(n: usize, what: &str) -> String {
    format!("{n} {what}{}", if n == 1 { "" } else { "s" })
}

fn bytes(n: usize) -> String {
    match n {
        0..1000 => format!("{n} B"),
        1000..1_000_000 => format!("{:.1} KB", n as f64 / 1e3),
        _ => format!("{:.1} MB", n as f64 / 1e6),
    }
}

/// A line of output as a terminal leaves it: what a carriage return wrote
/// over gone, colour codes and other controls dropped.
fn plain(line: &str) -> String {
    let line = line
        .rsplit('\r')
        .find(|s| !s.is_empty())
        .unwrap_or_default();
    let mut out = String::with_capacity(line.len());
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            // A CSI sequence runs to its final byte, `@` to `~`.
            if chars.next_if_eq(&'[').is_some() {
                while chars.next().is_some_and(|c| !('@'..='~').contains(&c)) {}
            }
        } else if c == '\t' || !c.is_control() {
            out.push(c);
        }
    }
    out
}

/// `text` cut to `OUTPUT_CHARS` characters, with `…` where it was cut.
fn cut(text: &str) -> String {
    match text.char_indices().nth(OUTPUT_CHARS) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_owned(),
    }
}
