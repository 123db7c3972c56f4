//! Whether an edit broke a file's parse: the error and missing nodes a
//! grammar finds in the new text of a file whose old text parsed cleanly.
//!
//! A file that did not parse before is left alone: its errors say nothing
//! about the edit, and telling them apart from new ones after the lines
//! moved would be a guess.

use tree_sitter::{InputEdit, Node, Point, Tree};

use super::language::Unparsed;
use super::Language;
use crate::before::Before;
use crate::document::Document;
use crate::report::Hunk;

/// What the engine does with an edit that breaks a file's parse.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SyntaxCheck {
    /// Write it, and report the broken lines with the result.
    #[default]
    Warn,
    /// Write nothing; the edit fails with `SYNTAX_ERROR`.
    Reject,
    /// Do not parse.
    Off,
}

impl SyntaxCheck {
    /// The mode by its name in the hosts' options, any case and
    /// surrounding spaces (as environment variables are often written).
    pub fn from_name(name: &str) -> Option<SyntaxCheck> {
        match name.trim().to_ascii_lowercase().as_str() {
            "warn" => Some(SyntaxCheck::Warn),
            "reject" => Some(SyntaxCheck::Reject),
            "off" => Some(SyntaxCheck::Off),
            _ => None,
        }
    }

    /// What to check a file by this name with, if anything, starting
    /// from `old_tree` (what the session kept of the old text's parse).
    pub(crate) fn parse_of(self, path: &str, old_tree: Option<KeptTree>) -> Option<Parse> {
        if self == SyntaxCheck::Off {
            return None;
        }
        Some(Parse {
            language: Language::of_path(path)?,
            old_tree,
        })
    }

    /// The parse of `old` that a change of it (`hunks`) is checked
    /// against, when the check is on for this file and the change changes
    /// lines (see [`Parse::of_old`]).
    pub(crate) fn old_parse(
        self,
        path: &str,
        old_tree: Option<KeptTree>,
        old: &Document,
        hunks: &[Hunk],
    ) -> Option<Parsed> {
        if hunks.is_empty() {
            return None;
        }
        self.parse_of(path, old_tree)?.of_old(old)
    }
}

/// What a session keeps of a version's parse: its tree, or why it has none.
pub(crate) type KeptTree = Result<Tree, Unparsed>;

/// One place the new text no longer parses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Broken {
    /// 0-based line of the new text.
    pub line: usize,
    /// Byte offsets in that line, end exclusive.
    pub start: usize,
    pub end: usize,
    /// `missing "}"`, `unexpected ")"`.
    pub what: String,
}

/// At most this many places are reported: the first ones are what the
/// model has to fix, the rest usually follow from them.
const MAX_REPORTED: usize = 10;

/// A file to check: its language, and what is kept of the old text's
/// parse (`Trees`).
pub(crate) struct Parse {
    pub language: Language,
    pub old_tree: Option<KeptTree>,
}

impl Parse {
    /// The old text's tree, the kept one or a parse of `old`, when it
    /// parses without an error: only then can an edit be told that it
    /// broke the parse. A text too large or too slow to parse gives a parse
    /// that says so, so that the result can tell the check was skipped.
    /// Taken before an edit is spliced into `old`'s own buffer.
    pub(crate) fn of_old(self, old: &Document) -> Option<Parsed> {
        let Parse { language, old_tree } = self;
        let tree = old_tree.unwrap_or_else(|| language.parse(old.text(), None));
        match tree {
            Ok(tree) => (!tree.root_node().has_error()).then_some(Parsed {
                language,
                tree: Ok(tree),
            }),
            Err(Unparsed::NoGrammar) => None,
            Err(why) => Some(Parsed {
                language,
                tree: Err(why),
            }),
        }
    }
}

/// The tree of an old text that parsed cleanly, in its language, or why
/// the old text was not parsed (too large, too slow).
pub(crate) struct Parsed {
    pub language: Language,
    tree: KeptTree,
}

/// What the check of a new text found: the places where it fails to
/// parse, its tree (or why it has none, to be kept for the next edit), and
/// a note when the check was skipped.
pub(crate) struct Checked {
    pub found: Vec<Broken>,
    pub tree: Option<KeptTree>,
    pub skipped: Option<String>,
}

