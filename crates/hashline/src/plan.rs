//! Turns a batch of operations into splices of the current text, all before
//! anything changes. `plan` only orchestrates the steps, each in its own
//! file: the content judged for copied view prefixes (`content`), every ref
//! placed in the current text (`locate`), each operation placed by the
//! family of its op (`lines`, `block` and `ends` find the lines it cites,
//! `relocate` places a move or a copy), boundary echoes cleaned up
//! (`echoes`), repeats collapsed and conflicts refused (`conflicts`).

use crate::document::{Document, Splice};
use crate::error::{Error, ErrorCode, Result};
use crate::prefix::{Prefix, Shown};
use crate::reference::Ref;
use crate::reject::Subject;
use crate::relocate::{Relocated, Relocation};
use crate::request::{Action, Cites, OpKind, Operation, Side};
use crate::store::Version;
use crate::syntax::Language;
use crate::view::ViewStyle;
use locate::{locate, parse_refs};
use std::fmt::Write as _;
use std::ops::Range;
use tree_sitter::Tree;

mod block;
mod conflicts;
mod content;
mod echoes;
mod ends;
mod lines;
pub(crate) mod locate;
mod relocate;

/// What the plan needs to know besides the operations.
pub struct PlanContext<'a> {
    pub doc: &'a Document,
    /// The path as the model knows it, for messages.
    pub path: &'a str,
    /// Stored versions of this file, most recent first (may include the
    /// current one).
    pub history: &'a [Version],
    /// Versions of other files the session showed: their shown lines may
    /// prove view prefixes copied from them into this file.
    pub others: &'a [Version],
    /// The text is one the caller holds and showed whole (`apply_to_text`):
    /// its lines prove view prefixes copied from it.
    pub caller_text: bool,
    pub cleanup: bool,
    pub seen_guard: bool,
    /// The language the clean-up may parse the file in to judge echoes,
    /// and the file's tree if the session kept it.
    pub syntax: Option<(Language, Option<&'a Tree>)>,
    /// The style rejections show lines and refs in.
    pub style: ViewStyle,
}

impl<'a> PlanContext<'a> {
    /// The REV of the current text, computed the first time a step asks.
    pub(crate) fn rev(&self) -> &'a str {
        self.doc.rev()
    }

    /// The versions whose shown lines may prove copied view prefixes.
    pub(crate) fn shown(&self) -> Shown<'a> {
        if self.caller_text {
            Shown::text(self.doc)
        } else {
            Shown::new(self.path, self.history, self.others)
        }
    }

    /// What a rejection of this batch is about.
    pub(crate) fn subject(&self) -> Subject<'_> {
        Subject {
            doc: self.doc,
            path: self.path,
            style: self.style,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Planned {
    pub splices: Vec<Splice>,
    /// Operations applied, after identical ones were collapsed.
    pub applied: usize,
    pub notes: Vec<String>,
    /// The stored version the refs were remapped from, if any.
    pub from: Option<String>,
    /// Content lines the clean-up changed or left out as copied output.
    pub prefixes_removed: usize,
    /// Boundary echoes the clean-up dropped.
    pub echoes_dropped: usize,
    /// Where the lines of each move and copy applied are now.
    pub(crate) relocated: Vec<Relocated>,
}

/// One operation placed in the current text.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Item {
    op: usize,
    kind: OpKind,
    range: Range<usize>,
    /// For inserts: the line they are anchored on.
    anchor: Option<usize>,
    lines: Vec<String>,
    /// For a move (both the lines it takes out and the lines it puts in)
    /// and a copy (the lines it puts in): what it relocates.
    relocation: Option<Relocation>,
    /// Its content is written exactly as sent.
    literal: bool,
    /// The view prefixes, proven copies, that its first and its last
    /// content line carried.
    prefixes: [Option<Prefix>; 2],
}

/// The lines the refs of a batch name in the current text, in the order
/// they are cited (`ref`, `through`, then a move's or a copy's place), taken
/// one at a time as each operation is placed.
struct CitedLines<'a> {
    lines: &'a [usize],
    next: usize,
}

impl CitedLines<'_> {
    /// The line the next ref names.
    fn next(&mut self) -> usize {
        let line = self.lines[self.next];
        self.next += 1;
        line
    }
}

