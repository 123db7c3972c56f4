//! No cycle between a crate's modules: a module may use another only if
//! that one does not, directly or through others, use it back. The graph is
//! read from the sources themselves (every path that starts with `crate::`,
//! `self::`, `super::` or the name of a submodule, comments and strings
//! left out), so the architecture document's promise is checked, not
//! trusted. A facade's `pub use child::Item` is an edge from the facade to
//! its child, so a module that names `crate::facade::Item` depends on every
//! module the facade re-exports from. A submodule naming its parent's items
//! is no edge: the parent owns it. Shared by the engine's and the binding's
//! `tests/no_cycles.rs`.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

/// Panics with every cycle among the modules of the crate whose sources
/// are in `src`, each with the lines that close it.
pub fn assert_no_cycles(src: &Path) {
    let graph = module_graph(src);
    let cycles = cycles(&graph);
    if cycles.is_empty() {
        return;
    }
    let mut report = String::new();
    for component in &cycles {
        report.push_str(&format!("cycle among: {}\n", component.join(", ")));
        for from in component {
            for (to, sites) in &graph[from] {
                if component.contains(to) {
                    report.push_str(&format!("  {from} -> {to}: {}\n", sites.join(", ")));
                }
            }
        }
    }
    panic!(
        "{} module cycle(s) in {}:\n{report}",
        cycles.len(),
        src.display()
    );
}

/// The modules of each cycle among the modules of the crate whose sources
/// are in `src`, each cycle's names sorted.
#[allow(dead_code)] // used by the engine's fixture tests, not the binding's
pub fn find_cycles(src: &Path) -> Vec<Vec<String>> {
    cycles(&module_graph(src))
}

/// Module → module it names → where (`file:line`).
type Graph = BTreeMap<String, BTreeMap<String, Vec<String>>>;

fn module_graph(src: &Path) -> Graph {
    let files = rust_files(src);
    let modules: BTreeMap<String, PathBuf> = files
        .iter()
        .filter_map(|file| module_name(src, file).map(|name| (name, file.clone())))
        .collect();
    let mut graph = Graph::new();
    for (module, file) in &modules {
        let text = fs::read_to_string(file).unwrap();
        let code = strip_comments_and_strings(&text);
        let edges = graph.entry(module.clone()).or_default();
        for (offset, path) in module_paths(&code, module, &modules) {
            let Some(target) = longest_module(&modules, &path) else {
                continue;
            };
            if target == *module || module.starts_with(&format!("{target}::")) {
                // A module using itself, or a child naming its parent's
                // items (which the parent declares it with), is no cycle.
                continue;
            }
            let line = code[..offset].matches('\n').count() + 1;
            let relative = file.strip_prefix(src).unwrap_or(file);
            let site = format!("{}:{line}", relative.display());
            let sites = edges.entry(target).or_default();
            if !sites.contains(&site) {
                sites.push(site);
            }
        }
    }
    graph
}

fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut entries: Vec<_> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            out.extend(rust_files(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
    out
}

/// `a/b.rs` and `a/b/mod.rs` are `a::b`; the crate root has no name, as
/// every module is declared in it.
fn module_name(src: &Path, file: &Path) -> Option<String> {
    let relative = file.strip_prefix(src).ok()?.with_extension("");
    let mut parts: Vec<String> = relative
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if parts.last().is_some_and(|p| p == "mod") {
        parts.pop();
    }
    if parts == ["lib"] || parts == ["main"] || parts.is_empty() {
        return None;
    }
    Some(parts.join("::"))
}

/// The longest module that `path` (segments after `crate::`) starts with.
fn longest_module(modules: &BTreeMap<String, PathBuf>, path: &[String]) -> Option<String> {
    (1..=path.len())
        .rev()
        .map(|n| path[..n].join("::"))
        .find(|name| modules.contains_key(name))
}

/// Every path in `code` (the source of `module`) that names a module of
/// the crate, as segments from the crate root, with the byte offset where
/// it starts: paths that start with `crate::`, and those relative to
/// `module` (`self::`, `super::`, a submodule's name), groups
/// (`crate::a::{b, c::d}`) expanded.
fn module_paths(
    code: &str,
    module: &str,
    modules: &BTreeMap<String, PathBuf>,
) -> Vec<(usize, Vec<String>)> {
    let here: Vec<String> = module.split("::").map(str::to_owned).collect();
    let children: Vec<&str> = modules
        .keys()
        .filter_map(|name| name.strip_prefix(module)?.strip_prefix("::"))
        .filter(|rest| !rest.contains("::"))
        .collect();
    let bytes = code.as_bytes();
    let mut out = Vec::new();
    let mut at = 0;
    while let Some(found) = code[at..].find("::") {
        let colons = at + found;
        let start = (0..colons)
            .rev()
            .take_while(|&i| is_ident_byte(Some(bytes[i])))
            .last()
            .unwrap_or(colons);
        let before = start.checked_sub(1).map(|i| bytes[i]);
        if start == colons || is_ident_byte(before) || before == Some(b':') {
            // No head here (`::` after `>` or `)`), or the middle of a
            // path whose head was read already.
            at = colons + 2;
            continue;
        }
        let mut paths = Vec::new();
        let end = parse_tree(code, start, Vec::new(), &mut paths);
        at = end.max(colons + 2);
        for path in paths {
            let absolute = match path[0].as_str() {
                "crate" => path[1..].to_vec(),
                "self" => [&here[..], &path[1..]].concat(),
                "super" => {
                    let ups = path.iter().take_while(|s| *s == "super").count();
                    let Some(kept) = here.len().checked_sub(ups) else {
                        continue;
                    };
                    [&here[..kept], &path[ups..]].concat()
                }
                head if children.contains(&head) => [&here[..], &path[..]].concat(),
                _ => continue,
            };
            out.push((start, absolute));
        }
    }
    out
}

/// Parses a use tree at `at` (after a `::`), below `prefix`; returns where
/// it ends.
fn parse_tree(code: &str, mut at: usize, prefix: Vec<String>, out: &mut Vec<Vec<String>>) -> usize {
    let bytes = code.as_bytes();
    let skip_space = |mut i: usize| {
        while i < bytes.len() && bytes[i].is_ascii_whitespace() {
            i += 1;
        }
        i
    };
    at = skip_space(at);
    if bytes.get(at) == Some(&b'{') {
        at += 1;
        loop {
            at = skip_space(at);
            match bytes.get(at) {
                None => return at,
                Some(b'}') => return at + 1,
                Some(b',') => at += 1,
                Some(_) => {
                    let end = parse_tree(code, at, prefix.clone(), out);
                    if end == at {
                        return at;
                    }
                    at = end;
                }
            }
        }
    }
    let mut path = prefix;
    loop {
        let start = at;
        while at < bytes.len() && (bytes[at].is_ascii_alphanumeric() || bytes[at] == b'_') {
            at += 1;
        }
        if at == start {
            break;
        }
        path.push(code[start..at].to_owned());
        if code[at..].starts_with("::") {
            at += 2;
            if bytes.get(skip_space(at)) == Some(&b'{') {
                return parse_tree(code, at, path, out);
            }
        } else {
            break;
        }
    }
    if !path.is_empty() {
        out.push(path);
    }
    at
}

/// The code with comments and the contents of string and character
/// literals blanked out (newlines kept, so offsets still give lines).
fn strip_comments_and_strings(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = bytes.to_vec();
    let blank = |out: &mut Vec<u8>, range: std::ops::Range<usize>| {
        for b in &mut out[range] {
            if *b != b'\n' {
                *b = b' ';
            }
        }
    };
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                let end = text[i..].find('\n').map_or(bytes.len(), |n| i + n);
                blank(&mut out, i..end);
                i = end;
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                let mut depth = 0;
                let mut j = i;
                while j < bytes.len() {
                    if text[j..].starts_with("/*") {
                        depth += 1;
                        j += 2;
                    } else if text[j..].starts_with("*/") {
                        depth -= 1;
                        j += 2;
                        if depth == 0 {
                            break;
                        }
                    } else {
                        j += 1;
                    }
                }
                blank(&mut out, i..j);
                i = j;
            }
            b'r' if matches!(bytes.get(i + 1), Some(b'"' | b'#'))
                && !is_ident_byte(i.checked_sub(1).map(|p| bytes[p])) =>
            {
                let hashes = bytes[i + 1..].iter().take_while(|&&b| b == b'#').count();
                if bytes.get(i + 1 + hashes) != Some(&b'"') {
                    i += 1;
                    continue;
                }
                let close = format!("\"{}", "#".repeat(hashes));
                let body = i + 2 + hashes;
                let end = text[body..]
                    .find(&close)
                    .map_or(bytes.len(), |n| body + n + close.len());
                blank(&mut out, i..end);
                i = end;
            }
            b'"' => {
                let mut j = i + 1;
                while j < bytes.len() && bytes[j] != b'"' {
                    j += if bytes[j] == b'\\' { 2 } else { 1 };
                }
                let end = (j + 1).min(bytes.len());
                blank(&mut out, i..end);
                i = end;
            }
            b'\'' => {
                // A character literal, not a lifetime: `'x'`, `'\n'`, `'\u{1F600}'`.
                let rest = &text[i + 1..];
                let len = if rest.starts_with('\\') {
                    rest.find('\'').map(|n| n + 2)
                } else {
                    rest.chars()
                        .next()
                        .filter(|c| rest[c.len_utf8()..].starts_with('\''))
                        .map(|c| c.len_utf8() + 2)
                };
                match len {
                    Some(len) => {
                        blank(&mut out, i..i + len);
                        i += len;
                    }
                    None => i += 1,
                }
            }
            _ => i += 1,
        }
    }
    String::from_utf8(out).unwrap_or_else(|_| text.to_owned())
}

