//! The Node/Bun binding: a thin layer that converts values and errors. Every
//! decision is the engine's. One file per concept: arguments (`args`),
//! errors (`error`), the session class (`session`), text functions
//! (`text`), the request format (`request`), patches (`patch`), batches of
//! edits across files (`batch`), search (`search`), the store folder
//! (`store`), problems (`check`), text results (`string`), array results
//! (`list`), calls run off the JS thread (`task`).
//! The modules are public so that the items napi exports to JS count as
//! used in every build of this crate, tests included.

pub mod args;
pub mod batch;
pub mod check;
pub mod error;
pub mod list;
pub mod patch;
pub mod plan;
pub mod request;
pub mod search;
pub mod session;
pub mod store;
pub mod string;
pub mod task;
pub mod text;
