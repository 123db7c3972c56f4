//! The floor of a view, measured apart from everything else a view does:
//! the engine's own hashing of every line's HASH and ANCHOR (two SHA-1 per
//! line, in the lanes a view hashes them in: `internals::each_line`) split
//! over all cores, each thread writing its lines as
//! `LINE#HASH#ANCHOR|content\n` into a string of its own, and the parts
//! joined into one string. No file read, no REV, no line cut, no JS.
//!
//! Usage: peers-floor [--reps N] FILE
//! Prints one JSON object: the median, min and max wall time in nanoseconds.

use hashline::internals::each_line;
use hashline::{Document, Tag};
use hashline_bench_floor::args;
use std::fmt::Write;
use std::hint::black_box;
use std::time::Instant;

/// Three hex digits through a table: `fmt` would cost more than the hashing.
fn push_tag(out: &mut String, tag: Tag) {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    let bits = usize::from(tag.bits());
    for shift in [8, 4, 0] {
        out.push(char::from(HEX[(bits >> shift) & 0xF]));
    }
}

fn render(doc: &Document, range: std::ops::Range<usize>) -> String {
    let bytes: usize = range.clone().map(|i| doc.line(i).len() + 16).sum();
    let mut out = String::with_capacity(bytes);
    each_line(doc, range, true, |i, words| {
        let _ = write!(out, "{}#", i + 1);
        push_tag(&mut out, words.hash());
        out.push('#');
        push_tag(&mut out, words.anchor());
        out.push('|');
        out.push_str(doc.line(i));
        out.push('\n');
    });
    out
}

fn view(doc: &Document, threads: usize) -> String {
    let n = doc.line_count();
    let chunk = n.div_ceil(threads).max(1);
    let parts: Vec<String> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..n)
            .step_by(chunk)
            .map(|start| s.spawn(move || render(doc, start..(start + chunk).min(n))))
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("a floor thread finished"))
            .collect()
    });
    let mut out = String::with_capacity(parts.iter().map(String::len).sum());
    for part in &parts {
        out.push_str(part);
    }
    out
}

fn main() {
    let args = args(21, &[]);
    let reps = args.reps;
    let file = args
        .files
        .into_iter()
        .next()
        .expect("usage: peers-floor [--reps N] FILE");
    let bytes = std::fs::read(&file).expect("the file is readable");
    let doc = Document::from_bytes(&bytes).expect("the file is UTF-8 text");
    let threads = std::thread::available_parallelism().map_or(1, usize::from);
    black_box(view(&doc, threads));
    let mut samples: Vec<u128> = (0..reps)
        .map(|_| {
            let start = Instant::now();
            black_box(view(&doc, threads).len());
            start.elapsed().as_nanos()
        })
        .collect();
    samples.sort_unstable();
    println!(
        "{{\"lines\":{},\"bytes\":{},\"threads\":{threads},\"reps\":{reps},\"medianNs\":{},\"minNs\":{},\"maxNs\":{},\"viewBytes\":{}}}",
        doc.line_count(),
        bytes.len(),
        samples[samples.len() / 2],
        samples[0],
        samples[samples.len() - 1],
        view(&doc, threads).len()
    );
}
