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

pub use apply::{FileKind, FileResult, PatchOptions, PatchPlan, PatchResult};

use crate::view::ViewStyle;

/// The style a patch's results and rejections show lines in: a hunk is
/// anchored by the full ref after its `@@`, so the refs it is shown are
/// full ones it can cite there.
const STYLE: ViewStyle = ViewStyle::Full;
pub use parse::paths;
pub(crate) use parse::*;
pub(crate) use place::*;
