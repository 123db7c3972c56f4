//! Shared by the fuzz targets; the property tests include `model.rs` too.

pub mod model;
