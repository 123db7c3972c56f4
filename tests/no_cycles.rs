//! The binding's modules form no cycle, by the engine's check.

#[path = "../crates/hashline/tests/cycles/mod.rs"]
mod cycles;

#[test]
fn the_binding_has_no_module_cycle() {
    let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    cycles::assert_no_cycles(&src);
}
