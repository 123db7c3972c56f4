//! Runs one engine call in a loop inside a plain Rust process, so that it
//! can be profiled (`perf record -g`, `valgrind --tool=callgrind`) without
//! the JS runtime around it.
//!
//! Usage: drive (view | batch) FILE [REPS]
//!   view:  `Hashline::read` of the whole file
//!   batch: `Hashline::edit` with the runner's 100-operation batch, the file
//!          restored before every repetition

use hashline::internals::{load, Root};
use hashline_bench_floor::{batch, session, LIMIT};
use std::hint::black_box;
use std::path::Path;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (mode, file) = match (args.first(), args.get(1)) {
        (Some(mode), Some(file)) => (mode.as_str(), Path::new(file)),
        _ => panic!("usage: drive (view | batch) FILE [REPS]"),
    };
    let reps: usize = args.get(2).and_then(|r| r.parse().ok()).unwrap_or(20);
    let dir = file.parent().expect("the file is in a folder");
    let name = file.file_name().unwrap().to_string_lossy().into_owned();
    let session = session(dir);
    let original = std::fs::read(file).unwrap();
    let target = Root::new(dir).unwrap().resolve(&name, false).unwrap();
    let doc = load(&target, LIMIT, false).unwrap().doc;
    let lines = doc.line_count().max(1);
    match mode {
        "view" => {
            for _ in 0..reps {
                black_box(
                    session
                        .read_with(
                            &name,
                            &hashline::ReadOptions {
                                limit: Some(lines),
                                ..Default::default()
                            },
                        )
                        .unwrap(),
                );
            }
        }
        "batch" => {
            let request = batch(&doc, 100);
            for _ in 0..reps {
                std::fs::write(file, &original).unwrap();
                black_box(session.edit(&name, &request).unwrap());
            }
            std::fs::write(file, &original).unwrap();
        }
        other => panic!("unknown mode {other}: use view or batch"),
    }
}
