//! Hashline: edit files by citing hash-anchored line references.
//!
//! A view tags every line as `LINE#HASH#ANCHOR|content`; an edit names lines
//! by those refs, is checked against the file (or provably remapped from a
//! stored earlier version) and applied as one atomic batch, or rejected with
//! everything needed to retry.

pub mod check;
pub mod cleanup;
pub mod edit;
pub mod error;
pub mod file;
pub mod hash;
pub mod lean;
pub mod lock;
pub mod patch;
pub mod plan;
pub mod reference;
pub mod reformat;
pub mod remap;
pub mod replace;
pub mod report;
pub mod request;
pub mod sandbox;
pub mod search;
pub mod session;
pub mod store;
pub mod text;
pub mod view;

pub use check::{Problem, Severity};
pub use edit::{apply_to_text, Edited};
pub use error::{Error, ErrorCode, Mismatch, Result};
pub use hash::{anchor_hash, line_hash, rev, Tag};
pub use lean::{pair_tag, ViewStyle};
pub use patch::{FileKind, FileResult, PatchPlan, PatchResult};
pub use reference::{Ref, RefTag};
pub use request::{OpKind, Operation, Request, Value};
pub use search::{SearchHit, SearchLine, SearchOptions, SearchResult, Skipped, SkippedFile};
pub use session::{EditPlan, EditResult, Hashline, Options, ReadResult, ShownLine, Tagged};
pub use text::Document;
pub use view::View;

/// A tagged view of `text` (a file's content held by the caller).
pub fn format_view(
    text: &str,
    path: &str,
    offset: Option<usize>,
    limit: Option<usize>,
    style: ViewStyle,
) -> Result<View> {
    view::render(&Document::from_text(text), path, offset, limit, style)
}
