//! Hashline: edit files by citing hash-anchored line references.
//!
//! A view tags every line with a ref: `12ab content` in the lean view (the
//! default), `12#A3F#9BC|content` in the full one; an edit names lines by
//! those refs (either kind), is checked against the file (or provably remapped from a
//! stored earlier version) and applied as one atomic batch, or rejected with
//! everything needed to retry. Nothing is written on a guess.
//!
//! The front door is [`Hashline`], a session confined to one root folder:
//!
//! ```
//! use hashline::{Hashline, Options, Request, Value};
//!
//! let root = tempfile::tempdir().unwrap();
//! std::fs::write(root.path().join("a.txt"), "one\ntwo\n").unwrap();
//! let session = Hashline::new(Options::new(root.path())).unwrap();
//!
//! // A view gives every line its ref.
//! let read = session.read("a.txt").unwrap();
//! let line = read.view.text.lines().find(|l| l.starts_with('2')).unwrap();
//! let two = line.split(' ').next().unwrap(); // `2` and its two-letter tag
//!
//! // An edit cites lines by ref; the request comes as loosely typed values,
//! // as a host received them from a model.
//! let request = Request::from_value(&Value::Object(vec![(
//!     "operations".into(),
//!     Value::Array(vec![Value::Object(vec![
//!         ("op".into(), Value::String("replace".into())),
//!         ("ref".into(), Value::String(two.into())),
//!         ("content".into(), Value::String("2".into())),
//!     ])]),
//! )]))
//! .unwrap();
//! session.edit("a.txt", &request).unwrap();
//! assert_eq!(std::fs::read_to_string(root.path().join("a.txt")).unwrap(), "one\n2\n");
//! ```
//!
//! Text held by the caller is viewed with [`format_view`] and edited with
//! [`apply_to_text`]; patches in the `*** Begin Patch` format go through
//! [`Hashline::plan_patch`]; [`Hashline::search`] finds lines across the
//! root with their refs.

#![warn(missing_docs)]

mod batch;
mod before;
mod cancel;
mod check;
mod cleanup;
mod decode;
mod diff;
mod digests;
mod document;
mod edit;
mod error;
mod file;
mod hash;
mod journal;
mod known;
mod lock;
mod notebook;
mod patch;
mod plan;
mod prefix;
mod problem;
mod recovery;
mod reference;
mod reformat;
mod reject;
mod relocate;
mod remap;
mod rendered;
mod replace;
mod report;
mod request;
mod sandbox;
mod search;
mod session;
mod store;
mod syntax;
mod tags;
pub mod telemetry;
mod transaction;
mod view;

#[cfg(any(test, feature = "internals"))]
pub mod internals;
#[cfg(test)]
mod tests;

pub use batch::{batch_entries, BatchPlan, BatchResult};
pub use cancel::Cancel;
pub use document::Document;
pub use edit::{apply_to_string, apply_to_text, EditOutcome, Edited, TextEdit};
pub use error::{excerpt, Doubted, Error, ErrorClass, ErrorCode, Mismatch, Result};
pub use hash::{anchor_hash, line_hash, pair_tag, rev, Tag};
pub use patch::{paths as patch_paths, FileKind, FileResult, PatchOptions, PatchPlan, PatchResult};
pub use problem::{Problem, Severity};
pub use reference::{Ref, RefTag};
pub use reformat::ReformatOptions;
pub use report::Summary;
pub use request::{
    Action, CellFields, CellType, Cites, Field, FieldValue, Metadata, OpKind, Operation, Place,
    Request, Shape, Side, Value, OPERATION_FIELDS, REQUEST_FIELDS,
};
pub use search::{SearchHit, SearchLine, SearchOptions, SearchResult, Skipped, SkippedFile};
pub use session::{
    CallOptions, Committable, EditPlan, EditResult, Hashline, Options, ReadOptions, ReadResult,
    ShownLine, Stripped, Tagged, MAX_RESULT_BYTES,
};
pub use store::{clear as clear_store, Cleared, StoreLimits};
pub use syntax::{Language, SyntaxCheck};
pub use view::{FormatViewOptions, View, ViewStyle};

/// A tagged view of `text` (a file's content held by the caller), the
/// whole text in the lean style.
///
/// ```
/// use hashline::{format_view, format_view_with, FormatViewOptions, ViewStyle};
///
/// let lean = format_view("a\nb\n", "notes.txt").unwrap();
/// assert!(lean.text.starts_with("notes.txt REV:"));
/// assert!(lean.text.lines().nth(2).unwrap().ends_with(" b"));
/// let options = FormatViewOptions {
///     offset: Some(2),
///     view: ViewStyle::Full,
///     ..Default::default()
/// };
/// let full = format_view_with("a\nb\n", "notes.txt", &options).unwrap();
/// assert!(full.text.contains("|b\n"));
/// assert!(!full.text.contains("|a\n"));
/// ```
pub fn format_view(text: impl Into<String>, path: &str) -> Result<View> {
    format_view_with(text, path, &FormatViewOptions::default())
}

/// A tagged view of the lines of `text` that `options` name, in its style.
pub fn format_view_with(
    text: impl Into<String>,
    path: &str,
    options: &FormatViewOptions,
) -> Result<View> {
    view::render(
        &Document::from_string(text.into()),
        path,
        options.offset,
        options.limit,
        options.view,
    )
}
