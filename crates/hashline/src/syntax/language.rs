//! The languages the engine parses, chosen by a file's name, and the one
//! place that turns a language into a parse tree.

use std::ops::ControlFlow;
use std::path::Path;
use std::time::Duration;

use tree_sitter::{ParseOptions, ParseState, Parser, Point, Tree};

use super::grammar::Grammar;

/// A language the engine has a grammar for (when its cargo feature is on).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Language {
    /// Bash and POSIX shell scripts.
    Bash,
    /// C, and `.h` headers.
    C,
    /// C#.
    CSharp,
    /// C++.
    Cpp,
    /// CSS.
    Css,
    /// Go.
    Go,
    /// HTML.
    Html,
    /// Java.
    Java,
    /// JavaScript, JSX included.
    JavaScript,
    /// JSON (comments tolerated, as in `tsconfig.json`).
    Json,
    /// Markdown's block structure: headings, lists, code fences.
    Markdown,
    /// PHP files, with the HTML around `<?php` blocks.
    Php,
    /// Python.
    Python,
    /// Ruby.
    Ruby,
    /// Rust.
    Rust,
    /// TOML.
    Toml,
    /// TypeScript.
    TypeScript,
    /// TypeScript with JSX.
    Tsx,
    /// YAML.
    Yaml,
}

impl Language {
    /// The language of a file by its name, if the build has its grammar.
    pub fn of_path(path: impl AsRef<Path>) -> Option<Language> {
        let path = path.as_ref();
        let name = path.file_name()?.to_str()?;
        let by_name = match name {
            "Rakefile" | "Gemfile" | "Guardfile" | "Vagrantfile" => Some(Language::Ruby),
            ".bashrc" | ".bash_profile" | ".profile" | "PKGBUILD" => Some(Language::Bash),
            _ => None,
        };
        let language = by_name.or_else(|| {
            let extension = path.extension()?.to_str()?.to_ascii_lowercase();
            Some(match extension.as_str() {
                "sh" | "bash" => Language::Bash,
                "c" | "h" => Language::C,
                "cs" => Language::CSharp,
                "cc" | "cpp" | "cxx" | "c++" | "hh" | "hpp" | "hxx" | "h++" | "ipp" | "tpp" => {
                    Language::Cpp
                }
                "css" => Language::Css,
                "go" => Language::Go,
                "html" | "htm" | "xhtml" => Language::Html,
                "java" => Language::Java,
                "js" | "mjs" | "cjs" | "jsx" => Language::JavaScript,
                "json" | "jsonc" => Language::Json,
                "md" | "markdown" | "mdx" => Language::Markdown,
                "php" | "phtml" => Language::Php,
                "py" | "pyi" | "pyw" => Language::Python,
                "rb" | "rake" | "gemspec" | "ru" => Language::Ruby,
                "rs" => Language::Rust,
                "toml" => Language::Toml,
                "ts" | "mts" | "cts" => Language::TypeScript,
                "tsx" => Language::Tsx,
                "yaml" | "yml" => Language::Yaml,
                _ => return None,
            })
        })?;
        language.grammar().map(|_| language)
    }

