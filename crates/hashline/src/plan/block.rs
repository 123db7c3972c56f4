//! The block ops (`replace_block`, `delete_block`, `insert_before_block`,
//! `insert_after_block`): the block that starts on the line they cite,
//! found in the file's syntax tree, and where their content goes in the
//! version read.

use super::{line_named, PlanContext};
use crate::error::{Error, Result};
use crate::prefix::Place;
use crate::request::{Action, OpKind, Operation, Side};
use crate::syntax::{block_at, Language};
use std::ops::Range;

/// The lines of the block that starts on line `first` now, with a note
/// saying where it ends; a file in no parsed language, or a line that
/// starts no block, is refused with the op that cites the range itself.
pub(super) fn cited(
    ctx: &PlanContext<'_>,
    number: usize,
    kind: OpKind,
    first: usize,
    notes: &mut Vec<String>,
) -> Result<Range<usize>> {
    let refuse = |why: String| {
        let instead = kind.on_lines();
        let how = if instead.iter().any(|op| op.shape().through) {
            "with `through`"
        } else {
            "on the line itself"
        };
        Error::invalid_request(format!(
            "operation {number} ({kind}): {why}. Cite the block's last line too, with {} {how}.",
            OpKind::names_or(&instead)
        ))
        .with_path(ctx.path)
    };
    let language = Language::of_path(ctx.path).ok_or_else(|| {
        refuse(format!(
            "blocks are found by parsing, and {} is in no language the engine parses (by its name)",
            ctx.path
        ))
    })?;
    let kept = ctx
        .syntax
        .filter(|(l, _)| *l == language)
        .and_then(|(_, tree)| tree);
    let block = block_at(language, ctx.doc, kept, first).map_err(refuse)?;
    notes.push(format!(
        "operation {number} ({kind}): the block starting on line {} ends on line {}.",
        block.start + 1,
        block.end
    ));
    Ok(block)
}

/// Where the operation's content goes, in the numbers of the version read:
/// a replaced block's first line at least, and content inserted before
/// the block; after it, its numbers depend on where the block ends, which
/// only the parse finds.
pub(super) fn content_place(op: &Operation) -> Option<Place> {
    let first = line_named(op.reference.as_ref())?;
    match op.kind.action() {
        Action::Replace => Some(Place { first, replaced: 1 }),
        Action::Insert(Side::Before) => Some(Place { first, replaced: 0 }),
        Action::Insert(Side::After)
        | Action::Delete
        | Action::Move
        | Action::Copy
        | Action::SetType
        | Action::SetMetadata => None,
    }
}