pub fn plan(ctx: &PlanContext<'_>, operations: &[Operation], rev: Option<&str>) -> Result<Planned> {
    if let Some((i, op)) = operations
        .iter()
        .enumerate()
        .find(|(_, op)| op.kind.cites() == Cites::Cell)
    {
        return Err(cells_of_text(ctx, i + 1, op.kind));
    }
    let mut judged = content::judge(ctx, operations);
    let mut notes = judged.cleaned.clone();

    let (cited, pairs) = parse_refs(ctx, operations)?;
    let located = locate(ctx, &cited, &pairs, rev)?;
    if let Some(from) = &located.from {
        notes.push(format!(
            "the refs were from REV {from}; the lines they name are unchanged since then and were found at their current positions."
        ));
    }
    if let Some(named) = rev.map(|r| r.trim().to_ascii_uppercase()) {
        let known = named == ctx.rev() || ctx.history.iter().any(|v| v.rev == named);
        if !known && !cited.is_empty() {
            notes.push(format!(
                "REV {named} is not a version known here; the refs were checked against the current text, REV {}.",
                ctx.rev()
            ));
        }
    }

    let mut items = Vec::with_capacity(operations.len());
    let mut stays = Vec::new();
    let mut lines = CitedLines {
        lines: &located.lines,
        next: 0,
    };
    for (i, op) in operations.iter().enumerate() {
        let number = i + 1;
        let cited = match op.kind.cites() {
            Cites::Lines => lines::cited(ctx, number, op, &mut lines)?,
            Cites::Block => block::cited(ctx, number, op.kind, lines.next(), &mut notes)?,
            Cites::Start | Cites::End => ends::cited(ctx, op.kind),
            Cites::Cell => return Err(cells_of_text(ctx, number, op.kind)),
        };
        match op.kind.action() {
            Action::SetType | Action::SetMetadata => {
                return Err(cells_of_text(ctx, number, op.kind))
            }
            Action::Move | Action::Copy => {
                match relocate::place(ctx, number, op, cited, &mut lines)? {
                    relocate::Placed::Items(placed) => items.extend(placed),
                    relocate::Placed::Stays(note) => stays.push(note),
                }
            }
            action @ (Action::Replace | Action::Delete | Action::Insert(_)) => items.push(Item {
                op: number,
                kind: op.kind,
                range: match action {
                    Action::Insert(Side::Before) => cited.start..cited.start,
                    Action::Insert(Side::After) => cited.end..cited.end,
                    _ => cited.clone(),
                },
                // An insert is anchored on the line it goes next to, if it
                // cites one.
                anchor: match action {
                    Action::Insert(Side::Before) if !cited.is_empty() => Some(cited.start),
                    Action::Insert(Side::After) if !cited.is_empty() => Some(cited.end - 1),
                    _ => None,
                },
                lines: std::mem::take(&mut judged.contents[i]),
                relocation: None,
                literal: op.literal,
                prefixes: judged.edges[i],
            }),
        }
    }

    // Content is judged once every operation is placed: a request that is
    // wrong in itself is told so first.
    judged.refuse_doubts(ctx.path)?;
    let mut cleaned = judged.cleaned;
    let echoes_dropped = if ctx.cleanup {
        echoes::clean(ctx, &mut items, &mut notes, &mut cleaned)?
    } else {
        0
    };
    let (items, collapsed) = conflicts::collapse_identical(items);
    if collapsed > 0 {
        notes.push(format!(
            "{collapsed} operation{} repeated another exactly and {} applied once.",
            if collapsed == 1 { "" } else { "s" },
            if collapsed == 1 { "was" } else { "were" }
        ));
    }
    conflicts::check(ctx, &items)?;
    conflicts::check_copied_lines(ctx, &items)?;
    notes.extend(stays.iter().cloned());
    refuse_no_change(ctx, &items, &stays, &cleaned)?;

    let applied = conflicts::operations_in(&items);
    let (splices, relocated) = splices(items);
    Ok(Planned {
        splices,
        applied,
        notes,
        from: located.from,
        prefixes_removed: judged.removed,
        echoes_dropped,
        relocated,
    })
}