    /// The language's name as a user would write it.
    pub fn name(self) -> &'static str {
        match self {
            Language::Bash => "Bash",
            Language::C => "C",
            Language::CSharp => "C#",
            Language::Cpp => "C++",
            Language::Css => "CSS",
            Language::Go => "Go",
            Language::Html => "HTML",
            Language::Java => "Java",
            Language::JavaScript => "JavaScript",
            Language::Json => "JSON",
            Language::Markdown => "Markdown",
            Language::Php => "PHP",
            Language::Python => "Python",
            Language::Ruby => "Ruby",
            Language::Rust => "Rust",
            Language::Toml => "TOML",
            Language::TypeScript => "TypeScript",
            Language::Tsx => "TSX",
            Language::Yaml => "YAML",
        }
    }

    /// The grammar, or `None` when its feature is not in this build. Its
    /// tables are expanded on its first use, not here.
    fn grammar(self) -> Option<&'static Grammar> {
        match self {
            #[cfg(feature = "bash")]
            Language::Bash => Some(&super::grammar::BASH),
            #[cfg(feature = "c")]
            Language::C => Some(&super::grammar::C),
            #[cfg(feature = "c-sharp")]
            Language::CSharp => Some(&super::grammar::C_SHARP),
            #[cfg(feature = "cpp")]
            Language::Cpp => Some(&super::grammar::CPP),
            #[cfg(feature = "css")]
            Language::Css => Some(&super::grammar::CSS),
            #[cfg(feature = "go")]
            Language::Go => Some(&super::grammar::GO),
            #[cfg(feature = "html")]
            Language::Html => Some(&super::grammar::HTML),
            #[cfg(feature = "java")]
            Language::Java => Some(&super::grammar::JAVA),
            #[cfg(feature = "javascript")]
            Language::JavaScript => Some(&super::grammar::JAVASCRIPT),
            #[cfg(feature = "json")]
            Language::Json => Some(&super::grammar::JSON),
            #[cfg(feature = "markdown")]
            Language::Markdown => Some(&super::grammar::MARKDOWN),
            #[cfg(feature = "php")]
            Language::Php => Some(&super::grammar::PHP),
            #[cfg(feature = "python")]
            Language::Python => Some(&super::grammar::PYTHON),
            #[cfg(feature = "ruby")]
            Language::Ruby => Some(&super::grammar::RUBY),
            #[cfg(feature = "rust")]
            Language::Rust => Some(&super::grammar::RUST),
            #[cfg(feature = "toml")]
            Language::Toml => Some(&super::grammar::TOML),
            #[cfg(feature = "typescript")]
            Language::TypeScript => Some(&super::grammar::TYPESCRIPT),
            #[cfg(feature = "typescript")]
            Language::Tsx => Some(&super::grammar::TSX),
            #[cfg(feature = "yaml")]
            Language::Yaml => Some(&super::grammar::YAML),
            #[allow(unreachable_patterns)]
            _ => None,
        }
    }

    /// The parse of `text`; with `old`, the earlier text's tree already
    /// told of the change by `Tree::edit`, so that only the changed part is
    /// parsed again. A text over `MAX_PARSED_BYTES` is not parsed, and a
    /// parse that runs past `parse_bound` of the text is given up: some
    /// texts cost a grammar far more than their size (tree-sitter's HTML
    /// scanner reads back its whole stack of open elements at every token,
    /// so 100,000 nested elements take minutes).
    pub(crate) fn parse(self, text: &str, old: Option<&Tree>) -> Result<Tree, Unparsed> {
        self.parse_pieces(&[text], old, Deadline::after(parse_bound(text.len())))
    }

    /// The parse of the text the `pieces` make one after the other, given
    /// up at `deadline`, so that a text made of another with a few lines
    /// replaced need not be copied whole to be parsed.
    pub(crate) fn parse_pieces(
        self,
        pieces: &[&str],
        old: Option<&Tree>,
        deadline: Deadline,
    ) -> Result<Tree, Unparsed> {
        if pieces.iter().map(|p| p.len()).sum::<usize>() > MAX_PARSED_BYTES {
            return Err(Unparsed::TooLarge);
        }
        let grammar = self.grammar().ok_or(Unparsed::NoGrammar)?;
        let mut parser = Parser::new();
        parser
            .set_language(&grammar.language())
            .map_err(|_| Unparsed::NoGrammar)?;
        let mut in_time = |_: &ParseState| {
            if deadline.passed() {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        };
        let mut read = |mut at: usize, _: Point| -> &[u8] {
            for piece in pieces {
                if at < piece.len() {
                    return &piece.as_bytes()[at..];
                }
                at -= piece.len();
            }
            &[]
        };
        let options = ParseOptions::new().progress_callback(&mut in_time);
        parser
            .parse_with_options(&mut read, old, Some(options))
            .ok_or(Unparsed::TooSlow)
    }
}

/// Larger texts are not parsed: a parse from scratch takes about 80 ms
/// per MiB, and its tree several times the text in memory.
pub(crate) const MAX_PARSED_BYTES: usize = 8 << 20;

/// The most processor time a parse of a text of `len` bytes may take:
/// several times what grammars take on ordinary code, so that only a text
/// that makes the parser slow down with its size, or a machine many times
/// slower, runs into it.
pub(crate) fn parse_bound(len: usize) -> Duration {
    PARSE_BOUND_BASE + PARSE_BOUND_PER_MIB.mul_f64(len as f64 / (1 << 20) as f64)
}

const PARSE_BOUND_BASE: Duration = Duration::from_millis(250);
const PARSE_BOUND_PER_MIB: Duration = Duration::from_millis(750);

/// When a parse is given up, on the clock of the processor time of the
/// thread that parses: what other processes take of a busy machine does
/// not count against it. Where that clock is missing (Windows), on the wall
/// clock.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Deadline(Clock);

