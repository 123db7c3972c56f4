//! Placing a file's hunks in its text: exactly, or ignoring white space at
//! the ends of lines, or at the ref after `@@`; only where a hunk fits
//! exactly one place; and the rejection that shows the candidates.

use super::*;
use crate::document::{Document, Splice};
use crate::error::{list_numbers, Error, ErrorCode, Result};
use crate::prefix::{self, Fix, Shown, Verdict};
use crate::replace::{closest_lines, reindent};
use crate::report::window;
use foldhash::{HashMap, HashMapExt};
use std::cell::OnceCell;
use std::fmt::Write;

/// How a refusal of copied output tells a patch to be written as sent.
pub(crate) const LITERAL: &str =
    "send the patch again with literal: true: its lines are then written exactly as sent";

/// Candidate places a rejection shows with refs.
const SHOWN_CANDIDATES: usize = 5;

/// Hunks that do not fit whose rejection is told in full (with the closest
/// lines, a pass over the file each); the others are only counted.
const DESCRIBED_MISSES: usize = 10;

/// A file's hunks placed in its text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Placed {
    pub splices: Vec<Splice>,
    pub notes: Vec<String>,
}

/// How lines compare: as they are, or without white space at their ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Tier {
    Exact,
    Trimmed,
}

impl Tier {
    fn same(self, file: &str, patch: &str) -> bool {
        match self {
            Tier::Exact => file == patch,
            Tier::Trimmed => file.trim() == patch.trim(),
        }
    }
}

fn block_at(doc: &Document, at: usize, block: &[&str], tier: Tier) -> bool {
    at + block.len() <= doc.line_count()
        && block
            .iter()
            .enumerate()
            .all(|(j, want)| tier.same(doc.line(at + j), want))
}

/// Where each line of a file is, by its text as it is and without white
/// space at its ends, made on first use: placing a hunk then looks only at
/// the places of its rarest line, not at every line below the hunk before,
/// so a patch of many hunks is not a pass over the file per hunk. A patch
/// of a few hunks scans the file instead, which costs less than the index.
pub(crate) struct LineIndex<'a> {
    doc: &'a Document,
    indexed: bool,
    exact: OnceCell<HashMap<&'a str, Vec<usize>>>,
    trimmed: OnceCell<HashMap<&'a str, Vec<usize>>>,
}

/// Up to this many hunks a file is scanned for each.
const SCANNED_HUNKS: usize = 4;

