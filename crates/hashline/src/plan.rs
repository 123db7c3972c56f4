//! Turns a batch of operations into splices of the current text: places
//! every operation at the lines its refs name (`locate`), cleans up echoes,
//! collapses repeats and rejects conflicts, all before anything changes.

use crate::cleanup::{without, Boundary, Echo, Echoes};
use crate::document::{Document, Splice};
use crate::error::{Error, ErrorCode, Result};
use crate::prefix::{self, Place, Prefix, Shown, Verdict};
use crate::reference::Ref;
use crate::reject::Subject;
use crate::relocate::{lines_phrase, place, Placement, Relocated, Relocation};
use crate::request::{OpKind, Operation};
use crate::store::Version;
use crate::syntax::{block_at, EchoJudge, Language};
use crate::view::ViewStyle;
use locate::{locate, parse_refs};
use std::collections::HashSet;
use std::fmt::Write as _;
use std::ops::Range;
use tree_sitter::Tree;

pub(crate) mod locate;

/// What the plan needs to know besides the operations.
pub struct PlanContext<'a> {
    pub doc: &'a Document,
    pub rev: &'a str,
    /// The path as the model knows it, for messages.
    pub path: &'a str,
    /// Stored versions of this file, most recent first (may include the
    /// current one).
    pub history: &'a [Version],
    /// Versions of other files the session showed: their shown lines may
    /// vouch for view prefixes copied from them into this file.
    pub others: &'a [Version],
    /// The text is one the caller holds and showed whole (`apply_to_text`):
    /// its lines vouch for view prefixes copied from it.
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
    /// The versions whose shown lines may vouch for copied view prefixes.
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
            rev: self.rev,
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

