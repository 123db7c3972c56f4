//! The block that starts on a line: a function, class, `if`, element,
//! object or Markdown section, found in the syntax tree, so that an edit can
//! cite only the first line of what it replaces.
//!
//! The block on a line is the outermost node that starts there and is of a
//! block kind: an `if` includes its `else` chain, a decorator's line is the
//! decorated item. Kinds are told by the words of their grammar names
//! (`function_item`, `if_statement`, `jsx_element`, `section`), which the
//! grammars share. A line that starts no such node but starts a statement
//! of several lines (`export const f = () => {`, `module.exports = {`)
//! starts that statement. A block ends on the line of its last character,
//! and has several lines: a one-line item is cited with a plain `replace`.

use std::ops::Range;

use tree_sitter::{Node, Point, Tree};

use super::language::{parse_bound, Unparsed, MAX_PARSED_BYTES};
use super::Language;
use crate::document::Document;

/// Words of node kinds that make a block.
const BLOCK_WORDS: &[&str] = &[
    "function",
    "method",
    "class",
    "impl",
    "trait",
    "struct",
    "enum",
    "union",
    "interface",
    "module",
    "mod",
    "namespace",
    "if",
    "unless",
    "for",
    "foreach",
    "while",
    "until",
    "loop",
    "do",
    "try",
    "switch",
    "match",
    "case",
    "with",
    "element",
    "object",
    "array",
    "section",
    "rule",
    "table",
    "mapping",
    "sequence",
    "pair",
    "declaration",
    "definition",
    "lambda",
    "closure",
    "def",
    "singleton",
    "begin",
    "constructor",
    "record",
    "arrow",
    "decorated",
    "export",
];

/// What a block op cites when no block starts on its line, or why none
/// can be found, for the model.
pub(crate) type NoBlock = String;

/// Lines `first..end` of the block that starts on line `first` of `doc`,
/// parsed in `language` (from `kept`, the tree of `doc`, if given).
pub(crate) fn block_at(
    language: Language,
    doc: &Document,
    kept: Option<&Tree>,
    first: usize,
) -> Result<Range<usize>, NoBlock> {
    let text = doc.line(first);
    let Some(column) = text.find(|c: char| !c.is_whitespace()) else {
        return Err(format!(
            "line {} is blank; a block is cited by its first line",
            first + 1
        ));
    };
    let parsed;
    let tree = match kept {
        Some(tree) => tree,
        None => {
            parsed = language.parse(doc.text(), None).map_err(|why| match why {
                Unparsed::TooLarge => format!(
                    "blocks are found by parsing, and the file is over {} MiB, the most the engine parses",
                    MAX_PARSED_BYTES >> 20
                ),
                Unparsed::TooSlow => format!(
                    "blocks are found by parsing, and parsing the file as {} took more than {} ms of processor time, the bound for a file of its size",
                    language.name(),
                    parse_bound(doc.text().len()).as_millis()
                ),
                Unparsed::NoGrammar => format!("the {} parser failed", language.name()),
            })?;
            &parsed
        }
    };
    let at = Point::new(first, column);
    let leaf = tree
        .root_node()
        .descendant_for_point_range(at, at)
        .ok_or_else(|| format!("nothing is parsed at line {}", first + 1))?;
    let mut outermost: Option<Node> = None;
    let mut statement: Option<Node> = None;
    let mut node = Some(leaf);
    while let Some(n) = node {
        if n.start_position().row != first || n.parent().is_none() {
            break;
        }
        if is_block(n) && last_line(doc, &n) > first {
            outermost = Some(n);
        }
        if n.is_named() {
            statement = Some(n);
        }
        node = n.parent();
    }
    let several_lines = |n: &Node| last_line(doc, n) > first;
    let block = outermost.or(statement.filter(several_lines)).ok_or_else(|| {
        format!(
            "line {} (`{}`) starts no block the {} parser knows (a function, class, if/for/while/try, element, object or section starting on it)",
            first + 1,
            text.trim(),
            language.name()
        )
    })?;
    Ok(first..last_line(doc, &block) + 1)
}

