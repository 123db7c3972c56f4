//! The content of each operation judged for view prefixes and other
//! output of the engine copied into it (`prefix`, `docs/format.md` §7):
//! proven copies removed, with a note; content in doubt refused, once every
//! operation is placed.

use super::{block, ends, lines, PlanContext};
use crate::error::Result;
use crate::prefix::{self, Doubt, Fix, Place, Prefix, Verdict};
use crate::request::{Cites, Operation};

/// Each operation's content as it will be written, and what judging it
/// found.
pub(super) struct Judged {
    /// The content of each operation, proven copies removed.
    pub contents: Vec<Vec<String>>,
    /// The view prefixes, proven copies, that each operation's first and
    /// last content line carried.
    pub edges: Vec<[Option<Prefix>; 2]>,
    /// A note for each operation whose content lost proven copies.
    pub cleaned: Vec<String>,
    /// Content lines changed or left out as proven copies.
    pub removed: usize,
    /// The content that may hold copies nothing proves, by operation.
    doubtful: Vec<(String, Vec<Doubt>)>,
}

/// Judges the content of every operation that is not to be written
/// exactly as sent.
pub(super) fn judge(ctx: &PlanContext<'_>, operations: &[Operation]) -> Judged {
    let mut judged = Judged {
        contents: Vec::with_capacity(operations.len()),
        edges: Vec::with_capacity(operations.len()),
        cleaned: Vec::new(),
        removed: 0,
        doubtful: Vec::new(),
    };
    for (i, op) in operations.iter().enumerate() {
        let verdict = if ctx.cleanup && !op.literal {
            prefix::judge(&op.content, ctx.shown(), content_place(op))
        } else {
            Verdict::Literal
        };
        let edges = match &verdict {
            Verdict::Clean(fixes) => prefix::edges(&op.content, fixes),
            _ => [None, None],
        };
        judged.edges.push(edges);
        match verdict {
            Verdict::Literal => judged.contents.push(op.content.clone()),
            Verdict::Clean(fixes) => {
                judged.removed += fixes.iter().filter(|f| **f != Fix::Keep).count();
                judged
                    .cleaned
                    .push(prefix::describe(&format!("operation {}", i + 1), &fixes));
                judged.contents.push(prefix::clean(&op.content, &fixes));
            }
            Verdict::Ambiguous(doubts) => {
                judged
                    .doubtful
                    .push((format!("operation {}'s content", i + 1), doubts));
                judged.contents.push(op.content.clone());
            }
        }
    }
    judged
}

impl Judged {
    /// `AMBIGUOUS_ECHO` for content that may hold copies nothing proves.
    pub(super) fn refuse_doubts(&self, path: &str) -> Result<()> {
        if self.doubtful.is_empty() {
            return Ok(());
        }
        Err(prefix::ambiguous(
            path,
            &self.doubtful,
            "send it again with \"literal\": true on the operation (or on the whole request): it is then written exactly as sent",
        ))
    }
}

/// Where an operation's content goes, in the numbers of the version the
/// refs were read from, as far as the operation says: its family knows.
fn content_place(op: &Operation) -> Option<Place> {
    match op.kind.cites() {
        Cites::Lines => lines::content_place(op),
        Cites::Block => block::content_place(op),
        Cites::Start | Cites::End => ends::content_place(op.kind),
        Cites::Cell => None,
    }
}
