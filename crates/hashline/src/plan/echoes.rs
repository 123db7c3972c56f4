//! Boundary echoes (`cleanup`, `docs/format.md` §7): a content line that
//! repeats the line just before or just after where it goes is dropped
//! only where that is proven, and refused where it is in doubt.

use super::{Item, PlanContext};
use crate::cleanup::{without, Boundary, Echo, Echoes};
use crate::document::Document;
use crate::error::{Doubted, Error, ErrorCode, Result};
use crate::prefix::Prefix;
use crate::reference::Ref;
use crate::syntax::EchoJudge;
use std::fmt::Write as _;
use std::ops::Range;

/// Drops the proven echoes from the items' content, each with a note (also
/// in `cleaned`), and says how many it dropped; `AMBIGUOUS_ECHO` for any in
/// doubt.
pub(super) fn clean(
    ctx: &PlanContext<'_>,
    items: &mut [Item],
    notes: &mut Vec<String>,
    cleaned: &mut Vec<String>,
) -> Result<usize> {
    // A parse proves a reading of one operation's boundary only when no
    // other operation changes the file: each is parsed against the text
    // as it is, so a repeat another operation gives its meaning (a rule
    // it closes, a bracket it removes) would be judged in a file that
    // is not the one written.
    let judge = (items.len() == 1)
        .then_some(ctx.syntax)
        .flatten()
        .and_then(|(language, kept)| EchoJudge::new(language, ctx.doc, kept.cloned()));
    // Every boundary is judged against the text as it is, then its
    // echoes dropped, so no judgement depends on the order of the others.
    let judged: Vec<(Boundary, Vec<Echo>)> = items
        .iter()
        .map(|item| {
            // Moved and copied lines are the file's own, taken as they are.
            if item.literal || item.relocation.is_some() {
                return (Boundary::Kept, Vec::new());
            }
            let Range { start, end } = item.range;
            let named = named_neighbours(ctx.doc, item);
            let boundary = Echoes {
                given: &item.lines,
                range: item.range.clone(),
                before: start.checked_sub(1).map(|i| ctx.doc.line(i)),
                after: (end < ctx.doc.line_count()).then(|| ctx.doc.line(end)),
                named: &named,
            }
            .judge(judge.as_ref());
            (boundary, named)
        })
        .collect();
    let mut doubtful = String::new();
    let mut dropped = 0;
    for (item, (boundary, named)) in items.iter_mut().zip(judged) {
        match boundary {
            Boundary::Kept => {}
            Boundary::Dropped(echoes) => {
                dropped += echoes.len();
                let note = describe_drop(item, &echoes, &named);
                item.lines = without(&item.lines, &echoes);
                cleaned.push(note.clone());
                notes.push(note);
            }
            Boundary::Doubtful(echoes) => describe_doubt(&mut doubtful, item, &echoes),
        }
    }
    if !doubtful.is_empty() {
        return Err(Error::new(
            ErrorCode::AmbiguousEcho,
            format!(
                "Edit rejected, nothing written: content repeats a line next to where it goes, and the engine cannot tell whether the repeat was copied by mistake:\n{doubtful}Nothing was removed. If a repeated line was copied by mistake, send the operation again without it; if both copies are meant, send it again with \"literal\": true on the operation, and its content is written exactly as sent."
            ),
        )
        .with_path(ctx.path)
        .with_doubted(Doubted::Boundary));
    }
    Ok(dropped)
}

/// The boundaries of an item whose content line carried, proven a copy,
/// the view prefix of the line just outside the range: the line before it
/// for the first, the line after it for the last, as the text is now.
fn named_neighbours(doc: &Document, item: &Item) -> Vec<Echo> {
    let Range { start, end } = item.range;
    let names = |prefix: Option<Prefix>, index: Option<usize>| {
        prefix.zip(index).is_some_and(|(p, i)| {
            p.line == i + 1
                && Ref {
                    line: p.line,
                    tag: p.tag,
                }
                .matches(doc, i)
        })
    };
    let mut named = Vec::new();
    if names(item.prefixes[0], start.checked_sub(1)) {
        named.push(Echo::Before);
    }
    if names(item.prefixes[1], (end < doc.line_count()).then_some(end)) {
        named.push(Echo::After);
    }
    named
}

/// The note for repeats dropped from an item's content as proven echoes:
/// those in `named` carried the neighbour's ref, the others only the parse
/// explains.
fn describe_drop(item: &Item, echoes: &[Echo], named: &[Echo]) -> String {
    let Range { start, end } = item.range;
    let lines: Vec<String> = echoes
        .iter()
        .map(|echo| {
            let (which, line, side) = match echo {
                Echo::Before => ("first", start, "before"),
                Echo::After => ("last", end + 1, "after"),
            };
            let why = if named.contains(echo) {
                "it carried that line's ref"
            } else {
                "only without it does the file parse"
            };
            format!("its {which} content line, a copy of line {line} just {side} it ({why})")
        })
        .collect();
    format!(
        "operation {} ({}): dropped {}; the file's own line stays as it was.",
        item.op,
        item.kind,
        lines.join(", and ")
    )
}

/// One line of the refusal for repeats nothing proves echoes or content.
fn describe_doubt(out: &mut String, item: &Item, echoes: &[Echo]) {
    let Range { start, end } = item.range;
    for echo in echoes {
        let (which, line, text, side) = match echo {
            Echo::Before => ("first", start, item.lines.first(), "before"),
            Echo::After => ("last", end + 1, item.lines.last(), "after"),
        };
        let _ = writeln!(
            out,
            "  operation {} ({}): its {which} content line {} is the same as line {line}, just {side} {}.",
            item.op,
            item.kind,
            quote(text.map_or("", String::as_str)),
            if item.range.is_empty() {
                "where it inserts"
            } else {
                "the lines it replaces"
            }
        );
    }
}

/// A line as a message shows it: quoted, or said to be blank.
fn quote(line: &str) -> String {
    if line.trim().is_empty() {
        "(a blank line)".to_owned()
    } else {
        crate::error::excerpt(line)
    }
}
