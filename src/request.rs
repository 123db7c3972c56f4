//! The engine's request format as JS sees it: the one list of ops, fields
//! and aliases that hosts build their schemas from and are tested against.

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
