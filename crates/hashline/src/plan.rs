//! Turns a batch of operations into splices of the current text: parses and
//! locates every ref (directly, or through a stored version when that is
//! provable), cleans up echoes, and rejects conflicts, all before anything
//! changes.

use crate::cleanup::{strip_view_prefixes, trim_boundary_echo, Echo};
use crate::error::{list_numbers, Error, ErrorCode, Mismatch, Result};
use crate::reference::{Ref, EXPECTED_FORM};
use crate::remap::{certain, LineMap};
use crate::report::{current_ref, window};
use crate::request::{OpKind, Operation};
use crate::store::Version;
use crate::text::{Document, Splice};
use std::collections::HashMap;
use std::fmt::Write;
use std::ops::Range;

/// Lines of context around each line a rejection shows.
const REJECTION_CONTEXT: usize = 2;

/// What the plan needs to know besides the operations.
pub struct PlanContext<'a> {
    pub doc: &'a Document,
    pub rev: &'a str,
    /// The path as the model knows it, for messages.
    pub path: &'a str,
    /// Stored versions of this file, most recent first (may include the
    /// current one).
    pub history: &'a [Version],
    pub cleanup: bool,
    pub seen_guard: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Planned {
    pub splices: Vec<Splice>,
    /// Operations applied, after identical ones were collapsed.
    pub applied: usize,
    pub notes: Vec<String>,
    /// The stored version the refs were remapped from, if any.
    pub from: Option<String>,
}

#[derive(Debug, Clone, Copy)]
struct Cited {
    op: usize,
    reference: Ref,
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
}