/// The places where `new` fails to parse, the old text having parsed;
/// `hunks` say which lines changed, so the new text is parsed again only
/// where it differs.
pub(crate) fn broken(parsed: Parsed, old: &dyn Before, new: &Document, hunks: &[Hunk]) -> Checked {
    let Parsed { language, tree } = parsed;
    let skipped = |why: Unparsed| Checked {
        found: Vec::new(),
        skipped: why.note(language, new.text().len()),
        tree: (why != Unparsed::NoGrammar).then_some(Err(why)),
    };
    let mut tree = match tree {
        Ok(tree) => tree,
        Err(why) => return skipped(why),
    };
    for edit in input_edits(old, new, hunks).into_iter().rev() {
        tree.edit(&edit);
    }
    match language.parse(new.text(), Some(&tree)) {
        Ok(tree) => Checked {
            found: errors(&tree, new),
            tree: Some(Ok(tree)),
            skipped: None,
        },
        Err(why) => skipped(why),
    }
}

/// The hunks as tree-sitter edits, each in the coordinates of the text
/// with the later hunks not yet applied: applied last to first, every edit
/// sees the positions it names.
fn input_edits(old: &dyn Before, new: &Document, hunks: &[Hunk]) -> Vec<InputEdit> {
    hunks
        .iter()
        .map(|hunk| {
            let start_byte = old.offset_of_line(hunk.old.start);
            let new_start = new.offset_of_line(hunk.new.start);
            let new_len = new.offset_of_line(hunk.new.end) - new_start;
            let start_position = Point::new(hunk.old.start, 0);
            let old_end_position = end_of(old, hunk.old.end, start_position);
            let new_end = end_of(new, hunk.new.end, Point::new(hunk.new.start, 0));
            InputEdit {
                start_byte,
                old_end_byte: old.offset_of_line(hunk.old.end),
                new_end_byte: start_byte + new_len,
                start_position,
                old_end_position,
                new_end_position: Point::new(
                    hunk.old.start + (new_end.row - hunk.new.start),
                    new_end.column,
                ),
            }
        })
        .collect()
}

/// Where the text before line `end` ends: the start of that line, or the
/// end of an unterminated last line; never before `at_least`.
fn end_of(doc: &dyn Before, end: usize, at_least: Point) -> Point {
    if end < doc.line_count() || doc.final_newline() || end == 0 {
        return Point::new(end, 0).max(at_least);
    }
    Point::new(end - 1, doc.line(end - 1).len()).max(at_least)
}

/// The error and missing nodes of `tree`, outermost first, in text order.
fn errors(tree: &Tree, doc: &Document) -> Vec<Broken> {
    let mut found = Vec::new();
    if doc.is_empty() {
        return found;
    }
    let mut stack = vec![tree.root_node()];
    while let Some(node) = stack.pop() {
        if found.len() == MAX_REPORTED {
            break;
        }
        if node.is_error() || node.is_missing() {
            found.push(describe(node, doc));
            continue;
        }
        if node.has_error() {
            let mut cursor = node.walk();
            let children: Vec<Node> = node.children(&mut cursor).collect();
            stack.extend(children.into_iter().rev());
        }
    }
    found
}

fn describe(node: Node, doc: &Document) -> Broken {
    let start = node.start_position();
    let line = start.row.min(doc.line_count().saturating_sub(1));
    let text = if doc.is_empty() { "" } else { doc.line(line) };
    let column = start.column.min(text.len());
    let end = if node.end_position().row == start.row {
        node.end_position().column.clamp(column, text.len())
    } else {
        text.len()
    };
    let what = if node.is_missing() {
        format!("missing \"{}\"", node.kind())
    } else {
        unexpected(&doc.text()[node.start_byte()..node.end_byte()])
    };
    Broken {
        line,
        start: floor_char_boundary(text, column),
        end: floor_char_boundary(text, end),
        what,
    }
}

/// What an error node's text says is wrong: an opener it never closes, a
/// closer it never opened, or else the text the parser could not place.
fn unexpected(text: &str) -> String {
    let mut open = Vec::new();
    for c in text.chars() {
        match c {
            '(' | '[' | '{' => open.push(c),
            ')' | ']' | '}' => {
                let opener = match c {
                    ')' => '(',
                    ']' => '[',
                    _ => '{',
                };
                if open.pop() != Some(opener) {
                    return format!("unexpected \"{c}\"");
                }
            }
            _ => {}
        }
    }
    if let Some(c) = open.last() {
        return format!("\"{c}\" is never closed");
    }
    let bad = text
        .split('\n')
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("");
    let mut shown: String = bad.chars().take(40).collect();
    if shown.len() < bad.len() {
        shown.push('…');
    }
    if shown.is_empty() {
        "a syntax error".to_owned()
    } else {
        format!("unexpected \"{shown}\"")
    }
}

