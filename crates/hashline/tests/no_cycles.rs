//! The engine's modules form no cycle (see `cycles/mod.rs`).

mod cycles;

#[test]
fn the_engine_has_no_module_cycle() {
    let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    cycles::assert_no_cycles(&src);
}
