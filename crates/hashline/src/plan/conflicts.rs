//! Repeats and conflicts among a batch's placed operations: identical
//! operations applied once; overlapping ranges, inserts at one place or
//! inside a replaced range, and a copy of lines another operation changes,
//! refused (`docs/format.md` §5).

use super::{Item, PlanContext};
use crate::error::{Error, ErrorCode, Result};
use crate::relocate::lines_phrase;
use crate::request::{Action, Cites};
use std::collections::HashSet;

/// The number of operations the items come from (a move is two items).
pub(super) fn operations_in(items: &[Item]) -> usize {
    items.iter().map(|i| i.op).collect::<HashSet<_>>().len()
}

/// Drops operations that repeat an earlier one exactly. Each is hashed
/// once, so this stays linear in the batch.
pub(super) fn collapse_identical(items: Vec<Item>) -> (Vec<Item>, usize) {
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
        let place = match i.kind.cites() {
            Cites::Start => 0,
            Cites::End => 2,
            _ => 1,
        };
        (i.range.start, !i.range.is_empty(), place, i.op)
    });
    let collapsed = before - operations_in(&kept);
    (kept, collapsed)
}

/// `CONFLICT` for operations that cannot all apply: ranges that overlap,
/// an insert anchored on a line another removes or replaces, two inserts
/// at one place.
pub(super) fn check(ctx: &PlanContext<'_>, items: &[Item]) -> Result<()> {
    let describe = |item: &Item| match (item.kind.cites(), item.kind.action()) {
        (Cites::Start, _) => format!("{} (start of file)", item.kind),
        (Cites::End, _) => format!("{} (end of file)", item.kind),
        (_, Action::Insert(_)) => {
            format!("{} line {}", item.kind, item.anchor.unwrap_or(0) + 1)
        }
        (_, Action::Move | Action::Copy) => match &item.relocation {
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
        let start_and_end =
            pair[0].kind.cites() == Cites::Start && pair[1].kind.cites() == Cites::End;
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
pub(super) fn check_copied_lines(ctx: &PlanContext<'_>, items: &[Item]) -> Result<()> {
    let ranges: Vec<&Item> = items.iter().filter(|i| !i.range.is_empty()).collect();
    for copy in items.iter().filter(|i| i.kind.action() == Action::Copy) {
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
    use crate::document::Document;
    use crate::plan::plan;
    use crate::plan::tests::{ctx, op, r};
    use crate::request::OpKind;

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
            let mut context = ctx(&doc, &[]);
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