/// `at`, or the start of the character it falls in (tree-sitter counts
/// bytes; a column must be a character boundary to be cut there).
fn floor_char_boundary(text: &str, mut at: usize) -> usize {
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modes_are_named_in_any_case_with_spaces_around() {
        assert_eq!(
            SyntaxCheck::from_name(" Reject "),
            Some(SyntaxCheck::Reject)
        );
        assert_eq!(SyntaxCheck::from_name("OFF"), Some(SyntaxCheck::Off));
        assert_eq!(SyntaxCheck::from_name("strict"), None);
    }

    fn check(language: Language, old: &Document, new: &Document, hunks: &[Hunk]) -> Vec<Broken> {
        let parse = Parse {
            language,
            old_tree: None,
        };
        parse
            .of_old(old)
            .map_or_else(Vec::new, |parsed| broken(parsed, old, new, hunks).found)
    }

    #[test]
    fn the_tree_an_edit_returns_serves_the_next_edit_as_a_fresh_parse_would() {
        let (old, mid, hunk) = splice("fn f() {\n    g();\n}\n", 1, 0, &["    h();"]);
        let parse = Parse {
            language: Language::Rust,
            old_tree: None,
        };
        let checked = broken(parse.of_old(&old).unwrap(), &old, &mid, &[hunk]);
        assert!(checked.found.is_empty());
        let (_, new, hunk) = splice(mid.text(), 2, 1, &["    h(;"]);
        let kept = Parse {
            language: Language::Rust,
            old_tree: checked.tree,
        };
        let with_kept = broken(
            kept.of_old(&mid).unwrap(),
            &mid,
            &new,
            std::slice::from_ref(&hunk),
        )
        .found;
        assert!(!with_kept.is_empty());
        assert_eq!(with_kept, check(Language::Rust, &mid, &new, &[hunk]));
    }

    /// Lines `at..at + removed` of `old` replaced by `lines`: the new
    /// document and the hunk, as an edit would give them.
    fn splice(old: &str, at: usize, removed: usize, lines: &[&str]) -> (Document, Document, Hunk) {
        let mut all: Vec<&str> = old.lines().collect();
        all.splice(at..at + removed, lines.iter().copied());
        let new = all.iter().map(|l| format!("{l}\n")).collect::<String>();
        let hunk = Hunk {
            old: at..at + removed,
            new: at..at + lines.len(),
        };
        (Document::from_text(old), Document::from_text(&new), hunk)
    }

    /// Per language: a file that parses, a line that keeps it parsing and
    /// one that breaks it, both inserted after its first line.
    const CASES: &[(&str, &str, &str, &str)] = &[
        (
            "run.sh",
            "if [ -n \"$1\" ]; then\n  echo \"$1\"\nfi\n",
            "  echo two",
            "  echo )",
        ),
        (
            "a.c",
            "int main(void) {\n  return 0;\n}\n",
            "  int x = 1;",
            "  int x = (1;",
        ),
        (
            "A.cs",
            "class A {\n  void M() { }\n}\n",
            "  int x;",
            "  void N( { }",
        ),
        (
            "a.cpp",
            "namespace n {\nclass A { int x; };\n}\n",
            "int y;",
            "class B {",
        ),
        (
            "a.css",
            "a {\n  color: red;\n}\n",
            "  margin: 0;",
            "  margin: 0; }}",
        ),
        (
            "a.go",
            "package a\n\nfunc F() int {\n\treturn 1\n}\n",
            "",
            "func (",
        ),
        (
            "a.html",
            "<div>\n  <p>x</p>\n</div>\n",
            "  <span>y</span>",
            "  <p <",
        ),
        (
            "A.java",
            "class A {\n  void m() {}\n}\n",
            "  int x;",
            "  void n( {}",
        ),
        (
            "a.jsx",
            "const a = <div>{x}</div>;\nf();\n",
            "g();",
            "const b = <div>{y</div>;",
        ),
        (
            "a.json",
            "{\n  \"a\": [1, 2]\n}\n",
            "  \"b\": 1,",
            "  \"b\": ,",
        ),
        (
            "a.php",
            "<?php\nfunction f() {\n  return 1;\n}\n",
            "$x = 1;",
            "$x = (1;",
        ),
        (
            "a.py",
            "def f():\n    return 1\n",
            "    x = 1",
            "    x = (1",
        ),
        ("a.rb", "def f\n  1\nend\n", "  x = 2", "  x = (2"),
        (
            "a.rs",
            "fn f() -> u8 {\n    1\n}\n",
            "    let _x = 2;",
            "    let x = (2;",
        ),
        ("a.toml", "[a]\nb = 1\n", "c = 2", "c = = 2"),
        (
            "a.ts",
            "function f(x: number): number {\n  return x;\n}\n",
            "  x++;",
            "  let y: = x;",
        ),
        (
            "a.tsx",
            "const a = (x: number) => <div>{x}</div>;\nf();\n",
            "g();",
            "const b = <div>{y</div>;",
        ),
        ("a.yaml", "a:\n  - 1\n  - 2\n", "  - 3", "  - [3"),
    ];

    #[test]
    fn every_language_flags_a_line_that_breaks_its_parse_and_passes_one_that_does_not() {
        for (path, text, good, bad) in CASES {
            let language = Language::of_path(path).unwrap();
            let (old, new, hunk) = splice(text, 1, 0, &[good]);
            let found = check(language, &old, &new, &[hunk]);
            assert!(
                found.is_empty(),
                "{path}: a good line was flagged: {found:?}"
            );
            let (old, new, hunk) = splice(text, 1, 0, &[bad]);
            let found = check(language, &old, &new, &[hunk]);
            assert!(!found.is_empty(), "{path}: a broken line passed");
        }
    }

    #[test]
    fn a_missing_closer_is_named_on_its_line() {
        let (old, new, hunk) = splice("fn f() {\n    g();\n}\n", 2, 1, &[]);
        let found = check(Language::Rust, &old, &new, &[hunk]);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].what, "\"{\" is never closed");
        assert_eq!(found[0].line, 0);
    }

    #[test]
    fn a_file_that_did_not_parse_before_is_left_alone() {
        let (old, new, hunk) = splice("fn f( {\n}\n", 1, 0, &["fn g( {"]);
        assert!(check(Language::Rust, &old, &new, &[hunk]).is_empty());
    }

    #[test]
    fn files_in_other_languages_are_not_parsed() {
        let language_of = |mode: SyntaxCheck, path| mode.parse_of(path, None).map(|p| p.language);
        assert_eq!(language_of(SyntaxCheck::Warn, "notes.txt"), None);
        assert_eq!(language_of(SyntaxCheck::Off, "a.rs"), None);
        assert_eq!(
            language_of(SyntaxCheck::Reject, "a.rs"),
            Some(Language::Rust)
        );
    }

    proptest::proptest! {
        /// Reparsing with the old tree told of the hunks finds what a parse
        /// from scratch finds, whatever lines are replaced, with or without
        /// a final newline.
        #[test]
        fn an_incremental_parse_finds_what_a_full_parse_finds(
            picks in proptest::collection::vec((0usize..8, 0usize..3, proptest::collection::vec(0usize..8, 0..3)), 1..4),
            final_newline in proptest::bool::ANY,
        ) {
            const LINES: [&str; 8] = ["fn f() {", "}", "    g(1);", "", "let x = (", "struct S;", "    ) ;", "// c"];
            let mut old_text = "fn a() {\n    b();\n}\nstruct T;\nfn c() {}\n".to_owned();
            if !final_newline {
                old_text.pop();
            }
            let old = Document::from_text(&old_text);
            let mut lines: Vec<String> = old.lines().map(str::to_owned).collect();
            let mut hunks = Vec::new();
            let mut shift: isize = 0;
            let mut at = 0;
            for (gap, removed, inserted) in picks {
                let start = (at + gap).min(old.line_count());
                let removed = removed.min(old.line_count() - start);
                let new_start = (start as isize + shift) as usize;
                let inserted: Vec<String> = inserted.iter().map(|&i| LINES[i].to_owned()).collect();
                lines.splice(new_start..new_start + removed, inserted.iter().cloned());
                hunks.push(Hunk { old: start..start + removed, new: new_start..new_start + inserted.len() });
                shift += inserted.len() as isize - removed as isize;
                at = start + removed + 1;
                if at > old.line_count() {
                    break;
                }
            }
            let mut new_text = lines.join("\n");
            if final_newline && !lines.is_empty() {
                new_text.push('\n');
            }
            let new = Document::from_text(&new_text);
            let incremental = check(Language::Rust, &old, &new, &hunks);
            let full = Language::Rust.parse(new.text(), None).map(|t| errors(&t, &new)).unwrap_or_default();
            proptest::prop_assert_eq!(incremental, full);
        }
    }
}
