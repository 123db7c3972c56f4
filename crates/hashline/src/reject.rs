//! The texts of a rejected batch: what does not hold, the cited lines as
//! they are now with context and fresh refs, and what to do next. Each is
//! built only when a batch is refused.

use crate::document::Document;
use crate::error::{list_numbers, Error, ErrorCode, Mismatch};
use crate::hash::{pair_tag, Tag};
use crate::reference::{Cited, Ref, RefTag};
use crate::report::{current_ref, window};
use crate::store::Version;
use crate::view::ViewStyle;
use std::cell::OnceCell;
use std::collections::{HashMap, HashSet};
use std::fmt::Write;

/// What a rejection is about: the text as it is now and its path.
pub(crate) struct Subject<'a> {
    pub doc: &'a Document,
    pub path: &'a str,
    /// The style the lines and refs are shown in.
    pub style: ViewStyle,
}

impl<'a> Subject<'a> {
    /// The REV of the text as it is now.
    fn rev(&self) -> &'a str {
        self.doc.rev()
    }
}

/// Lines of context around each line a rejection shows.
const REJECTION_CONTEXT: usize = 2;

/// The rejection for refs that hold in no version that can be mapped: each
/// cited line as it is now, with context and fresh refs.
pub(crate) fn stale_refs(
    ctx: &Subject<'_>,
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
        let actual = (index < n).then(|| current_ref(ctx.doc, index, ctx.style));
        let matches_now = c.reference.matches(ctx.doc, index);
        let mut detail = match (&actual, unmappable) {
            (Some(_), Some((version, _))) if matches_now => format!(
                "operation {}: {} names line {} as it is now, and also line {} of REV {}, which was different; which of the two it means cannot be told.",
                c.op, c.reference, c.reference.line, c.reference.line, version.rev
            ),
            (Some(now), _) => format!(
                "operation {}: {} does not match; line {} is now {now}.",
                c.op, c.reference, c.reference.line
            ),
            (None, _) => format!(
                "operation {}: {} names line {}, but the file has {n} lines.",
                c.op, c.reference, c.reference.line
            ),
        };
        if let Some(moved) = full_refs.unique_line(&c.reference) {
            let _ = write!(
                detail,
                " The text you cited is at line {} now ({}).",
                moved + 1,
                current_ref(ctx.doc, moved, ctx.style)
            );
        }
        detail.push_str(&one_off_hint(ctx.doc, &c.reference));
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
        window(ctx.doc, &focus, REJECTION_CONTEXT, ctx.style)
    };
    let count = mismatches.len();
    let mut message = if all_out_of_range {
        format!(
            "Edit rejected, nothing written: {count} ref{} past the end of {} ({n} lines, REV now {}).\n",
            if count == 1 { " points" } else { "s point" },
            ctx.path,
            ctx.rev()
        )
    } else {
        format!(
            "Edit rejected, nothing written: {count} ref{} no longer match{} {} (REV now {}).\n",
            if count == 1 { "" } else { "s" },
            if count == 1 { "es" } else { "" },
            ctx.path,
            ctx.rev()
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

/// A refusal that shows the lines `focus` (0-based, now) with context and
/// fresh refs after `text`.
pub(crate) fn showing(ctx: &Subject<'_>, code: ErrorCode, text: String, focus: &[usize]) -> Error {
    let (shown_text, shown) = window(ctx.doc, focus, REJECTION_CONTEXT, ctx.style);
    let mut err = Error::new(code, format!("{text}:\n{shown_text}")).with_path(ctx.path);
    err.shown = shown;
    err
}

/// The refs hold in more than one recent version and point at different
/// lines in each.
pub(crate) fn readings_disagree(ctx: &Subject<'_>, mut focus: Vec<usize>) -> Error {
    focus.sort_unstable();
    focus.dedup();
    showing(
        ctx,
        ErrorCode::HashMismatch,
        format!(
            "Edit rejected, nothing written: the refs match more than one recent version of {} and point at different lines in each. Cite the lines again from these current refs (REV now {}), and pass `rev` to say which version you read",
            ctx.path, ctx.rev()
        ),
        &focus,
    )
}

/// A ref without ANCHOR names a line whose HASH other lines share, and the
/// text it was read from is not attested (`docs/format.md` §6.8).
pub(crate) fn anchorless_on_repeated_line(ctx: &Subject<'_>, lines: &[usize]) -> Error {
    showing(
        ctx,
        ErrorCode::HashMismatch,
        format!(
            "Edit rejected, nothing written: a ref without ANCHOR names a line whose HASH other lines of {} share, so it cannot be told apart. Use the full refs (LINE#HASH#ANCHOR) below (REV {})",
            ctx.path, ctx.rev()
        ),
        lines,
    )
}

/// The batch cites lines (0-based, now) that no view showed.
pub(crate) fn unseen_lines(ctx: &Subject<'_>, mut focus: Vec<usize>) -> Error {
    focus.sort_unstable();
    focus.dedup();
    let numbers: Vec<String> = focus.iter().map(|l| (l + 1).to_string()).collect();
    showing(
        ctx,
        ErrorCode::UnseenLines,
        format!(
            "Edit rejected, nothing written: it cites line{} {} of {}, which no view showed. Here they are (REV {}); check them and send the edit again",
            if numbers.len() == 1 { "" } else { "s" },
            numbers.join(", "),
            ctx.path,
            ctx.rev()
        ),
        &focus,
    )
}

/// Lean refs where no view of the session showed any line (`docs/format.md`
/// §6.6): 8.4 bits a line cannot tell a changed file from the one read, so
/// they need a view that showed their lines. The window shows full refs,
/// which hold on their own.
pub(crate) fn lean_refs_unshown(ctx: &Subject<'_>, mut focus: Vec<usize>) -> Error {
    focus.sort_unstable();
    focus.dedup();
    let full = Subject {
        style: ViewStyle::Full,
        ..*ctx
    };
    showing(
        &full,
            ErrorCode::HashMismatch,
            format!(
                "Edit rejected, nothing written: lean refs (like 12ab) hold only on lines a view made here showed, and no view made here showed {} (it is a text held by the caller, or this engine started after the view; a REV alone proves a version was seen, not which lines). Cite the full refs below (REV {}), or read the file again",
                ctx.path, ctx.rev()
            ),
            &focus,
        )
}

/// For a lean ref that does not hold: when the line above or below carries
/// its tag, a hint that the line number was typed one off; else nothing.
/// Parity keeps such a tag from ever validating at the wrong number.
fn one_off_hint(doc: &Document, reference: &Ref) -> String {
    let RefTag::Pair(tag) = reference.tag else {
        return String::new();
    };
    let index = reference.line - 1;
    let meant: Vec<String> = [index.checked_sub(1), index.checked_add(1)]
        .into_iter()
        .flatten()
        .filter(|&i| i < doc.line_count() && pair_tag(i + 1, doc.line(i)) == tag)
        .map(|i| format!("{} ({})", i + 1, Ref::pair_of_line(doc, i)))
        .collect();
    if meant.is_empty() {
        return String::new();
    }
    format!(
        " The tag {} belongs to line{} {}: did you type the line number one off?",
        String::from_utf8_lossy(&tag),
        if meant.len() == 1 { "" } else { "s" },
        meant.join(" and ")
    )
}