pub fn plan(ctx: &PlanContext<'_>, operations: &[Operation], rev: Option<&str>) -> Result<Planned> {
    let mut notes = Vec::new();
    let mut contents: Vec<Vec<String>> = Vec::with_capacity(operations.len());
    for (i, op) in operations.iter().enumerate() {
        match ctx
            .cleanup
            .then(|| strip_view_prefixes(&op.content))
            .flatten()
        {
            Some(stripped) => {
                notes.push(format!(
                    "operation {}: removed the view prefixes (LINE#HASH#ANCHOR|) copied into its content.",
                    i + 1
                ));
                contents.push(stripped);
            }
            None => contents.push(op.content.clone()),
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
    let mut next = 0;
    for (i, op) in operations.iter().enumerate() {
        let number = i + 1;
        let mut line_of = || {
            let line = located.lines[next];
            next += 1;
            line
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
            OpKind::Replace | OpKind::Delete => {
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
                (first..last + 1, None)
            }
        };
        items.push(Item {
            op: number,
            kind: op.kind,
            range,
            anchor,
            lines: std::mem::take(&mut contents[i]),
        });
    }

    if ctx.cleanup {
        for item in &mut items {
            trim_echoes(ctx.doc, item, &mut notes);
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

    let changes = items.iter().any(|item| {
        item.range.len() != item.lines.len()
            || item
                .range
                .clone()
                .zip(&item.lines)
                .any(|(i, l)| ctx.doc.line(i) != l)
    });
    if !changes {
        return Err(Error::new(
            ErrorCode::NoChange,
            format!(
                "No changes to apply: the operations leave {} exactly as it is (the new content equals the lines it would replace).",
                ctx.path
            ),
        )
        .with_path(ctx.path));
    }
    let applied = items.len();
    let splices = items
        .into_iter()
        .map(|item| Splice {
            range: item.range,
            lines: item.lines,
        })
        .collect();
    Ok(Planned {
        splices,
        applied,
        notes,
        from: located.from,
    })
}

/// Where refs cited outside operations (a patch's `@@` headers) are in the
/// current text, one slot each (`None` for a slot citing nothing), with the
/// checks and provable remapping of a batch; messages number the slots as
/// operations. Also the stored REV they were remapped from, if any.
pub fn locate_refs(
    ctx: &PlanContext<'_>,
    refs: &[Option<&str>],
    rev: Option<&str>,
) -> Result<(Vec<usize>, Option<String>)> {
    let operations: Vec<Operation> = refs
        .iter()
        .map(|r| Operation::new(OpKind::Replace, *r, None, ""))
        .collect();
    let (cited, pairs) = parse_refs(ctx, &operations)?;
    let located = locate(ctx, &cited, &pairs, rev)?;
    Ok((located.lines, located.from))
}

/// Every ref of the batch in order (`ref`, then `through`), and which pairs
/// of them form a range.
type CitedRefs = (Vec<Cited>, Vec<(usize, usize)>);

fn parse_refs(ctx: &PlanContext<'_>, operations: &[Operation]) -> Result<CitedRefs> {
    let mut cited = Vec::new();
    let mut pairs = Vec::new();
    let mut problems = Vec::new();
    let mut suggestion = None;
    for (i, op) in operations.iter().enumerate() {
        let start = cited.len();
        for text in [&op.reference, &op.through].into_iter().flatten() {
            match Ref::parse(text) {
                Ok(reference) => cited.push(Cited {
                    op: i + 1,
                    reference,
                }),
                Err(err) => {
                    let mut problem = format!("operation {}: {}", i + 1, err.message);
                    if let Some(line) =
                        leading_line_number(text).filter(|l| (1..=ctx.doc.line_count()).contains(l))
                    {
                        let meant = current_ref(ctx.doc, line - 1);
                        let _ = write!(problem, " Did you mean {meant}?");
                        suggestion.get_or_insert(meant);
                    }
                    problems.push(problem);
                }
            }
        }
        if op.through.is_some() && cited.len() == start + 2 {
            pairs.push((start, start + 1));
        }
    }
    if problems.is_empty() {
        return Ok((cited, pairs));
    }
    let mut err = Error::new(
        ErrorCode::InvalidRef,
        format!(
            "Edit rejected, nothing written: {}\nRefs have the form {EXPECTED_FORM}.",
            problems.join("\n")
        ),
    )
    .with_path(ctx.path);
    err.suggestion = suggestion;
    Err(err)
}

fn leading_line_number(text: &str) -> Option<usize> {
    let digits: String = text
        .trim_start_matches(|c: char| !c.is_ascii_digit())
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    digits.parse().ok()
}

/// Where the cited refs are in the current text, and the stored REV they
/// were remapped from, if any.
struct Located {
    lines: Vec<usize>,
    from: Option<String>,
}

/// One reading of the refs: a version in which they all hold, and where
/// their lines are now.
struct Reading<'a> {
    lines: Vec<usize>,
    version: Option<&'a Version>,
    remapped: bool,
}

fn validates(doc: &Document, cited: &[Cited]) -> bool {
    cited
        .iter()
        .all(|c| c.reference.matches(doc, c.reference.line - 1))
}

fn locate(
    ctx: &PlanContext<'_>,
    cited: &[Cited],
    pairs: &[(usize, usize)],
    rev: Option<&str>,
) -> Result<Located> {
    if cited.is_empty() {
        return Ok(Located {
            lines: Vec::new(),
            from: None,
        });
    }
    let current = ctx.history.iter().find(|v| v.rev == ctx.rev);
    let named = rev.map(|r| r.trim().to_ascii_uppercase());
    let named_version = named
        .as_deref()
        .and_then(|r| ctx.history.iter().find(|v| v.rev == r));
    let mut readings: Vec<Reading<'_>> = Vec::new();
    let mut unmappable: Vec<(&Version, Vec<usize>)> = Vec::new();

    // The refs name the current text, unless the request says they are
    // from another stored version.
    let consider_current = named_version.is_none_or(|v| v.rev == ctx.rev);
    if consider_current && validates(ctx.doc, cited) {
        readings.push(Reading {
            lines: cited.iter().map(|c| c.reference.line - 1).collect(),
            version: current,
            remapped: false,
        });
    }
    let candidates: Vec<&Version> = match named_version {
        Some(v) => vec![v],
        None => ctx.history.iter().collect(),
    };
    for version in candidates {
        if version.rev == ctx.rev || !validates(&version.doc, cited) {
            continue;
        }
        let lines = map_cited(ctx, version, cited, pairs);
        if lines.iter().all(Option::is_some) {
            readings.push(Reading {
                lines: lines.into_iter().flatten().collect(),
                version: Some(version),
                remapped: true,
            });
        } else {
            let lost = cited
                .iter()
                .zip(&lines)
                .filter(|(_, l)| l.is_none())
                .map(|(c, _)| c.reference.line)
                .collect();
            unmappable.push((version, lost));
        }
    }

    // Text nobody was shown cannot vouch for itself: if a version the
    // model was shown also holds these refs but cannot be mapped, the refs
    // may mean that version, and where they point now is unknown.
    let current_vouched = current.is_some() || named.as_deref() == Some(ctx.rev);
    let only_unvouched_current = readings.iter().all(|r| !r.remapped);
    if !unmappable.is_empty() && !current_vouched && only_unvouched_current {
        readings.clear();
    }
    let Some(first) = readings.first() else {
        return Err(mismatch_error(ctx, cited, unmappable.first()));
    };
    if readings.iter().any(|r| r.lines != first.lines) {
        let mut focus: Vec<usize> = readings
            .iter()
            .flat_map(|r| r.lines.iter().copied())
            .collect();
        focus.sort_unstable();
        focus.dedup();
        let (shown_text, shown) = window(ctx.doc, &focus, REJECTION_CONTEXT);
        let mut err = Error::new(
            ErrorCode::HashMismatch,
            format!(
                "Edit rejected, nothing written: the refs match more than one recent version of {} and point at different lines in each. Cite the lines again from these current refs (REV now {}), and pass `rev` to say which version you read:\n{shown_text}",
                ctx.path, ctx.rev
            ),
        )
        .with_path(ctx.path);
        err.shown = shown;
        return Err(err);
    }

    // A ref without ANCHOR cannot tell identical lines apart; accept one on
    // a repeated line only when a stored version vouches for the text read.
    let vouched = named.as_deref() == Some(ctx.rev) || readings.iter().any(|r| r.version.is_some());
    if !vouched && cited.iter().any(|c| c.reference.anchor.is_none()) {
        let counts = hash_counts(ctx.doc);
        let ambiguous: Vec<usize> = cited
            .iter()
            .zip(&first.lines)
            .filter(|(c, _)| {
                c.reference.anchor.is_none()
                    && counts.get(&c.reference.hash).copied().unwrap_or(0) > 1
            })
            .map(|(_, &l)| l)
            .collect();
        if !ambiguous.is_empty() {
            let (shown_text, shown) = window(ctx.doc, &ambiguous, REJECTION_CONTEXT);
            let mut err = Error::new(
                ErrorCode::HashMismatch,
                format!(
                    "Edit rejected, nothing written: a ref without ANCHOR names a line whose HASH other lines of {} share, so it cannot be told apart. Use the full refs (LINE#HASH#ANCHOR) below (REV {}):\n{shown_text}",
                    ctx.path, ctx.rev
                ),
            )
            .with_path(ctx.path);
            err.shown = shown;
            return Err(err);
        }
    }

    if ctx.seen_guard {
        let all_seen = |r: &Reading<'_>| match r.version {
            None => true,
            Some(v) => cited.iter().all(|c| v.saw(c.reference.line - 1)),
        };
        if !readings.iter().any(all_seen) {
            let mut focus: Vec<usize> = first
                .lines
                .iter()
                .zip(cited)
                .filter(|(_, c)| {
                    !readings
                        .iter()
                        .any(|r| r.version.is_some_and(|v| v.saw(c.reference.line - 1)))
                })
                .map(|(&l, _)| l)
                .collect();
            focus.sort_unstable();
            focus.dedup();
            let numbers: Vec<String> = focus.iter().map(|l| (l + 1).to_string()).collect();
            let (shown_text, shown) = window(ctx.doc, &focus, REJECTION_CONTEXT);
            let mut err = Error::new(
                ErrorCode::UnseenLines,
                format!(
                    "Edit rejected, nothing written: it cites line{} {} of {}, which no view showed. Here they are (REV {}); check them and send the edit again:\n{shown_text}",
                    if numbers.len() == 1 { "" } else { "s" },
                    numbers.join(", "),
                    ctx.path,
                    ctx.rev
                ),
            )
            .with_path(ctx.path);
            err.shown = shown;
            return Err(err);
        }
    }

    let from = readings
        .iter()
        .all(|r| r.remapped)
        .then(|| first.version.map(|v| v.rev.clone()))
        .flatten();
    Ok(Located {
        lines: first.lines.clone(),
        from,
    })
}

/// Where the cited lines of `version` are in the current text (`None` for
/// each that cannot be proven), with every range checked to be intact.
fn map_cited(
    ctx: &PlanContext<'_>,
    version: &Version,
    cited: &[Cited],
    pairs: &[(usize, usize)],
) -> Vec<Option<usize>> {
    let old_line = |c: &Cited| c.reference.line - 1;
    let mut lines: Vec<Option<usize>>;
    match chain(ctx, version) {
        Some(map) => {
            lines = cited.iter().map(|c| map.line(old_line(c))).collect();
            for &(a, b) in pairs {
                if map
                    .range(old_line(&cited[a]), old_line(&cited[b]))
                    .is_none()
                {
                    lines[a] = None;
                    lines[b] = None;
                }
            }
        }
        None => {
            let wanted: Vec<usize> = cited.iter().map(old_line).collect();
            lines = certain(&version.doc, ctx.doc, &wanted);
            // Both ends proven and the lines between them identical and as
            // many: every optimal alignment then matches the whole range.
            for &(a, b) in pairs {
                let (first, last) = (old_line(&cited[a]), old_line(&cited[b]));
                let intact = match (lines[a], lines[b]) {
                    (Some(ja), Some(jb)) => {
                        jb >= ja
                            && jb - ja == last - first
                            && (first..=last)
                                .all(|i| version.doc.line(i) == ctx.doc.line(ja + (i - first)))
                    }
                    _ => false,
                };
                if !intact {
                    lines[a] = None;
                    lines[b] = None;
                }
            }
        }
    }
    lines
}

/// The exact map from `version` to the current text, when the current text
/// was made from `version` by edits this store recorded.
fn chain(ctx: &PlanContext<'_>, version: &Version) -> Option<LineMap> {
    let mut maps = Vec::new();
    let mut at = ctx.history.iter().find(|v| v.rev == ctx.rev);
    while let Some(current) = at {
        if current.rev == version.rev {
            let mut steps = maps.into_iter().rev();
            let first: LineMap = steps.next()?;
            return Some(steps.fold(first, |acc, next: LineMap| acc.then(&next)));
        }
        if maps.len() > ctx.history.len() {
            return None;
        }
        let parent = current.parent.as_ref()?;
        maps.push((*parent.map).clone());
        at = ctx.history.iter().find(|v| v.rev == parent.rev);
    }
    None
}

fn hash_counts(doc: &Document) -> HashMap<crate::hash::Tag, usize> {
    let mut counts = HashMap::new();
    for line in doc.lines() {
        *counts.entry(crate::hash::line_hash(line)).or_insert(0) += 1;
    }
    counts
}

/// The rejection for refs that hold in no version that can be mapped: each
/// cited line as it is now, with context and fresh refs.
fn mismatch_error(
    ctx: &PlanContext<'_>,
    cited: &[Cited],
    unmappable: Option<&(&Version, Vec<usize>)>,
) -> Error {
    let n = ctx.doc.line_count();
    let mut mismatches = Vec::new();
    let mut details = Vec::new();
    let mut focus = Vec::new();
    let mut seen_refs = std::collections::HashSet::new();
    for c in cited {
        let index = c.reference.line - 1;
        if c.reference.matches(ctx.doc, index) && unmappable.is_none() {
            continue;
        }
        if !seen_refs.insert(c.reference) {
            continue;
        }
        let actual = (index < n).then(|| current_ref(ctx.doc, index));
        let mut detail = match &actual {
            Some(now) => format!(
                "operation {}: {} does not match; line {} is now {now}.",
                c.op, c.reference, c.reference.line
            ),
            None => format!(
                "operation {}: {} names line {}, but the file has {n} lines.",
                c.op, c.reference, c.reference.line
            ),
        };
        if let Some(moved) = unique_line_with(ctx.doc, &c.reference) {
            let _ = write!(
                detail,
                " The text you cited is at line {} now ({}).",
                moved + 1,
                current_ref(ctx.doc, moved)
            );
        }
        details.push(detail);
        mismatches.push(Mismatch {
            line: c.reference.line,
            expected: c.reference.to_string(),
            actual: actual.clone(),
        });
        focus.push(index.min(n.saturating_sub(1)));
    }
    let all_out_of_range = mismatches.iter().all(|m| m.actual.is_none());
    focus.sort_unstable();
    focus.dedup();
    let (shown_text, shown) = if n == 0 {
        (String::new(), Vec::new())
    } else {
        window(ctx.doc, &focus, REJECTION_CONTEXT)
    };
    let count = mismatches.len();
    let mut message = if all_out_of_range {
        format!(
            "Edit rejected, nothing written: {count} ref{} past the end of {} ({n} lines, REV now {}).\n",
            if count == 1 { " points" } else { "s point" },
            ctx.path,
            ctx.rev
        )
    } else {
        format!(
            "Edit rejected, nothing written: {count} ref{} no longer match{} {} (REV now {}).\n",
            if count == 1 { "" } else { "s" },
            if count == 1 { "es" } else { "" },
            ctx.path,
            ctx.rev
        )
    };
    if let Some((version, lost)) = unmappable {
        let mut lost = lost.clone();
        lost.sort_unstable();
        lost.dedup();
        let _ = writeln!(
            message,
            "They match REV {}, but line{} {} changed since then, so where they are now cannot be proven.",
            version.rev,
            if lost.len() == 1 { "" } else { "s" },
            list_numbers(&lost)
        );
    }
    message.push_str(&shown_text);
    for d in &details {
        message.push_str(d);
        message.push('\n');
    }
    message.push_str("Use the refs above, or read the file again.");
    let code = if all_out_of_range {
        ErrorCode::OutOfRange
    } else {
        ErrorCode::HashMismatch
    };
    let mut err = Error::new(code, message)
        .with_path(ctx.path)
        .with_mismatches(mismatches);
    err.shown = shown;
    err
}

/// The only line whose hash and anchor equal the ref's, if exactly one has.
fn unique_line_with(doc: &Document, reference: &Ref) -> Option<usize> {
    reference.anchor?;
    let mut found = None;
    for i in 0..doc.line_count() {
        if crate::hash::line_hash(doc.line(i)) == reference.hash && reference.matches(doc, i) {
            if found.is_some() {
                return None;
            }
            found = Some(i);
        }
    }
    found
}

fn trim_echoes(doc: &Document, item: &mut Item, notes: &mut Vec<String>) {
    let Range { start, end } = item.range;
    let before = start.checked_sub(1).map(|i| doc.line(i));
    let after = (end < doc.line_count()).then(|| doc.line(end));
    let replaced: Vec<&str> = (start..end).map(|i| doc.line(i)).collect();
    for echo in trim_boundary_echo(&mut item.lines, before, &replaced, after) {
        let (which, line) = match echo {
            Echo::Before => ("first", start),
            Echo::After => ("last", end + 1),
        };
        notes.push(format!(
            "operation {} ({}): dropped its {which} content line, a copy of line {line} next to it, which stays as it was.",
            item.op, item.kind
        ));
    }
    // A repeat that could not be dropped safely (a blank line, or one that
    // changes the bracket balance) is kept, but the model is told.
    let kept = [
        (
            item.lines.first(),
            before,
            replaced.first(),
            "first",
            "before",
            start,
        ),
        (
            item.lines.last(),
            after,
            replaced.last(),
            "last",
            "after",
            end + 1,
        ),
    ];
    for (edge, neighbour, old_edge, which, side, line) in kept {
        if let (Some(edge), Some(neighbour)) = (edge, neighbour) {
            if edge == neighbour && old_edge != Some(&neighbour) {
                notes.push(format!(
                    "operation {} ({}): its {which} content line repeats line {line} just {side} it and was kept; if it was meant as context, that line is now there twice.",
                    item.op, item.kind
                ));
            }
        }
    }
}

fn collapse_identical(items: Vec<Item>) -> (Vec<Item>, usize) {
    let mut kept: Vec<Item> = Vec::with_capacity(items.len());
    let mut collapsed = 0;
    for item in items {
        let same = kept.iter().any(|k| {
            k.kind == item.kind
                && k.range == item.range
                && k.anchor == item.anchor
                && k.lines == item.lines
        });
        if same {
            collapsed += 1;
        } else {
            kept.push(item);
        }
    }
    // Inserts go before a replace that starts at the same place.
    kept.sort_by_key(|i| (i.range.start, !i.range.is_empty(), i.op));
    (kept, collapsed)
}

fn check_conflicts(ctx: &PlanContext<'_>, items: &[Item]) -> Result<()> {
    let describe = |item: &Item| match item.kind {
        OpKind::Prepend => "prepend (start of file)".to_string(),
        OpKind::Append => "append (end of file)".to_string(),
        OpKind::InsertBefore | OpKind::InsertAfter => {
            format!("{} line {}", item.kind, item.anchor.unwrap_or(0) + 1)
        }
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
    for insert in items.iter().filter(|i| i.range.is_empty()) {
        if let Some(anchor) = insert.anchor {
            if let Some(range) = ranges.iter().find(|r| r.range.contains(&anchor)) {
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
        if pair[0].range.start == pair[1].range.start {
            return conflict(
                pair[0],
                pair[1],
                "both insert at the same place, so their order is unclear",
            );
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hash::rev;

    fn ctx<'a>(doc: &'a Document, rev: &'a str, history: &'a [Version]) -> PlanContext<'a> {
        PlanContext {
            doc,
            rev,
            path: "f.txt",
            history,
            cleanup: true,
            seen_guard: true,
        }
    }

    fn op(kind: OpKind, r: Option<String>, through: Option<String>, content: &str) -> Operation {
        Operation::new(kind, r.as_deref(), through.as_deref(), content)
    }

    fn r(doc: &Document, line: usize) -> Option<String> {
        Some(current_ref(doc, line - 1))
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
            Some(current_ref(&doc, 1).as_str())
        );
        assert!(err
            .message
            .starts_with("Edit rejected, nothing written: 2 refs no longer match f.txt"));
        assert!(err
            .message
            .contains(&format!(">>> {}|B", current_ref(&doc, 1))));
    }

    #[test]
    fn invalid_refs_suggest_the_current_ref_of_the_line() {
        let doc = Document::from_text("a\nb\n");
        let err = run(&doc, &[op(OpKind::Delete, Some("2#ZZZ".into()), None, "")]).unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidRef);
        assert_eq!(
            err.suggestion.as_deref(),
            Some(current_ref(&doc, 1).as_str())
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
}
