//! What the model and the host get back: after an edit, fresh refs for every
//! changed region, the removed lines, shift hints and a unified diff; on a
//! rejection, the cited lines as they are now, with refs to retry with.

use crate::before::Before;
use crate::diff::{diff_lines, Change, EXACT_LINES};
use crate::document::{Document, Splice};
use crate::reference::Ref;
use crate::relocate::{lines_named, Relocated};
use crate::request::Action;
use crate::view::{push_line, ViewStyle};
use std::fmt::Write;
use std::ops::Range;

/// Lines of context around each changed region in the model's output.
const CONTEXT: usize = 1;
/// Lines of context in the unified diff, as `diff -u` has them.
const DIFF_CONTEXT: usize = 3;
/// Past this many lines a region shows its head and tail only.
const MAX_REGION_LINES: usize = 80;
/// Past this many lines moved or copied lines show their first and last
/// `RELOCATED_ENDS` only: the model knows them, it cited them.
const MAX_RELOCATED_LINES: usize = 20;
const RELOCATED_ENDS: usize = 2;
const SHIFT_HINTS: usize = 4;

/// A changed region: old lines `old` became new lines `new` (0-based).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hunk {
    pub old: Range<usize>,
    pub new: Range<usize>,
}

/// The regions the splices change, in the numbering of both versions.
pub fn hunks(splices: &[Splice]) -> Vec<Hunk> {
    let mut shift: isize = 0;
    let mut out: Vec<Hunk> = Vec::with_capacity(splices.len());
    for s in splices {
        let new_start = (s.range.start as isize + shift) as usize;
        let hunk = Hunk {
            old: s.range.clone(),
            new: new_start..new_start + s.lines.len(),
        };
        shift += s.lines.len() as isize - s.range.len() as isize;
        match out.last_mut() {
            Some(last) if last.old.end == hunk.old.start => {
                last.old.end = hunk.old.end;
                last.new.end = hunk.new.end;
            }
            _ => out.push(hunk),
        }
    }
    out
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Row {
    Same(usize, usize),
    Removed(usize),
    Added(usize),
}

/// The line diff inside one changed region (the smallest one, bounded as
/// `diff` says): a model that re-types a line unchanged should not see it
/// as removed and added. With the region's part that was shown whole, if
/// any, in old and new line numbers.
fn region_rows(old: &dyn Before, new: &Document, hunk: &Hunk) -> (Vec<Row>, Option<Change>) {
    let old_lines: Vec<&str> = hunk.old.clone().map(|i| old.line(i)).collect();
    let new_lines: Vec<&str> = hunk.new.clone().map(|i| new.line(i)).collect();
    let diff = diff_lines(
        &old_lines,
        0..old_lines.len(),
        &new_lines,
        0..new_lines.len(),
    );
    let mut rows = Vec::with_capacity(old_lines.len() + new_lines.len());
    let (mut i, mut j) = (0, 0);
    let same = |rows: &mut Vec<Row>, i: usize, j: usize, len: usize| {
        rows.extend((0..len).map(|k| Row::Same(hunk.old.start + i + k, hunk.new.start + j + k)));
    };
    for (o, n) in &diff.changes {
        same(&mut rows, i, j, o.start - i);
        rows.extend(o.clone().map(|k| Row::Removed(hunk.old.start + k)));
        rows.extend(n.clone().map(|k| Row::Added(hunk.new.start + k)));
        (i, j) = (o.end, n.end);
    }
    same(&mut rows, i, j, old_lines.len() - i);
    let coarse = diff.coarse.map(|(o, n)| {
        (
            hunk.old.start + o.start..hunk.old.start + o.end,
            hunk.new.start + n.start..hunk.new.start + n.end,
        )
    });
    (rows, coarse)
}

/// What a result says of a region shown coarser than its smallest diff.
pub(crate) fn coarse_note((old, new): &Change) -> String {
    format!(
        "the change of old lines {}-{} into new lines {}-{} is shown as removed and added whole: a changed region longer than {EXACT_LINES} lines is diffed line by line only between the lines that occur once in it, so lines it kept may show as removed and added.",
        old.start + 1,
        old.end,
        new.start + 1,
        new.end
    )
}

/// The result of an applied edit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Summary {
    /// What the model reads: fresh refs around every change.
    pub output: String,
    /// The first sentence of `output`, naming what was done and the path
    /// (`Applied 2 operations to a.ts`); the output's first line adds the
    /// REVs and the counts. A host that does more to the file (formats it)
    /// extends it.
    pub headline: String,
    /// A unified diff, for hosts and UIs.
    pub diff: String,
    /// Lines added.
    pub additions: usize,
    /// Lines removed.
    pub deletions: usize,
    /// Lines of the new version the output displayed with refs.
    pub shown: Vec<Range<usize>>,
}

