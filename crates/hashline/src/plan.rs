//! Turns a batch of operations into splices of the current text: parses and
//! locates every ref (directly, or through a stored version when that is
//! provable), cleans up echoes, and rejects conflicts, all before anything
//! changes.

use crate::cleanup::{bracket_balance, strip_view_prefixes, trim_boundary_echo, Echo, Replaced};
use crate::error::{list_numbers, Error, ErrorCode, Mismatch, Result};
use crate::hash::Tag;
use crate::reference::{Ref, EXPECTED_FORM};
use crate::remap::{certain, LineMap};
use crate::report::{current_ref, window};
use crate::request::{OpKind, Operation};
use crate::store::Version;
use crate::text::{Document, Splice};
use std::cell::OnceCell;
use std::collections::{HashMap, HashSet};
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
        let balances = RunningBalance::new(ctx.doc);
        for item in &mut items {
            trim_echoes(ctx.doc, &balances, item, &mut notes);
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
    // Lean refs hold by chance in far more versions than full ones: when
    // one they hold in cannot be mapped, which lines they meant is unknown.
    let lean = cited.iter().any(|c| c.reference.is_pair());
    if !unmappable.is_empty() && (lean || !current_vouched && only_unvouched_current) {
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
    if !vouched && cited.iter().any(|c| c.reference.is_pair()) {
        return Err(crate::lean::unvouched(
            ctx.doc,
            ctx.path,
            ctx.rev,
            &first.lines,
        ));
    }
    if !vouched && cited.iter().any(|c| c.reference.anchor().is_none()) {
        let counts = hash_counts(ctx.doc);
        let ambiguous: Vec<usize> = cited
            .iter()
            .zip(&first.lines)
            .filter(|(c, _)| {
                c.reference.anchor().is_none()
                    && c.reference
                        .hash()
                        .is_some_and(|h| counts.get(&h).copied().unwrap_or(0) > 1)
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
///
/// A map this process recorded is exact. A map read back from disk is only
/// a hint: a line it maps is taken only where the current text has, there
/// and nowhere else, the cited line's HASH and ANCHOR (the same text between
/// the same neighbours; a forged map could otherwise pick among identical
/// stretches). Any other line, and every line when there is no map, must
/// be proven by the diff rule (`certain`), which needs no stored map.
fn map_cited(
    ctx: &PlanContext<'_>,
    version: &Version,
    cited: &[Cited],
    pairs: &[(usize, usize)],
) -> Vec<Option<usize>> {
    let old_line = |c: &Cited| c.reference.line - 1;
    let map = chain(ctx, version);
    if let Some(map) = map.as_ref().filter(|m| m.is_exact()) {
        let mut lines: Vec<Option<usize>> = cited.iter().map(|c| map.line(old_line(c))).collect();
        for &(a, b) in pairs {
            if map
                .range(old_line(&cited[a]), old_line(&cited[b]))
                .is_none()
            {
                lines[a] = None;
                lines[b] = None;
            }
        }
        return lines;
    }
    let mut hashes = None;
    let mut lines: Vec<Option<usize>> = cited
        .iter()
        .map(|c| {
            let j = map.as_ref()?.line(old_line(c))?;
            let old = Ref::of_line(&version.doc, old_line(c));
            let hashes = hashes.get_or_insert_with(|| line_hashes(ctx.doc));
            only_line_with(ctx.doc, hashes, &old).filter(|&k| k == j)
        })
        .collect();
    let unproven: Vec<usize> = (0..cited.len()).filter(|&k| lines[k].is_none()).collect();
    if !unproven.is_empty() {
        let wanted: Vec<usize> = unproven.iter().map(|&k| old_line(&cited[k])).collect();
        for (k, proven) in unproven
            .into_iter()
            .zip(certain(&version.doc, ctx.doc, &wanted))
        {
            lines[k] = proven;
        }
    }
    // Both ends placed and the lines between them identical and as many:
    // the range is intact wherever its ends were proven from.
    for &(a, b) in pairs {
        let (first, last) = (old_line(&cited[a]), old_line(&cited[b]));
        let intact = match (lines[a], lines[b]) {
            (Some(ja), Some(jb)) => {
                jb >= ja
                    && jb - ja == last - first
                    && (first..=last).all(|i| version.doc.line(i) == ctx.doc.line(ja + (i - first)))
            }
            _ => false,
        };
        if !intact {
            lines[a] = None;
            lines[b] = None;
        }
    }
    lines
}

/// The HASH of every line of `doc`.
fn line_hashes(doc: &Document) -> Vec<crate::hash::Tag> {
    doc.lines().map(crate::hash::line_hash).collect()
}

/// The only line of `doc` with the HASH and ANCHOR of `reference`, if
/// exactly one has them.
fn only_line_with(doc: &Document, hashes: &[crate::hash::Tag], reference: &Ref) -> Option<usize> {
    let mut found = None;
    for (i, hash) in hashes.iter().enumerate() {
        if Some(*hash) == reference.hash() && reference.matches(doc, i) {
            if found.is_some() {
                return None;
            }
            found = Some(i);
        }
    }
    found
}

/// The map from `version` to the current text, when the current text was
/// made from `version` by edits this store recorded: exact if this process
/// recorded every step, else a hint. A step whose map names lines its
/// texts do not have breaks the chain.
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
        at = ctx.history.iter().find(|v| v.rev == parent.rev);
        if !parent.map.fits(at?.doc.line_count()) {
            return None;
        }
        maps.push((*parent.map).clone());
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
    let mut seen_refs = HashSet::new();
    let full_refs = FullRefs::new(ctx.doc);
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
        if let Some(moved) = full_refs.unique_line(&c.reference) {
            let _ = write!(
                detail,
                " The text you cited is at line {} now ({}).",
                moved + 1,
                current_ref(ctx.doc, moved)
            );
        }
        detail.push_str(&crate::lean::one_off_hint(ctx.doc, &c.reference));
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

/// The lines of a document by their full ref (HASH and ANCHOR), indexed
/// once, on first use: finding where each of many stale refs went is then
/// one lookup each rather than a pass over the file each.
struct FullRefs<'a> {
    doc: &'a Document,
    lines: OnceCell<HashMap<(Tag, Tag), Option<usize>>>,
}

impl<'a> FullRefs<'a> {
    fn new(doc: &'a Document) -> Self {
        FullRefs {
            doc,
            lines: OnceCell::new(),
        }
    }

    /// The only line whose HASH and ANCHOR equal the ref's, if exactly one has.
    fn unique_line(&self, reference: &Ref) -> Option<usize> {
        let (hash, anchor) = (reference.hash()?, reference.anchor()?);
        let lines = self.lines.get_or_init(|| {
            let mut lines = HashMap::with_capacity(self.doc.line_count());
            for i in 0..self.doc.line_count() {
                let found = Ref::of_line(self.doc, i);
                let (Some(hash), Some(anchor)) = (found.hash(), found.anchor()) else {
                    continue;
                };
                lines
                    .entry((hash, anchor))
                    .and_modify(|line| *line = None)
                    .or_insert(Some(i));
            }
            lines
        });
        lines.get(&(hash, anchor)).copied().flatten()
    }
}

/// The bracket balance of any range of the document's lines in constant
/// time, from running sums made once, on first use.
struct RunningBalance<'a> {
    doc: &'a Document,
    sums: OnceCell<Vec<i64>>,
}

impl<'a> RunningBalance<'a> {
    fn new(doc: &'a Document) -> Self {
        RunningBalance {
            doc,
            sums: OnceCell::new(),
        }
    }

    fn of(&self, range: Range<usize>) -> i64 {
        let sums = self.sums.get_or_init(|| {
            let mut sum = 0;
            std::iter::once(0)
                .chain(self.doc.lines().map(|line| {
                    sum += bracket_balance([line]);
                    sum
                }))
                .collect()
        });
        sums[range.end] - sums[range.start]
    }
}

fn trim_echoes(
    doc: &Document,
    balances: &RunningBalance<'_>,
    item: &mut Item,
    notes: &mut Vec<String>,
) {
    let Range { start, end } = item.range;
    let before = start.checked_sub(1).map(|i| doc.line(i));
    let after = (end < doc.line_count()).then(|| doc.line(end));
    let first = (start < end).then(|| doc.line(start));
    let last = (start < end).then(|| doc.line(end - 1));
    let replaced = Replaced {
        first,
        last,
        balance: || balances.of(start..end),
    };
    for echo in trim_boundary_echo(&mut item.lines, before, replaced, after) {
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
        (item.lines.first(), before, first, "first", "before", start),
        (item.lines.last(), after, last, "last", "after", end + 1),
    ];
    for (edge, neighbour, old_edge, which, side, line) in kept {
        if let (Some(edge), Some(neighbour)) = (edge, neighbour) {
            if edge == neighbour && old_edge != Some(neighbour) {
                notes.push(format!(
                    "operation {} ({}): its {which} content line repeats line {line} just {side} it and was kept; if it was meant as context, that line is now there twice.",
                    item.op, item.kind
                ));
            }
        }
    }
}

/// Drops operations that repeat an earlier one exactly. Each is hashed
/// once, so this stays linear in the batch.
fn collapse_identical(items: Vec<Item>) -> (Vec<Item>, usize) {
    let first_of_its_kind: Vec<bool> = {
        let mut seen = HashSet::with_capacity(items.len());
        items
            .iter()
            .map(|i| seen.insert((i.kind, i.range.clone(), i.anchor, i.lines.as_slice())))
            .collect()
    };
    let collapsed = first_of_its_kind.iter().filter(|first| !**first).count();
    let mut kept: Vec<Item> = items
        .into_iter()
        .zip(first_of_its_kind)
        .filter_map(|(item, first)| first.then_some(item))
        .collect();
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

    #[test]
    fn a_stale_ref_says_where_its_line_went_when_exactly_one_line_matches_it() {
        let old = Document::from_text("a\nb\nc\nb\n");
        let doc = Document::from_text("x\na\nb\nc\nb\n");
        let err = run(&doc, &[op(OpKind::Delete, r(&old, 2), None, "")]).unwrap_err();
        assert_eq!(err.code, ErrorCode::HashMismatch);
        let moved = format!("is at line 3 now ({})", current_ref(&doc, 2));
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
                let item = Item { op: i + 1, kind, range, anchor, lines };
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
