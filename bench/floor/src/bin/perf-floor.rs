//! The Rust side of the benchmark. For each file named on the command line:
//! the hashing floor of a view (the engine's own `line_hash` and
//! `anchor_hash` over every line: two SHA-1 per line, no formatting, no
//! allocation per line), on one core and split over all cores; the parts of
//! a load (read, split, REV); and the engine's whole `read` and, with
//! `--batch`, its whole `edit` of the runner's 100-operation batch, called
//! from Rust, so that the runner can tell what crossing into JS costs.
//! Prints one JSON object per file: for each measure `<name>Ns`, the median
//! wall time, and `<name>CpuNs`, the median CPU time of the process (all
//! threads), in nanoseconds.
//!
//! Usage: perf-floor [--reps N] [--batch] FILE...
//! With `--batch` each FILE is edited and restored after every repetition.

use hashline::internals::{load, replace_atomically, Root};
use hashline::{anchor_hash, line_hash};
use hashline::{rev, Cancel, Document};
use hashline_bench_floor::{args, batch, cpu_ns, median, session, time, Timing, LIMIT};
use std::io::Write;
use std::path::Path;
use std::time::Duration;

/// Both digests of lines `range` of `lines`, folded so nothing is optimised away.
fn hash_lines(lines: &[&str], range: std::ops::Range<usize>) -> u64 {
    let mut acc = 0u64;
    for i in range {
        let prev = i.checked_sub(1).map(|p| lines[p]);
        let next = lines.get(i + 1).copied();
        acc = acc.wrapping_add(u64::from(line_hash(lines[i]).bits()));
        acc = acc.wrapping_add(u64::from(anchor_hash(prev, lines[i], next).bits()));
    }
    acc
}

/// `"<name>Ns":wall,"<name>CpuNs":cpu`
fn field(name: &str, t: Timing) -> String {
    format!("\"{name}Ns\":{},\"{name}CpuNs\":{}", t.wall, t.cpu)
}

fn main() {
    let args = args(15, &["--batch"]);
    let (reps, with_batch, files) = (args.reps, !args.flags.is_empty(), args.files);
    let threads = std::thread::available_parallelism().map_or(1, usize::from);
    for file in files {
        let path = Path::new(&file);
        let bytes = std::fs::read(path).expect("the file is readable");
        let read = time(reps, || {
            std::fs::read(path).expect("the file is readable").len()
        });
        let doc = Document::from_bytes(&bytes).expect("the file is UTF-8 text");
        let split = time(reps, || {
            Document::from_bytes(&bytes).map(|d| d.line_count()).ok()
        });
        let rev_time = time(reps, || rev(doc.text()));
        let lines: Vec<&str> = doc.lines().collect();
        let n = lines.len();
        let hash = time(reps, || hash_lines(&lines, 0..n));
        let parallel = time(reps, || {
            let chunk = n.div_ceil(threads).max(1);
            std::thread::scope(|s| {
                let handles: Vec<_> = (0..n)
                    .step_by(chunk)
                    .map(|start| {
                        let lines = &lines;
                        s.spawn(move || hash_lines(lines, start..(start + chunk).min(n)))
                    })
                    .collect();
                handles
                    .into_iter()
                    .map(|h| h.join().expect("a hashing thread finished"))
                    .fold(0u64, u64::wrapping_add)
            })
        });

        let dir = path.parent().expect("the file is in a folder");
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let session = session(dir);
        let load_time = {
            let target = Root::new(dir).unwrap().resolve(&name, false).unwrap();
            time(reps, || {
                load(&target, LIMIT, false).map(|l| l.doc.line_count()).ok()
            })
        };
        let engine_read = time(reps, || {
            session
                .read_with(
                    &name,
                    &hashline::ReadOptions {
                        limit: Some(n.max(1)),
                        ..Default::default()
                    },
                )
                .map(|r| r.view.text.len())
                .expect("the engine reads the file")
        });
        let mut edit_fields = String::new();
        if with_batch {
            let request = batch(&doc, 100);
            let text = doc.text().to_owned();
            let (_, edited) =
                hashline::apply_to_text(&text, &request, true).expect("the batch applies");
            let plan = time(reps, || {
                hashline::apply_to_text(&text, &request, true)
                    .map(|(t, _)| t.len())
                    .ok()
            });
            let target = Root::new(dir).unwrap().resolve(&name, false).unwrap();
            // Each restore is flushed so that the timed fsync flushes only the edit's own write.
            let restore = || {
                let mut file = std::fs::File::create(path).unwrap();
                file.write_all(&bytes).unwrap();
                file.sync_all().unwrap();
            };
            let mut edits = (Vec::new(), Vec::new());
            let mut writes = (Vec::new(), Vec::new());
            let sample = |f: &mut dyn FnMut()| {
                let cpu = cpu_ns();
                let start = std::time::Instant::now();
                f();
                (start.elapsed().as_nanos(), cpu_ns() - cpu)
            };
            for rep in 0..=reps {
                restore();
                let edit = sample(&mut || {
                    session
                        .edit(&name, &request)
                        .expect("the engine applies the batch");
                });
                restore();
                let base = load(&target, LIMIT, false).unwrap().base;
                let write = sample(&mut || {
                    replace_atomically(
                        &target,
                        &base,
                        &edited.doc.file_bytes(),
                        Duration::from_secs(10),
                        &Cancel::new(),
                        || Ok(()),
                    )
                    .expect("the write succeeds");
                });
                if rep > 0 {
                    edits.0.push(edit.0);
                    edits.1.push(edit.1);
                    writes.0.push(write.0);
                    writes.1.push(write.1);
                }
            }
            restore();
            let edit = Timing {
                wall: median(edits.0),
                cpu: median(edits.1),
            };
            let write = Timing {
                wall: median(writes.0),
                cpu: median(writes.1),
            };
            edit_fields = format!(
                ",{},{},{}",
                field("engineEdit", edit),
                field("planFromText", plan),
                field("atomicWrite", write)
            );
        }
        let fields = [
            field("hash", hash),
            field("hashParallel", parallel),
            field("read", read),
            field("split", split),
            field("rev", rev_time),
            field("load", load_time),
            field("engineRead", engine_read),
        ]
        .join(",");
        println!(
            "{{\"file\":{:?},\"bytes\":{},\"lines\":{n},\"reps\":{reps},\"threads\":{threads},{fields}{edit_fields}}}",
            file,
            bytes.len()
        );
    }
}
