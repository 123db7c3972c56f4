//! Jupyter notebooks (`.ipynb`), read and edited through their cells
//! (`docs/format.md` §10): the notebook view shows each cell as a header
//! line and its source lines, with refs as any file's lines; line ops edit
//! inside cells and cell ops insert, delete, move, retype and annotate
//! cells; the new file changes only the cells the edit changed, each
//! written as Jupyter writes it, and is valid as nbformat judges it. A
//! notebook that does not parse or validate is never written through its
//! cells (`INVALID_NOTEBOOK`); its text stays readable and editable with
//! `raw`, as any file's.

mod cells;
mod edit;
mod json;
mod schema;
mod stored;
#[cfg(test)]
mod tests;
mod view;
mod write;

pub(crate) use edit::{edit, Input};
pub(crate) use stored::{kept, key};

use crate::document::Document;
use crate::error::{Error, ErrorCode, Result};
use crate::request::Request;
use crate::view::{View, ViewStyle};

/// Whether the file at `path` is read and edited as a notebook: its name
/// ends in `.ipynb`, in any case.
pub(crate) fn is_notebook(path: &str) -> bool {
    path.len() > ".ipynb".len()
        && path
            .get(path.len() - ".ipynb".len()..)
            .is_some_and(|end| end.eq_ignore_ascii_case(".ipynb"))
}

/// Whether `request` edits a notebook's cells rather than its text: every
/// request but one whose refs are of its text (`raw`) and the empty
/// `oldString` that writes a whole file.
pub(crate) fn edits_cells(request: &Request) -> bool {
    match request {
        Request::Operations { operations, .. } => !operations.iter().any(|op| op.cell.raw),
        Request::Replace { old_string, .. } => !old_string.is_empty(),
    }
}

/// The refusal of a notebook that is no notebook Jupyter would read.
pub(crate) fn invalid(path: &str, why: &str) -> Error {
    Error::new(
        ErrorCode::InvalidNotebook,
        format!(
            "{path} is not read as a notebook's cells: {why}. Nothing was written. Its text is read and edited as any file's with `raw`: read it with raw: true, and send the edit with \"raw\": true."
        ),
    )
    .with_path(path)
}

/// The refusal of an edit of the cells of a notebook that does not exist:
/// lines sent to a missing `.ipynb` file would make a file of that text,
/// which is no notebook.
pub(crate) fn missing(path: &str) -> Error {
    Error::new(
        ErrorCode::NotFound,
        format!(
            "File {path} not found, and a notebook is not made of lines: nothing was written. Make it as its JSON, the file's text, with \"raw\": true, e.g. {{\"raw\":true,\"operations\":[{{\"op\":\"append\",\"content\":\"{{\\n \\\"cells\\\": [],\\n \\\"metadata\\\": {{}},\\n \\\"nbformat\\\": 4,\\n \\\"nbformat_minor\\\": 5\\n}}\\n\"}}]}}, its cells in `cells` (each with `cell_type`, `id`, `metadata` and `source`, and for code `execution_count` and `outputs`)."
        ),
    )
    .with_path(path)
}

/// The notebook view of `text`, the file at `path` whose REV is `rev`, and
/// its cells as one text, the lines the view's refs cite.
pub(crate) fn read(
    text: &str,
    rev: &str,
    path: &str,
    offset: Option<usize>,
    limit: Option<usize>,
    style: ViewStyle,
) -> Result<(View, Document)> {
    let nb = cells::Notebook::parse(text).map_err(|why| invalid(path, &why))?;
    let cells = view::Cells::of(&nb, rev);
    let view =
        view::render(&nb, &cells, path, offset, limit, style).map_err(|e| e.with_path(path))?;
    Ok((view, cells.doc))
}
