//! Move and copy: lines of the version read, taken as they are (no
//! retyping, no clean-up) and put before or after another line. A move is
//! a delete of the lines and an insert of the same lines at the place; a
//! copy is the insert alone. What a plan and a result say of them; a plan
//! places them in `plan/relocate`.

use crate::request::{Action, OpKind};
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
        if self.kind.action() == Action::Move {
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
