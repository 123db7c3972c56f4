//! Move and copy: lines of the version read, taken as they are (no
//! retyping, no clean-up) and put before or after another line. A move is
//! a delete of the lines and an insert of the same lines at the place; a
//! copy is the insert alone.

use crate::request::{OpKind, Side};
use std::ops::Range;

/// A move or a copy placed in the current text.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct Relocation {
    /// The lines taken (0-based, end exclusive).
    pub source: Range<usize>,
    /// The line the place cites.
    pub anchor: usize,
    /// The gap the lines go into: they end up before line `gap`.
    pub gap: usize,
}

/// Where a move or a copy puts its lines, against its own source.
pub(crate) enum Placement {
    /// A move next to its own lines: they stay where they are.
    Stays,
    /// A move into the middle of its own lines.
    InsideItself,
    /// Lines put at `Relocation::gap`.
    At(Relocation),
}

/// Places a move or a copy of `source` at `side` of line `anchor`.
pub(crate) fn place(kind: OpKind, source: Range<usize>, side: Side, anchor: usize) -> Placement {
    let gap = match side {
        Side::Before => anchor,
        Side::After => anchor + 1,
    };
    if kind == OpKind::Move {
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

/// What a result says about a move or a copy that was applied: the lines
/// `from` of the version read are lines `to` of the new one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Relocated {
    pub kind: OpKind,
    pub from: Range<usize>,
    pub to: Range<usize>,
}

impl Relocated {
    /// `moved` or `copied`.
    pub fn verb(&self) -> &'static str {
        if self.kind == OpKind::Move {
            "moved"
        } else {
            "copied"
        }
    }
}

/// 1-based lines `range` as a message names them: `12` or `12–40`.
pub(crate) fn lines_named(range: &Range<usize>) -> String {
    if range.len() == 1 {
        format!("{}", range.start + 1)
    } else {
        format!("{}–{}", range.start + 1, range.end)
    }
}

/// Lines `range` as a sentence names them: `line 12` or `lines 12–40`.
pub(crate) fn lines_phrase(range: &Range<usize>) -> String {
    if range.len() == 1 {
        format!("line {}", lines_named(range))
    } else {
        format!("lines {}", lines_named(range))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_move_next_to_its_own_lines_stays_and_one_into_them_is_inside_itself() {
        let stays =
            |side, anchor| matches!(place(OpKind::Move, 3..6, side, anchor), Placement::Stays);
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
                place(OpKind::Move, 3..6, side, anchor),
                Placement::InsideItself
            ));
        }
        assert!(matches!(
            place(OpKind::Move, 3..6, Side::After, 6),
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
            match place(OpKind::Copy, 3..6, side, anchor) {
                Placement::At(r) => assert_eq!(r.gap, gap),
                _ => panic!("a copy always has a place"),
            }
        }
    }
}
