//! Compiles the grammars with their parse tables kept compressed.
//!
//! A tree-sitter parser's dense parse table is mostly zeros: C#'s is 4,096
//! states by 530 symbols, 4.3 MB, and the tables of all the grammars are
//! about 17 MB of the addon's 24. So each grammar's C source is compiled
//! here rather than by its crate, with the two parse tables declared as
//! zero-initialised arrays that take no room in the binary. Their contents
//! are stored deflated (about 15 times smaller) and written into those
//! arrays the first time the grammar is used (`src/syntax/grammar.rs`).
//!
//! The tables are read from the grammar crate itself, which is a build
//! dependency linked into this script, so no C is parsed for them. Its
//! sources are found in Cargo's registry as the version whose node types and
//! small parse table map are the ones the crate was built with: Cargo tells
//! a build script nothing about where a dependency's files are.

use std::env;
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::thread;

/// One grammar: the feature that enables it, where its C source lies in its
/// crate, and what the crate exports.
struct Grammar {
    feature: &'static str,
    /// The crate's directory name in the registry, before its version.
    package: &'static str,
    /// The directory of `parser.c`, inside the crate.
    source: &'static str,
    /// The C function that returns the language; without its
    /// `tree_sitter_` and in capitals, the name of its static in
    /// `src/syntax/grammar.rs`.
    symbol: &'static str,
    language: Option<tree_sitter_language::LanguageFn>,
    node_types: &'static str,
}

macro_rules! grammar {
    ($feature:literal, $package:literal, $source:literal, $symbol:literal, $($krate:ident)::+, $language:ident, $node_types:ident) => {
        Grammar {
            feature: $feature,
            package: $package,
            source: $source,
            symbol: $symbol,
            #[cfg(feature = $feature)]
            language: Some($($krate)::+::$language),
            #[cfg(not(feature = $feature))]
            language: None,
            #[cfg(feature = $feature)]
            node_types: $($krate)::+::$node_types,
            #[cfg(not(feature = $feature))]
            node_types: "",
        }
    };
}

#[rustfmt::skip]
fn grammars() -> Vec<Grammar> {
    vec![
        grammar!("bash", "tree-sitter-bash", "src", "tree_sitter_bash", tree_sitter_bash, LANGUAGE, NODE_TYPES),
        grammar!("c", "tree-sitter-c", "src", "tree_sitter_c", tree_sitter_c, LANGUAGE, NODE_TYPES),
        grammar!("c-sharp", "tree-sitter-c-sharp", "src", "tree_sitter_c_sharp", tree_sitter_c_sharp, LANGUAGE, NODE_TYPES),
        grammar!("cpp", "tree-sitter-cpp", "src", "tree_sitter_cpp", tree_sitter_cpp, LANGUAGE, NODE_TYPES),
        grammar!("css", "tree-sitter-css", "src", "tree_sitter_css", tree_sitter_css, LANGUAGE, NODE_TYPES),
        grammar!("go", "tree-sitter-go", "src", "tree_sitter_go", tree_sitter_go, LANGUAGE, NODE_TYPES),
        grammar!("html", "tree-sitter-html", "src", "tree_sitter_html", tree_sitter_html, LANGUAGE, NODE_TYPES),
        grammar!("java", "tree-sitter-java", "src", "tree_sitter_java", tree_sitter_java, LANGUAGE, NODE_TYPES),
        grammar!("javascript", "tree-sitter-javascript", "src", "tree_sitter_javascript", tree_sitter_javascript, LANGUAGE, NODE_TYPES),
        grammar!("json", "tree-sitter-json", "src", "tree_sitter_json", tree_sitter_json, LANGUAGE, NODE_TYPES),
        grammar!("markdown", "tree-sitter-md", "tree-sitter-markdown/src", "tree_sitter_markdown", tree_sitter_md, LANGUAGE, NODE_TYPES_BLOCK),
        grammar!("php", "tree-sitter-php", "php/src", "tree_sitter_php", tree_sitter_php, LANGUAGE_PHP, PHP_NODE_TYPES),
        grammar!("python", "tree-sitter-python", "src", "tree_sitter_python", tree_sitter_python, LANGUAGE, NODE_TYPES),
        grammar!("ruby", "tree-sitter-ruby", "src", "tree_sitter_ruby", tree_sitter_ruby, LANGUAGE, NODE_TYPES),
        grammar!("rust", "tree-sitter-rust", "src", "tree_sitter_rust", tree_sitter_rust, LANGUAGE, NODE_TYPES),
        grammar!("toml", "tree-sitter-toml-ng", "src", "tree_sitter_toml", tree_sitter_toml_ng, LANGUAGE, NODE_TYPES),
        grammar!("typescript", "tree-sitter-typescript", "typescript/src", "tree_sitter_typescript", tree_sitter_typescript, LANGUAGE_TYPESCRIPT, TYPESCRIPT_NODE_TYPES),
        grammar!("typescript", "tree-sitter-typescript", "tsx/src", "tree_sitter_tsx", tree_sitter_typescript, LANGUAGE_TSX, TSX_NODE_TYPES),
        grammar!("yaml", "tree-sitter-yaml", "src", "tree_sitter_yaml", tree_sitter_yaml, LANGUAGE, NODE_TYPES),
    ]
}