/// The refusal of an op on a notebook's cells in a file that is read as
/// text: a file that is no notebook, or a notebook's JSON (`raw`).
fn cells_of_text(ctx: &PlanContext<'_>, number: usize, kind: OpKind) -> Error {
    Error::invalid_request(format!(
        "operation {number} ({kind}) changes a notebook's cells, and {} is edited here as text: cell ops apply to Jupyter notebooks (.ipynb) read in their notebook view, not with `raw`.",
        ctx.path
    ))
    .with_path(ctx.path)
}

/// `NO_CHANGE` for a batch that leaves the text as it is, saying what the
/// clean-up removed, if anything, since that may be why.
fn refuse_no_change(
    ctx: &PlanContext<'_>,
    items: &[Item],
    stays: &[String],
    cleaned: &[String],
) -> Result<()> {
    let changes = items.iter().any(|item| {
        item.range.len() != item.lines.len()
            || item
                .range
                .clone()
                .zip(&item.lines)
                .any(|(i, l)| ctx.doc.line(i) != l)
    });
    if changes {
        return Ok(());
    }
    let why = if stays.is_empty() {
        "the new content equals the lines it would replace".to_owned()
    } else {
        stays.join(" ")
    };
    let mut message = format!(
        "No changes to apply: the operations leave {} exactly as it is ({why}).",
        ctx.path
    );
    if !cleaned.is_empty() {
        let _ = write!(
            message,
            " That is after lines proven copied from the file were removed from the content: {} To write the content exactly as sent, add \"literal\": true.",
            cleaned.join(" ")
        );
    }
    Err(Error::new(ErrorCode::NoChange, message).with_path(ctx.path))
}

/// The splices of the placed items, in order, and where the lines of each
/// move and copy are in the new text.
fn splices(items: Vec<Item>) -> (Vec<Splice>, Vec<Relocated>) {
    let mut relocated = Vec::new();
    let mut shift: isize = 0;
    let mut splices = Vec::with_capacity(items.len());
    for item in items {
        if let Some(relocation) = item.relocation.filter(|_| item.range.is_empty()) {
            let start = item.range.start.checked_add_signed(shift).unwrap_or(0);
            relocated.push(Relocated {
                kind: item.kind,
                to: start..start + item.lines.len(),
                from: relocation.source,
            });
        }
        shift += item.lines.len() as isize - item.range.len() as isize;
        splices.push(Splice {
            range: item.range,
            lines: item.lines,
        });
    }
    (splices, relocated)
}