#[cfg(unix)]
type Clock = Duration;
#[cfg(not(unix))]
type Clock = std::time::Instant;

#[cfg(unix)]
fn now() -> Clock {
    let t = rustix::time::clock_gettime(rustix::time::ClockId::ThreadCPUTime);
    Duration::new(t.tv_sec as u64, t.tv_nsec as u32)
}

#[cfg(not(unix))]
fn now() -> Clock {
    std::time::Instant::now()
}

impl Deadline {
    /// `bound` from now, on the calling thread.
    pub(crate) fn after(bound: Duration) -> Deadline {
        Deadline(now() + bound)
    }

    /// Whether it is past, for the calling thread.
    pub(crate) fn passed(self) -> bool {
        now() >= self.0
    }
}

/// Why a text has no parse tree.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unparsed {
    /// The grammar is not in this build, or was built for a tree-sitter
    /// version this one cannot load: the text is plain text.
    NoGrammar,
    /// Over `MAX_PARSED_BYTES`.
    TooLarge,
    /// The parse ran past its bound and was given up.
    TooSlow,
}

impl Unparsed {
    /// Why a check that needed the parse of a text of `len` bytes in
    /// `language` did not run, for a note in a result; `None` when there
    /// is nothing to say (plain text).
    pub(crate) fn note(self, language: Language, len: usize) -> Option<String> {
        match self {
            Unparsed::NoGrammar => None,
            Unparsed::TooLarge => Some(format!(
                "the {} syntax check was skipped: the file is over {} MiB, the most the engine parses.",
                language.name(),
                MAX_PARSED_BYTES >> 20
            )),
            Unparsed::TooSlow => Some(format!(
                "the {} syntax check was skipped: parsing the file took more than {} ms of processor time, the bound for a file of its size (texts nested very deep can slow a grammar down).",
                language.name(),
                parse_bound(len).as_millis()
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One small valid file per language, by a name that picks it.
    const SAMPLES: &[(&str, &str)] = &[
        ("run.sh", "if [ -n \"$1\" ]; then\n  echo \"$1\"\nfi\n"),
        ("a.c", "int main(void) {\n  return 0;\n}\n"),
        ("A.cs", "class A {\n  void M() { }\n}\n"),
        ("a.cpp", "namespace n {\nclass A { int x; };\n}\n"),
        ("a.css", "a {\n  color: red;\n}\n"),
        ("a.go", "package a\n\nfunc F() int {\n\treturn 1\n}\n"),
        ("a.html", "<div>\n  <p>x</p>\n</div>\n"),
        ("A.java", "class A {\n  void m() {}\n}\n"),
        ("a.jsx", "const a = <div>{x}</div>;\n"),
        ("a.json", "{\n  \"a\": [1, 2]\n}\n"),
        ("a.md", "# Title\n\nText.\n\n## Part\n\n- item\n"),
        ("a.php", "<?php\nfunction f() {\n  return 1;\n}\n"),
        ("a.py", "def f():\n    return 1\n"),
        ("a.rb", "def f\n  1\nend\n"),
        ("a.rs", "fn f() -> u8 {\n    1\n}\n"),
        ("a.toml", "[a]\nb = 1\n"),
        ("a.ts", "function f(x: number): number {\n  return x;\n}\n"),
        ("a.tsx", "const a = (x: number) => <div>{x}</div>;\n"),
        ("a.yaml", "a:\n  - 1\n  - 2\n"),
    ];

    #[test]
    fn every_default_language_parses_its_sample_without_errors() {
        for (path, text) in SAMPLES {
            let language = Language::of_path(path).unwrap_or_else(|| panic!("{path}"));
            let tree = language.parse(text, None).unwrap();
            assert!(
                !tree.root_node().has_error(),
                "{path}: {}",
                tree.root_node().to_sexp()
            );
        }
    }

    #[test]
    fn a_broken_sample_parses_with_errors() {
        let tree = Language::Rust.parse("fn f( {\n", None).unwrap();
        assert!(tree.root_node().has_error());
    }

    #[test]
    fn names_and_extensions_pick_languages_and_others_are_plain_text() {
        assert_eq!(Language::of_path("src/Main.TSX"), Some(Language::Tsx));
        assert_eq!(Language::of_path("x/Rakefile"), Some(Language::Ruby));
        assert_eq!(Language::of_path("notes.txt"), None);
        assert_eq!(Language::of_path("Makefile"), None);
        assert_eq!(Language::of_path(".rs"), None);
    }
}