pub fn plan(ctx: &PlanContext<'_>, operations: &[Operation], rev: Option<&str>) -> Result<Planned> {
    let mut notes = Vec::new();
    // What the clean-up removed, for a refusal that would otherwise hide it.
    let mut cleaned = Vec::new();
    let mut contents: Vec<Vec<String>> = Vec::with_capacity(operations.len());
    let mut edge_prefixes: Vec<[Option<Prefix>; 2]> = Vec::with_capacity(operations.len());
    let mut doubtful_prefixes = Vec::new();
    for (i, op) in operations.iter().enumerate() {
        let verdict = if ctx.cleanup && !op.literal {
            prefix::judge(&op.content, ctx.shown(), place_of(op))
        } else {
            Verdict::Literal
        };
        let edges = match &verdict {
            Verdict::Clean(fixes) => prefix::edges(&op.content, fixes),
            _ => [None, None],
        };
        edge_prefixes.push(edges);
        match verdict {
            Verdict::Literal => contents.push(op.content.clone()),
            Verdict::Clean(fixes) => {
                let note = prefix::describe(&format!("operation {}", i + 1), &fixes);
                cleaned.push(note.clone());
                notes.push(note);
                contents.push(prefix::clean(&op.content, &fixes));
            }
            Verdict::Ambiguous(doubts) => {
                doubtful_prefixes.push((format!("operation {}'s content", i + 1), doubts));
                contents.push(op.content.clone());
            }
        }
    }

    let (cited, pairs) = parse_refs(ctx, operations)?;
    let located = locate(ctx, &cited, &pairs, rev)?;
    if let Some(from) = &located.from {
        notes.push(format!(
            "the refs were from REV {from}; the lines they name are unchanged since then and were found at their current positions."
        ));
    }
    if let Some(named) = rev.map(|r| r.trim().to_ascii_uppercase()) {
        let known = named == ctx.rev || ctx.history.iter().any(|v| v.rev == named);
        if !known && !cited.is_empty() {
            notes.push(format!(
                "REV {named} is not a version known here; the refs were checked against the current text, REV {}.",
                ctx.rev
            ));
        }
    }

    let mut items = Vec::with_capacity(operations.len());
    let mut stays = Vec::new();
    let mut next = 0;
    for (i, op) in operations.iter().enumerate() {
        let number = i + 1;
        let mut line_of = || {
            let line = located.lines[next];
            next += 1;
            line
        };
        // The lines `ref` through `through` (or `ref` alone) name.
        let cited_range = |line_of: &mut dyn FnMut() -> usize| {
            let first = line_of();
            let last = if op.through.is_some() {
                line_of()
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
        };
        let (range, anchor) = match op.kind {
            OpKind::Prepend => (0..0, None),
            OpKind::Append => (ctx.doc.line_count()..ctx.doc.line_count(), None),
            OpKind::InsertBefore => {
                let a = line_of();
                (a..a, Some(a))
            }
            OpKind::InsertAfter => {
                let a = line_of();
                (a + 1..a + 1, Some(a))
            }
            OpKind::Replace | OpKind::Delete => (cited_range(&mut line_of)?, None),
            OpKind::ReplaceBlock
            | OpKind::DeleteBlock
            | OpKind::InsertBeforeBlock
            | OpKind::InsertAfterBlock => {
                let block = block_of(ctx, number, op.kind, line_of())?;
                notes.push(format!(
                    "operation {number} ({}): the block starting on line {} ends on line {}.",
                    op.kind,
                    block.start + 1,
                    block.end
                ));
                match op.kind {
                    OpKind::InsertBeforeBlock => (block.start..block.start, Some(block.start)),
                    OpKind::InsertAfterBlock => (block.end..block.end, Some(block.end - 1)),
                    _ => (block, None),
                }
            }
            OpKind::Move | OpKind::Copy => {
                let source = cited_range(&mut line_of)?;
                let side = op.place.as_ref().map(|p| p.side).ok_or_else(|| {
                    Error::invalid_request(format!(
                        "operation {number} ({}) needs `after` or `before`.",
                        op.kind
                    ))
                })?;
                let anchor = line_of();
                let relocation = match place(op.kind, source.clone(), side, anchor) {
                    Placement::Stays => {
                        stays.push(format!(
                            "operation {number} (move): {} {} already {} line {}; nothing to move.",
                            lines_phrase(&source),
                            if source.len() == 1 { "is" } else { "are" },
                            side.name(),
                            anchor + 1
                        ));
                        continue;
                    }
                    Placement::InsideItself => {
                        return Err(Error::new(
                            ErrorCode::Conflict,
                            format!(
                                "Edit rejected, nothing written: operation {number} (move) would put {} {} line {}, which is one of the lines it moves. Put them before its first line or after its last, or somewhere outside them.",
                                lines_phrase(&source),
                                side.name(),
                                anchor + 1
                            ),
                        )
                        .with_path(ctx.path));
                    }
                    Placement::At(relocation) => relocation,
                };
                let lines: Vec<String> =
                    source.clone().map(|l| ctx.doc.line(l).to_owned()).collect();
                if op.kind == OpKind::Move {
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
                    lines,
                    relocation: Some(relocation),
                    literal: true,
                    prefixes: [None, None],
                });
                continue;
            }
        };
        items.push(Item {
            op: number,
            kind: op.kind,
            range,
            anchor,
            lines: std::mem::take(&mut contents[i]),
            relocation: None,
            literal: op.literal,
            prefixes: edge_prefixes[i],
        });
    }

    // Content is judged once every operation is placed: a request that is
    // wrong in itself is told so first.
    if !doubtful_prefixes.is_empty() {
        return Err(prefix::ambiguous(
            ctx.path,
            &doubtful_prefixes,
            "send it again with \"literal\": true on the operation (or on the whole request): it is then written exactly as sent",
        ));
    }
    if ctx.cleanup {
        // A parse proves a reading of one operation's boundary only when no
        // other operation changes the file: each is parsed against the text
        // as it is, so a repeat another operation gives its meaning (a rule
        // it closes, a bracket it removes) would be judged in a file that
        // is not the one written.
        let judge = (items.len() == 1)
            .then_some(ctx.syntax)
            .flatten()
            .and_then(|(language, kept)| EchoJudge::new(language, ctx.doc, kept.cloned()));
        // Every boundary is judged against the text as it is, then its
        // echoes dropped, so no judgement depends on the order of the others.
        let judged: Vec<(Boundary, Vec<Echo>)> = items
            .iter()
            .map(|item| {
                // Moved and copied lines are the file's own, taken as they are.
                if item.literal || item.relocation.is_some() {
                    return (Boundary::Kept, Vec::new());
                }
                let Range { start, end } = item.range;
                let named = named_neighbours(ctx.doc, item);
                let boundary = Echoes {
                    given: &item.lines,
                    range: item.range.clone(),
                    before: start.checked_sub(1).map(|i| ctx.doc.line(i)),
                    after: (end < ctx.doc.line_count()).then(|| ctx.doc.line(end)),
                    named: &named,
                }
                .judge(judge.as_ref());
                (boundary, named)
            })
            .collect();
        let mut doubtful = String::new();
        for (item, (boundary, named)) in items.iter_mut().zip(judged) {
            match boundary {
                Boundary::Kept => {}
                Boundary::Dropped(echoes) => {
                    let note = describe_drop(item, &echoes, &named);
                    item.lines = without(&item.lines, &echoes);
                    cleaned.push(note.clone());
                    notes.push(note);
                }
                Boundary::Doubtful(echoes) => describe_doubt(&mut doubtful, item, &echoes),
            }
        }
        if !doubtful.is_empty() {
            return Err(Error::new(
                ErrorCode::AmbiguousEcho,
                format!(
                    "Edit rejected, nothing written: content repeats a line next to where it goes, and the engine cannot tell whether the repeat was copied by mistake:\n{doubtful}Nothing was removed. If a repeated line was copied by mistake, send the operation again without it; if both copies are meant, send it again with \"literal\": true on the operation, and its content is written exactly as sent."
                ),
            )
            .with_path(ctx.path));
        }
    }
    let (items, collapsed) = collapse_identical(items);
    if collapsed > 0 {
        notes.push(format!(
            "{collapsed} operation{} repeated another exactly and {} applied once.",
            if collapsed == 1 { "" } else { "s" },
            if collapsed == 1 { "was" } else { "were" }
        ));
    }
    check_conflicts(ctx, &items)?;
    check_copied_lines(ctx, &items)?;
    notes.extend(stays.iter().cloned());

    let changes = items.iter().any(|item| {
        item.range.len() != item.lines.len()
            || item
                .range
                .clone()
                .zip(&item.lines)
                .any(|(i, l)| ctx.doc.line(i) != l)
    });
    if !changes {
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
        return Err(Error::new(ErrorCode::NoChange, message).with_path(ctx.path));
    }
    let applied = operations_in(&items);
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
    Ok(Planned {
        splices,
        applied,
        notes,
        from: located.from,
        relocated,
    })
}

