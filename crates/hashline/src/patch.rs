//! The `*** Begin Patch` format that OpenCode offers GPT models as
//! `apply_patch` (after Codex): files added, deleted, moved and updated by
//! hunks of context (` `), removed (`-`) and added (`+`) lines. Parsed
//! strictly, so that no line of a patch is silently ignored; each hunk is
//! placed by its lines, exactly or ignoring white space at the ends (then the
//! added lines are re-indented as the `oldString` fallback does), or by the
//! ref after its `@@`, and only where it fits exactly one place.

mod apply;
mod parse;
mod place;
#[cfg(test)]
mod tests;

pub use apply::{FileKind, FileResult, PatchPlan, PatchResult};
pub use parse::paths;
pub(crate) use parse::*;
pub(crate) use place::*;
