//! Any batch against any file: the bytes decode into a file (text or not)
//! and a request (valid or not); the engine never panics, fails exactly
//! when and how the reference model says, and otherwise writes bytes that
//! read back as the model's lines, keeps every untouched line's bytes,
//! records an exact line map, and finds an untouched line again by its
//! stale ref.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::path::PathBuf;
use std::sync::OnceLock;

/// One folder for the whole run; each case rewrites its one file there.
fn scratch() -> &'static PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("hashline-fuzz-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir
    })
}

fuzz_target!(|data: &[u8]| {
    let case = hashline_fuzz::model::case(data);
    hashline_fuzz::model::check_pure(&case);
    hashline_fuzz::model::check_cleanup(&case);
    hashline_fuzz::model::check_session(&case, scratch());
});
