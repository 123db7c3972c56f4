//! A problem a change brought into a file, as data: hosts show it the way
//! an editor shows a diagnostic, and a refused edit's error carries it.

use crate::syntax::language::Language;

/// How bad a problem is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Severity {
    /// The file no longer compiles or parses.
    Error,
    /// Worth a look; the file still works.
    Warning,
}

/// A problem a change brought into the file, with where it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// 0-based line of the new version.
    pub line: usize,
    /// 0-based character offsets in that line, end exclusive.
    pub column: usize,
    /// End of the problem in that line (exclusive).
    pub end_column: usize,
    /// How bad it is.
    pub severity: Severity,
    /// What is wrong, for the model.
    pub message: String,
    /// The line's ref, for an edit that fixes it.
    pub reference: String,
    /// For a parse the edit broke, the language it was parsed as.
    pub syntax: Option<Language>,
}
