//! Refs, REVs, views and edit results stay byte for byte what they were:
//! a varied corpus (every line length around the SHA-1 block boundaries,
//! trailing white space, non-ASCII text, CRLF and BOM files, long and
//! duplicate lines, views large enough to be rendered on several threads)
//! is viewed and edited, and the SHA-1 of everything shown is compared with
//! the digest recorded from the engine before its hashing was made faster.
//! Any drift in what a ref, a REV or a view is fails here.

use crate::{
    anchor_hash, apply_to_text, format_view_with, line_hash, pair_tag, rev, FormatViewOptions,
    Hashline, OpKind, Operation, Options, ReadOptions, Ref, Request, SyntaxCheck, ViewStyle,
};
use sha1::{Digest, Sha1};
use std::fmt::Write;

/// A small deterministic generator (64-bit LCG), so the corpus is the same
/// on every run and every platform.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        self.0 >> 33
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// A line of `len` bytes or about (a multi-byte character may add up to
/// three), mixing code-like ASCII, indentation, trailing spaces and tabs,
/// and non-ASCII characters.
fn line(rng: &mut Lcg, len: usize) -> String {
    const PIECES: &[&str] = &[
        "a", "b", "x", "=", " ", "(", ")", ";", "{", "}", "é", "日", "🎉", "\t", "0", "_", ".",
    ];
    let mut out = String::new();
    if rng.below(3) == 0 {
        out.push_str(&"  ".repeat(rng.below(4)));
    }
    while out.len() < len {
        out.push_str(PIECES[rng.below(PIECES.len())]);
    }
    match rng.below(6) {
        0 => out.push_str("  "),
        1 => out.push('\t'),
        _ => {}
    }
    out
}

/// The corpus's files: lines of every length 0..200 and around the 55, 56
/// and 64-byte boundaries (alone and as neighbours), duplicates, a line past
/// the view's cut, empty lines, a file without a final newline.
fn corpus() -> Vec<String> {
    let mut rng = Lcg(0x5eed);
    let mut files = Vec::new();
    let every: Vec<String> = (0..200).map(|len| line(&mut rng, len)).collect();
    files.push(every.join("\n") + "\n");
    let mut around = Vec::new();
    for len in [
        0, 1, 53, 54, 55, 56, 57, 63, 64, 65, 119, 120, 127, 128, 129,
    ] {
        for _ in 0..3 {
            around.push("q".repeat(len));
            around.push(line(&mut rng, len));
        }
    }
    files.push(around.join("\n"));
    let mut mixed: Vec<String> = (0..300)
        .map(|_| match rng.below(8) {
            0 => String::new(),
            1 => "}".to_owned(),
            2 => "    return x;".to_owned(),
            _ => {
                let len = rng.below(90);
                line(&mut rng, len)
            }
        })
        .collect();
    mixed[17] = "é".repeat(2100);
    mixed[40] = "w".repeat(5000);
    files.push(mixed.join("\n") + "\n");
    files.push(String::new());
    files.push("\n".to_owned());
    files.push("only line without newline".to_owned());
    files
}

/// A file long enough that its views are rendered on several threads.
fn large() -> String {
    let mut rng = Lcg(7);
    (0..40_000)
        .map(|i| {
            let len = rng.below(70);
            format!("{}{}\n", line(&mut rng, len), i % 11)
        })
        .collect()
}

fn digest(text: &str) -> String {
    hex::encode_upper(Sha1::digest(text.as_bytes()))
}

fn options(offset: Option<usize>, limit: Option<usize>, view: ViewStyle) -> FormatViewOptions {
    FormatViewOptions {
        offset,
        limit,
        view,
    }
}

#[test]
fn the_hashes_of_lines_of_every_length_are_what_they_were() {
    let mut rng = Lcg(42);
    let mut all = String::new();
    for len in 0..300 {
        for _ in 0..4 {
            let a = line(&mut rng, len);
            let (lb, lc) = (rng.below(130), rng.below(130));
            let b = line(&mut rng, lb);
            let c = line(&mut rng, lc);
            let _ = writeln!(
                all,
                "{} {} {} {} {:?}",
                line_hash(&a),
                anchor_hash(Some(&b), &a, Some(&c)),
                anchor_hash(None, &a, None),
                rev(&a),
                pair_tag(len, &a)
            );
        }
    }
    assert_eq!(digest(&all), "37FAA68D945EEB7E703BC6C64425C6AD49C848B5");
}

