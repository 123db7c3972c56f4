//! The engine's modules form no cycle (see `cycles/mod.rs`), and the check
//! finds the cycles that run through a facade's re-exports or a
//! submodule's relative paths.

mod cycles;

use std::path::Path;

#[test]
fn the_engine_has_no_module_cycle() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    cycles::assert_no_cycles(&src);
}

/// A crate's sources in a temporary folder, from (path, text) pairs.
fn sources(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (path, text) in files {
        let file = dir.path().join(path);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(file, text).unwrap();
    }
    dir
}

#[test]
fn a_cycle_through_a_facades_re_export_is_found() {
    let src = sources(&[
        ("lib.rs", "mod a;\nmod b;\n"),
        ("a.rs", "mod inner;\npub use inner::Thing;\n"),
        ("a/inner.rs", "pub struct Thing(pub crate::b::Other);\n"),
        (
            "b.rs",
            "pub struct Other;\npub fn take(_: crate::a::Thing) {}\n",
        ),
    ]);
    assert_eq!(cycles::find_cycles(src.path()), [["a", "a::inner", "b"]]);
    let failed = std::panic::catch_unwind(|| cycles::assert_no_cycles(src.path()));
    let message = *failed.unwrap_err().downcast::<String>().unwrap();
    assert!(message.contains("a -> a::inner: a.rs:2"), "{message}");
}

#[test]
fn a_cycle_through_self_and_super_paths_is_found() {
    let src = sources(&[
        ("lib.rs", "mod a;\nmod b;\n"),
        ("a.rs", "mod x;\nmod y;\npub use self::x::Thing;\n"),
        ("a/x.rs", "pub struct Thing(pub super::y::Other);\n"),
        ("a/y.rs", "pub struct Other(pub crate::b::Last);\n"),
        ("b.rs", "pub struct Last;\nuse crate::a::x::Thing;\n"),
    ]);
    assert_eq!(
        cycles::find_cycles(src.path()),
        [["a::x", "a::y", "b"]],
        "a::x reaches a::y through super::, which reaches b, which names a::x"
    );
}

#[test]
fn a_facade_and_its_users_without_a_way_back_are_no_cycle() {
    let src = sources(&[
        ("lib.rs", "mod a;\nmod b;\n"),
        ("a.rs", "mod inner;\npub use inner::Thing;\n"),
        (
            "a/inner.rs",
            "pub struct Thing;\nuse super::Thing as Again;\n",
        ),
        ("b.rs", "pub fn take(_: crate::a::Thing) {}\n"),
    ]);
    assert!(cycles::find_cycles(src.path()).is_empty());
}
