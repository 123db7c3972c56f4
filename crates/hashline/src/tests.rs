//! Property and scenario tests across modules: the reference model's
//! invariants, line endings, splicing, stale refs against stored versions,
//! transactions across files, the bounds of calls whose work could
//! outgrow their input.

mod bounds;
mod copied_output;
mod invariants;
mod lean_refs;
mod line_endings;
mod model;
mod moves;
mod no_guess;
mod outcomes;
mod recovery;
mod splicing;
mod stored_versions;
mod transactions;
mod views_unchanged;