pub struct SuccessInput<'a> {
    pub path: &'a str,
    pub old: &'a dyn Before,
    pub new: &'a Document,
    pub old_rev: &'a str,
    pub new_rev: &'a str,
    pub hunks: &'a [Hunk],
    /// The first sentence, naming what was done and the path.
    pub headline: String,
    pub notes: &'a [String],
    /// The moves and copies applied, shown as such where a changed region
    /// is exactly one of them.
    pub(crate) relocated: &'a [Relocated],
    /// The style the refs are shown in.
    pub style: ViewStyle,
}

pub fn success(input: SuccessInput<'_>) -> Summary {
    let SuccessInput {
        path,
        old,
        new,
        old_rev,
        new_rev,
        hunks,
        headline,
        notes,
        relocated,
        style,
    } = input;
    let (rows, coarse): (Vec<Vec<Row>>, Vec<Option<Change>>) =
        hunks.iter().map(|h| region_rows(old, new, h)).unzip();
    let additions = rows
        .iter()
        .flatten()
        .filter(|r| matches!(r, Row::Added(_)))
        .count();
    let deletions = rows
        .iter()
        .flatten()
        .filter(|r| matches!(r, Row::Removed(_)))
        .count();

    let mut out = String::new();
    let _ = writeln!(
        out,
        "{headline}. REV {old_rev} -> {new_rev} (+{additions} -{deletions})"
    );
    let mut shown = Vec::new();
    for group in group_hunks(hunks, CONTEXT) {
        let first = &hunks[group.start];
        let last = &hunks[group.end - 1];
        let from = first.new.start.saturating_sub(CONTEXT);
        let to = (last.new.end + CONTEXT).min(new.line_count());
        if to > from {
            let _ = writeln!(out, "@@ {}-{} @@", from + 1, to);
        } else {
            let _ = writeln!(out, "@@ (file is now empty) @@");
        }
        let mut next = from;
        for k in group.clone() {
            let hunk = &hunks[k];
            for i in next..hunk.new.start {
                push_row(&mut out, ' ', new, i, style);
            }
            match relocation_at(relocated, hunk) {
                Some(Shown::Arrived(r)) => push_arrived(&mut out, new, r, style),
                Some(Shown::Left(r)) => {
                    let _ = writeln!(
                        out,
                        "  … ({} moved to {})",
                        count_lines(r.from.len()),
                        lines_named(&r.to)
                    );
                }
                None => push_region(&mut out, old, new, &rows[k], style),
            }
            next = hunk.new.end;
        }
        for i in next..to {
            push_row(&mut out, ' ', new, i, style);
        }
        shown.push(from..to);
    }
    push_shift_hints(&mut out, hunks, old.line_count());
    for note in notes {
        let _ = writeln!(out, "Note: {note}");
    }
    if let Some(first) = coarse.iter().flatten().next() {
        let _ = writeln!(out, "Note: {}", coarse_note(first));
    }
    Summary {
        output: out,
        headline,
        diff: unified_diff(path, old, new, hunks, &rows),
        additions,
        deletions,
        shown,
    }
}

fn push_row(out: &mut String, mark: char, doc: &Document, index: usize, style: ViewStyle) {
    out.push(mark);
    push_line(out, doc, index, style);
    out.push('\n');
}

