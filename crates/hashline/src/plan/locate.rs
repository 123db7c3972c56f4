//! Where the refs of a batch are in the current text: the stale-ref
//! policy, `docs/format.md` §6, as a pipeline of its rules (`Rule`), each a
//! function named as the rule is there. A ref holds where its line still
//! reads as it did; a stale ref is remapped from the stored version it was
//! read in only where the move is proven (`remap`), and the batch is
//! refused whenever readings disagree, a ref cannot tell identical lines
//! apart, or it cites lines no view showed.
//!
//! The words are the specification's: a line is *shown* in a version a
//! view displayed it in (`Version::showed`), *seen* where it was shown or
//! carried there unchanged by an edit (`Version::saw`); a version is
//! *read* when a view the model asked for showed it (`Version::read_at`);
//! a text is *attested* when the store holds it or the request's `rev`
//! names it; a *reading* is a version in which every ref holds, with where
//! their lines are now; a *doubt* is a version in which every ref holds
//! but some cannot be remapped.

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
        for text in op.refs() {
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

/// Declares the rules of the stale-ref policy once, in the order `locate`
/// applies them: each rule's variant, the function that applies it (named
/// as the rule is in `docs/format.md` §6, tested equal) and what it says.
/// The reference model (`internals/model.rs`) applies the same list, rule
/// by rule, in its own terms.
macro_rules! rules {
    ($($rule:ident => $apply:ident, $doc:literal;)+) => {
        /// A rule of the stale-ref policy.
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub(crate) enum Rule {
            $(
                #[doc = $doc]
                $rule,
            )+
        }

        impl Rule {
            /// Every rule, in the order they apply.
            pub(crate) const ALL: &'static [Rule] = &[$(Rule::$rule),+];

            /// The rule's name in `docs/format.md` §6.
            #[cfg(test)]
            pub(crate) fn name(self) -> &'static str {
                match self {
                    $(Rule::$rule => stringify!($apply),)+
                }
            }

            fn apply(self, judgement: &mut Judgement<'_, '_>) -> Result<()> {
                match self {
                    $(Rule::$rule => $apply(judgement),)+
                }
            }
        }
    };
}

rules! {
    Holds => holds,
        "§6.1: the refs are a reading of the current text where every one holds there, unless the request's `rev` names another stored version.";
    Remapped => remapped,
        "§6.2: the refs are a reading of a stored version where every one holds and every line they name is proven to be in the current text; a version where they hold but cannot be remapped is a doubt.";
    ReadLast => read_last,
        "§6.3: a reading of the current text, on lines shown in it, is not doubted by a version read before the current text was.";
    Doubted => doubted,
        "§6.4: a doubt leaves no reading standing when a ref is lean, or when the only reading is of a current text that is not attested.";
    Placed => placed,
        "§6.5: refs no reading places are refused.";
    LeanShown => lean_shown,
        "§6.6: a lean ref is read only in a version in which its line is shown.";
    Agree => agree,
        "§6.7: readings that place the refs at different lines are refused.";
    Anchored => anchored,
        "§6.8: a ref without ANCHOR on a line whose HASH other lines share is refused, unless a reading's text is attested.";
    Seen => seen,
        "§6.9: a batch is refused unless a reading is of a version in which every line it cites is seen, or of a text the store does not hold.";
}

/// Where the cited refs are in the current text: the rules of the
/// stale-ref policy applied in order to the ways the refs may be read.
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
    let named = rev.map(|r| r.trim().to_ascii_uppercase());
    let mut judgement = Judgement {
        ctx,
        cited,
        pairs,
        current: ctx.history.iter().find(|v| v.rev == ctx.rev()),
        named_version: named
            .as_deref()
            .and_then(|r| ctx.history.iter().find(|v| v.rev == r)),
        names_current: named.as_deref().is_some_and(|n| n == ctx.rev()),
        readings: Vec::new(),
        doubts: Vec::new(),
    };
    for rule in Rule::ALL {
        rule.apply(&mut judgement)?;
    }
    let readings = judgement.readings;
    let first = &readings[0];
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

/// One reading of the refs: a version in which they all hold, and where
/// their lines are now.
struct Reading<'a> {
    lines: Vec<usize>,
    /// The stored version it is of; `None` for a current text the store
    /// does not hold.
    version: Option<&'a Version>,
    /// It is of an earlier version, its lines remapped to the current text.
    remapped: bool,
}

