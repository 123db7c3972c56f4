//! The engine's request format as JS sees it: its one table of ops (each
//! with its shape, doc and example) and of fields (with their aliases and
//! types), which hosts build their schemas, texts and help from, and the
//! TypeScript types of a request, tested against that table.

use hashline::{CellType, FieldValue, OpKind};
use napi::bindgen_prelude::Either;
use napi_derive::napi;

/// A field of the request format, the other names accepted for it, and
/// the JSON type hosts offer it as.
#[napi(object, js_name = "RequestField")]
pub struct BindingRequestField {
    /// The documented name.
    pub name: String,
    /// Other names models send, all accepted.
    pub aliases: Vec<String>,
    /// The JSON type of its value: `string`, `boolean`, `array` (the
    /// operations, objects of `operationFields`), or `object` (keys of any
    /// value: a notebook cell's metadata).
    #[napi(ts_type = "'string' | 'boolean' | 'array' | 'object'")]
    pub r#type: String,
    /// The values it takes, when they are names (an op's, a cell type's):
    /// the ops, in documented order, or the cell types.
    pub values: Option<Vec<String>>,
}

/// One op of the request format: its name, the fields it takes, and what
/// it does.
#[napi(object, js_name = "RequestOp")]
pub struct BindingRequestOp {
    /// Its name, as `op` gives it.
    pub name: String,
    /// What it does, one line.
    pub doc: String,
    /// One operation of this op, as JSON text.
    pub example: String,
    /// It needs `ref`, the line it cites (the first of a range or a block).
    pub r#ref: bool,
    /// It takes `through`, the last line of a range.
    pub through: bool,
    /// It needs `content`, the new lines.
    pub content: bool,
    /// It needs `after` or `before`, where its lines go.
    pub place: bool,
    /// Its `ref` is the first line of a block, whose last the engine finds.
    pub block: bool,
    /// It needs `cellType`, the type of a notebook cell.
    pub cell_type: bool,
    /// It needs `metadata`, keys of a notebook cell's metadata.
    pub metadata: bool,
}

/// The request format the engine decodes.
#[napi(object)]
pub struct RequestFormat {
    /// Every op, in documented order.
    pub ops: Vec<BindingRequestOp>,
    /// The fields of a request.
    pub request_fields: Vec<BindingRequestField>,
    /// The fields of one operation.
    pub operation_fields: Vec<BindingRequestField>,
}

fn fields(list: &[hashline::Field]) -> Vec<BindingRequestField> {
    list.iter()
        .map(|f| BindingRequestField {
            name: f.name.to_owned(),
            aliases: f.aliases.iter().map(|a| (*a).to_owned()).collect(),
            r#type: match f.value {
                FieldValue::Ref
                | FieldValue::Text
                | FieldValue::Rev
                | FieldValue::Op
                | FieldValue::CellType => "string",
                FieldValue::Flag => "boolean",
                FieldValue::Operations => "array",
                FieldValue::Object => "object",
            }
            .to_owned(),
            values: match f.value {
                FieldValue::Op => Some(OpKind::ALL.iter().map(|op| op.name().to_owned()).collect()),
                FieldValue::CellType => {
                    Some(CellType::ALL.iter().map(|t| t.name().to_owned()).collect())
                }
                _ => None,
            },
        })
        .collect()
}

/// The ops, fields and aliases the engine accepts in an edit request, from
/// the engine's one declaration of each.
#[napi]
pub fn request_format() -> RequestFormat {
    RequestFormat {
        ops: OpKind::ALL
            .iter()
            .map(|&op| {
                let shape = op.shape();
                BindingRequestOp {
                    name: op.name().to_owned(),
                    doc: op.doc().to_owned(),
                    example: op.example().to_owned(),
                    r#ref: shape.reference,
                    through: shape.through,
                    content: shape.content,
                    place: shape.place,
                    block: shape.block,
                    cell_type: shape.cell_type,
                    metadata: shape.metadata,
                }
            })
            .collect(),
        request_fields: fields(hashline::REQUEST_FIELDS),
        operation_fields: fields(hashline::OPERATION_FIELDS),
    }
}

#[napi(object, js_name = "ShownLine")]
pub struct BindingShownLine {
    /// 1-based line number.
    pub line: u32,
    pub text: String,
    /// `text` is only the start of the line (the viewer cut it).
    pub truncated: Option<bool>,
}

#[napi(object, js_name = "Operation")]
pub struct BindingOperation {
    /// The op: the name of one of `requestFormat().ops`, e.g. `replace`.
    pub op: String,
    /// The ref of the first line, as a view shows it: lean (`12ab`) or
    /// full (`12#A3F#9BC`).
    pub r#ref: Option<String>,
    /// The last line of a range (replace, delete, move, copy), inclusive.
    pub through: Option<String>,
    /// move, copy: the ref of the line to put the lines after.
    pub after: Option<String>,
    /// move, copy: the ref of the line to put the lines before.
    pub before: Option<String>,
    /// The new lines: one string split on newlines (one final newline dropped), or an array of lines.
    pub content: Option<Either<String, Vec<String>>>,
    /// Write the content exactly as sent: no line is removed as a copy from a view.
    pub literal: Option<bool>,
    /// insert_cell_before, insert_cell_after, set_cell_type: the type of
    /// the notebook cell.
    #[napi(ts_type = "'code' | 'markdown' | 'raw'")]
    pub cell_type: Option<String>,
    /// set_cell_metadata: the keys to set in the cell's metadata, null to
    /// remove one.
    #[napi(ts_type = "Record<string, unknown>")]
    pub metadata: Option<serde_json::Value>,
}

#[napi(object, js_name = "EditRequest")]
pub struct BindingEditRequest {
    pub operations: Option<Vec<BindingOperation>>,
    /// The REV of the view the refs were copied from.
    pub rev: Option<String>,
    /// Write every operation's content exactly as sent.
    pub literal: Option<bool>,
    /// The refs are of a notebook's own text (its JSON), as a read with
    /// `raw` showed it, not of its notebook view.
    pub raw: Option<bool>,
    /// Code cells whose source changes keep their outputs and execution
    /// count (they are cleared otherwise).
    pub keep_outputs: Option<bool>,
    /// Fallback: exact text to replace (whitespace-tolerant if no exact match).
    pub old_string: Option<String>,
    pub new_string: Option<String>,
    pub replace_all: Option<bool>,
}