/// The line of a node's last character other than white space (a block
/// may end with the indentation of the line after it).
fn last_line(doc: &Document, node: &Node) -> usize {
    let text = doc.text();
    let start = node.start_byte().min(text.len());
    let body = text[start..node.end_byte().min(text.len())].trim_end();
    node.start_position().row + body.bytes().filter(|&b| b == b'\n').count()
}

fn is_block(node: Node) -> bool {
    node.is_named()
        && !node.is_error()
        && node
            .kind()
            .split('_')
            .any(|word| BLOCK_WORDS.contains(&word))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block(path: &str, text: &str, line: usize) -> Result<(usize, usize), NoBlock> {
        let language = Language::of_path(path).unwrap();
        let doc = Document::from_text(text);
        block_at(language, &doc, None, line - 1).map(|r| (r.start + 1, r.end))
    }

    #[test]
    fn functions_classes_and_statements_end_where_their_tree_says() {
        let rust = "fn a() {\n    if x {\n        y();\n    } else {\n        z();\n    }\n}\n\nimpl S {\n    fn b() {}\n}\n";
        assert_eq!(block("a.rs", rust, 1), Ok((1, 7)));
        assert_eq!(
            block("a.rs", rust, 2),
            Ok((2, 6)),
            "an if includes its else"
        );
        assert_eq!(block("a.rs", rust, 9), Ok((9, 11)));
        assert!(
            block("a.rs", rust, 10).is_err(),
            "a block has several lines"
        );
        let python =
            "@cache\ndef f(x):\n    if x:\n        return 1\n    return 2\n\nclass C:\n    pass\n";
        assert_eq!(
            block("a.py", python, 1),
            Ok((1, 5)),
            "the decorator's line is the decorated item"
        );
        assert_eq!(block("a.py", python, 3), Ok((3, 4)));
        assert_eq!(block("a.py", python, 7), Ok((7, 8)));
    }

    #[test]
    fn where_several_blocks_start_on_a_line_the_outermost_is_meant() {
        let ts = "export const f = (x: number) => {\n  return {\n    a: [\n      1,\n    ],\n  };\n};\nf(1);\n";
        assert_eq!(block("a.ts", ts, 1), Ok((1, 7)));
        assert_eq!(block("a.ts", ts, 2), Ok((2, 6)));
        assert_eq!(block("a.ts", ts, 3), Ok((3, 5)));
    }

    #[test]
    fn elements_objects_and_sections() {
        let tsx = "const a = (\n  <div>\n    <p>x</p>\n  </div>\n);\n";
        assert_eq!(block("a.tsx", tsx, 2), Ok((2, 4)));
        let html = "<main>\n  <section>\n    <p>x</p>\n  </section>\n</main>\n";
        assert_eq!(block("a.html", html, 2), Ok((2, 4)));
        let json = "{\n  \"a\": {\n    \"b\": 1\n  },\n  \"c\": 2\n}\n";
        assert_eq!(block("a.json", json, 2), Ok((2, 4)));
        let md = "# A\n\ntext\n\n## B\n\nmore\n\n# C\n";
        assert_eq!(block("a.md", md, 1), Ok((1, 7)));
        assert_eq!(block("a.md", md, 5), Ok((5, 7)));
    }

    #[test]
    fn a_line_that_starts_no_block_says_so() {
        let rust = "fn a() {\n    y();\n}\n\n";
        let err = block("a.rs", rust, 2).unwrap_err();
        assert!(err.contains("starts no block"), "{err}");
        assert!(block("a.rs", rust, 4).unwrap_err().contains("blank"));
        assert!(
            block("a.rs", rust, 3).is_err(),
            "a closing brace starts nothing"
        );
    }
}
