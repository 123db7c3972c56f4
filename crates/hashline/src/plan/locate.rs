//! Where the refs of a batch are in the current text. A ref holds where its
//! line still reads as it did; a stale ref is carried over from the stored
//! version it was read in only where the move is proven (`remap`), and the
//! batch is refused whenever readings disagree, a ref cannot tell identical
//! lines apart, or it cites lines no view showed.
//!
//! Specified in `docs/format.md` §6.

use crate::document::Document;
use crate::error::{Error, ErrorCode, Result};
use crate::hash::{line_hash, Tag};
use crate::reference::{Cited, Ref, EXPECTED_FORM};
use crate::reject;
use crate::remap::{certain, LineMap};
use crate::report::current_ref;
use crate::request::{OpKind, Operation};
use crate::store::Version;
use std::collections::HashMap;
use std::fmt::Write;

use super::PlanContext;

/// Where refs cited outside operations (a patch's `@@` headers) are in the
/// current text, one slot each (`None` for a slot citing nothing), with the
/// checks and provable remapping of a batch; messages number the slots as
/// operations. Also the stored REV they were remapped from, if any.
pub(crate) fn locate_refs(
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

/// Every ref of the batch in order (`ref`, `through`, then the place of a
/// move or a copy), and which pairs
/// of them form a range.
pub(crate) type CitedRefs = (Vec<Cited>, Vec<(usize, usize)>);

pub(crate) fn parse_refs(ctx: &PlanContext<'_>, operations: &[Operation]) -> Result<CitedRefs> {
    let mut cited = Vec::new();
    let mut pairs = Vec::new();
    let mut problems = Vec::new();
    let mut suggestion = None;
    for (i, op) in operations.iter().enumerate() {
        let start = cited.len();
        let place = op.place.as_ref().map(|p| &p.reference);
        for text in [op.reference.as_ref(), op.through.as_ref(), place]
            .into_iter()
            .flatten()
        {
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
                        let meant = current_ref(ctx.doc, line - 1, ctx.style);
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
pub(crate) struct Located {
    pub lines: Vec<usize>,
    pub from: Option<String>,
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

pub(crate) fn locate(
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

    // The refs name lines of the current text that the model read (asked
    // to see) after an older version where they also hold but whose lines
    // cannot be followed here (a tag or HASH the change left as it was):
    // the older version only doubts them, and a model that read again
    // means what it read last; without this, it would be refused for ever.
    // Lines an edit result showed unasked do not count, and an older
    // version that places the refs elsewhere still disagrees (below).
    if let Some(now) = current.filter(|now| {
        readings.first().is_some_and(|r| !r.remapped)
            && cited.iter().all(|c| now.showed(c.reference.line - 1))
    }) {
        unmappable.retain(|(v, _)| now.read_at == 0 || v.read_at > now.read_at);
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
        return Err(reject::stale_refs(
            &ctx.subject(),
            cited,
            unmappable.first(),
        ));
    };

    // A lean ref carries 8.4 bits: a REV proves the model saw a version,
    // not that line of it, so a lean ref is read only in a version where a
    // view showed its line (a line known only from an earlier version,
    // carried there by an edit, was never shown with that number). With no
    // stored version at all (a text the caller holds, an engine that just
    // started), nothing vouches for one.
    let lean: Vec<&Cited> = cited.iter().filter(|c| c.reference.is_pair()).collect();
    let shown_in = |r: &Reading<'_>| {
        r.version
            .is_some_and(|v| lean.iter().all(|c| v.showed(c.reference.line - 1)))
    };
    if !lean.is_empty() {
        if !readings.iter().any(shown_in) {
            if ctx.history.is_empty() {
                return Err(reject::unvouched_lean_refs(
                    &ctx.subject(),
                    first.lines.clone(),
                ));
            }
            let focus: Vec<usize> = first
                .lines
                .iter()
                .zip(cited)
                .filter(|(_, c)| c.reference.is_pair())
                .map(|(&l, _)| l)
                .collect();
            return Err(reject::unseen_lines(&ctx.subject(), focus));
        }
        readings.retain(shown_in);
    }
    let first = &readings[0];
    if readings.iter().any(|r| r.lines != first.lines) {
        let focus: Vec<usize> = readings
            .iter()
            .flat_map(|r| r.lines.iter().copied())
            .collect();
        return Err(reject::readings_disagree(&ctx.subject(), focus));
    }

    // A ref without ANCHOR cannot tell identical lines apart; accept one on
    // a repeated line only when a stored version vouches for the text read.
    let vouched = named.as_deref() == Some(ctx.rev) || readings.iter().any(|r| r.version.is_some());
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
            return Err(reject::anchorless_on_repeated_line(
                &ctx.subject(),
                &ambiguous,
            ));
        }
    }

    if ctx.seen_guard {
        let all_seen = |r: &Reading<'_>| match r.version {
            None => true,
            Some(v) => cited.iter().all(|c| v.saw(c.reference.line - 1)),
        };
        if !readings.iter().any(all_seen) {
            let focus: Vec<usize> = first
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
            return Err(reject::unseen_lines(&ctx.subject(), focus));
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
fn line_hashes(doc: &Document) -> Vec<Tag> {
    doc.lines().map(line_hash).collect()
}

/// The only line of `doc` with the HASH and ANCHOR of `reference`, if
/// exactly one has them.
fn only_line_with(doc: &Document, hashes: &[Tag], reference: &Ref) -> Option<usize> {
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

fn hash_counts(doc: &Document) -> HashMap<Tag, usize> {
    let mut counts = HashMap::new();
    for line in doc.lines() {
        *counts.entry(line_hash(line)).or_insert(0) += 1;
    }
    counts
}