fn push_region(out: &mut String, old: &dyn Before, new: &Document, rows: &[Row], style: ViewStyle) {
    let elide = rows.len() > MAX_REGION_LINES;
    let keep = MAX_REGION_LINES / 2;
    for (i, row) in rows.iter().enumerate() {
        if elide && i >= keep && i < rows.len() - keep {
            if i == keep {
                let _ = writeln!(
                    out,
                    "  … {} more lines of this change …",
                    rows.len() - 2 * keep
                );
            }
            continue;
        }
        match *row {
            Row::Same(_, n) => push_row(out, ' ', new, n, style),
            Row::Added(n) => push_row(out, '+', new, n, style),
            Row::Removed(o) => {
                out.push_str(match style {
                    ViewStyle::Lean => "-",
                    ViewStyle::Full => "-|",
                });
                out.push_str(old.line(o));
                out.push('\n');
            }
        }
    }
}

/// What a changed region that is exactly one move or copy shows.
enum Shown<'a> {
    /// The lines at their new place.
    Arrived(&'a Relocated),
    /// Where the lines of a move were.
    Left(&'a Relocated),
}

fn relocation_at<'a>(relocated: &'a [Relocated], hunk: &Hunk) -> Option<Shown<'a>> {
    relocated.iter().find_map(|r| {
        if hunk.old.is_empty() && hunk.new == r.to {
            Some(Shown::Arrived(r))
        } else if hunk.new.is_empty() && hunk.old == r.from && r.kind.action() == Action::Move {
            Some(Shown::Left(r))
        } else {
            None
        }
    })
}

fn count_lines(n: usize) -> String {
    if n == 1 {
        "1 line".to_owned()
    } else {
        format!("{n} lines")
    }
}

/// Moved or copied lines at their new place, with fresh refs; a long run
/// shows its ends and where it came from.
fn push_arrived(out: &mut String, new: &Document, r: &Relocated, style: ViewStyle) {
    let elide = r.to.len() > MAX_RELOCATED_LINES;
    for (k, line) in r.to.clone().enumerate() {
        if elide && k >= RELOCATED_ENDS && k < r.to.len() - RELOCATED_ENDS {
            if k == RELOCATED_ENDS {
                let _ = writeln!(
                    out,
                    "  … ({} {} from {})",
                    count_lines(r.to.len()),
                    r.verb(),
                    lines_named(&r.from)
                );
            }
            continue;
        }
        push_row(out, '+', new, line, style);
    }
}

/// Consecutive hunks whose context would touch, shown as one block.
fn group_hunks(hunks: &[Hunk], context: usize) -> Vec<Range<usize>> {
    let mut groups: Vec<Range<usize>> = Vec::new();
    for (k, hunk) in hunks.iter().enumerate() {
        match groups.last_mut() {
            Some(g) if hunk.new.start <= hunks[g.end - 1].new.end + 2 * context => g.end = k + 1,
            _ => groups.push(k..k + 1),
        }
    }
    groups
}

fn push_shift_hints(out: &mut String, hunks: &[Hunk], old_total: usize) {
    let mut shift: isize = 0;
    let mut hints = Vec::new();
    for (k, hunk) in hunks.iter().enumerate() {
        shift += hunk.new.len() as isize - hunk.old.len() as isize;
        let start = hunk.old.end;
        let end = hunks.get(k + 1).map_or(old_total, |h| h.old.start);
        if shift != 0 && end > start {
            let moved = |l: usize| (l as isize + shift) as usize;
            hints.push(if end == start + 1 {
                format!("old {} is now {} ({shift:+})", end, moved(end))
            } else {
                format!(
                    "old {}-{} are now {}-{} ({shift:+})",
                    start + 1,
                    end,
                    moved(start + 1),
                    moved(end)
                )
            });
        }
    }
    if hints.is_empty() {
        return;
    }
    let more = hints.len().saturating_sub(SHIFT_HINTS);
    hints.truncate(SHIFT_HINTS);
    let _ = write!(out, "Lines moved: {}", hints.join("; "));
    if more > 0 {
        let _ = write!(out, "; and {more} more ranges");
    }
    out.push_str(".\n");
}

