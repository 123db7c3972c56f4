//! The ops that cite lines `ref..=through` (`replace`, `delete`,
//! `insert_before`, `insert_after`, and the lines a `move` or a `copy`
//! takes): the lines they cite in the current text, and where their
//! content goes in the version read.

use super::{line_named, CitedLines, PlanContext};
use crate::error::{Error, Result};
use crate::prefix::Place;
use crate::request::{Action, Operation, Side};
use std::ops::Range;

/// The lines `ref` through `through` (or `ref` alone) name now; `through`
/// before `ref` is refused, never swapped.
pub(super) fn cited(
    ctx: &PlanContext<'_>,
    number: usize,
    op: &Operation,
    lines: &mut CitedLines<'_>,
) -> Result<Range<usize>> {
    let first = lines.next();
    let last = if op.through.is_some() {
        lines.next()
    } else {
        first
    };
    if last < first {
        return Err(Error::invalid_request(format!(
            "operation {number} ({}): `through` (line {}) comes before `ref` (line {}). `ref` is the first line of the range and `through` the last.",
            op.kind,
            last + 1,
            first + 1
        ))
        .with_path(ctx.path));
    }
    Ok(first..last + 1)
}

/// Where the operation's content goes, in the numbers of the version the
/// refs were read from: the line its first line takes (a copied view gives
/// its lines those numbers) and how many lines it replaces.
pub(super) fn content_place(op: &Operation) -> Option<Place> {
    let first = line_named(op.reference.as_ref())?;
    match op.kind.action() {
        Action::Replace => {
            let last = line_named(op.through.as_ref()).unwrap_or(first);
            Some(Place {
                first,
                replaced: (last + 1).saturating_sub(first).max(1),
            })
        }
        Action::Insert(Side::Before) => Some(Place { first, replaced: 0 }),
        Action::Insert(Side::After) => Some(Place {
            first: first + 1,
            replaced: 0,
        }),
        Action::Delete | Action::Move | Action::Copy | Action::SetType | Action::SetMetadata => {
            None
        }
    }
}
