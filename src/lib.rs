//! The Node/Bun binding: a thin layer that converts values and errors. Every
//! decision is the engine's. One file per concept: arguments read as plain
//! data (`args`), the options objects (`options`), errors and the table of
//! error codes (`error`), the session class (`session`), functions over
//! text the caller holds (`caller_text`), the request format and its types
//! (`request`), patches (`patch`), batches of edits across files (`batch`),
//! search (`search`), the store folder (`store`), problems (`check`), strings
//! handed to JS (`js_string`), array results (`list`), plans held across
//! calls (`plan`), calls run off the JS thread (`task`), the record of the
//! calls models make (`recorder`) and reading it back (`telemetry`).
//! The modules are public so that the items napi exports to JS count as
//! used in every build of this crate, tests included.

pub mod args;
pub mod batch;
pub mod caller_text;
pub mod check;
pub mod error;
pub mod handover;
pub mod js_string;
pub mod list;
pub mod options;
pub mod patch;
pub mod plan;
pub mod recorder;
pub mod request;
pub mod search;
pub mod session;
pub mod store;
pub mod task;
pub mod telemetry;