fn unified_diff(
    path: &str,
    old: &dyn Before,
    new: &Document,
    hunks: &[Hunk],
    rows: &[Vec<Row>],
) -> String {
    let mut out = format!("--- a/{path}\n+++ b/{path}\n");
    for group in group_hunks(hunks, DIFF_CONTEXT) {
        let first = &hunks[group.start];
        let last = &hunks[group.end - 1];
        let before = first.old.start.min(first.new.start).min(DIFF_CONTEXT);
        let after = (old.line_count() - last.old.end)
            .min(new.line_count() - last.new.end)
            .min(DIFF_CONTEXT);
        let old_from = first.old.start - before;
        let old_to = last.old.end + after;
        let new_from = first.new.start - before;
        let new_to = last.new.end + after;
        let _ = writeln!(
            out,
            "@@ -{} +{} @@",
            diff_range(old_from, old_to - old_from),
            diff_range(new_from, new_to - new_from)
        );
        let mut next = old_from;
        for k in group.clone() {
            let hunk = &hunks[k];
            for i in next..hunk.old.start {
                let _ = writeln!(out, " {}", old.line(i));
            }
            for row in &rows[k] {
                let _ = match *row {
                    Row::Same(o, _) => writeln!(out, " {}", old.line(o)),
                    Row::Removed(o) => writeln!(out, "-{}", old.line(o)),
                    Row::Added(n) => writeln!(out, "+{}", new.line(n)),
                };
            }
            next = hunk.old.end;
        }
        for i in next..old_to {
            let _ = writeln!(out, " {}", old.line(i));
        }
    }
    out
}

fn diff_range(start: usize, len: usize) -> String {
    match len {
        0 => format!("{start},0"),
        1 => format!("{}", start + 1),
        _ => format!("{},{len}", start + 1),
    }
}

/// Lines of `doc` around `focus` (0-based, sorted), `context` lines on
/// each side, `>>> ` marking the focus lines, with fresh refs; and the
/// ranges it displayed.
pub fn window(
    doc: &Document,
    focus: &[usize],
    context: usize,
    style: ViewStyle,
) -> (String, Vec<Range<usize>>) {
    let mut out = String::new();
    let mut shown = Vec::new();
    let mut last_end: Option<usize> = None;
    let n = doc.line_count();
    let mut i = 0;
    while i < focus.len() {
        let start = focus[i].saturating_sub(context);
        let mut end = (focus[i] + context + 1).min(n);
        let mut j = i + 1;
        while j < focus.len() && focus[j].saturating_sub(context) <= end {
            end = (focus[j] + context + 1).min(n);
            j += 1;
        }
        if last_end.is_some_and(|e| e < start) {
            out.push_str("    ...\n");
        }
        shown.push(start.max(last_end.unwrap_or(0))..end);
        // `focus` is sorted, so one cursor marks its lines as they come.
        let mut marked = focus[i..j].iter().peekable();
        for line in start.max(last_end.unwrap_or(0))..end {
            while marked.next_if(|&&f| f < line).is_some() {}
            out.push_str(if marked.next_if_eq(&&line).is_some() {
                ">>> "
            } else {
                "    "
            });
            push_line(&mut out, doc, line, style);
            out.push('\n');
        }
        last_end = Some(end);
        i = j;
    }
    (out, shown)
}