#[test]
fn views_of_every_style_range_and_size_are_what_they_were() {
    let mut all = String::new();
    for text in corpus() {
        for view in [ViewStyle::Full, ViewStyle::Lean] {
            for (offset, limit) in [(None, None), (Some(2), Some(7)), (Some(55), Some(100))] {
                match format_view_with(text.as_str(), "dir/f.ts", &options(offset, limit, view)) {
                    Ok(v) => all.push_str(&v.text),
                    Err(e) => all.push_str(&e.message),
                }
            }
        }
    }
    assert_eq!(digest(&all), "ED2F505C385D97CF831907E387AB361C3EBF53D8");
    let text = large();
    let mut all = String::new();
    for view in [ViewStyle::Full, ViewStyle::Lean] {
        for (offset, limit) in [(None, Some(usize::MAX)), (Some(3), Some(30_000))] {
            all.push_str(
                &format_view_with(text.as_str(), "big.ts", &options(offset, limit, view))
                    .unwrap()
                    .text,
            );
        }
    }
    assert_eq!(digest(&all), "ED326C77084F20DB562ECE3FB836AB4FCEFCA3CE");
}

#[test]
fn reads_of_files_with_every_line_ending_are_what_they_were() {
    let dir = tempfile::tempdir().unwrap();
    let mut all = String::new();
    for (k, text) in corpus().into_iter().chain([large()]).enumerate() {
        for (name, bytes) in [
            (format!("lf{k}.ts"), text.clone().into_bytes()),
            (
                format!("crlf{k}.ts"),
                format!("\u{FEFF}{}", text.replace('\n', "\r\n")).into_bytes(),
            ),
        ] {
            std::fs::write(dir.path().join(&name), bytes).unwrap();
            for view in [ViewStyle::Full, ViewStyle::Lean] {
                let session = Hashline::new(Options::new(dir.path())).unwrap();
                for offset in [None, Some(3)] {
                    let read = session.read_with(
                        &name,
                        &ReadOptions {
                            offset,
                            limit: Some(50_000),
                            view: Some(view),
                            ..Default::default()
                        },
                    );
                    match read {
                        Ok(r) => all.push_str(&r.view.text),
                        Err(e) => all.push_str(&e.message),
                    }
                }
            }
        }
    }
    assert_eq!(digest(&all), "1712E9CD8B3E0E91452C113C102A97EE0DE1F09B");
}

/// Replaces every `step`-th line (from `first`) with new text, deletes the
/// line after it and inserts one before the next.
fn request(doc: &crate::Document, first: usize, step: usize) -> Request {
    let mut operations = Vec::new();
    let n = doc.line_count();
    let mut at = first;
    while at + 2 < n {
        let r = |i: usize| Ref::of_line(doc, i).to_string();
        operations.push(Operation::new(
            OpKind::Replace,
            Some(&r(at)),
            None,
            &format!("changed {at}\n  and {at}"),
        ));
        operations.push(Operation::new(OpKind::Delete, Some(&r(at + 1)), None, ""));
        operations.push(Operation::new(
            OpKind::InsertBefore,
            Some(&r(at + 2)),
            None,
            &format!("inserted {at}"),
        ));
        at += step;
    }
    Request::Operations {
        operations,
        rev: None,
    }
}

#[test]
fn edit_results_and_their_diffs_are_what_they_were() {
    let mut all = String::new();
    for (k, text) in corpus().into_iter().chain([large()]).enumerate() {
        let doc = crate::Document::from_text(&text);
        if doc.line_count() < 4 {
            continue;
        }
        let step = (doc.line_count() / 5).max(4);
        let (out, edited) = apply_to_text(&text, &request(&doc, 1, step), false).unwrap();
        let _ = write!(
            all,
            "{k}\n{}{}{}{}{}",
            edited.previous_rev, edited.rev, edited.summary.output, edited.summary.diff, out
        );
    }
    assert_eq!(digest(&all), "57B4B25A05E13F55B786BA78930EB67C2C5F9F42");
    let dir = tempfile::tempdir().unwrap();
    let mut all = String::new();
    for view in [ViewStyle::Full, ViewStyle::Lean] {
        for (k, text) in corpus().into_iter().enumerate() {
            let name = format!("e{k}.ts");
            let file = dir.path().join(&name);
            std::fs::write(&file, text.replace('\n', "\r\n")).unwrap();
            let mut options = Options::new(dir.path());
            options.view = view;
            // The background parse may finish or not before the edit.
            options.syntax = SyntaxCheck::Off;
            let session = Hashline::new(options).unwrap();
            let read = session
                .read_with(
                    &name,
                    &ReadOptions {
                        limit: Some(10_000),
                        ..Default::default()
                    },
                )
                .unwrap();
            all.push_str(&read.view.text);
            let doc = crate::Document::from_bytes(&std::fs::read(&file).unwrap()).unwrap();
            if doc.line_count() < 4 {
                continue;
            }
            let step = (doc.line_count() / 3).max(4);
            for first in [0, 2] {
                match session.edit(&name, &request(&doc, first, step)) {
                    Ok(r) => {
                        let _ = write!(all, "{}{}{}{}", r.previous_rev, r.rev, r.output, r.diff);
                    }
                    Err(e) => all.push_str(&e.message),
                }
            }
        }
    }
    assert_eq!(digest(&all), "24277BD4F9FF18AA337E8C8EB95DA4914A2887A5");
}