/// The lines of the block that starts on line `first`, for a block op.
fn block_of(
    ctx: &PlanContext<'_>,
    number: usize,
    kind: OpKind,
    first: usize,
) -> Result<Range<usize>> {
    let refuse = |why: String| {
        let instead = match kind {
            OpKind::ReplaceBlock => "replace with `through`",
            OpKind::DeleteBlock => "delete with `through`",
            _ => "insert_before or insert_after on the line itself",
        };
        Error::invalid_request(format!(
            "operation {number} ({kind}): {why}. Cite the block's last line too, with {instead}."
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
    block_at(language, ctx.doc, kept, first).map_err(refuse)
}

/// Where an operation's content goes, in the numbers of the version the
/// refs were read from, where the operation says so: the line number its
/// first line takes (a copied view gives its lines those numbers), and how
/// many lines it replaces (a block's first at least).
fn place_of(op: &Operation) -> Option<Place> {
    let line = |r: Option<&String>| Some(Ref::parse(r?).ok()?.line);
    let cited = line(op.reference.as_ref());
    let at = |first: Option<usize>, replaced: usize| first.map(|first| Place { first, replaced });
    match op.kind {
        OpKind::Replace => {
            let first = cited?;
            let last = line(op.through.as_ref()).unwrap_or(first);
            at(cited, (last + 1).saturating_sub(first).max(1))
        }
        OpKind::ReplaceBlock => at(cited, 1),
        OpKind::InsertBefore | OpKind::InsertBeforeBlock => at(cited, 0),
        OpKind::InsertAfter => at(cited.map(|n| n + 1), 0),
        OpKind::Prepend => at(Some(1), 0),
        _ => None,
    }
}

/// The boundaries of an item whose content line carried, proven a copy,
/// the view prefix of the line just outside the range: the line before it
/// for the first, the line after it for the last, as the text is now.
fn named_neighbours(doc: &Document, item: &Item) -> Vec<Echo> {
    let Range { start, end } = item.range;
    let names = |prefix: Option<Prefix>, index: Option<usize>| {
        prefix.zip(index).is_some_and(|(p, i)| {
            p.line == i + 1
                && Ref {
                    line: p.line,
                    tag: p.tag,
                }
                .matches(doc, i)
        })
    };
    let mut named = Vec::new();
    if names(item.prefixes[0], start.checked_sub(1)) {
        named.push(Echo::Before);
    }
    if names(item.prefixes[1], (end < doc.line_count()).then_some(end)) {
        named.push(Echo::After);
    }
    named
}

/// The note for repeats dropped from an item's content as proven echoes:
/// those in `named` carried the neighbour's ref, the others only the parse
/// explains.
fn describe_drop(item: &Item, echoes: &[Echo], named: &[Echo]) -> String {
    let Range { start, end } = item.range;
    let lines: Vec<String> = echoes
        .iter()
        .map(|echo| {
            let (which, line, side) = match echo {
                Echo::Before => ("first", start, "before"),
                Echo::After => ("last", end + 1, "after"),
            };
            let why = if named.contains(echo) {
                "it carried that line's ref"
            } else {
                "only without it does the file parse"
            };
            format!("its {which} content line, a copy of line {line} just {side} it ({why})")
        })
        .collect();
    format!(
        "operation {} ({}): dropped {}; the file's own line stays as it was.",
        item.op,
        item.kind,
        lines.join(", and ")
    )
}

/// One line of the refusal for repeats nothing proves echoes or content.
fn describe_doubt(out: &mut String, item: &Item, echoes: &[Echo]) {
    let Range { start, end } = item.range;
    for echo in echoes {
        let (which, line, text, side) = match echo {
            Echo::Before => ("first", start, item.lines.first(), "before"),
            Echo::After => ("last", end + 1, item.lines.last(), "after"),
        };
        let _ = writeln!(
            out,
            "  operation {} ({}): its {which} content line {} is the same as line {line}, just {side} {}.",
            item.op,
            item.kind,
            quote(text.map_or("", String::as_str)),
            if item.range.is_empty() {
                "where it inserts"
            } else {
                "the lines it replaces"
            }
        );
    }
}

/// A line as a message shows it: quoted, or said to be blank.
fn quote(line: &str) -> String {
    if line.trim().is_empty() {
        "(a blank line)".to_owned()
    } else {
        crate::error::excerpt(line)
    }
}

/// The number of operations the items come from (a move is two items).
fn operations_in(items: &[Item]) -> usize {
    items.iter().map(|i| i.op).collect::<HashSet<_>>().len()
}

/// Drops operations that repeat an earlier one exactly. Each is hashed
/// once, so this stays linear in the batch.
fn collapse_identical(items: Vec<Item>) -> (Vec<Item>, usize) {
    let first_of_its_kind: Vec<bool> = {
        let mut seen = HashSet::with_capacity(items.len());
        items
            .iter()
            .map(|i| {
                seen.insert((
                    i.kind,
                    i.range.clone(),
                    i.anchor,
                    i.lines.as_slice(),
                    i.relocation.as_ref(),
                ))
            })
            .collect()
    };
    let before = operations_in(&items);
    let mut kept: Vec<Item> = items
        .into_iter()
        .zip(first_of_its_kind)
        .filter_map(|(item, first)| first.then_some(item))
        .collect();
    // Inserts go before a replace that starts at the same place; in an
    // empty file the start and the end of the file are one place, and a
    // prepend goes before an append whatever their order in the batch.
    kept.sort_by_key(|i| {
        let place = match i.kind {
            OpKind::Prepend => 0,
            OpKind::Append => 2,
            _ => 1,
        };
        (i.range.start, !i.range.is_empty(), place, i.op)
    });
    let collapsed = before - operations_in(&kept);
    (kept, collapsed)
}

fn check_conflicts(ctx: &PlanContext<'_>, items: &[Item]) -> Result<()> {
    let describe = |item: &Item| match item.kind {
        OpKind::Prepend => "prepend (start of file)".to_string(),
        OpKind::Append => "append (end of file)".to_string(),
        OpKind::InsertBefore
        | OpKind::InsertAfter
        | OpKind::InsertBeforeBlock
        | OpKind::InsertAfterBlock => {
            format!("{} line {}", item.kind, item.anchor.unwrap_or(0) + 1)
        }
        OpKind::Move | OpKind::Copy => match &item.relocation {
            Some(r) if item.range.is_empty() => format!(
                "{} {} to {}",
                item.kind,
                lines_phrase(&r.source),
                if r.gap < ctx.doc.line_count() {
                    format!("before line {}", r.gap + 1)
                } else {
                    "the end of the file".to_owned()
                }
            ),
            _ => format!("{} {}", item.kind, lines_phrase(&item.range)),
        },
        _ => format!(
            "{} lines {}-{}",
            item.kind,
            item.range.start + 1,
            item.range.end
        ),
    };
    let conflict = |a: &Item, b: &Item, why: &str| {
        Err(Error::new(
            ErrorCode::Conflict,
            format!(
                "Edit rejected, nothing written: operation {} ({}) and operation {} ({}) {why}. Merge them into one operation or split the batch.",
                a.op.min(b.op),
                describe(if a.op < b.op { a } else { b }),
                a.op.max(b.op),
                describe(if a.op < b.op { b } else { a })
            ),
        )
        .with_path(ctx.path))
    };
    let ranges: Vec<&Item> = items.iter().filter(|i| !i.range.is_empty()).collect();
    for pair in ranges.windows(2) {
        if pair[1].range.start < pair[0].range.end {
            return conflict(pair[0], pair[1], "overlap");
        }
    }
    // The ranges are sorted and, past the check above, disjoint: the only
    // one that can hold a line is the first that ends after it.
    for insert in items.iter().filter(|i| i.range.is_empty()) {
        if let Some(anchor) = insert.anchor {
            let at = ranges.partition_point(|r| r.range.end <= anchor);
            if let Some(range) = ranges.get(at).filter(|r| r.range.contains(&anchor)) {
                return conflict(
                    insert,
                    range,
                    "conflict: the insert is anchored on a line the other removes or replaces",
                );
            }
        }
    }
    let inserts: Vec<&Item> = items.iter().filter(|i| i.range.is_empty()).collect();
    for pair in inserts.windows(2) {
        let start_and_end = pair[0].kind == OpKind::Prepend && pair[1].kind == OpKind::Append;
        if pair[0].range.start == pair[1].range.start && !start_and_end {
            return conflict(
                pair[0],
                pair[1],
                "both insert at the same place, so their order is unclear",
            );
        }
    }
    Ok(())
}

/// A copy reads lines of the version read: none of them may be one another
/// operation of the batch removes or replaces, or which text it copies is
/// unclear.
fn check_copied_lines(ctx: &PlanContext<'_>, items: &[Item]) -> Result<()> {
    let ranges: Vec<&Item> = items.iter().filter(|i| !i.range.is_empty()).collect();
    for copy in items.iter().filter(|i| i.kind == OpKind::Copy) {
        let Some(source) = copy.relocation.as_ref().map(|r| &r.source) else {
            continue;
        };
        // Sorted and disjoint: the first range that ends after the copied
        // lines start is the only one that can overlap them first.
        let at = ranges.partition_point(|r| r.range.end <= source.start);
        if let Some(other) = ranges.get(at).filter(|r| r.range.start < source.end) {
            return Err(Error::new(
                ErrorCode::Conflict,
                format!(
                    "Edit rejected, nothing written: operation {} (copy {}) copies lines that operation {} ({} {}) changes, so which text it copies is unclear. Copy in one batch and change in the next.",
                    copy.op,
                    lines_phrase(source),
                    other.op,
                    other.kind,
                    lines_phrase(&other.range)
                ),
            )
            .with_path(ctx.path));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hash::rev;
    use crate::report::current_ref;
    use crate::store::Version;

    fn ctx<'a>(doc: &'a Document, rev: &'a str, history: &'a [Version]) -> PlanContext<'a> {
        PlanContext {
            doc,
            rev,
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

    fn op(kind: OpKind, r: Option<String>, through: Option<String>, content: &str) -> Operation {
        Operation::new(kind, r.as_deref(), through.as_deref(), content)
    }

    fn r(doc: &Document, line: usize) -> Option<String> {
        Some(current_ref(doc, line - 1, ViewStyle::Full))
    }

    fn run(doc: &Document, ops: &[Operation]) -> Result<Planned> {
        let rev = rev(doc.text());
        plan(&ctx(doc, &rev, &[]), ops, None)
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

    /// Whether two operations placed in the text cannot both apply, by
    /// comparing them pairwise as the rules state it.
    fn clash(a: &Item, b: &Item) -> bool {
        let inside = |insert: &Item, range: &Item| {
            insert.range.is_empty()
                && !range.range.is_empty()
                && insert.anchor.is_some_and(|l| range.range.contains(&l))
        };
        match (a.range.is_empty(), b.range.is_empty()) {
            (false, false) => a.range.start < b.range.end && b.range.start < a.range.end,
            (true, true) => a.range.start == b.range.start,
            _ => inside(a, b) || inside(b, a),
        }
    }

    proptest::proptest! {
        #[test]
        fn the_linear_conflict_checks_agree_with_comparing_every_pair(
            raw in proptest::collection::vec(
                (0..6usize, 0..12usize, 0..3usize, 0..3usize),
                1..40,
            )
        ) {
            let doc = Document::from_text(
                &(1..=12).map(|i| format!("l{i}\n")).collect::<String>(),
            );
            let rev = rev(doc.text());
            let kinds = [
                OpKind::Replace,
                OpKind::Delete,
                OpKind::InsertBefore,
                OpKind::InsertAfter,
                OpKind::Prepend,
                OpKind::Append,
            ];
            let mut ops = Vec::new();
            let mut items: Vec<Item> = Vec::new();
            for (i, &(kind, line, span, text)) in raw.iter().enumerate() {
                let kind = kinds[kind];
                let last = (line + span).min(11);
                let content = ["x", "y", "l5"][text];
                let (reference, through) = match kind {
                    OpKind::Prepend | OpKind::Append => (None, None),
                    OpKind::Replace | OpKind::Delete if last > line => (r(&doc, line + 1), r(&doc, last + 1)),
                    _ => (r(&doc, line + 1), None),
                };
                let content = if kind == OpKind::Delete { "" } else { content };
                ops.push(op(kind, reference, through.clone(), content));
                let end = if through.is_some() { last + 1 } else { line + 1 };
                let (range, anchor) = match kind {
                    OpKind::Prepend => (0..0, None),
                    OpKind::Append => (12..12, None),
                    OpKind::InsertBefore => (line..line, Some(line)),
                    OpKind::InsertAfter => (line + 1..line + 1, Some(line)),
                    _ => (line..end, None),
                };
                let lines = if kind == OpKind::Delete { vec![] } else { vec![content.to_string()] };
                let item = Item { op: i + 1, kind, range, anchor, lines, relocation: None, literal: false, prefixes: [None, None] };
                let repeat = items.iter().any(|k| {
                    (k.kind, &k.range, k.anchor, &k.lines) == (item.kind, &item.range, item.anchor, &item.lines)
                });
                if !repeat {
                    items.push(item);
                }
            }
            let expected_conflict = items
                .iter()
                .enumerate()
                .any(|(i, a)| items[i + 1..].iter().any(|b| clash(a, b)));
            let mut context = ctx(&doc, &rev, &[]);
            context.cleanup = false;
            match plan(&context, &ops, None) {
                Err(err) if err.code == ErrorCode::Conflict => proptest::prop_assert!(expected_conflict),
                Err(err) => {
                    proptest::prop_assert_eq!(err.code, ErrorCode::NoChange);
                    proptest::prop_assert!(!expected_conflict);
                }
                Ok(planned) => {
                    proptest::prop_assert!(!expected_conflict);
                    proptest::prop_assert_eq!(planned.applied, items.len());
                }
            }
        }
    }
}
