//! The engine's request format as JS sees it: the one list of ops, fields
//! and aliases that hosts build their schemas from and are tested against,
//! and the TypeScript types of a request.

use napi::bindgen_prelude::Either;
use napi_derive::napi;

/// A field of the request format and the other names accepted for it.
#[napi(object, js_name = "RequestField")]
pub struct BindingRequestField {
    /// The documented name.
    pub name: String,
    /// Other names models send, all accepted.
    pub aliases: Vec<String>,
}

/// The request format the engine decodes.
#[napi(object)]
pub struct RequestFormat {
    /// Every op, in documented order.
    pub ops: Vec<String>,
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
        })
        .collect()
}

/// The ops, fields and aliases the engine accepts in an edit request.
#[napi]
pub fn request_format() -> RequestFormat {
    RequestFormat {
        ops: hashline::OpKind::ALL
            .iter()
            .map(|op| op.name().to_owned())
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
    /// replace | delete | insert_before | insert_after | prepend | append | move | copy |
    /// replace_block | delete_block | insert_before_block | insert_after_block
    pub op: String,
    /// The first line, as `LINE#HASH#ANCHOR` from a view.
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
}

#[napi(object, js_name = "EditRequest")]
pub struct BindingEditRequest {
    pub operations: Option<Vec<BindingOperation>>,
    /// The REV of the view the refs were copied from.
    pub rev: Option<String>,
    /// Write every operation's content exactly as sent.
    pub literal: Option<bool>,
    /// Fallback: exact text to replace (whitespace-tolerant if no exact match).
    pub old_string: Option<String>,
    pub new_string: Option<String>,
    pub replace_all: Option<bool>,
}
