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

use crate::request::{OpKind, Operation, Request};

/// A request that replaces the line `reference` names with `content`.
pub(crate) fn replace(reference: &str, content: &str) -> Request {
    Request::Operations {
        operations: vec![Operation::new(
            OpKind::Replace,
            Some(reference),
            None,
            content,
        )],
        rev: None,
    }
}