/// The refs of a batch, the versions they may name, and what the rules
/// applied so far made of them.
struct Judgement<'j, 'a> {
    ctx: &'j PlanContext<'a>,
    cited: &'j [Cited],
    pairs: &'j [(usize, usize)],
    /// The stored version that is the current text, if the store holds it.
    current: Option<&'a Version>,
    /// The stored version the request's `rev` names, if the store holds it.
    named_version: Option<&'a Version>,
    /// The request's `rev` names the current text.
    names_current: bool,
    /// The readings still standing.
    readings: Vec<Reading<'a>>,
    /// Versions in which every ref holds but some cannot be remapped to the
    /// current text, with those refs' line numbers.
    doubts: Vec<(&'a Version, Vec<usize>)>,
}

impl Judgement<'_, '_> {
    /// Whether the text of a reading is attested: the store holds it (a
    /// view of this session showed it), or it is the current text and the
    /// request's `rev` names it.
    fn attested(&self, reading: &Reading<'_>) -> bool {
        reading.version.is_some() || (!reading.remapped && self.names_current)
    }
}

fn all_hold(doc: &Document, cited: &[Cited]) -> bool {
    cited
        .iter()
        .all(|c| c.reference.matches(doc, c.reference.line - 1))
}

/// §6.1 `holds`.
fn holds(j: &mut Judgement<'_, '_>) -> Result<()> {
    let named_elsewhere = j.named_version.is_some_and(|v| v.rev != j.ctx.rev());
    if !named_elsewhere && all_hold(j.ctx.doc, j.cited) {
        j.readings.push(Reading {
            lines: j.cited.iter().map(|c| c.reference.line - 1).collect(),
            version: j.current,
            remapped: false,
        });
    }
    Ok(())
}

/// §6.2 `remapped`: never by a bare hash, only where `map_cited` proves it.
fn remapped(j: &mut Judgement<'_, '_>) -> Result<()> {
    let ctx = j.ctx;
    let candidates: Vec<&Version> = match j.named_version {
        Some(v) => vec![v],
        None => ctx.history.iter().collect(),
    };
    for version in candidates {
        if version.rev == ctx.rev() || !all_hold(&version.doc, j.cited) {
            continue;
        }
        let lines = map_cited(ctx, version, j.cited, j.pairs);
        if lines.iter().all(Option::is_some) {
            j.readings.push(Reading {
                lines: lines.into_iter().flatten().collect(),
                version: Some(version),
                remapped: true,
            });
        } else {
            let lost = j
                .cited
                .iter()
                .zip(&lines)
                .filter(|(_, l)| l.is_none())
                .map(|(c, _)| c.reference.line)
                .collect();
            j.doubts.push((version, lost));
        }
    }
    Ok(())
}

/// §6.3 `read_last`: refs that name lines of the current text the model
/// read (asked to see) after an older version where they also hold but
/// cannot be remapped (a tag or HASH the change left as it was) mean what
/// it read last; without this, they would be refused for ever. Lines an
/// edit result showed unasked do not count, and an older version that
/// places the refs elsewhere still disagrees (`agree`).
fn read_last(j: &mut Judgement<'_, '_>) -> Result<()> {
    let of_current = j.readings.first().is_some_and(|r| !r.remapped);
    if let Some(now) = j
        .current
        .filter(|now| of_current && j.cited.iter().all(|c| now.showed(c.reference.line - 1)))
    {
        j.doubts
            .retain(|(v, _)| now.read_at == 0 || v.read_at > now.read_at);
    }
    Ok(())
}

/// §6.4 `doubted`: lean refs hold by chance in far more versions than full
/// ones, so when one they hold in cannot be remapped, which lines they
/// meant is unknown; and text nobody was shown cannot stand for itself
/// against a version the model was shown.
fn doubted(j: &mut Judgement<'_, '_>) -> Result<()> {
    let any_lean = j.cited.iter().any(|c| c.reference.is_pair());
    let unattested_current = j.readings.iter().all(|r| !r.remapped && !j.attested(r));
    if !j.doubts.is_empty() && (any_lean || unattested_current) {
        j.readings.clear();
    }
    Ok(())
}

/// §6.5 `placed`: `HASH_MISMATCH` (or `OUT_OF_RANGE`), showing the cited
/// lines as they are now with fresh refs.
fn placed(j: &mut Judgement<'_, '_>) -> Result<()> {
    if j.readings.is_empty() {
        return Err(reject::stale_refs(
            &j.ctx.subject(),
            j.cited,
            j.doubts.first(),
        ));
    }
    Ok(())
}

/// §6.6 `lean_shown`: a lean ref carries 8.4 bits, and a REV proves the
/// model saw a version, not that line of it; a line known only from an
/// earlier version, carried by an edit, was never shown with that number.
/// With no stored version at all (a text the caller holds, an engine that
/// just started), no view showed any line.
fn lean_shown(j: &mut Judgement<'_, '_>) -> Result<()> {
    let lean: Vec<&Cited> = j.cited.iter().filter(|c| c.reference.is_pair()).collect();
    if lean.is_empty() {
        return Ok(());
    }
    let shown_in = |r: &Reading<'_>| {
        r.version
            .is_some_and(|v| lean.iter().all(|c| v.showed(c.reference.line - 1)))
    };
    if !j.readings.iter().any(shown_in) {
        let first = &j.readings[0];
        if j.ctx.history.is_empty() {
            return Err(reject::lean_refs_unshown(
                &j.ctx.subject(),
                first.lines.clone(),
            ));
        }
        let focus: Vec<usize> = first
            .lines
            .iter()
            .zip(j.cited)
            .filter(|(_, c)| c.reference.is_pair())
            .map(|(&l, _)| l)
            .collect();
        return Err(reject::unseen_lines(&j.ctx.subject(), focus));
    }
    j.readings.retain(shown_in);
    Ok(())
}