/// The head of tree-sitter's `TSLanguage` (`tree_sitter/parser.h`), the same
/// in ABI versions 14 and 15; checked against the source's `#define`s.
#[repr(C)]
struct LanguageHead {
    abi_version: u32,
    symbol_count: u32,
    alias_count: u32,
    token_count: u32,
    external_token_count: u32,
    state_count: u32,
    large_state_count: u32,
    production_id_count: u32,
    field_count: u32,
    max_alias_sequence_length: u16,
    parse_table: *const u16,
    small_parse_table: *const u16,
    small_parse_table_map: *const u32,
}

const PARSE_TABLE: &str =
    "static const uint16_t ts_parse_table[LARGE_STATE_COUNT][SYMBOL_COUNT] = {";
const SMALL_PARSE_TABLE: &str = "static const uint16_t ts_small_parse_table[] = {";
const SMALL_PARSE_TABLE_MAP: &str = "static const uint32_t ts_small_parse_table_map[] = {";

fn main() {
    let out = PathBuf::from(env::var_os("OUT_DIR").expect("OUT_DIR"));
    let registry = home::cargo_home()
        .expect("the Cargo home directory")
        .join("registry")
        .join("src");
    println!("cargo:rustc-check-cfg=cfg(grammars)");
    let enabled: Vec<Grammar> = grammars()
        .into_iter()
        .filter(|grammar| {
            env::var_os(format!(
                "CARGO_FEATURE_{}",
                grammar.feature.to_uppercase().replace('-', "_")
            ))
            .is_some()
        })
        .collect();
    if !enabled.is_empty() {
        println!("cargo:rustc-cfg=grammars");
    }
    // Each grammar is a C compile of its own, and the crate waits for all of
    // them: run one after the other they left all but one of Cargo's jobs
    // idle for most of this script's time. Cargo says how many jobs it runs.
    let jobs = env::var("NUM_JOBS")
        .ok()
        .and_then(|n| n.parse::<usize>().ok())
        .unwrap_or(1)
        .clamp(1, enabled.len().max(1));
    let next = AtomicUsize::new(0);
    let mut built: Vec<(usize, String)> = thread::scope(|scope| {
        let workers: Vec<_> = (0..jobs)
            .map(|_| {
                scope.spawn(|| {
                    let mut done = Vec::new();
                    loop {
                        let at = next.fetch_add(1, Ordering::Relaxed);
                        let Some(grammar) = enabled.get(at) else {
                            return done;
                        };
                        done.push((at, build(grammar, &registry, &out)));
                    }
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|worker| worker.join().expect("a grammar's build panicked"))
            .collect()
    });
    built.sort_by_key(|(at, _)| *at);
    let rust: String = built.into_iter().map(|(_, rust)| rust).collect();
    fs::write(out.join("grammars.rs"), rust).expect("writing grammars.rs");
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=CARGO_HOME");
}

/// Compiles one grammar and returns the Rust that declares it.
fn build(grammar: &Grammar, registry: &Path, out: &Path) -> String {
    let language = grammar.language.expect("an enabled grammar's crate");
    // SAFETY: the function is the grammar's own, returning its static
    // language, whose head has the layout above in the ABI versions
    // accepted here (and is checked below against the source).
    let head = unsafe { &*(language.into_raw()() as *const LanguageHead) };
    assert!(
        matches!(head.abi_version, 14 | 15),
        "{}: tree-sitter ABI version {}, whose language layout this build script does not know",
        grammar.package,
        head.abi_version
    );
    let (source, parser) = find_source(grammar, head, registry);
    let parser_path = source.join("parser.c");
    let define = |name: &str| -> u32 {
        parser
            .lines()
            .find_map(|line| line.strip_prefix(&format!("#define {name} ")))
            .and_then(|value| value.trim().parse().ok())
            .unwrap_or_else(|| panic!("{}: no #define {name}", parser_path.display()))
    };
    assert!(
        define("LANGUAGE_VERSION") == head.abi_version
            && define("SYMBOL_COUNT") == head.symbol_count
            && define("ALIAS_COUNT") == head.alias_count
            && define("TOKEN_COUNT") == head.token_count
            && define("EXTERNAL_TOKEN_COUNT") == head.external_token_count
            && define("STATE_COUNT") == head.state_count
            && define("LARGE_STATE_COUNT") == head.large_state_count
            && define("PRODUCTION_ID_COUNT") == head.production_id_count
            && define("FIELD_COUNT") == head.field_count
            && define("MAX_ALIAS_SEQUENCE_LENGTH") == u32::from(head.max_alias_sequence_length),
        "{}: the compiled grammar does not match its source",
        parser_path.display()
    );

    let parse_len = (head.large_state_count * head.symbol_count) as usize;
    // SAFETY: the dense table has one entry per large state and symbol.
    let parse = unsafe { std::slice::from_raw_parts(head.parse_table, parse_len) };
    let small_len = small_table_len(head);
    // SAFETY: `small_table_len` walked every entry the map points at.
    let small = unsafe { std::slice::from_raw_parts(head.small_parse_table, small_len) };

    let stripped = without_tables(&parser, small_len, grammar.symbol)
        .unwrap_or_else(|| panic!("{}: parse tables not where expected", parser_path.display()));
    let dir = out.join(grammar.symbol);
    fs::create_dir_all(&dir).expect("creating the grammar's build directory");
    let stripped_path = dir.join("parser.c");
    fs::write(&stripped_path, stripped).expect("writing parser.c");
    let mut c = cc::Build::new();
    c.std("c11")
        .include(&source)
        .warnings(false)
        .file(&stripped_path);
    // The functions the grammar exports get names of this crate's own, so
    // that a program linking the grammar's crate as well never binds one of
    // them to this copy, whose tables may not be expanded yet.
    for function in [
        "",
        "_external_scanner_create",
        "_external_scanner_destroy",
        "_external_scanner_scan",
        "_external_scanner_serialize",
        "_external_scanner_deserialize",
    ] {
        let name = format!("{}{function}", grammar.symbol);
        c.define(&name, Some(format!("hashline_{name}").as_str()));
    }
    // Parsing is slow without optimisation, and the tests parse large
    // files; -O1 parses them as quickly as the tests need and compiles the
    // grammars in three quarters of the time -O2 takes.
    if env::var("OPT_LEVEL").as_deref() == Ok("0") {
        c.opt_level(1);
    }
    let scanner = source.join("scanner.c");
    if scanner.exists() {
        c.file(&scanner);
        println!("cargo:rerun-if-changed={}", scanner.display());
    }
    println!("cargo:rerun-if-changed={}", parser_path.display());
    c.compile(grammar.symbol);

    let deflated = |name: &str, table: &[u16]| -> PathBuf {
        let bytes: Vec<u8> = table.iter().flat_map(|v| v.to_le_bytes()).collect();
        let path = dir.join(name);
        fs::write(&path, miniz_oxide::deflate::compress_to_vec(&bytes, 10))
            .expect("writing a deflated table");
        path
    };
    let parse_path = deflated("parse", parse);
    let small_path = deflated("small", small);
    let symbol = grammar.symbol;
    format!(
        "extern \"C\" {{\n    fn hashline_{symbol}() -> *const ();\n    fn hashline_{symbol}_tables(parse: *mut *mut u16, small: *mut *mut u16);\n}}\n\
         pub(super) static {name}: Grammar = Grammar {{\n    language: hashline_{symbol},\n    tables: hashline_{symbol}_tables,\n    \
         parse: Table {{ deflated: include_bytes!({parse:?}), len: {parse_len} }},\n    \
         small: Table {{ deflated: include_bytes!({small:?}), len: {small_len} }},\n    ready: Once::new(),\n}};",
        name = symbol.trim_start_matches("tree_sitter_").to_uppercase(),
        parse = parse_path,
        small = small_path,
    )
}

/// The grammar's source directory in Cargo's registry and its `parser.c`:
/// the version whose `node-types.json` is the one the build dependency was
/// compiled with and whose small parse table map is the one it holds, so
/// that another version on disk, or another workspace's, is never taken for
/// it.
fn find_source(grammar: &Grammar, head: &LanguageHead, registry: &Path) -> (PathBuf, String) {
    let prefix = format!("{}-", grammar.package);
    let indexes = fs::read_dir(registry).into_iter().flatten().flatten();
    for index in indexes {
        for entry in fs::read_dir(index.path()).into_iter().flatten().flatten() {
            let name = entry.file_name();
            let is_version = name.to_str().is_some_and(|name| {
                name.strip_prefix(&prefix)
                    .is_some_and(|rest| rest.starts_with(|c: char| c.is_ascii_digit()))
            });
            if !is_version {
                continue;
            }
            let source = entry.path().join(grammar.source);
            if fs::read_to_string(source.join("node-types.json"))
                .ok()
                .as_deref()
                != Some(grammar.node_types)
            {
                continue;
            }
            let Ok(parser) = fs::read_to_string(source.join("parser.c")) else {
                continue;
            };
            if small_map_in(&parser).as_deref() == Some(small_map(head)) {
                return (source, parser);
            }
        }
    }
    panic!(
        "the C source of {} was not found under {}; the grammars are compiled from the \
         crates' sources in Cargo's registry (build without the feature `{}` to leave it out)",
        grammar.package,
        registry.display(),
        grammar.feature
    )
}

/// The small parse table map the build dependency holds: where each small
/// state's entry starts.
fn small_map(head: &LanguageHead) -> &[u32] {
    let states = (head.state_count - head.large_state_count) as usize;
    // SAFETY: the map has one offset per small state.
    unsafe { std::slice::from_raw_parts(head.small_parse_table_map, states) }
}

/// The small parse table map as `parser.c` writes it, one
/// `  [SMALL_STATE(n)] = offset,` line per small state.
fn small_map_in(parser: &str) -> Option<Vec<u32>> {
    let mut lines = parser.lines();
    lines.find(|line| *line == SMALL_PARSE_TABLE_MAP)?;
    let mut map = Vec::new();
    for line in lines {
        if line == "};" {
            return Some(map);
        }
        let (_, offset) = line.strip_prefix("  [SMALL_STATE(")?.split_once(")] = ")?;
        map.push(offset.strip_suffix(',')?.parse().ok()?);
    }
    None
}

/// The length of the small parse table, walked from the map the way the
/// parser reads it: each state's entry is a group count, then per group an
/// action, a symbol count and the symbols. The entries must tile the table.
fn small_table_len(head: &LanguageHead) -> usize {
    let map = small_map(head);
    let at = |i: usize| -> usize {
        // SAFETY: only offsets inside the entries the map points at are read.
        unsafe { *head.small_parse_table.add(i) as usize }
    };
    let mut end = 0;
    for &start in map {
        let start = start as usize;
        assert!(start == end, "small parse table entries out of order");
        let groups = at(start);
        let mut i = start + 1;
        for _ in 0..groups {
            let symbols = at(i + 1);
            i += 2 + symbols;
        }
        end = i;
    }
    end
}

/// `parser.c` with both parse tables declared without contents, and a
/// function that tells where they are.
fn without_tables(parser: &str, small_len: usize, symbol: &str) -> Option<String> {
    let mut out = String::with_capacity(parser.len() / 2);
    let mut lines = parser.lines();
    let mut found = 0;
    while let Some(line) = lines.next() {
        let replacement = if line == PARSE_TABLE {
            "static uint16_t ts_parse_table[LARGE_STATE_COUNT][SYMBOL_COUNT];".to_string()
        } else if line == SMALL_PARSE_TABLE {
            format!("static uint16_t ts_small_parse_table[{small_len}];")
        } else {
            out.push_str(line);
            out.push('\n');
            continue;
        };
        lines.by_ref().find(|line| *line == "};")?;
        out.push_str(&replacement);
        out.push('\n');
        found += 1;
    }
    writeln!(
        out,
        "void hashline_{symbol}_tables(uint16_t **parse, uint16_t **small) {{\n  \
         *parse = &ts_parse_table[0][0];\n  *small = ts_small_parse_table;\n}}"
    )
    .ok()?;
    (found == 2).then_some(out)
}