/// The line number a ref names, where it parses.
fn line_named(reference: Option<&String>) -> Option<usize> {
    Some(Ref::parse(reference?).ok()?.line)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::current_ref;
    use crate::store::Version;

    pub(super) fn ctx<'a>(doc: &'a Document, history: &'a [Version]) -> PlanContext<'a> {
        PlanContext {
            doc,
            path: "f.txt",
            history,
            others: &[],
            caller_text: false,
            cleanup: true,
            seen_guard: true,
            syntax: None,
            style: ViewStyle::Full,
        }
    }

    pub(super) fn op(
        kind: OpKind,
        r: Option<String>,
        through: Option<String>,
        content: &str,
    ) -> Operation {
        Operation::new(kind, r.as_deref(), through.as_deref(), content)
    }

    pub(super) fn r(doc: &Document, line: usize) -> Option<String> {
        Some(current_ref(doc, line - 1, ViewStyle::Full))
    }

    fn run(doc: &Document, ops: &[Operation]) -> Result<Planned> {
        plan(&ctx(doc, &[]), ops, None)
    }

    #[test]
    fn through_before_ref_is_an_error_never_swapped() {
        let doc = Document::from_text("a\nb\nc\n");
        let err = run(&doc, &[op(OpKind::Replace, r(&doc, 3), r(&doc, 1), "x")]).unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidRequest);
        assert!(err.message.contains("comes before"));
    }

    #[test]
    fn overlapping_ranges_and_inserts_inside_replaced_lines_conflict() {
        let doc = Document::from_text("a\nb\nc\nd\n");
        let err = run(
            &doc,
            &[
                op(OpKind::Replace, r(&doc, 1), r(&doc, 2), "x"),
                op(OpKind::Delete, r(&doc, 2), r(&doc, 3), ""),
            ],
        )
        .unwrap_err();
        assert_eq!(err.code, ErrorCode::Conflict);
        let err = run(
            &doc,
            &[
                op(OpKind::Replace, r(&doc, 2), r(&doc, 3), "x"),
                op(OpKind::InsertAfter, r(&doc, 2), None, "y"),
            ],
        )
        .unwrap_err();
        assert_eq!(err.code, ErrorCode::Conflict);
        let err = run(
            &doc,
            &[
                op(OpKind::InsertAfter, r(&doc, 1), None, "y"),
                op(OpKind::InsertBefore, r(&doc, 2), None, "z"),
            ],
        )
        .unwrap_err();
        assert_eq!(err.code, ErrorCode::Conflict);
    }

    #[test]
    fn identical_operations_collapse_and_a_no_op_batch_is_rejected() {
        let doc = Document::from_text("a\nb\n");
        let planned = run(
            &doc,
            &[
                op(OpKind::Replace, r(&doc, 1), None, "x"),
                op(OpKind::Replace, r(&doc, 1), None, "x"),
            ],
        )
        .unwrap();
        assert_eq!(planned.applied, 1);
        assert!(planned.notes[0].contains("repeated another exactly"));
        let err = run(&doc, &[op(OpKind::Replace, r(&doc, 2), None, "b")]).unwrap_err();
        assert_eq!(err.code, ErrorCode::NoChange);
    }

    #[test]
    fn every_mismatch_is_reported_at_once_with_fresh_refs() {
        let old = Document::from_text("a\nb\nc\nd\n");
        let doc = Document::from_text("a\nB\nc\nD\n");
        let err = run(
            &doc,
            &[
                op(OpKind::Replace, r(&old, 2), None, "x"),
                op(OpKind::Delete, r(&old, 4), None, ""),
            ],
        )
        .unwrap_err();
        assert_eq!(err.code, ErrorCode::HashMismatch);
        assert_eq!(err.mismatches.len(), 2);
        assert_eq!(
            err.mismatches[0].actual.as_deref(),
            Some(current_ref(&doc, 1, ViewStyle::Full).as_str())
        );
        assert!(err
            .message
            .starts_with("Edit rejected, nothing written: 2 refs no longer match f.txt"));
        assert!(err
            .message
            .contains(&format!(">>> {}|B", current_ref(&doc, 1, ViewStyle::Full))));
    }

    #[test]
    fn invalid_refs_suggest_the_current_ref_of_the_line() {
        let doc = Document::from_text("a\nb\n");
        let err = run(&doc, &[op(OpKind::Delete, Some("2#ZZZ".into()), None, "")]).unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidRef);
        assert_eq!(
            err.suggestion.as_deref(),
            Some(current_ref(&doc, 1, ViewStyle::Full).as_str())
        );
    }

    #[test]
    fn refs_past_the_end_are_out_of_range() {
        let doc = Document::from_text("a\n");
        let err = run(
            &doc,
            &[op(OpKind::Delete, Some("7#ABC#DEF".into()), None, "")],
        )
        .unwrap_err();
        assert_eq!(err.code, ErrorCode::OutOfRange);
        assert!(err.message.contains("the file has 1 lines") || err.message.contains("1 lines"));
    }

    #[test]
    fn a_stale_ref_says_where_its_line_went_when_exactly_one_line_matches_it() {
        let old = Document::from_text("a\nb\nc\nb\n");
        let doc = Document::from_text("x\na\nb\nc\nb\n");
        let err = run(&doc, &[op(OpKind::Delete, r(&old, 2), None, "")]).unwrap_err();
        assert_eq!(err.code, ErrorCode::HashMismatch);
        let moved = format!(
            "is at line 3 now ({})",
            current_ref(&doc, 2, ViewStyle::Full)
        );
        assert!(err.message.contains(&moved), "{}", err.message);

        let twice = Document::from_text("a\nb\nc\na\nb\nc\n");
        let doc = Document::from_text("x\na\nb\nc\na\nb\nc\n");
        let err = run(&doc, &[op(OpKind::Delete, r(&twice, 2), None, "")]).unwrap_err();
        assert_eq!(err.code, ErrorCode::HashMismatch);
        assert!(!err.message.contains("The text you cited is at line"));
    }
}