fn is_ident_byte(b: Option<u8>) -> bool {
    b.is_some_and(|b| b.is_ascii_alphanumeric() || b == b'_')
}

/// The modules of each strongly connected component of more than one
/// module: each of them reaches every other and is reached back.
fn cycles(graph: &Graph) -> Vec<Vec<String>> {
    let nodes: Vec<&String> = graph.keys().collect();
    let index_of: BTreeMap<&String, usize> =
        nodes.iter().enumerate().map(|(i, n)| (*n, i)).collect();
    let successors: Vec<Vec<usize>> = nodes
        .iter()
        .map(|n| {
            graph[*n]
                .keys()
                .filter_map(|t| index_of.get(t).copied())
                .collect()
        })
        .collect();
    strongly_connected(&successors)
        .into_iter()
        .filter(|c| c.len() > 1)
        .map(|c| c.into_iter().map(|i| nodes[i].clone()).collect())
        .collect()
}

/// Tarjan's algorithm, iterative.
fn strongly_connected(successors: &[Vec<usize>]) -> Vec<Vec<usize>> {
    let n = successors.len();
    let mut index = vec![usize::MAX; n];
    let mut low = vec![0; n];
    let mut on_stack = vec![false; n];
    let mut stack = Vec::new();
    let mut next = 0;
    let mut components = Vec::new();
    for root in 0..n {
        if index[root] != usize::MAX {
            continue;
        }
        let mut work = vec![(root, 0usize)];
        while let Some(&mut (v, ref mut child)) = work.last_mut() {
            if *child == 0 && index[v] == usize::MAX {
                index[v] = next;
                low[v] = next;
                next += 1;
                stack.push(v);
                on_stack[v] = true;
            }
            if let Some(&w) = successors[v].get(*child) {
                *child += 1;
                if index[w] == usize::MAX {
                    work.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            work.pop();
            if let Some(&(parent, _)) = work.last() {
                low[parent] = low[parent].min(low[v]);
            }
            if low[v] == index[v] {
                let mut component = Vec::new();
                while let Some(w) = stack.pop() {
                    on_stack[w] = false;
                    component.push(w);
                    if w == v {
                        break;
                    }
                }
                component.sort_unstable();
                components.push(component);
            }
        }
    }
    components
}