/// The current ref of line `index` in `style`, for messages.
pub fn current_ref(doc: &Document, index: usize, style: ViewStyle) -> String {
    match style {
        ViewStyle::Lean => Ref::pair_of_line(doc, index).to_string(),
        ViewStyle::Full => Ref::of_line(doc, index).to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn splice(range: Range<usize>, lines: &[&str]) -> Splice {
        Splice {
            range,
            lines: lines.iter().map(|s| s.to_string()).collect(),
        }
    }

    #[test]
    fn hunks_track_positions_in_both_versions() {
        let h = hunks(&[
            splice(1..2, &["a", "b", "c"]),
            splice(5..7, &[]),
            splice(9..9, &["x"]),
        ]);
        assert_eq!(
            h,
            vec![
                Hunk {
                    old: 1..2,
                    new: 1..4
                },
                Hunk {
                    old: 5..7,
                    new: 7..7
                },
                Hunk {
                    old: 9..9,
                    new: 9..10
                }
            ]
        );
    }

    #[test]
    fn success_output_shows_fresh_refs_removed_lines_shifts_and_a_unified_diff() {
        let old = Document::from_text("a\nb\nc\nd\ne\n");
        let new = Document::from_text("a\nB\nB2\nc\nd\ne\n");
        let h = hunks(&[splice(1..2, &["B", "B2"])]);
        let summary = success(SuccessInput {
            path: "f.txt",
            old: &old,
            new: &new,
            old_rev: "OLD",
            new_rev: "NEW",
            hunks: &h,
            headline: "Applied 1 operation to f.txt".into(),
            notes: &[],
            relocated: &[],
            style: ViewStyle::Full,
        });
        let want = format!(
            "Applied 1 operation to f.txt. REV OLD -> NEW (+2 -1)\n@@ 1-4 @@\n {}|a\n-|b\n+{}|B\n+{}|B2\n {}|c\nLines moved: old 3-5 are now 4-6 (+1).\n",
            current_ref(&new, 0, ViewStyle::Full),
            current_ref(&new, 1, ViewStyle::Full),
            current_ref(&new, 2, ViewStyle::Full),
            current_ref(&new, 3, ViewStyle::Full)
        );
        assert_eq!(summary.output, want);
        assert_eq!((summary.additions, summary.deletions), (2, 1));
        assert_eq!(summary.shown, vec![0..4]);
        assert_eq!(
            summary.diff,
            "--- a/f.txt\n+++ b/f.txt\n@@ -1,5 +1,6 @@\n a\n-b\n+B\n+B2\n c\n d\n e\n"
        );
    }

    #[test]
    fn a_long_region_of_new_lines_is_shown_removed_and_added_whole_with_a_note() {
        let lines = 3 * EXACT_LINES;
        let old_text: String = (0..lines).map(|i| format!("old {i}\n")).collect();
        let new_text: String = (0..lines).map(|i| format!("new {i}\n")).collect();
        let (old, new) = (
            Document::from_text(&old_text),
            Document::from_text(&new_text),
        );
        let h = [Hunk {
            old: 0..lines,
            new: 0..lines,
        }];
        let summary = success(SuccessInput {
            path: "f.txt",
            old: &old,
            new: &new,
            old_rev: "OLD",
            new_rev: "NEW",
            hunks: &h,
            headline: "Applied 1 operation to f.txt".into(),
            notes: &[],
            relocated: &[],
            style: ViewStyle::Full,
        });
        assert_eq!((summary.additions, summary.deletions), (lines, lines));
        assert!(summary.output.contains(&format!(
            "Note: the change of old lines 1-{lines} into new lines 1-{lines} is shown as removed and added whole"
        )));
        let removed: Vec<&str> = summary
            .diff
            .lines()
            .filter(|l| l.starts_with("-old"))
            .collect();
        let added: Vec<&str> = summary
            .diff
            .lines()
            .filter(|l| l.starts_with("+new"))
            .collect();
        assert_eq!((removed.len(), added.len()), (lines, lines));
    }

    #[test]
    fn window_marks_focus_lines_and_separates_distant_ones() {
        let text: String = (1..=20).map(|i| format!("l{i}\n")).collect();
        let doc = Document::from_text(&text);
        let (w, shown) = window(&doc, &[2, 3, 15], 2, ViewStyle::Full);
        assert_eq!(shown, vec![0..6, 13..18]);
        let lines: Vec<&str> = w.lines().collect();
        assert_eq!(lines.len(), 6 + 1 + 5);
        assert!(lines[2].starts_with(">>> 3#"));
        assert!(lines[3].starts_with(">>> 4#"));
        assert_eq!(lines[6], "    ...");
        assert!(lines[9].starts_with(">>> 16#"));
    }

    #[test]
    fn window_marks_every_line_of_a_long_run_of_focus_lines() {
        let text: String = (1..=50).map(|i| format!("l{i}\n")).collect();
        let doc = Document::from_text(&text);
        let focus: Vec<usize> = (10..40).collect();
        let (w, shown) = window(&doc, &focus, 1, ViewStyle::Full);
        assert_eq!(shown, vec![9..41]);
        let marked: Vec<bool> = w.lines().map(|l| l.starts_with(">>> ")).collect();
        let expected: Vec<bool> = (9..41).map(|i| (10..40).contains(&i)).collect();
        assert_eq!(marked, expected);
    }
}