/// §6.7 `agree`.
fn agree(j: &mut Judgement<'_, '_>) -> Result<()> {
    let first = &j.readings[0];
    if j.readings.iter().any(|r| r.lines != first.lines) {
        let focus: Vec<usize> = j
            .readings
            .iter()
            .flat_map(|r| r.lines.iter().copied())
            .collect();
        return Err(reject::readings_disagree(&j.ctx.subject(), focus));
    }
    Ok(())
}

/// §6.8 `anchored`: a ref without ANCHOR cannot tell identical lines apart;
/// one on a repeated line names the line a view showed only where the text
/// read is attested.
fn anchored(j: &mut Judgement<'_, '_>) -> Result<()> {
    if j.readings.iter().any(|r| j.attested(r))
        || j.cited.iter().all(|c| c.reference.anchor().is_some())
    {
        return Ok(());
    }
    let counts = hash_counts(j.ctx.doc);
    let ambiguous: Vec<usize> = j
        .cited
        .iter()
        .zip(&j.readings[0].lines)
        .filter(|(c, _)| {
            c.reference.anchor().is_none()
                && c.reference
                    .hash()
                    .is_some_and(|h| counts.get(&h).copied().unwrap_or(0) > 1)
        })
        .map(|(_, &l)| l)
        .collect();
    if ambiguous.is_empty() {
        return Ok(());
    }
    Err(reject::anchorless_on_repeated_line(
        &j.ctx.subject(),
        &ambiguous,
    ))
}

/// §6.9 `seen`, where the session guards against unseen lines:
/// `UNSEEN_LINES`, showing the lines no view showed.
fn seen(j: &mut Judgement<'_, '_>) -> Result<()> {
    if !j.ctx.seen_guard {
        return Ok(());
    }
    let cited = j.cited;
    let all_seen = |r: &Reading<'_>| match r.version {
        None => true,
        Some(v) => cited.iter().all(|c| v.saw(c.reference.line - 1)),
    };
    if j.readings.iter().any(all_seen) {
        return Ok(());
    }
    let focus: Vec<usize> = j.readings[0]
        .lines
        .iter()
        .zip(cited)
        .filter(|(_, c)| {
            !j.readings
                .iter()
                .any(|r| r.version.is_some_and(|v| v.saw(c.reference.line - 1)))
        })
        .map(|(&l, _)| l)
        .collect();
    Err(reject::unseen_lines(&j.ctx.subject(), focus))
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
pub(crate) fn chain(ctx: &PlanContext<'_>, version: &Version) -> Option<LineMap> {
    let mut maps = Vec::new();
    let mut at = ctx.history.iter().find(|v| v.rev == ctx.rev());
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_specification_names_the_rules_in_the_order_they_apply() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/format.md");
        let spec = std::fs::read_to_string(path).unwrap();
        let section = spec
            .split("\n## ")
            .find(|s| s.starts_with("§6 "))
            .expect("docs/format.md has §6");
        let named: Vec<String> = section
            .lines()
            .filter_map(|l| {
                let (number, rest) = l.split_once(". **")?;
                number.parse::<usize>().ok()?;
                Some(rest.split_once("**")?.0.to_owned())
            })
            .collect();
        let rules: Vec<&str> = Rule::ALL.iter().map(|r| r.name()).collect();
        assert_eq!(named, rules);
    }
}