impl<'a> LineIndex<'a> {
    /// The index for placing `hunks` hunks in `doc`.
    pub(crate) fn new(doc: &'a Document, hunks: usize) -> LineIndex<'a> {
        LineIndex {
            doc,
            indexed: hunks > SCANNED_HUNKS,
            exact: OnceCell::new(),
            trimmed: OnceCell::new(),
        }
    }

    /// The lines, ascending, that are `text` under `tier`.
    fn places(&self, text: &str, tier: Tier) -> &[usize] {
        let (cell, key, cut): (_, _, fn(&str) -> &str) = match tier {
            Tier::Exact => (&self.exact, text, |l| l),
            Tier::Trimmed => (&self.trimmed, text.trim(), str::trim),
        };
        let map = cell.get_or_init(|| {
            let mut map: HashMap<&str, Vec<usize>> = HashMap::new();
            for (i, line) in self.doc.lines().enumerate() {
                map.entry(cut(line)).or_default().push(i);
            }
            map
        });
        map.get(key).map_or(&[], Vec::as_slice)
    }
}

/// Every place at or after `from` where `block` starts.
pub(crate) fn block_starts(
    index: &LineIndex<'_>,
    from: usize,
    block: &[&str],
    tier: Tier,
) -> Vec<usize> {
    let doc = index.doc;
    let n = doc.line_count();
    if block.len() > n {
        return Vec::new();
    }
    if block.is_empty() {
        return (from..=n).collect();
    }
    if !index.indexed {
        return (from..=n - block.len())
            .filter(|&at| block_at(doc, at, block, tier))
            .collect();
    }
    // The block's line with the fewest places where it could stand.
    let mut rarest: Option<(usize, &[usize])> = None;
    for (j, line) in block.iter().enumerate() {
        let places = index.places(line, tier);
        let places = &places[places.partition_point(|&p| p < from + j)..];
        if rarest.is_none_or(|(_, fewest)| places.len() < fewest.len()) {
            rarest = Some((j, places));
        }
        if places.is_empty() {
            break;
        }
    }
    let Some((j, places)) = rarest else {
        return Vec::new();
    };
    places
        .iter()
        .map(|&p| p - j)
        .filter(|&at| block_at(doc, at, block, tier))
        .collect()
}

fn line_starts(index: &LineIndex<'_>, from: usize, text: &str, tier: Tier) -> Vec<usize> {
    if !index.indexed {
        return (from..index.doc.line_count())
            .filter(|&i| tier.same(index.doc.line(i), text))
            .collect();
    }
    let places = index.places(text, tier);
    places[places.partition_point(|&p| p < from)..].to_vec()
}

/// Where one hunk goes: its old lines start at `at` (or, with no old lines,
/// its new lines go in before line `at`), matched under `tier`, with
/// `dropped` trailing blank context lines left out.
struct Place {
    at: usize,
    tier: Tier,
    dropped: usize,
}

/// What placing a hunk found, for its rejection.
enum Miss {
    NotFound,
    HeaderNotFound(String),
    Ambiguous(Vec<usize>),
    Before(usize),
    NotAtEnd(Vec<usize>),
    NotAtRef(usize),
}

/// Places `hunks` in `doc`, in order: each after the one before. `anchors`
/// has the current line (0-based) of each hunk's `@@` ref, for hunks that
/// have one. With `cleanup`, the versions the session showed, view prefixes
/// a hunk copied from a read are removed where those versions, or the
/// lines themselves, prove them copies (`prefix`).
pub fn place(
    doc: &Document,
    path: &str,
    hunks: &[Hunk],
    anchors: &[Option<usize>],
    cleanup: Option<Shown<'_>>,
) -> Result<Placed> {
    let mut notes = Vec::new();
    let mut splices = Vec::new();
    let mut problems: Vec<(ErrorCode, String, Vec<usize>)> = Vec::new();
    let mut untold = 0;
    let index = LineIndex::new(doc, hunks.len());
    let mut doubtful = Vec::new();
    let mut cursor = 0;
    for (k, original) in hunks.iter().enumerate() {
        let number = k + 1;
        let stripped;
        let hunk = match cleanup.map(|shown| stripped_hunk(original, shown)) {
            Some(Verdict::Clean(fixes)) => {
                notes.push(prefix::describe(&format!("hunk {number}"), &fixes));
                stripped = with_fixes(original, &fixes);
                &stripped
            }
            Some(Verdict::Ambiguous(doubts)) => {
                doubtful.push((format!("hunk {number}"), doubts));
                original
            }
            Some(Verdict::Literal) | None => original,
        };
        let anchor = anchors.get(k).copied().flatten();
        match find(&index, hunk, cursor, anchor) {
            Ok(place) => {
                let (mut made, end) = splices_at(doc, hunk, &place);
                if place.tier == Tier::Trimmed {
                    notes.push(format!(
                        "hunk {number} matched lines {}-{} only with different white space; its added lines were re-indented to those lines' indentation.",
                        place.at + 1,
                        end.max(place.at + 1)
                    ));
                }
                if place.dropped > 0 {
                    notes.push(format!(
                        "hunk {number}: its last blank context line is not in the file there and was left out."
                    ));
                }
                splices.append(&mut made);
                cursor = end;
            }
            Err(_) if problems.len() == DESCRIBED_MISSES => untold += 1,
            Err(miss) => problems.push(describe(doc, number, hunk, anchor, miss)),
        }
    }
    if !doubtful.is_empty() {
        return Err(prefix::ambiguous(path, &doubtful, LITERAL));
    }
    if problems.is_empty() {
        return Ok(Placed { splices, notes });
    }
    let failed = problems.len() + untold;
    let code = problems[0].0;
    let mut message = match (failed, hunks.len()) {
        (1, 1) => format!(
            "Patch rejected, nothing written: its hunk for {path} does not fit the file (REV {}).\n",
            doc.rev()
        ),
        (k, n) => format!(
            "Patch rejected, nothing written: {k} of its {n} hunks for {path} {} not fit the file (REV {}).\n",
            if k == 1 { "does" } else { "do" },
            doc.rev()
        ),
    };
    let mut focus = Vec::new();
    for (_, text, lines) in &problems {
        message.push_str(text);
        focus.extend(lines);
    }
    if untold > 0 {
        let _ = writeln!(
            message,
            "… and {untold} more hunk{} after these {} not fit either.",
            if untold == 1 { "" } else { "s" },
            if untold == 1 { "does" } else { "do" }
        );
    }
    message.push_str("Copy the lines exactly as they are now, or put the ref of a hunk's first line after its @@ (`@@ 12#A3F#9BC`) to anchor it there.");
    focus.sort_unstable();
    focus.dedup();
    let mut err = Error::new(code, message).with_path(path);
    if !focus.is_empty() {
        err.shown = window(doc, &focus, 1, STYLE).1;
    }
    Err(err)
}

/// What the engine makes of the output copied into a hunk's lines.
fn stripped_hunk(hunk: &Hunk, shown: Shown<'_>) -> Verdict {
    let texts: Vec<&str> = hunk.lines.iter().map(|l| l.text()).collect();
    prefix::judge(&texts, shown, None)
}

/// The hunk with the fixes of a `Clean` verdict applied to its lines: a
/// line left out is no line of the hunk.
fn with_fixes(hunk: &Hunk, fixes: &[Fix]) -> Hunk {
    let texts: Vec<&str> = hunk.lines.iter().map(|l| l.text()).collect();
    let kept = hunk
        .lines
        .iter()
        .zip(fixes)
        .filter(|(_, fix)| !matches!(fix, Fix::Drop(_)));
    Hunk {
        lines: kept
            .zip(prefix::clean(&texts, fixes))
            .map(|((l, _), text)| l.with_text(text))
            .collect(),
        ..hunk.clone()
    }
}

fn find(
    index: &LineIndex<'_>,
    hunk: &Hunk,
    cursor: usize,
    anchor: Option<usize>,
) -> std::result::Result<Place, Miss> {
    let old = hunk.old();
    let miss = match find_block(index, hunk, &old, cursor, anchor) {
        Ok((at, tier)) => {
            return Ok(Place {
                at,
                tier,
                dropped: 0,
            })
        }
        Err(miss) => miss,
    };
    // A blank context line ending a hunk is often the last line's
    // terminator copied as a line: try once more without it.
    let trailing = hunk
        .lines
        .iter()
        .rev()
        .take_while(|l| matches!(l, HunkLine::Context(t) if t.trim().is_empty()))
        .count();
    if !matches!(miss, Miss::NotFound | Miss::NotAtRef(_)) || trailing == 0 || trailing == old.len()
    {
        return Err(miss);
    }
    match find_block(index, hunk, &old[..old.len() - trailing], cursor, anchor) {
        Ok((at, tier)) => Ok(Place {
            at,
            tier,
            dropped: trailing,
        }),
        Err(_) => Err(miss),
    }
}

fn find_block(
    index: &LineIndex<'_>,
    hunk: &Hunk,
    old: &[&str],
    cursor: usize,
    anchor: Option<usize>,
) -> std::result::Result<(usize, Tier), Miss> {
    let doc = index.doc;
    let n = doc.line_count();
    let at_end = |at: &usize| !hunk.end_of_file || at + old.len() == n;
    if let Some(r) = anchor {
        // Added lines only go below the line named, which may end the hunk
        // before; other hunks start at it.
        if old.is_empty() && r + 1 >= cursor {
            return Ok((r + 1, Tier::Exact));
        }
        if r < cursor || old.is_empty() {
            return Err(Miss::Before(r));
        }
        // Only at that line: a hunk that fits one line lower lost a line.
        for tier in [Tier::Exact, Tier::Trimmed] {
            if block_at(doc, r, old, tier) && at_end(&r) {
                return Ok((r, tier));
            }
        }
        return Err(Miss::NotAtRef(r));
    }
    let headers = match &hunk.header {
        Some(Header::Text(text)) => {
            let exact = line_starts(index, cursor, text, Tier::Exact);
            let found = if exact.is_empty() {
                line_starts(index, cursor, text, Tier::Trimmed)
            } else {
                exact
            };
            if found.is_empty() {
                return Err(Miss::HeaderNotFound(text.clone()));
            }
            Some(found)
        }
        _ => None,
    };
    if old.is_empty() {
        let places: Vec<usize> = match &headers {
            // New lines go right below the line the header names.
            Some(found) => found.iter().map(|h| h + 1).collect(),
            None => vec![n],
        };
        return match places.as_slice() {
            [at] => Ok((*at, Tier::Exact)),
            _ => Err(Miss::Ambiguous(places.iter().map(|p| p - 1).collect())),
        };
    }
    for tier in [Tier::Exact, Tier::Trimmed] {
        let starts = block_starts(index, cursor, old, tier);
        let mut candidates: Vec<usize> = match &headers {
            // The first place at or after each line the header names.
            Some(found) => found
                .iter()
                .filter_map(|&h| starts.get(starts.partition_point(|&s| s < h)).copied())
                .collect(),
            None => starts,
        };
        candidates.dedup();
        let ending: Vec<usize> = candidates.iter().copied().filter(|at| at_end(at)).collect();
        if ending.is_empty() && !candidates.is_empty() {
            return Err(Miss::NotAtEnd(candidates));
        }
        match ending.as_slice() {
            [] => continue,
            [at] => return Ok((*at, tier)),
            _ => return Err(Miss::Ambiguous(ending)),
        }
    }
    Err(Miss::NotFound)
}

/// The splices that turn the hunk's old lines at `place` into its new ones,
/// context lines kept as the file has them; and where the hunk ends.
fn splices_at(doc: &Document, hunk: &Hunk, place: &Place) -> (Vec<Splice>, usize) {
    let lines = &hunk.lines[..hunk.lines.len() - place.dropped];
    let old: Vec<&str> = lines
        .iter()
        .filter(|l| !matches!(l, HunkLine::Added(_)))
        .map(|l| l.text())
        .collect();
    let matched: Vec<&str> = (place.at..place.at + old.len())
        .map(|i| doc.line(i))
        .collect();
    let fix = |added: Vec<String>| match place.tier {
        Tier::Exact => added,
        Tier::Trimmed => reindent(&old, &matched, added),
    };
    let mut splices = Vec::new();
    let mut at = place.at;
    let mut run: Option<(usize, Vec<String>)> = None;
    for line in lines {
        match line {
            HunkLine::Context(_) => {
                if let Some((start, added)) = run.take() {
                    splices.push(Splice {
                        range: start..at,
                        lines: fix(added),
                    });
                }
                at += 1;
            }
            HunkLine::Removed(_) => {
                run.get_or_insert_with(|| (at, Vec::new()));
                at += 1;
            }
            HunkLine::Added(text) => run
                .get_or_insert_with(|| (at, Vec::new()))
                .1
                .push(text.clone()),
        }
    }
    if let Some((start, added)) = run.take() {
        splices.push(Splice {
            range: start..at,
            lines: fix(added),
        });
    }
    (splices, at)
}

/// The line of a hunk to look for when its lines are not found: the longest
/// removed line (the one the hunk is about), else the longest context line,
/// since a short one (`{`) is like too many others.
fn probe(hunk: &Hunk) -> &str {
    let longest = |removed: bool| {
        hunk.lines
            .iter()
            .filter(|l| match l {
                HunkLine::Removed(_) => removed,
                HunkLine::Context(_) => !removed,
                HunkLine::Added(_) => false,
            })
            .map(|l| l.text().trim())
            .max_by_key(|t| t.len())
            .filter(|t| !t.is_empty())
    };
    longest(true).or_else(|| longest(false)).unwrap_or("")
}

/// The rejection text for one hunk, and the lines it shows.
fn describe(
    doc: &Document,
    number: usize,
    hunk: &Hunk,
    anchor: Option<usize>,
    miss: Miss,
) -> (ErrorCode, String, Vec<usize>) {
    let old = hunk.old();
    let mut text = String::new();
    let quote = |text: &mut String| {
        for line in hunk
            .lines
            .iter()
            .filter(|l| !matches!(l, HunkLine::Added(_)))
            .take(6)
        {
            let mark = if matches!(line, HunkLine::Removed(_)) {
                '-'
            } else {
                ' '
            };
            let _ = writeln!(text, "    {mark}{}", line.text());
        }
        if old.len() > 6 {
            let _ = writeln!(text, "    … {} more lines", old.len() - 6);
        }
    };
    let show = |text: &mut String, lines: &[usize]| {
        if !lines.is_empty() {
            text.push_str(&window(doc, lines, 1, STYLE).0);
        }
    };
    let head = format!("Hunk {number} (patch line {})", hunk.line);
    match miss {
        Miss::NotFound => {
            let _ = writeln!(
                text,
                "{head}: these lines are not in the file{}:",
                if anchor.is_some() { " there" } else { "" }
            );
            quote(&mut text);
            let closest = closest_lines(doc, &[probe(hunk)]);
            if closest.is_empty() {
                text.push_str(
                    "No line of the file is close to them; read the file to see its lines.\n",
                );
            } else {
                text.push_str("The closest lines now:\n");
            }
            show(&mut text, &closest);
            (ErrorCode::ContextNotFound, text, closest)
        }
        Miss::HeaderNotFound(header) => {
            let _ = writeln!(
                text,
                "{head}: the line after its @@, {}, is not in the file below the hunks before it.",
                crate::error::excerpt(&header)
            );
            let closest = closest_lines(doc, &[header.as_str()]);
            if !closest.is_empty() {
                text.push_str("The closest lines now:\n");
            }
            show(&mut text, &closest);
            (ErrorCode::ContextNotFound, text, closest)
        }
        Miss::Ambiguous(places) => {
            let numbers: Vec<usize> = places.iter().map(|p| p + 1).collect();
            let _ = writeln!(
                text,
                "{head} fits {} places (starting at lines {}); add context lines that tell them apart, or cite the first line's ref after @@:",
                places.len(),
                list_numbers(&numbers)
            );
            let shown: Vec<usize> = places.iter().copied().take(SHOWN_CANDIDATES).collect();
            show(&mut text, &shown);
            (ErrorCode::ContextAmbiguous, text, shown)
        }
        Miss::Before(r) => {
            let _ = writeln!(
                text,
                "{head}: its @@ ref names line {}, above the end of the hunk before it; hunks must follow the file's order and not overlap.",
                r + 1
            );
            show(&mut text, &[r]);
            (ErrorCode::Conflict, text, vec![r])
        }
        Miss::NotAtEnd(places) => {
            let numbers: Vec<usize> = places.iter().map(|p| p + 1).collect();
            let _ = writeln!(
                text,
                "{head} is marked `{END_OF_FILE}`, but its lines are at line{} {}, not at the end of the file ({} lines):",
                if numbers.len() == 1 { "" } else { "s" },
                list_numbers(&numbers),
                doc.line_count()
            );
            let shown: Vec<usize> = places.iter().copied().take(SHOWN_CANDIDATES).collect();
            show(&mut text, &shown);
            (ErrorCode::ContextNotFound, text, shown)
        }
        Miss::NotAtRef(r) => {
            let _ = writeln!(
                text,
                "{head}: its lines do not start at line {}, the line its @@ ref names:",
                r + 1
            );
            quote(&mut text);
            text.push_str("The lines there now:\n");
            let end = (r + old.len()).min(doc.line_count().saturating_sub(1));
            let lines: Vec<usize> = (r..=end).collect();
            show(&mut text, &lines);
            (ErrorCode::ContextNotFound, text, lines)
        }
    }
}
