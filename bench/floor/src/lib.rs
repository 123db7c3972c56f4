//! What the floors and the profiling driver share: their command line,
//! timing, an engine rooted at a file's folder, and the benchmark's batch of
//! operations, built exactly as the JS runner builds it so both time the same
//! edit.

use hashline::{Document, Hashline, OpKind, Operation, Options, Ref, Request};
use std::hint::black_box;
use std::path::Path;
use std::time::Instant;

/// Large enough for any benchmark file.
pub const LIMIT: u64 = 1 << 40;

/// A floor's command line: `--reps N`, the flags it names, and file names.
pub struct Args {
    pub reps: usize,
    pub flags: Vec<String>,
    pub files: Vec<String>,
}

/// Reads the command line; `flags` are the switches the binary takes.
pub fn args(default_reps: usize, flags: &[&str]) -> Args {
    let mut out = Args {
        reps: default_reps,
        flags: Vec::new(),
        files: Vec::new(),
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        if arg == "--reps" {
            out.reps = args
                .next()
                .and_then(|n| n.parse().ok())
                .expect("--reps needs a number");
        } else if flags.contains(&arg.as_str()) {
            out.flags.push(arg);
        } else {
            out.files.push(arg);
        }
    }
    out
}

/// An engine rooted at `dir` that reads files of any size and lets a batch
/// cite lines no view showed, as the benchmark's batches do.
pub fn session(dir: &Path) -> Hashline {
    let mut options = Options::new(dir);
    options.max_file_bytes = LIMIT;
    options.seen_guard = false;
    Hashline::new(options).expect("the folder is a root")
}

pub fn median(mut samples: Vec<u128>) -> u128 {
    samples.sort_unstable();
    samples[samples.len() / 2]
}

/// CPU time of the whole process (all threads) in nanoseconds: unlike the
/// wall time of a long call, it does not grow when other processes share
/// the cores.
pub fn cpu_ns() -> u128 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec.
    let ok = unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut ts) } == 0;
    assert!(ok, "the process CPU clock is readable");
    ts.tv_sec as u128 * 1_000_000_000 + ts.tv_nsec as u128
}

/// Median wall and CPU nanoseconds of one call.
#[derive(Debug, Clone, Copy)]
pub struct Timing {
    pub wall: u128,
    pub cpu: u128,
}

/// Times `reps` calls after one warm-up call.
pub fn time<T>(reps: usize, mut f: impl FnMut() -> T) -> Timing {
    black_box(f());
    let (wall, cpu): (Vec<u128>, Vec<u128>) = (0..reps)
        .map(|_| {
            let cpu = cpu_ns();
            let start = Instant::now();
            black_box(f());
            (start.elapsed().as_nanos(), cpu_ns() - cpu)
        })
        .unzip();
    Timing {
        wall: median(wall),
        cpu: median(cpu),
    }
}

/// The runner's batch: `count` operations, one every `n / count` lines,
/// cycling through replace, replace of a range, delete of two lines,
/// insert_before and insert_after, with new content that repeats no line of
/// the file.
pub fn batch(doc: &Document, count: usize) -> Request {
    let n = doc.line_count();
    let refs = |i: usize| Some(Ref::of_line(doc, i).to_string());
    let operations = (0..count)
        .map(|k| {
            let at = ((2 * k + 1) * n) / (2 * count);
            let content =
                format!("    const edited{k} = apply({k}); // édition {k}\n    log({k});\n");
            let (kind, reference, through, content) = match k % 5 {
                0 => (OpKind::Replace, refs(at), None, content),
                1 => (OpKind::Replace, refs(at), refs(at + 3), content),
                2 => (OpKind::Delete, refs(at), refs(at + 1), String::new()),
                3 => (OpKind::InsertBefore, refs(at), None, content),
                _ => (OpKind::InsertAfter, refs(at), None, content),
            };
            Operation::new(kind, reference.as_deref(), through.as_deref(), &content)
        })
        .collect();
    Request::Operations {
        operations,
        rev: None,
    }
}
