//! The `*** Begin Patch` format that OpenCode offers GPT models as
//! `apply_patch` (after Codex): files added, deleted, moved and updated by
//! hunks of context (` `), removed (`-`) and added (`+`) lines. Parsed
//! strictly, so that no line of a patch is silently ignored; each hunk is
//! placed by its lines, exactly or ignoring white space at the ends (then the
//! added lines are re-indented as the `oldString` fallback does), or by the
//! ref after its `@@`, and only where it fits exactly one place.

use crate::check::Problem;
use crate::cleanup::strip_view_prefixes;
use crate::edit::{finish, Change, Edited};
use crate::error::{list_numbers, Error, ErrorCode, Result};
use crate::file::{remove_atomically, unchanged, Base, Target};
use crate::plan::{locate_refs, PlanContext};
use crate::replace::{closest_lines, reindent};
use crate::report::{hunks, window};
use crate::session::{EditPlan, Hashline};
use crate::text::{Document, Splice};
use std::collections::BTreeSet;
use std::fmt::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

const BEGIN: &str = "*** Begin Patch";
const END: &str = "*** End Patch";
const ADD: &str = "*** Add File:";
const DELETE: &str = "*** Delete File:";
const UPDATE: &str = "*** Update File:";
const MOVE: &str = "*** Move to:";
const END_OF_FILE: &str = "*** End of File";
/// Candidate places a rejection shows with refs.
const SHOWN_CANDIDATES: usize = 5;

