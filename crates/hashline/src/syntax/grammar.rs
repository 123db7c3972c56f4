//! The compiled grammars, whose parse tables the binary holds deflated (see
//! the crate's `build.rs`): a grammar's tables are expanded into its
//! zero-initialised arrays the first time it is used, once per process.

// A build with no grammar feature has no grammar to use this with.
#![cfg_attr(not(grammars), allow(dead_code))]

use std::sync::Once;

use tree_sitter_language::LanguageFn;

/// A parse table as stored: deflated little-endian `u16`s, and how many.
struct Table {
    deflated: &'static [u8],
    len: usize,
}

/// One grammar compiled by the build script.
pub(super) struct Grammar {
    language: unsafe extern "C" fn() -> *const (),
    /// Where the grammar's two parse tables are, in its C object.
    tables: unsafe extern "C" fn(*mut *mut u16, *mut *mut u16),
    parse: Table,
    small: Table,
    ready: Once,
}

impl Grammar {
    /// The language, its tables expanded if this is its first use.
    pub(super) fn language(&self) -> tree_sitter::Language {
        self.ready.call_once(|| {
            let mut parse = std::ptr::null_mut();
            let mut small = std::ptr::null_mut();
            // SAFETY: the function only reports the addresses of the
            // grammar's two static arrays, of the lengths the build script
            // wrote next to the deflated tables. Nothing reads them before
            // `ready` completes, and nothing but this writes them.
            unsafe {
                (self.tables)(&mut parse, &mut small);
                expand(&self.parse, parse);
                expand(&self.small, small);
            }
        });
        // SAFETY: the function is a grammar's generated language function.
        unsafe { LanguageFn::from_raw(self.language) }.into()
    }
}

/// Inflates `table` into the `table.len` entries at `into`.
///
/// # Safety
///
/// `into` must point to `table.len` writable `u16`s nobody else accesses.
unsafe fn expand(table: &Table, into: *mut u16) {
    // SAFETY: the caller's promise, seen as bytes.
    let bytes = unsafe { std::slice::from_raw_parts_mut(into.cast::<u8>(), table.len * 2) };
    let written = miniz_oxide::inflate::decompress_slice_iter_to_slice(
        bytes,
        std::iter::once(table.deflated),
        false,
        true,
    );
    assert_eq!(
        written.ok(),
        Some(table.len * 2),
        "a grammar's parse table did not expand to its size"
    );
    // SAFETY: the caller's promise.
    let entries = unsafe { std::slice::from_raw_parts_mut(into, table.len) };
    for entry in entries {
        *entry = u16::from_le(*entry);
    }
}

include!(concat!(env!("OUT_DIR"), "/grammars.rs"));
