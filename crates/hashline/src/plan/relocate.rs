//! `move` and `copy`: the lines `ref..=through` cited, as the file has
//! them, put at a place (`after` or `before` a cited line). A move is two
//! items, the lines taken out and the same lines put in; a copy is the
//! second alone. Both are the file's own lines: no clean-up touches them.

use super::{CitedLines, Item, PlanContext};
use crate::error::{Error, ErrorCode, Result};
use crate::relocate::{lines_phrase, Relocation};
use crate::request::{Action, OpKind, Operation, Side};
use std::ops::Range;

/// A move or a copy placed in the current text.
pub(super) enum Placed {
    /// Its items.
    Items(Vec<Item>),
    /// A move next to its own lines, which stay where they are: the note
    /// that says so.
    Stays(String),
}

/// Places a move or a copy of the lines `source` at the line its place
/// cites (the next of `lines`); a move into its own lines is a `CONFLICT`.
pub(super) fn place(
    ctx: &PlanContext<'_>,
    number: usize,
    op: &Operation,
    source: Range<usize>,
    lines: &mut CitedLines<'_>,
) -> Result<Placed> {
    let side = op.place.as_ref().map(|p| p.side).ok_or_else(|| {
        Error::invalid_request(format!(
            "operation {number} ({}) needs `after` or `before`.",
            op.kind
        ))
    })?;
    let anchor = lines.next();
    let relocation = match placement(op.kind, source.clone(), side, anchor) {
        Placement::Stays => {
            return Ok(Placed::Stays(format!(
                "operation {number} ({}): {} {} already {} line {}; nothing to move.",
                op.kind,
                lines_phrase(&source),
                if source.len() == 1 { "is" } else { "are" },
                side.name(),
                anchor + 1
            )));
        }
        Placement::InsideItself => {
            return Err(Error::new(
                ErrorCode::Conflict,
                format!(
                    "Edit rejected, nothing written: operation {number} ({}) would put {} {} line {}, which is one of the lines it moves. Put them before its first line or after its last, or somewhere outside them.",
                    op.kind,
                    lines_phrase(&source),
                    side.name(),
                    anchor + 1
                ),
            )
            .with_path(ctx.path));
        }
        Placement::At(relocation) => relocation,
    };
    let moved: Vec<String> = source.clone().map(|l| ctx.doc.line(l).to_owned()).collect();
    let mut items = Vec::with_capacity(2);
    if op.kind.action() == Action::Move {
        items.push(Item {
            op: number,
            kind: op.kind,
            range: source,
            anchor: None,
            lines: Vec::new(),
            relocation: Some(relocation.clone()),
            literal: true,
            prefixes: [None, None],
        });
    }
    items.push(Item {
        op: number,
        kind: op.kind,
        range: relocation.gap..relocation.gap,
        anchor: Some(relocation.anchor),
        lines: moved,
        relocation: Some(relocation),
        literal: true,
        prefixes: [None, None],
    });
    Ok(Placed::Items(items))
}

/// Where a move or a copy puts its lines, against its own source.
enum Placement {
    /// A move next to its own lines: they stay where they are.
    Stays,
    /// A move into the middle of its own lines.
    InsideItself,
    /// Lines put at `Relocation::gap`.
    At(Relocation),
}

/// Places a move or a copy of `source` at `side` of line `anchor`.
fn placement(kind: OpKind, source: Range<usize>, side: Side, anchor: usize) -> Placement {
    let gap = match side {
        Side::Before => anchor,
        Side::After => anchor + 1,
    };
    if kind.action() == Action::Move {
        if gap == source.start || gap == source.end {
            return Placement::Stays;
        }
        if source.contains(&anchor) {
            return Placement::InsideItself;
        }
    }
    Placement::At(Relocation {
        source,
        anchor,
        gap,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_move_next_to_its_own_lines_stays_and_one_into_them_is_inside_itself() {
        let stays = |side, anchor| {
            matches!(
                placement(OpKind::Move, 3..6, side, anchor),
                Placement::Stays
            )
        };
        assert!(stays(Side::Before, 3));
        assert!(stays(Side::After, 2));
        assert!(stays(Side::After, 5));
        assert!(stays(Side::Before, 6));
        for (side, anchor) in [
            (Side::After, 3),
            (Side::After, 4),
            (Side::Before, 4),
            (Side::Before, 5),
        ] {
            assert!(matches!(
                placement(OpKind::Move, 3..6, side, anchor),
                Placement::InsideItself
            ));
        }
        assert!(matches!(
            placement(OpKind::Move, 3..6, Side::After, 6),
            Placement::At(Relocation { gap: 7, .. })
        ));
    }

    #[test]
    fn a_copy_may_go_anywhere_even_into_its_own_lines() {
        for (side, anchor, gap) in [
            (Side::Before, 3, 3),
            (Side::After, 4, 5),
            (Side::After, 5, 6),
        ] {
            match placement(OpKind::Copy, 3..6, side, anchor) {
                Placement::At(r) => assert_eq!(r.gap, gap),
                _ => panic!("a copy always has a place"),
            }
        }
    }
}
