//! Shared by the fuzz targets: the engine's reference model, which the
//! crate's own property tests check too.

pub use hashline::internals::model;
