//! Unstable internals for the fuzz targets, the benchmarks' floors and the
//! crate's own property tests: the edit of one document without a session,
//! the line map it records, the file primitives, the digests of many lines
//! at once (what a view hashes), and the reference model
//! the invariants are checked against. Behind the `internals` feature; no
//! compatibility is promised.

#![allow(missing_docs)]

pub mod model;

pub use crate::edit::{prepare, EditInput, Edited, Prepared};
pub use crate::file::{load, replace_atomically, Root};
pub use crate::known::Words;
pub use crate::remap::LineMap;
pub use crate::tags::each_line;
