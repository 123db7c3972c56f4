//! Which reading of a replace's boundary lines parses better: the content
//! as given, or with a line that repeats its neighbour in the file dropped.
//! The clean-up asks only when it suspects an echo, and parses again only
//! the replaced region, from the tree of the text before the edit.

use std::cell::OnceCell;
use std::ops::Range;

use tree_sitter::{InputEdit, Point, Tree};

use super::language::{parse_bound, Deadline, MAX_PARSED_BYTES};
use super::Language;
use crate::document::Document;

/// Parses a document with one range replaced, for the clean-up's choices.
/// The parses of one batch share one bound, that of a parse of the whole
/// document: a batch of many suspected echoes in a long file would
/// otherwise cost a parse each. Once it is spent the judge cannot tell, and
/// the clean-up decides as for a file in no known language.
pub(crate) struct EchoJudge<'a> {
    language: Language,
    doc: &'a Document,
    kept: Option<Tree>,
    tree: OnceCell<Option<Tree>>,
    deadline: OnceCell<Deadline>,
}

impl<'a> EchoJudge<'a> {
    /// A judge for `doc` in `language`, starting from `kept`, the tree of
    /// `doc` if the session has it; `None` for texts too large to parse.
    pub(crate) fn new(language: Language, doc: &'a Document, kept: Option<Tree>) -> Option<Self> {
        (doc.text().len() <= MAX_PARSED_BYTES).then(|| EchoJudge {
            language,
            doc,
            kept,
            tree: OnceCell::new(),
            deadline: OnceCell::new(),
        })
    }

    /// The judge's bound: one for all its parses.
    fn deadline(&self) -> Deadline {
        *self
            .deadline
            .get_or_init(|| Deadline::after(parse_bound(self.doc.text().len())))
    }

    /// The parse of the document as it is; `None` if it cannot be parsed
    /// within the judge's bound.
    fn old_tree(&self) -> Option<&Tree> {
        let deadline = self.deadline();
        let text = self.doc.text();
        let tree = self
            .tree
            .get_or_init(|| {
                self.kept
                    .clone()
                    .or_else(|| self.language.parse_pieces(&[text], None, deadline).ok())
            })
            .as_ref()?;
        (!deadline.passed()).then_some(tree)
    }

    /// How many error and missing nodes the parse of the document has as
    /// it is; `None` if it cannot be parsed, or not within the judge's
    /// bound.
    pub(crate) fn errors_before(&self) -> Option<usize> {
        self.old_tree().map(count_errors)
    }

    /// How many error and missing nodes the parse of the document has with
    /// lines `range` replaced by `lines`; `None` if it cannot be parsed, or
    /// not within the judge's bound.
    pub(crate) fn errors_with(&self, range: Range<usize>, lines: &[String]) -> Option<usize> {
        let old = self.old_tree()?;
        let deadline = self.deadline();
        let text = self.doc.text();
        let start_byte = self.doc.offset_of_line(range.start);
        let old_end_byte = self.doc.offset_of_line(range.end);
        let mut middle = String::with_capacity(lines.iter().map(|l| l.len() + 1).sum::<usize>());
        for line in lines {
            middle.push_str(line);
            middle.push('\n');
        }
        let new_end_byte = start_byte + middle.len();
        let mut tree = old.clone();
        tree.edit(&InputEdit {
            start_byte,
            old_end_byte,
            new_end_byte,
            start_position: Point::new(range.start, 0),
            old_end_position: point_at(text, old_end_byte, range.end),
            new_end_position: Point::new(range.start + lines.len(), 0),
        });
        let pieces = [&text[..start_byte], middle.as_str(), &text[old_end_byte..]];
        let tree = self
            .language
            .parse_pieces(&pieces, Some(&tree), deadline)
            .ok()?;
        Some(count_errors(&tree))
    }
}

/// The position of byte `at`, the start of line `line` or the end of the
/// text (which may end without a line break).
fn point_at(text: &str, at: usize, line: usize) -> Point {
    if at < text.len() || text.ends_with('\n') || text.is_empty() {
        return Point::new(line, 0);
    }
    let start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    Point::new(line.saturating_sub(1), at - start)
}

/// Error and missing nodes in the tree, each counted once.
fn count_errors(tree: &Tree) -> usize {
    let mut count = 0;
    let mut stack = vec![tree.root_node()];
    while let Some(node) = stack.pop() {
        if node.is_error() || node.is_missing() {
            count += 1;
        }
        if node.has_error() {
            let mut cursor = node.walk();
            stack.extend(node.children(&mut cursor));
        }
    }
    count
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(text: &[&str]) -> Vec<String> {
        text.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn a_doubled_closing_brace_parses_worse_than_the_content_without_it() {
        let doc = Document::from_text("fn f() {\n    if a {\n        b();\n    }\n}\n");
        let judge = EchoJudge::new(Language::Rust, &doc, None).unwrap();
        let kept = judge
            .errors_with(2..3, &lines(&["        c();", "    }"]))
            .unwrap();
        let trimmed = judge.errors_with(2..3, &lines(&["        c();"])).unwrap();
        assert!(trimmed < kept, "{trimmed} {kept}");
        assert_eq!(trimmed, 0);
    }

    #[test]
    fn a_payload_that_closes_what_it_opens_parses_worse_without_its_closer() {
        let doc = Document::from_text("<main>\n  <div>\n    <p>x</p>\n  </div>\n</main>\n");
        let judge = EchoJudge::new(Language::Html, &doc, None).unwrap();
        let given = lines(&["    <section>", "      <p>y</p>", "    </section>"]);
        assert_eq!(judge.errors_with(2..3, &given), Some(0));
    }

    #[test]
    fn a_change_at_the_end_of_a_text_without_a_final_newline_is_parsed_right() {
        let doc = Document::from_text("fn f() {\n}");
        let judge = EchoJudge::new(Language::Rust, &doc, None).unwrap();
        assert_eq!(
            judge.errors_with(1..2, &lines(&["}", "fn g() {}"])),
            Some(0)
        );
        assert!(judge.errors_with(1..2, &lines(&["fn g() {}"])).unwrap() > 0);
    }
}