/// What the format looks like, for errors about its shape.
pub const FORM: &str = "*** Begin Patch, then per file `*** Add File: PATH` (lines starting with +), `*** Delete File: PATH`, or `*** Update File: PATH` (optionally `*** Move to: PATH`) with hunks: `@@` (optionally followed by a line of the file, or the ref of the hunk's first line), then lines starting with ' ' (context), '-' (removed) or '+' (added), optionally `*** End of File`; last line *** End Patch";

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Patch {
    pub files: Vec<FilePatch>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FilePatch {
    pub path: String,
    pub change: FileChange,
    /// Line of the file's header in the patch text (1-based).
    pub line: usize,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FileChange {
    /// A new file (or a replacement of the whole file) with these lines.
    Add {
        lines: Vec<String>,
    },
    Delete,
    Update {
        move_to: Option<String>,
        hunks: Vec<Hunk>,
    },
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hunk {
    pub header: Option<Header>,
    pub lines: Vec<HunkLine>,
    /// `*** End of File`: the hunk's lines end the file.
    pub end_of_file: bool,
    /// Line of the hunk's first line in the patch text (1-based).
    pub line: usize,
}

/// What follows `@@`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Header {
    /// A line of the file at or above the hunk.
    Text(String),
    /// The ref of the hunk's first line; for a hunk of added lines only,
    /// of the line they go below.
    Ref(String),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HunkLine {
    Context(String),
    Removed(String),
    Added(String),
}

impl HunkLine {
    fn text(&self) -> &str {
        match self {
            HunkLine::Context(t) | HunkLine::Removed(t) | HunkLine::Added(t) => t,
        }
    }

    fn with_text(&self, text: String) -> HunkLine {
        match self {
            HunkLine::Context(_) => HunkLine::Context(text),
            HunkLine::Removed(_) => HunkLine::Removed(text),
            HunkLine::Added(_) => HunkLine::Added(text),
        }
    }
}

impl Hunk {
    /// The lines the hunk expects in the file: context and removed.
    fn old(&self) -> Vec<&str> {
        self.lines
            .iter()
            .filter(|l| !matches!(l, HunkLine::Added(_)))
            .map(HunkLine::text)
            .collect()
    }

    fn changes(&self) -> bool {
        self.lines
            .iter()
            .any(|l| !matches!(l, HunkLine::Context(_)))
    }
}

fn invalid(line: usize, message: impl std::fmt::Display) -> Error {
    Error::invalid_request(format!(
        "Patch rejected, nothing written: line {line} of the patch: {message}\nThe form is: {FORM}."
    ))
}

/// The patch inside a shell here-document (`cat <<'EOF'` … `EOF`, also with
/// `apply_patch` for `cat` or neither), as models sometimes send it; and how
/// many lines precede it.
fn unwrap_heredoc(lines: &[&str]) -> Option<(usize, usize)> {
    let first = lines.first()?.trim();
    let rest = first
        .strip_prefix("cat")
        .or_else(|| first.strip_prefix("apply_patch"))
        .unwrap_or(first)
        .trim_start();
    let tag = rest.strip_prefix("<<")?.trim();
    let tag = tag
        .strip_prefix(['\'', '"'])
        .and_then(|t| t.strip_suffix(['\'', '"']))
        .unwrap_or(tag);
    if tag.is_empty() || !tag.chars().all(|c| c.is_alphanumeric() || c == '_') {
        return None;
    }
    let last = lines.len() - 1;
    (last > 0 && lines[last].trim() == tag).then_some((1, last))
}

/// Whether a `@@` header is a ref (`12#A3F#9BC`, maybe with `|content`):
/// only the exact shape the engine prints, so that a line of code after
/// `@@` is never read as one.
fn is_ref(header: &str) -> bool {
    let head = header.split('|').next().unwrap_or("").trim_end();
    let mut parts = head.split('#');
    let line = parts.next().unwrap_or("");
    let tags: Vec<&str> = parts.collect();
    !line.is_empty()
        && line.bytes().all(|b| b.is_ascii_digit())
        && (1..=2).contains(&tags.len())
        && tags
            .iter()
            .all(|t| t.len() == 3 && t.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// The text after `@@`, without a unified diff's `-12,3 +12,4 @@` (line
/// numbers are never used to place a hunk).
fn header_of(line: &str) -> Option<Header> {
    let mut text = line[2..].trim();
    if text.starts_with('-') {
        if let Some(end) = text.find("@@") {
            let numbers = &text[..end];
            if numbers
                .chars()
                .all(|c| c.is_ascii_digit() || matches!(c, '-' | '+' | ',' | ' '))
            {
                text = text[end + 2..].trim();
            }
        }
    }
    if text.is_empty() {
        None
    } else if is_ref(text) {
        Some(Header::Ref(text.to_owned()))
    } else {
        Some(Header::Text(text.to_owned()))
    }
}

fn path_after(line: &str, marker: &str, at: usize) -> Result<String> {
    let path = line[marker.len()..].trim();
    if path.is_empty() {
        return Err(invalid(at, format!("{marker} needs a path after it.")));
    }
    Ok(path.to_owned())
}

/// Parses a patch. Every line must be part of the format: a line that is
/// not is an error, never skipped.
pub fn parse(text: &str) -> Result<Patch> {
    let normalized = text.replace("\r\n", "\n").replace('\r', "\n");
    let all: Vec<&str> = normalized.split('\n').collect();
    let first = all.iter().position(|l| !l.trim().is_empty());
    let last = all.iter().rposition(|l| !l.trim().is_empty());
    let (Some(first), Some(last)) = (first, last) else {
        return Err(Error::invalid_request(format!(
            "Patch rejected, nothing written: the patch is empty. The form is: {FORM}."
        )));
    };
    let mut start = first;
    let mut end = last;
    if let Some((skip, keep)) = unwrap_heredoc(&all[first..=last]) {
        start = first + skip;
        end = first + keep - 1;
        while start <= end && all[start].trim().is_empty() {
            start += 1;
        }
        while end > start && all[end].trim().is_empty() {
            end -= 1;
        }
    }
    if all[start].trim() != BEGIN {
        return Err(invalid(
            start + 1,
            format!("a patch starts with the line `{BEGIN}`."),
        ));
    }
    if end == start || all[end].trim() != END {
        return Err(invalid(
            end + 1,
            format!("a patch ends with the line `{END}`."),
        ));
    }
    let lines = &all[start + 1..end];
    let number = |i: usize| start + 2 + i;
    let is_file_header = |l: &str| {
        l.starts_with(ADD) || l.starts_with(DELETE) || l.starts_with(UPDATE) || l.trim() == END
    };

    let mut files = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        let at = number(i);
        if line.trim().is_empty() {
            i += 1;
            continue;
        }
        if line.trim() == END {
            return Err(invalid(
                at,
                format!("`{END}` before the end; send one patch at a time."),
            ));
        }
        if line.starts_with(ADD) {
            let path = path_after(line, ADD, at)?;
            i += 1;
            let mut body = Vec::new();
            while i < lines.len() && !is_file_header(lines[i]) {
                body.push((number(i), lines[i]));
                i += 1;
            }
            while body.last().is_some_and(|(_, l)| l.trim().is_empty()) {
                body.pop();
            }
            let mut content = Vec::with_capacity(body.len());
            for (n, l) in body {
                match l.strip_prefix('+') {
                    Some(text) => content.push(text.to_owned()),
                    None => {
                        return Err(invalid(
                            n,
                            format!(
                                "every line of a new file starts with `+` ({path}), found {}.",
                                crate::error::excerpt(l)
                            ),
                        ))
                    }
                }
            }
            files.push(FilePatch {
                path,
                change: FileChange::Add { lines: content },
                line: at,
            });
            continue;
        }
        if line.starts_with(DELETE) {
            let path = path_after(line, DELETE, at)?;
            i += 1;
            while i < lines.len() && !is_file_header(lines[i]) {
                if !lines[i].trim().is_empty() {
                    return Err(invalid(
                        number(i),
                        format!(
                            "`{DELETE}` takes no lines after it, found {}.",
                            crate::error::excerpt(lines[i])
                        ),
                    ));
                }
                i += 1;
            }
            files.push(FilePatch {
                path,
                change: FileChange::Delete,
                line: at,
            });
            continue;
        }
        if line.starts_with(UPDATE) {
            let path = path_after(line, UPDATE, at)?;
            i += 1;
            let mut move_to = None;
            if i < lines.len() && lines[i].starts_with(MOVE) {
                move_to = Some(path_after(lines[i], MOVE, number(i))?);
                i += 1;
            }
            let from = i;
            while i < lines.len() && !is_file_header(lines[i]) {
                i += 1;
            }
            // An empty line before the next file may separate the files, or
            // be a blank context line that lost its space: it is left out,
            // unless that would leave the hunk with added lines only, which
            // would put them at another place.
            let mut to = i;
            while to > from && lines[to - 1].is_empty() {
                to -= 1;
            }
            let mut hunks = parse_hunks(&path, &lines[from..to], number(from))?;
            if let Some(last) = hunks.last_mut() {
                if !last.end_of_file && last.old().is_empty() {
                    last.lines
                        .extend((to..i).map(|_| HunkLine::Context(String::new())));
                }
            }
            if hunks.is_empty() && move_to.is_none() {
                return Err(invalid(
                    at,
                    format!("`{UPDATE} {path}` has no hunks: give the lines to change, or `{MOVE}` to rename it."),
                ));
            }
            files.push(FilePatch {
                path,
                change: FileChange::Update { move_to, hunks },
                line: at,
            });
            continue;
        }
        let hint = if line.starts_with("***") {
            "an unknown `***` line"
        } else if line.starts_with("@@") || line.starts_with(['+', '-', ' ']) {
            "a hunk line outside an `*** Update File:` section"
        } else {
            "a line outside any file section"
        };
        return Err(invalid(
            at,
            format!(
                "{hint}: {}. Each file starts with `{ADD}`, `{UPDATE}` or `{DELETE}`.",
                crate::error::excerpt(line)
            ),
        ));
    }
    if files.is_empty() {
        return Err(Error::invalid_request(format!(
            "Patch rejected, nothing written: the patch names no file. The form is: {FORM}."
        )));
    }
    Ok(Patch { files })
}

fn parse_hunks(path: &str, lines: &[&str], first_number: usize) -> Result<Vec<Hunk>> {
    let mut hunks: Vec<Hunk> = Vec::new();
    let mut open = false;
    for (k, &line) in lines.iter().enumerate() {
        let at = first_number + k;
        if line.starts_with("@@") {
            hunks.push(Hunk {
                header: header_of(line),
                lines: Vec::new(),
                end_of_file: false,
                line: at,
            });
            open = true;
            continue;
        }
        if !open {
            // The first hunk may leave out its `@@`.
            hunks.push(Hunk {
                header: None,
                lines: Vec::new(),
                end_of_file: false,
                line: at,
            });
            open = true;
        }
        let hunk = hunks.last_mut().expect("a hunk is open");
        if hunk.end_of_file {
            return Err(invalid(
                at,
                format!("`{END_OF_FILE}` ends a hunk ({path}); start the next one with `@@`."),
            ));
        }
        if line.trim_end() == END_OF_FILE {
            hunk.end_of_file = true;
            continue;
        }
        let parsed = match line.as_bytes().first() {
            None => HunkLine::Context(String::new()),
            Some(b' ') => HunkLine::Context(line[1..].to_owned()),
            Some(b'-') => HunkLine::Removed(line[1..].to_owned()),
            Some(b'+') => HunkLine::Added(line[1..].to_owned()),
            Some(_) => {
                return Err(invalid(
                    at,
                    format!(
                        "in `{UPDATE} {path}` every line starts with ' ' (context), '-' (removed), '+' (added) or `@@` (a new hunk), found {}.",
                        crate::error::excerpt(line)
                    ),
                ))
            }
        };
        hunk.lines.push(parsed);
    }
    for (n, hunk) in hunks.iter().enumerate() {
        if !hunk.changes() {
            return Err(invalid(
                hunk.line,
                format!(
                    "hunk {} of {path} has no line starting with '-' or '+', so it changes nothing.",
                    n + 1
                ),
            ));
        }
    }
    Ok(hunks)
}

/// Every path a patch names, moves' destinations after their sources, for
/// a host that asks before touching files outside the project.
pub fn paths(text: &str) -> Result<Vec<String>> {
    let mut out = Vec::new();
    for file in parse(text)?.files {
        out.push(file.path);
        if let FileChange::Update {
            move_to: Some(to), ..
        } = file.change
        {
            out.push(to);
        }
    }
    Ok(out)
}

/// A file's hunks placed in its text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Placed {
    pub splices: Vec<Splice>,
    pub notes: Vec<String>,
}

/// How lines compare: as they are, or without white space at their ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tier {
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

/// Every place at or after `from` where `block` starts.
fn block_starts(doc: &Document, from: usize, block: &[&str], tier: Tier) -> Vec<usize> {
    let n = doc.line_count();
    if block.len() > n {
        return Vec::new();
    }
    (from..=n - block.len())
        .filter(|&at| block_at(doc, at, block, tier))
        .collect()
}

fn line_starts(doc: &Document, from: usize, text: &str, tier: Tier) -> Vec<usize> {
    (from..doc.line_count())
        .filter(|&i| tier.same(doc.line(i), text))
        .collect()
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
/// have one. `strip` removes view prefixes a hunk copied from a read.
pub fn place(
    doc: &Document,
    path: &str,
    hunks: &[Hunk],
    anchors: &[Option<usize>],
    strip: bool,
) -> Result<Placed> {
    let mut notes = Vec::new();
    let mut splices = Vec::new();
    let mut problems: Vec<(ErrorCode, String, Vec<usize>)> = Vec::new();
    let mut cursor = 0;
    for (k, original) in hunks.iter().enumerate() {
        let number = k + 1;
        let stripped;
        let hunk = match strip.then(|| stripped_hunk(original)).flatten() {
            Some(h) => {
                notes.push(format!(
                    "hunk {number}: removed the view prefixes (LINE#HASH#ANCHOR|) copied into its lines."
                ));
                stripped = h;
                &stripped
            }
            None => original,
        };
        let anchor = anchors.get(k).copied().flatten();
        match find(doc, hunk, cursor, anchor) {
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
            Err(miss) => problems.push(describe(doc, number, hunk, anchor, miss)),
        }
    }
    if problems.is_empty() {
        return Ok(Placed { splices, notes });
    }
    let code = problems[0].0;
    let mut message = match (problems.len(), hunks.len()) {
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
    message.push_str("Copy the lines exactly as they are now, or put the ref of a hunk's first line after its @@ (`@@ 12#A3F#9BC`) to anchor it there.");
    focus.sort_unstable();
    focus.dedup();
    let mut err = Error::new(code, message).with_path(path);
    if !focus.is_empty() {
        err.shown = window(doc, &focus, 1).1;
    }
    Err(err)
}

/// The hunk without view prefixes, when every non-empty line (and a text
/// header) carries one; `None` otherwise.
fn stripped_hunk(hunk: &Hunk) -> Option<Hunk> {
    let texts: Vec<String> = hunk.lines.iter().map(|l| l.text().to_owned()).collect();
    let clean = strip_view_prefixes(&texts)?;
    Some(Hunk {
        lines: hunk
            .lines
            .iter()
            .zip(clean)
            .map(|(l, t)| l.with_text(t))
            .collect(),
        ..hunk.clone()
    })
}

fn find(
    doc: &Document,
    hunk: &Hunk,
    cursor: usize,
    anchor: Option<usize>,
) -> std::result::Result<Place, Miss> {
    let old = hunk.old();
    let miss = match find_block(doc, hunk, &old, cursor, anchor) {
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
    match find_block(doc, hunk, &old[..old.len() - trailing], cursor, anchor) {
        Ok((at, tier)) => Ok(Place {
            at,
            tier,
            dropped: trailing,
        }),
        Err(_) => Err(miss),
    }
}

fn find_block(
    doc: &Document,
    hunk: &Hunk,
    old: &[&str],
    cursor: usize,
    anchor: Option<usize>,
) -> std::result::Result<(usize, Tier), Miss> {
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
            let exact = line_starts(doc, cursor, text, Tier::Exact);
            let found = if exact.is_empty() {
                line_starts(doc, cursor, text, Tier::Trimmed)
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
        let starts = block_starts(doc, cursor, old, tier);
        let mut candidates: Vec<usize> = match &headers {
            // The first place at or after each line the header names.
            Some(found) => found
                .iter()
                .filter_map(|&h| starts.iter().copied().find(|&s| s >= h))
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
            text.push_str(&window(doc, lines, 1).0);
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

/// What a patch does to one file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    Add,
    Update,
    Delete,
    /// Updated (or not) and renamed.
    Move,
}

impl FileKind {
    /// The letter `git status` and OpenCode's summary use.
    fn letter(self) -> char {
        match self {
            FileKind::Add => 'A',
            FileKind::Update | FileKind::Move => 'M',
            FileKind::Delete => 'D',
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileResult {
    pub kind: FileKind,
    /// The file the patch names, as the model sees it, and its real path.
    pub path: String,
    pub absolute: String,
    /// Where a moved file went.
    pub move_path: Option<String>,
    pub move_absolute: Option<String>,
    /// The REV written (none for a deleted file) and the one before (none
    /// for a new file).
    pub rev: Option<String>,
    pub previous_rev: Option<String>,
    /// A unified diff of the file, for UIs.
    pub diff: String,
    pub additions: usize,
    pub deletions: usize,
    /// The part of the output about this file: fresh refs of each change.
    pub output: String,
    pub problems: Vec<Problem>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PatchResult {
    /// The files changed, one line each (`M src/a.ts`).
    pub summary: String,
    /// The summary, then each file's part.
    pub output: String,
    pub files: Vec<FileResult>,
}

/// A patch checked against every file it names, nothing written yet.
#[derive(Debug, Clone)]
pub struct PatchPlan {
    /// The session that made it: only that one may commit it.
    owner: u64,
    steps: Vec<Step>,
    result: PatchResult,
}

impl PatchPlan {
    pub fn result(&self) -> &PatchResult {
        &self.result
    }
}

#[derive(Debug, Clone)]
enum Step {
    /// A new version of a file, as an edit would write it.
    Write(Box<EditPlan>),
    /// A file to delete, if it is still `base`.
    Remove { target: Target, base: Base },
}

impl Step {
    fn target(&self) -> &Target {
        match self {
            Step::Write(plan) => plan.target(),
            Step::Remove { target, .. } => target,
        }
    }

    fn base(&self) -> &Base {
        match self {
            Step::Write(plan) => plan.base(),
            Step::Remove { base, .. } => base,
        }
    }
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// One file's part of a plan.
struct Planned {
    steps: Vec<Step>,
    result: FileResult,
}

impl Hashline {
    /// Checks a patch against every file it names and computes each new
    /// version; nothing is written. Any hunk that does not fit, in any
    /// file, rejects the whole patch, and every such hunk is reported.
    /// Relative paths in the patch resolve against `directory` when given
    /// (the folder the model works in), else against the root.
    pub fn plan_patch(
        &self,
        text: &str,
        directory: Option<&Path>,
        allow_outside: bool,
    ) -> Result<PatchPlan> {
        let patch = parse(text)?;
        let resolve = |name: &str| match directory {
            Some(dir) if Path::new(name).is_relative() => {
                self.target(&dir.join(name).to_string_lossy(), allow_outside)
            }
            _ => self.target(name, allow_outside),
        };
        let mut targets = Vec::with_capacity(patch.files.len());
        let mut touched: BTreeSet<PathBuf> = BTreeSet::new();
        for file in &patch.files {
            let target = resolve(&file.path)?;
            let dest = match &file.change {
                FileChange::Update {
                    move_to: Some(to), ..
                } => Some(resolve(to)?).filter(|d| d.real != target.real),
                _ => None,
            };
            for t in std::iter::once(&target).chain(&dest) {
                if !touched.insert(t.real.clone()) {
                    return Err(Error::new(
                        ErrorCode::Conflict,
                        format!(
                            "Patch rejected, nothing written: it changes {} more than once (line {} of the patch). Put all hunks of a file in one `*** Update File:` section.",
                            t.display, file.line
                        ),
                    )
                    .with_path(&t.display));
                }
            }
            targets.push((target, dest));
        }
        let mut steps = Vec::new();
        let mut files = Vec::new();
        let mut errors = Vec::new();
        for (file, (target, dest)) in patch.files.iter().zip(targets) {
            match self.plan_file(file, target, dest) {
                Ok(planned) => {
                    steps.extend(planned.steps);
                    files.push(planned.result);
                }
                Err(err) => errors.push(err),
            }
        }
        if let Some(first) = errors.first() {
            if errors.len() == 1 {
                return Err(errors.remove(0));
            }
            let mut err = Error::new(
                first.code,
                errors
                    .iter()
                    .map(|e| e.message.as_str())
                    .collect::<Vec<_>>()
                    .join("\n\n"),
            );
            err.path = first.path.clone();
            return Err(err);
        }
        // Deletions last: a failed write then never leaves a file gone.
        steps.sort_by_key(|s| matches!(s, Step::Remove { .. }));
        let mut summary = String::from("Success. Updated the following files:\n");
        for f in &files {
            let _ = writeln!(
                summary,
                "{} {}",
                f.kind.letter(),
                f.move_path.as_deref().unwrap_or(&f.path)
            );
        }
        let mut output = summary.clone();
        for f in &files {
            output.push('\n');
            output.push_str(&f.output);
        }
        Ok(PatchPlan {
            owner: self.id,
            steps,
            result: PatchResult {
                summary,
                output,
                files,
            },
        })
    }

    fn plan_file(&self, file: &FilePatch, target: Target, dest: Option<Target>) -> Result<Planned> {
        let path = target.display.clone();
        let absolute = target.real.display().to_string();
        match &file.change {
            FileChange::Add { lines } => {
                let loaded = self.load(&target, true)?;
                let exists = loaded.base != Base::Missing;
                let old = Arc::new(loaded.doc);
                let splices = [Splice {
                    range: 0..old.line_count(),
                    lines: lines.clone(),
                }];
                let mut notes = Vec::new();
                if exists && !old.is_empty() {
                    notes.push(format!(
                        "{path} existed; the patch replaced all of its {} (shown as removed).",
                        plural(old.line_count(), "line", "lines")
                    ));
                }
                let headline = format!(
                    "{} {path} with {}",
                    if exists { "Replaced" } else { "Created" },
                    plural(lines.len(), "line", "lines")
                );
                let edited = self.patched(&target, &old, &splices, headline, notes, false)?;
                let history = !self.history(&target).is_empty();
                let plan = self.plan_edited(target, loaded.base, old, edited, history)?;
                let result = file_result(FileKind::Add, path, absolute, None, &plan, exists);
                Ok(Planned {
                    steps: vec![Step::Write(Box::new(plan))],
                    result,
                })
            }
            FileChange::Delete => {
                let loaded = self.load(&target, false)?;
                let old = loaded.doc;
                let n = old.line_count();
                let gone = finish(
                    &old,
                    &path,
                    Change {
                        bytes: Vec::new(),
                        hunks: vec![crate::report::Hunk {
                            old: 0..n,
                            new: 0..0,
                        }],
                        headline: String::new(),
                        notes: Vec::new(),
                        remapped_from: None,
                    },
                    false,
                )?;
                Ok(Planned {
                    result: FileResult {
                        kind: FileKind::Delete,
                        output: format!("Deleted {path} ({}).\n", plural(n, "line", "lines")),
                        path,
                        absolute,
                        move_path: None,
                        move_absolute: None,
                        rev: None,
                        previous_rev: Some(gone.previous_rev),
                        diff: gone.summary.diff,
                        additions: 0,
                        deletions: gone.summary.deletions,
                        problems: Vec::new(),
                    },
                    steps: vec![Step::Remove {
                        target,
                        base: loaded.base,
                    }],
                })
            }
            FileChange::Update {
                hunks: list,
                move_to,
            } => {
                let loaded = self.load(&target, false)?;
                let old = Arc::new(loaded.doc);
                let history = self.history(&target);
                let placed = match self.place_hunks(&target, &old, &history, list) {
                    Ok(placed) => placed,
                    Err(err) => return Err(self.after_rejection(&target, &old, err)),
                };
                let what = plural(list.len(), "hunk", "hunks");
                let headline = match &dest {
                    Some(d) if list.is_empty() => format!("Moved {path} to {}", d.display),
                    Some(d) => format!("Moved {path} to {} and patched it with {what}", d.display),
                    None if move_to.is_some() && list.is_empty() => {
                        format!("Left {path} where it is (it is already there)")
                    }
                    None => format!("Patched {path} with {what}"),
                };
                let edited = self.patched(
                    &target,
                    &old,
                    &placed.splices,
                    headline,
                    placed.notes,
                    move_to.is_none(),
                )?;
                let had_history = !history.is_empty();
                match dest {
                    None => {
                        let plan =
                            self.plan_edited(target, loaded.base, old, edited, had_history)?;
                        let result =
                            file_result(FileKind::Update, path, absolute, None, &plan, true);
                        Ok(Planned {
                            steps: vec![Step::Write(Box::new(plan))],
                            result,
                        })
                    }
                    Some(dest) => {
                        let there = self.load(&dest, true)?;
                        let mut edited = edited;
                        if there.base != Base::Missing {
                            edited.summary.output.push_str(&format!(
                                "Note: {} existed and was replaced by the moved file.\n",
                                dest.display
                            ));
                        }
                        let moved = Some((dest.display.clone(), dest.real.display().to_string()));
                        let plan = self.plan_edited(dest, there.base, old, edited, had_history)?;
                        let result =
                            file_result(FileKind::Move, path, absolute, moved, &plan, true);
                        Ok(Planned {
                            steps: vec![
                                Step::Write(Box::new(plan)),
                                Step::Remove {
                                    target,
                                    base: loaded.base,
                                },
                            ],
                            result,
                        })
                    }
                }
            }
        }
    }

    /// The hunks placed in the file, `@@` refs found first (remapped from
    /// the version the model read when that is provable).
    fn place_hunks(
        &self,
        target: &Target,
        doc: &Document,
        history: &[crate::store::Version],
        list: &[Hunk],
    ) -> Result<Placed> {
        let refs: Vec<Option<&str>> = list
            .iter()
            .map(|h| match &h.header {
                Some(Header::Ref(r)) => Some(r.as_str()),
                _ => None,
            })
            .collect();
        let mut notes = Vec::new();
        let anchors: Vec<Option<usize>> = if refs.iter().any(Option::is_some) {
            let ctx = PlanContext {
                doc,
                rev: doc.rev(),
                path: &target.display,
                history,
                cleanup: self.options().cleanup,
                seen_guard: self.options().seen_guard,
            };
            // The refs are numbered as the hunks they head.
            let (lines, from) = locate_refs(&ctx, &refs, None).map_err(|mut err| {
                err.message = err.message.replace("operation ", "hunk ");
                err
            })?;
            if let Some(from) = from {
                notes.push(format!(
                    "the @@ refs were from REV {from}; the lines they name are unchanged since then and were found at their current positions."
                ));
            }
            let mut lines = lines.into_iter();
            refs.iter().map(|r| r.and_then(|_| lines.next())).collect()
        } else {
            vec![None; list.len()]
        };
        let mut placed = place(doc, &target.display, list, &anchors, self.options().cleanup)?;
        notes.append(&mut placed.notes);
        placed.notes = notes;
        Ok(placed)
    }

    fn patched(
        &self,
        target: &Target,
        old: &Document,
        splices: &[Splice],
        headline: String,
        notes: Vec<String>,
        refuse_same: bool,
    ) -> Result<Edited> {
        finish(
            old,
            &target.display,
            Change {
                bytes: old.splice(splices)?,
                hunks: hunks(splices),
                headline,
                notes,
                remapped_from: None,
            },
            refuse_same,
        )
        .map_err(|e| e.with_path(&target.display))
    }

    /// Writes a planned patch: every file is checked to be as planned
    /// before any is written, then each is replaced atomically.
    pub fn commit_patch(&self, plan: &PatchPlan) -> Result<PatchResult> {
        self.commit_patch_with(plan, |result| Ok(result.clone()))
    }

    /// `commit_patch`, with a last step that runs once every file is
    /// checked and before the first is written, as in `commit_with`.
    pub fn commit_patch_with<T>(
        &self,
        plan: &PatchPlan,
        last_step: impl FnOnce(&PatchResult) -> Result<T>,
    ) -> Result<T> {
        if plan.owner != self.id {
            return Err(Error::invalid_request(
                "This patch was planned by another Hashline instance; only that one can commit it. Plan the patch again with this one.",
            ));
        }
        let mut targets: Vec<&Target> = plan.steps.iter().map(Step::target).collect();
        // Locks in path order, so two patches never wait on each other.
        targets.sort_by(|a, b| a.real.cmp(&b.real));
        targets.dedup_by(|a, b| a.real == b.real);
        let _guards = targets
            .iter()
            .map(|t| self.path_lock(t))
            .collect::<Result<Vec<_>>>()?;
        let mut changed = Vec::new();
        for step in &plan.steps {
            if !unchanged(step.target(), step.base())? {
                changed.push(step.target().display.clone());
            }
        }
        if !changed.is_empty() {
            return Err(Error::new(
                ErrorCode::BaseChanged,
                format!(
                    "Patch refused, nothing written: {} changed on disk after the patch was planned. Read {} again and redo the patch.",
                    changed.join(", "),
                    if changed.len() == 1 { "it" } else { "them" }
                ),
            )
            .with_path(&changed[0]));
        }
        let out = last_step(&plan.result)?;
        let mut done: Vec<&str> = Vec::new();
        for step in &plan.steps {
            let outcome = match step {
                Step::Write(edit) => self.write(edit, |_| Ok(())),
                Step::Remove { target, base } => {
                    remove_atomically(target, base, self.options.lock_timeout)
                }
            };
            if let Err(mut err) = outcome {
                let written = if done.is_empty() {
                    "nothing was written".to_owned()
                } else {
                    format!("already changed: {}", done.join(", "))
                };
                err.message = format!(
                    "Patch stopped at {} ({written}): {}",
                    step.target().display,
                    err.message
                );
                return Err(err);
            }
            done.push(&step.target().display);
        }
        Ok(out)
    }
}

fn file_result(
    kind: FileKind,
    path: String,
    absolute: String,
    moved: Option<(String, String)>,
    plan: &EditPlan,
    existed: bool,
) -> FileResult {
    let r = plan.result();
    let (move_path, move_absolute) = match moved {
        Some((p, a)) => (Some(p), Some(a)),
        None => (None, None),
    };
    FileResult {
        kind,
        path,
        absolute,
        move_path,
        move_absolute,
        rev: Some(r.rev.clone()),
        previous_rev: existed.then(|| r.previous_rev.clone()),
        diff: r.diff.clone(),
        additions: r.additions,
        deletions: r.deletions,
        output: r.output.clone(),
        problems: r.problems.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Ref;

    fn patch(body: &str) -> String {
        format!("{BEGIN}\n{body}\n{END}")
    }

    fn hunks_of(p: &Patch) -> &[Hunk] {
        match &p.files[0].change {
            FileChange::Update { hunks, .. } => hunks,
            other => panic!("not an update: {other:?}"),
        }
    }

    /// Parses a one-file update patch and applies it to `text`.
    fn apply(text: &str, body: &str) -> Result<String> {
        let p = parse(&patch(body))?;
        let doc = Document::from_text(text);
        let hunks = hunks_of(&p);
        let placed = place(&doc, "f.txt", hunks, &vec![None; hunks.len()], true)?;
        Ok(String::from_utf8(doc.splice(&placed.splices)?).unwrap())
    }

    #[test]
    fn parses_add_delete_update_and_move() {
        let p = parse(&patch(
            "*** Add File: new.txt\n+Hello\n+\n*** Delete File: old.txt\n*** Update File: a.txt\n*** Move to: b.txt\n@@ fn main\n ctx\n-old\n+new\n*** End of File",
        ))
        .unwrap();
        assert_eq!(p.files.len(), 3);
        assert_eq!(p.files[0].path, "new.txt");
        assert_eq!(
            p.files[0].change,
            FileChange::Add {
                lines: vec!["Hello".into(), String::new()]
            }
        );
        assert_eq!(p.files[1].change, FileChange::Delete);
        let FileChange::Update { move_to, hunks } = &p.files[2].change else {
            panic!()
        };
        assert_eq!(move_to.as_deref(), Some("b.txt"));
        assert_eq!(hunks.len(), 1);
        assert_eq!(hunks[0].header, Some(Header::Text("fn main".into())));
        assert!(hunks[0].end_of_file);
        assert_eq!(
            hunks[0].lines,
            vec![
                HunkLine::Context("ctx".into()),
                HunkLine::Removed("old".into()),
                HunkLine::Added("new".into())
            ]
        );
    }

    #[test]
    fn rejects_what_is_not_the_format_instead_of_skipping_it() {
        for (text, why) in [
            ("invalid patch".to_owned(), "starts with the line"),
            (String::new(), "patch is empty"),
            (patch(""), "names no file"),
            (format!("{BEGIN}\n{END}"), "names no file"),
            (patch("*** Frobnicate File: foo"), "unknown `***` line"),
            (
                patch("*** Update File: a.txt\n@@\n-a\nb\n+c"),
                "every line starts with",
            ),
            (patch("*** Add File: a.txt\n+a\nb"), "starts with `+`"),
            (patch("*** Delete File: a.txt\n-a"), "takes no lines"),
            (patch("*** Update File: a.txt"), "has no hunks"),
            (patch("*** Update File: a.txt\n@@\n a"), "changes nothing"),
            (patch("-a\n+b"), "outside an `*** Update File:`"),
            (
                format!("{BEGIN}\n*** Delete File: a\n{END}\n{BEGIN}\n*** Delete File: b\n{END}"),
                "before the end",
            ),
            (format!("{BEGIN}\n*** Delete File: a"), "ends with the line"),
        ] {
            let err = parse(&text).unwrap_err();
            assert_eq!(err.code, ErrorCode::InvalidRequest, "{text}");
            assert!(err.message.contains(why), "{text}: {}", err.message);
        }
    }

    #[test]
    fn accepts_heredoc_wrappers_crlf_and_surrounding_blank_lines() {
        for text in [
            format!("cat <<'EOF'\n{}\nEOF", patch("*** Add File: a\n+x")),
            format!("<<EOF\n{}\nEOF\n", patch("*** Add File: a\n+x")),
            format!("\n\n{}\n\n", patch("*** Add File: a\n+x")).replace('\n', "\r\n"),
        ] {
            let p = parse(&text).unwrap();
            assert_eq!(
                p.files[0].change,
                FileChange::Add {
                    lines: vec!["x".into()]
                },
                "{text:?}"
            );
        }
    }

    #[test]
    fn the_first_hunk_may_leave_out_its_at_at_line_and_is_applied() {
        assert_eq!(
            apply("a\nb\nc\n", "*** Update File: f\n a\n-b\n+B").unwrap(),
            "a\nB\nc\n"
        );
        assert_eq!(
            apply("a\nb\nc\n", "*** Update File: f\n-a\n+A\n@@\n-c\n+C").unwrap(),
            "A\nb\nC\n"
        );
    }

    #[test]
    fn a_header_with_unified_diff_line_numbers_keeps_only_its_text() {
        let p = parse(&patch("*** Update File: f\n@@ -3,2 +3,2 @@ fn b\n-x\n+y")).unwrap();
        assert_eq!(hunks_of(&p)[0].header, Some(Header::Text("fn b".into())));
        let p = parse(&patch("*** Update File: f\n@@ -3,2 +3,2 @@\n-x\n+y")).unwrap();
        assert_eq!(hunks_of(&p)[0].header, None);
        let p = parse(&patch("*** Update File: f\n@@ 12#A3F#9BC|  let x\n-x\n+y")).unwrap();
        assert_eq!(
            hunks_of(&p)[0].header,
            Some(Header::Ref("12#A3F#9BC|  let x".into()))
        );
        let p = parse(&patch("*** Update File: f\n@@ 12#notref\n-x\n+y")).unwrap();
        assert_eq!(
            hunks_of(&p)[0].header,
            Some(Header::Text("12#notref".into()))
        );
    }

    #[test]
    fn an_ambiguous_hunk_is_rejected_with_every_candidate_and_its_ref() {
        let text = "fn a\nx=10\ny=2\nfn b\nx=10\ny=20\n";
        let err = apply(text, "*** Update File: f\n@@\n-x=10\n+x=11").unwrap_err();
        assert_eq!(err.code, ErrorCode::ContextAmbiguous);
        let doc = Document::from_text(text);
        for line in [1, 4] {
            assert!(
                err.message
                    .contains(&format!(">>> {}|x=10", Ref::of_line(&doc, line))),
                "{}",
                err.message
            );
        }
        assert_eq!(err.shown, vec![0..6]);
    }

    #[test]
    fn a_header_line_picks_the_place_after_it() {
        let text = "fn a\nx=10\ny=2\nfn b\nx=10\ny=20\n";
        assert_eq!(
            apply(text, "*** Update File: f\n@@ fn b\n-x=10\n+x=11").unwrap(),
            "fn a\nx=10\ny=2\nfn b\nx=11\ny=20\n"
        );
        // The header may also be the hunk's first context line.
        assert_eq!(
            apply(text, "*** Update File: f\n@@ fn b\n fn b\n-x=10\n+x=11").unwrap(),
            "fn a\nx=10\ny=2\nfn b\nx=11\ny=20\n"
        );
        // A header that is itself ambiguous is refused.
        let err = apply("fn b\nx\nfn b\nx\n", "*** Update File: f\n@@ fn b\n-x\n+y").unwrap_err();
        assert_eq!(err.code, ErrorCode::ContextAmbiguous);
    }

    #[test]
    fn hunks_are_placed_in_order_each_after_the_last() {
        // The second `x` is the only one after the first hunk.
        let out = apply(
            "a\nx\nb\nx\n",
            "*** Update File: f\n@@\n-a\n+A\n x\n-b\n+B\n@@\n-x\n+X",
        )
        .unwrap();
        assert_eq!(out, "A\nx\nB\nX\n");
    }

    #[test]
    fn missing_context_is_rejected_with_the_closest_lines() {
        let err = apply(
            "let total = items.len();\nother\n",
            "*** Update File: f\n@@\n-let totl = items.len();\n+x",
        )
        .unwrap_err();
        assert_eq!(err.code, ErrorCode::ContextNotFound);
        assert!(err.message.contains(">>> 1#"), "{}", err.message);
        let err = apply("a\nb\n", "*** Update File: f\n@@ fn zzz\n-a\n+b").unwrap_err();
        assert_eq!(err.code, ErrorCode::ContextNotFound);
        assert!(err.message.contains("\"fn zzz\""), "{}", err.message);
    }

    #[test]
    fn a_stale_hunk_is_shown_the_line_it_meant_as_it_is_now() {
        let err = apply(
            "class W\n{\n    int x = 10;\n}\n",
            "*** Update File: f\n@@\n {\n-    int x = 1;\n+    int x = 2;",
        )
        .unwrap_err();
        assert!(err.message.contains(">>> 3#"), "{}", err.message);
        assert!(
            err.message.contains("|    int x = 10;\n"),
            "{}",
            err.message
        );
    }

    #[test]
    fn every_failing_hunk_is_reported_at_once() {
        let err = apply("a\nb\nc\n", "*** Update File: f\n@@\n-zz\n+y\n@@\n-yy\n+x").unwrap_err();
        assert!(
            err.message
                .contains("2 of its 2 hunks for f.txt do not fit"),
            "{}",
            err.message
        );
        assert!(
            err.message.contains("Hunk 1") && err.message.contains("Hunk 2"),
            "{}",
            err.message
        );
    }

    #[test]
    fn whitespace_tolerant_match_reindents_added_lines_and_keeps_context_bytes() {
        let text = "fn a() {\n\tif x {\n\t\ty();  \n\t}\n}\n";
        let out = apply(text, "*** Update File: f\n@@\n if x {\n-    y();\n+    z();\n+    if w {\n+        v();\n+    }\n }").unwrap();
        assert_eq!(
            out,
            "fn a() {\n\tif x {\n\t\tz();\n\t\tif w {\n\t\t\tv();\n\t\t}\n\t}\n}\n"
        );
    }

    #[test]
    fn end_of_file_anchors_at_the_end_only() {
        let text = "start\nmarker\nmiddle\nmarker\nend\n";
        let out = apply(
            text,
            "*** Update File: f\n@@\n-marker\n-end\n+marker-changed\n+end\n*** End of File",
        )
        .unwrap();
        assert_eq!(out, "start\nmarker\nmiddle\nmarker-changed\nend\n");
        let err = apply(
            "a\nb\nc\n",
            "*** Update File: f\n@@\n-a\n+A\n*** End of File",
        )
        .unwrap_err();
        assert_eq!(err.code, ErrorCode::ContextNotFound);
        assert!(err.message.contains("not at the end"), "{}", err.message);
    }

    #[test]
    fn pure_additions_go_at_the_end_or_right_below_the_header_line() {
        assert_eq!(
            apply("", "*** Update File: f\n@@\n+First line").unwrap(),
            "First line\n"
        );
        assert_eq!(
            apply("a\nb\n", "*** Update File: f\n@@\n+c").unwrap(),
            "a\nb\nc\n"
        );
        assert_eq!(
            apply("a\nb\n", "*** Update File: f\n@@ a\n+a2").unwrap(),
            "a\na2\nb\n"
        );
    }

    #[test]
    fn a_trailing_blank_context_line_that_is_not_in_the_file_is_left_out() {
        assert_eq!(
            apply("a\nb", "*** Update File: f\n@@\n a\n-b\n+B\n ").unwrap(),
            "a\nB"
        );
    }

    #[test]
    fn a_last_blank_context_line_keeps_added_lines_where_they_belong() {
        // " " is a blank context line: the new line goes before it, not at the end.
        assert_eq!(
            apply("\nz\n", "*** Update File: f\n@@\n+N\n ").unwrap(),
            "N\n\nz\n"
        );
        // An empty line there may be a separator or a blank context line
        // that lost its space; a hunk that would be left with added lines
        // only keeps it as context.
        assert_eq!(
            apply("\nz\n", "*** Update File: f\n@@\n+N\n").unwrap(),
            "N\n\nz\n"
        );
        let p = parse(&patch(
            "*** Update File: a\n@@\n-x\n+y\n\n*** Delete File: b",
        ))
        .unwrap();
        assert_eq!(
            hunks_of(&p)[0].lines.len(),
            2,
            "an empty line between files separates them"
        );
    }

    #[test]
    fn view_prefixes_copied_from_a_read_are_removed_from_every_line() {
        let doc = Document::from_text("a\nb\n");
        let (ra, rb) = (Ref::of_line(&doc, 0), Ref::of_line(&doc, 1));
        let out = apply(
            "a\nb\n",
            &format!("*** Update File: f\n@@\n {ra}|a\n-{rb}|b\n+{rb}|B"),
        )
        .unwrap();
        assert_eq!(out, "a\nB\n");
    }

    #[test]
    fn a_ref_header_anchors_the_hunk_at_exactly_that_line() {
        let text = "x\n}\nx\n}\n";
        let doc = Document::from_text(text);
        let p = parse(&patch("*** Update File: f\n@@ 3#AAA#BBB\n-x\n+y")).unwrap();
        let placed = place(&doc, "f", hunks_of(&p), &[Some(2)], false).unwrap();
        assert_eq!(doc.splice(&placed.splices).unwrap(), b"x\n}\ny\n}\n");
        // Not the line after it: a hunk whose first line was left out must
        // not land one line lower.
        let err = place(&doc, "f", hunks_of(&p), &[Some(1)], false).unwrap_err();
        assert_eq!(err.code, ErrorCode::ContextNotFound);
        let a = Document::from_text("a\nb\nc\n");
        let dropped = parse(&patch("*** Update File: f\n@@ 1#AAA#BBB\n+A\n b")).unwrap();
        let err = place(&a, "f", hunks_of(&dropped), &[Some(0)], false).unwrap_err();
        assert_eq!(err.code, ErrorCode::ContextNotFound, "{}", err.message);
        // A hunk of added lines only goes right below the line the ref names,
        // which may be the last line of the hunk before.
        let p = parse(&patch("*** Update File: f\n@@ 2#AAA#BBB\n+new")).unwrap();
        let placed = place(&doc, "f", hunks_of(&p), &[Some(1)], false).unwrap();
        assert_eq!(doc.splice(&placed.splices).unwrap(), b"x\n}\nnew\nx\n}\n");
        let p = parse(&patch(
            "*** Update File: f\n@@ 1#AAA#BBB\n-x\n+X\n }\n@@ 2#AAA#BBB\n+new",
        ))
        .unwrap();
        let placed = place(&doc, "f", hunks_of(&p), &[Some(0), Some(1)], false).unwrap();
        assert_eq!(doc.splice(&placed.splices).unwrap(), b"X\n}\nnew\nx\n}\n");
        let err = place(&doc, "f", hunks_of(&p), &[Some(0), Some(0)], false).unwrap_err();
        assert_eq!(err.code, ErrorCode::Conflict);
    }

    /// A patch of one hunk for replacing `range` of `lines` with `new`, its
    /// context widened (after, then before) until its old side fits only
    /// its own place, as a careful model would write it.
    fn unique_hunk(lines: &[&str], range: std::ops::Range<usize>, new: &[&str]) -> String {
        let doc = Document::from_text(&(lines.join("\n") + "\n"));
        let (mut from, mut to) = (range.start, range.end);
        loop {
            let old: Vec<&str> = lines[from..to].to_vec();
            let starts = block_starts(&doc, 0, &old, Tier::Trimmed);
            if !old.is_empty() && starts == [from] {
                break;
            }
            if to < lines.len() && (to - range.end <= range.start - from || from == 0) {
                to += 1;
            } else if from > 0 {
                from -= 1;
            } else {
                break;
            }
        }
        let mut body = String::from("*** Update File: f\n@@\n");
        for l in &lines[from..range.start] {
            body.push_str(&format!(" {l}\n"));
        }
        for l in &lines[range.clone()] {
            body.push_str(&format!("-{l}\n"));
        }
        for l in new {
            body.push_str(&format!("+{l}\n"));
        }
        for l in &lines[range.end..to] {
            body.push_str(&format!(" {l}\n"));
        }
        body
    }

    proptest::proptest! {
        #[test]
        fn a_hunk_whose_lines_fit_one_place_lands_exactly_there_and_one_that_fits_none_is_refused(
            lines in proptest::collection::vec(proptest::sample::select(vec!["}", "", "a", "  a", "b", "x = 1"]), 1..40),
            at in 0usize..40,
            len in 0usize..4,
            new in proptest::collection::vec(proptest::sample::select(vec!["N", "  n", ""]), 0..3),
        ) {
            let at = at % lines.len();
            let range = at..(at + len).min(lines.len());
            proptest::prop_assume!(!range.is_empty() || !new.is_empty());
            let body = unique_hunk(&lines, range.clone(), &new);
            let text = lines.join("\n") + "\n";
            let mut want: Vec<&str> = lines.clone();
            want.splice(range.clone(), new.iter().copied());
            let want = if want.is_empty() { String::new() } else { want.join("\n") + "\n" };
            match apply(&text, &body) {
                Ok(got) => proptest::prop_assert_eq!(got, want, "patch:\n{}", body),
                Err(err) => proptest::prop_assert!(
                    matches!(err.code, ErrorCode::ContextAmbiguous | ErrorCode::NoChange),
                    "{}: {}\npatch:\n{}",
                    err.code,
                    err.message,
                    body
                ),
            }
            // A hunk naming a line the file does not have is refused.
            let missing = "*** Update File: f\n@@\n-no such line\n+x\n";
            proptest::prop_assert_eq!(apply(&text, missing).unwrap_err().code, ErrorCode::ContextNotFound);
        }
    }

    mod session {
        use super::*;
        use crate::{Hashline, Options};
        use std::fs;

        fn setup(files: &[(&str, &[u8])]) -> (tempfile::TempDir, Hashline) {
            let dir = tempfile::tempdir().unwrap();
            for (name, bytes) in files {
                let path = dir.path().join(name);
                fs::create_dir_all(path.parent().unwrap()).unwrap();
                fs::write(path, bytes).unwrap();
            }
            let engine = Hashline::new(Options::new(dir.path())).unwrap();
            (dir, engine)
        }

        fn run(engine: &Hashline, body: &str) -> Result<PatchResult> {
            let plan = engine.plan_patch(&patch(body), None, false)?;
            engine.commit_patch(&plan)
        }

        #[test]
        fn adds_updates_deletes_and_moves_in_one_patch() {
            let (dir, engine) = setup(&[
                ("modify.txt", b"line1\nline2\n"),
                ("delete.txt", b"obsolete\n"),
                ("old/name.txt", b"old content\n"),
            ]);
            let result = run(
                &engine,
                "*** Add File: nested/new.txt\n+created\n*** Delete File: delete.txt\n*** Update File: modify.txt\n@@\n-line2\n+changed\n*** Update File: old/name.txt\n*** Move to: renamed/dir/name.txt\n@@\n-old content\n+new content",
            )
            .unwrap();
            assert_eq!(
                fs::read(dir.path().join("nested/new.txt")).unwrap(),
                b"created\n"
            );
            assert_eq!(
                fs::read(dir.path().join("modify.txt")).unwrap(),
                b"line1\nchanged\n"
            );
            assert!(!dir.path().join("delete.txt").exists());
            assert!(!dir.path().join("old/name.txt").exists());
            assert_eq!(
                fs::read(dir.path().join("renamed/dir/name.txt")).unwrap(),
                b"new content\n"
            );
            assert!(result.output.starts_with("Success. Updated the following files:\nA nested/new.txt\nD delete.txt\nM modify.txt\nM renamed/dir/name.txt\n"), "{}", result.output);
            let kinds: Vec<FileKind> = result.files.iter().map(|f| f.kind).collect();
            assert_eq!(
                kinds,
                [
                    FileKind::Add,
                    FileKind::Delete,
                    FileKind::Update,
                    FileKind::Move
                ]
            );
            assert_eq!(result.files[2].additions, 1);
            assert_eq!(result.files[2].deletions, 1);
            assert_eq!(result.files[1].deletions, 1);
        }

        #[test]
        fn a_bom_crlf_file_and_a_file_without_final_newline_keep_their_bytes() {
            let (dir, engine) = setup(&[
                (
                    "w.cs",
                    b"\xEF\xBB\xBFclass A\r\n{\r\n    int x = 1;\r\n}\r\n",
                ),
                ("n.txt", b"a\nb"),
            ]);
            run(&engine, "*** Update File: w.cs\n@@\n {\r\n-    int x = 1;\n+    int x = 2;\n+    int y = 3;\n*** Update File: n.txt\n@@\n-b\n+B").unwrap();
            assert_eq!(
                fs::read(dir.path().join("w.cs")).unwrap(),
                b"\xEF\xBB\xBFclass A\r\n{\r\n    int x = 2;\r\n    int y = 3;\r\n}\r\n"
            );
            assert_eq!(fs::read(dir.path().join("n.txt")).unwrap(), b"a\nB");
        }

        #[test]
        fn a_hunk_that_does_not_fit_in_one_file_leaves_every_file_untouched() {
            let (dir, engine) = setup(&[("a.txt", b"a\n"), ("b.txt", b"b\n")]);
            let err = run(&engine, "*** Add File: created.txt\n+hello\n*** Update File: a.txt\n@@\n-a\n+A\n*** Update File: b.txt\n@@\n-nope\n+x\n*** Delete File: a2.txt").unwrap_err();
            // Every file's problem is reported at once.
            assert_eq!(err.code, ErrorCode::ContextNotFound, "{}", err.message);
            assert!(
                err.message.contains("File a2.txt not found"),
                "{}",
                err.message
            );
            let err = run(&engine, "*** Add File: created.txt\n+hello\n*** Update File: a.txt\n@@\n-a\n+A\n*** Update File: b.txt\n@@\n-nope\n+x").unwrap_err();
            assert_eq!(err.code, ErrorCode::ContextNotFound);
            assert!(!dir.path().join("created.txt").exists());
            assert_eq!(fs::read(dir.path().join("a.txt")).unwrap(), b"a\n");
            assert_eq!(fs::read(dir.path().join("b.txt")).unwrap(), b"b\n");
        }

        #[test]
        fn a_file_changed_after_planning_refuses_the_whole_patch() {
            let (dir, engine) = setup(&[("a.txt", b"a\n"), ("b.txt", b"b\n")]);
            let plan = engine
                .plan_patch(
                    &patch(
                        "*** Update File: a.txt\n@@\n-a\n+A\n*** Update File: b.txt\n@@\n-b\n+B",
                    ),
                    None,
                    false,
                )
                .unwrap();
            fs::write(dir.path().join("b.txt"), "b\nmore\n").unwrap();
            let err = engine.commit_patch(&plan).unwrap_err();
            assert_eq!(err.code, ErrorCode::BaseChanged);
            assert_eq!(fs::read(dir.path().join("a.txt")).unwrap(), b"a\n");
        }

        #[test]
        fn relative_paths_resolve_against_the_working_folder_and_display_from_the_root() {
            let (dir, engine) = setup(&[("sub/a.txt", b"a\n")]);
            let plan = engine
                .plan_patch(
                    &patch("*** Update File: a.txt\n@@\n-a\n+A\n*** Add File: b.txt\n+b"),
                    Some(&dir.path().join("sub")),
                    false,
                )
                .unwrap();
            assert_eq!(
                plan.result().summary,
                "Success. Updated the following files:\nM sub/a.txt\nA sub/b.txt\n"
            );
            engine.commit_patch(&plan).unwrap();
            assert_eq!(fs::read(dir.path().join("sub/b.txt")).unwrap(), b"b\n");
            assert_eq!(
                paths(&patch(
                    "*** Update File: a\n*** Move to: b\n*** Delete File: c"
                ))
                .unwrap(),
                ["a", "b", "c"]
            );
        }

        #[test]
        fn a_patch_naming_one_file_twice_is_a_conflict() {
            let (_dir, engine) = setup(&[("a.txt", b"a\nb\n")]);
            let err = run(
                &engine,
                "*** Update File: a.txt\n@@\n-a\n+A\n*** Update File: ./a.txt\n@@\n-b\n+B",
            )
            .unwrap_err();
            assert_eq!(err.code, ErrorCode::Conflict);
        }

        #[test]
        fn paths_outside_the_root_are_refused_for_every_kind_of_change() {
            let (_dir, engine) = setup(&[("a.txt", b"a\n")]);
            for body in [
                "*** Add File: ../x.txt\n+x",
                "*** Delete File: ../x.txt",
                "*** Update File: a.txt\n*** Move to: ../x.txt\n@@\n-a\n+b",
            ] {
                assert_eq!(
                    run(&engine, body).unwrap_err().code,
                    ErrorCode::OutsideRoot,
                    "{body}"
                );
            }
        }

        #[test]
        fn a_missing_file_to_update_or_delete_and_a_folder_are_refused() {
            let (dir, engine) = setup(&[]);
            fs::create_dir(dir.path().join("dir")).unwrap();
            assert_eq!(
                run(&engine, "*** Update File: missing.txt\n@@\n-a\n+b")
                    .unwrap_err()
                    .code,
                ErrorCode::NotFound
            );
            assert_eq!(
                run(&engine, "*** Delete File: missing.txt")
                    .unwrap_err()
                    .code,
                ErrorCode::NotFound
            );
            assert_eq!(
                run(&engine, "*** Delete File: dir").unwrap_err().code,
                ErrorCode::NotAFile
            );
        }

        #[test]
        fn a_ref_header_from_an_earlier_read_is_remapped_or_refused() {
            let (dir, engine) = setup(&[("f.txt", b"a\nb\nc\nd\n")]);
            let view = engine.read("f.txt", None, None, false).unwrap().view;
            let doc = Document::from_text("a\nb\nc\nd\n");
            let ref_c = Ref::of_line(&doc, 2);
            // Someone else inserts two lines at the top.
            fs::write(dir.path().join("f.txt"), "x\ny\na\nb\nc\nd\n").unwrap();
            let result = run(
                &engine,
                &format!("*** Update File: f.txt\n@@ {ref_c}\n-c\n+C"),
            )
            .unwrap();
            assert_eq!(
                fs::read(dir.path().join("f.txt")).unwrap(),
                b"x\ny\na\nb\nC\nd\n"
            );
            assert!(
                result.output.contains(&format!("REV {}", view.rev)),
                "{}",
                result.output
            );
            // A ref to a line that is gone is refused with the lines as they are.
            let err = run(
                &engine,
                &format!("*** Update File: f.txt\n@@ {ref_c}\n-c\n+C2"),
            )
            .unwrap_err();
            assert_eq!(err.code, ErrorCode::HashMismatch, "{}", err.message);
            assert!(err.message.contains("hunk 1"), "{}", err.message);
        }

        #[test]
        fn refs_from_before_a_formatter_rewrote_the_file_still_remap() {
            let (dir, engine) = setup(&[("f.js", b"let a=1\nlet b=2\nlet c=3\n")]);
            engine.read("f.js", None, None, false).unwrap();
            let before = Document::from_text("let a=1\nlet b=2\nlet c=3\n");
            let ref_c = Ref::of_line(&before, 2);
            let done = run(&engine, "*** Update File: f.js\n@@\n-let a=1\n+let a = 1").unwrap();
            let written = done.files[0].rev.clone().unwrap();
            // The formatter rewrites line 2 and adds a line at the top.
            fs::write(
                dir.path().join("f.js"),
                "// formatted\nlet a = 1\nlet b = 2\nlet c=3\n",
            )
            .unwrap();
            let re = engine
                .reformatted(
                    "f.js",
                    &written,
                    done.files[0].previous_rev.as_deref(),
                    None,
                    false,
                )
                .unwrap()
                .unwrap();
            let now = Document::from_text("// formatted\nlet a = 1\nlet b = 2\nlet c=3\n");
            assert!(
                re.output
                    .contains(&format!("+{} // formatted", Ref::pair_of_line(&now, 0))),
                "{}",
                re.output
            );
            assert!(
                re.output
                    .contains(&format!("+{} let b = 2", Ref::pair_of_line(&now, 2))),
                "{}",
                re.output
            );
            assert_eq!(
                engine
                    .reformatted("f.js", &re.rev, None, None, false)
                    .unwrap(),
                None
            );
            let edited = engine
                .edit(
                    "f.js",
                    &crate::Request::Operations {
                        operations: vec![crate::Operation::new(
                            crate::OpKind::Replace,
                            Some(&ref_c.to_string()),
                            None,
                            "let c = 3",
                        )],
                        rev: None,
                    },
                    false,
                )
                .unwrap();
            assert!(
                edited
                    .output
                    .contains("were found at their current positions"),
                "{}",
                edited.output
            );
            assert_eq!(
                fs::read(dir.path().join("f.js")).unwrap(),
                b"// formatted\nlet a = 1\nlet b = 2\nlet c = 3\n"
            );
        }
    }
}
