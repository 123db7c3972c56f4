//! The ops that cite no line (`prepend`, `append`): the start or the end
//! of the file, and where their content goes in the version read.

use super::PlanContext;
use crate::prefix::Place;
use crate::request::{Cites, OpKind};
use std::ops::Range;

/// The start of the file or its end, as an empty range.
pub(super) fn cited(ctx: &PlanContext<'_>, kind: OpKind) -> Range<usize> {
    match kind.cites() {
        Cites::Start => 0..0,
        _ => ctx.doc.line_count()..ctx.doc.line_count(),
    }
}

/// Where the content goes, in the numbers of the version read: content at
/// the start takes line 1 and on; at the end, its numbers are the file's
/// length, which a copied view cannot be told from.
pub(super) fn content_place(kind: OpKind) -> Option<Place> {
    (kind.cites() == Cites::Start).then_some(Place {
        first: 1,
        replaced: 0,
    })
}
