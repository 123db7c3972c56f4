//! Reading a patch: every line must be part of the format; a line that
//! is not is an error, never skipped.

use crate::error::{Error, Result};

pub(crate) const BEGIN: &str = "*** Begin Patch";
pub(crate) const END: &str = "*** End Patch";
const ADD: &str = "*** Add File:";
const DELETE: &str = "*** Delete File:";
const UPDATE: &str = "*** Update File:";
const MOVE: &str = "*** Move to:";
pub(crate) const END_OF_FILE: &str = "*** End of File";

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
    pub(crate) fn text(&self) -> &str {
        match self {
            HunkLine::Context(t) | HunkLine::Removed(t) | HunkLine::Added(t) => t,
        }
    }

    pub(crate) fn with_text(&self, text: String) -> HunkLine {
        match self {
            HunkLine::Context(_) => HunkLine::Context(text),
            HunkLine::Removed(_) => HunkLine::Removed(text),
            HunkLine::Added(_) => HunkLine::Added(text),
        }
    }
}

impl Hunk {
    /// The lines the hunk expects in the file: context and removed.
    pub(crate) fn old(&self) -> Vec<&str> {
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
