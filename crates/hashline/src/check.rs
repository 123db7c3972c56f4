//! Problems an edit brought into a file, judged on the lines it wrote, so
//! that a host can show them the way an editor shows diagnostics: refs
//! copied into the file, merge conflict markers, and a parse the edit broke
//! (the parser run on the old and the new text, reporting the errors the
//! new one has and the old one had not).

use crate::before::Before;
use crate::document::Document;
use crate::prefix::full_len;
use crate::problem::{Problem, Severity};
use crate::reference::Ref;
use crate::report::Hunk;
use crate::syntax::{broken, KeptTree, Parsed};
use foldhash::HashSet;

/// Conflict markers as `git merge` writes them: seven characters, then the
/// end of the line or a space and a label.
fn conflict_marker(line: &str) -> bool {
    ["<<<<<<<", ">>>>>>>"].iter().any(|m| {
        line.strip_prefix(m)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with(' '))
    })
}

/// What is wrong with one written line, if anything.
fn judge(line: &str) -> Option<(usize, usize, String)> {
    if let Some(len) = full_len(line) {
        return Some((
            0,
            line[..len].chars().count(),
            "the line starts with a view prefix (LINE#HASH#ANCHOR|) copied from a read; it is not part of the file".into(),
        ));
    }
    if conflict_marker(line) {
        return Some((
            0,
            7,
            "a merge conflict marker; the conflict it marks is not resolved".into(),
        ));
    }
    None
}

/// What a change brought into a file: its problems, the new text's parse
/// (or why it has none) when it was parsed, and a note when the syntax check
/// was skipped.
pub(crate) struct Introduced {
    pub problems: Vec<Problem>,
    pub tree: Option<KeptTree>,
    pub note: Option<String>,
}

/// The problems on lines the change wrote (`hunks` in both numberings)
/// that the lines they replaced did not already have, then the places the
/// change broke the parse, given the old text's parse.
pub(crate) fn introduced(
    old: &dyn Before,
    new: &Document,
    hunks: &[Hunk],
    syntax: Option<Parsed>,
) -> Introduced {
    let mut problems = Vec::new();
    for hunk in hunks {
        // The replaced lines, gathered only once a written line has a
        // problem (most edits write none).
        let mut before: Option<HashSet<&str>> = None;
        for index in hunk.new.clone() {
            let line = new.line(index);
            if let Some((column, end_column, message)) = judge(line) {
                let before =
                    before.get_or_insert_with(|| hunk.old.clone().map(|i| old.line(i)).collect());
                if before.contains(&line) {
                    continue;
                }
                problems.push(Problem {
                    line: index,
                    column,
                    end_column,
                    severity: Severity::Error,
                    message,
                    reference: Ref::of_line(new, index).to_string(),
                    syntax: None,
                });
            }
        }
    }
    let Some(parsed) = syntax else {
        return Introduced {
            problems,
            tree: None,
            note: None,
        };
    };
    let language = parsed.language;
    let checked = broken(parsed, old, new, hunks);
    problems.extend(checked.found.into_iter().map(|b| {
        let line = new.line(b.line);
        Problem {
            line: b.line,
            column: line[..b.start].chars().count(),
            end_column: line[..b.end].chars().count(),
            severity: Severity::Error,
            message: format!("{} syntax: {}", language.name(), b.what),
            reference: Ref::of_line(new, b.line).to_string(),
            syntax: Some(language),
        }
    }));
    Introduced {
        problems,
        tree: checked.tree,
        note: checked.skipped,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_copied_refs_and_conflict_markers_only_on_written_lines() {
        let old = Document::from_text("<<<<<<< HEAD\na\n");
        let new = Document::from_text("<<<<<<< HEAD\n12#A3F#9BC|x\ny\n>>>>>>> other\n");
        let hunks = [Hunk {
            old: 1..2,
            new: 1..4,
        }];
        let problems = introduced(&old, &new, &hunks, None).problems;
        let lines: Vec<(usize, usize)> = problems.iter().map(|p| (p.line, p.end_column)).collect();
        assert_eq!(lines, vec![(1, 11), (3, 7)]);
        assert_eq!(problems[0].reference, Ref::of_line(&new, 1).to_string());
        assert!(problems.iter().all(|p| p.severity == Severity::Error));
    }

    #[test]
    fn a_line_kept_from_the_replaced_ones_is_not_new_and_text_like_a_marker_is_not_one() {
        let old = Document::from_text("12#A3F#9BC|x\n");
        let new = Document::from_text("12#A3F#9BC|x\n<<<<<<<<< not a marker\n");
        let hunks = [Hunk {
            old: 0..1,
            new: 0..2,
        }];
        assert!(introduced(&old, &new, &hunks, None).problems.is_empty());
    }
}
