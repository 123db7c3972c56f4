//! Search: the lines under the root that match a pattern, each tagged with
//! its ref, so an edit can cite a hit without reading the file first.
//!
//! ripgrep's own crates do the work: `ignore` walks the tree in parallel
//! (honouring `.gitignore` and `.ignore`, skipping hidden files) with
//! `globset` globs through its overrides, and `grep-regex` with
//! `grep-searcher` match in time linear in the input, whatever the pattern.
//! Every file is opened beneath the root's handle, so a folder swapped for a
//! link cannot lead a read outside it.

use crate::cancel::Cancel;
use crate::document::Document;
use crate::error::{plural, Error, ErrorCode, Result};
use crate::reference::Ref;
use crate::session::Hashline;
use crate::store::Sight;
use crate::view::{push_line, ViewStyle, MAX_LINE_CHARS};
use cap_fs_ext::{FollowSymlinks, OpenOptionsFollowExt, OpenOptionsSyncExt};
use grep_regex::{RegexMatcher, RegexMatcherBuilder};
use grep_searcher::{Searcher, SearcherBuilder, Sink, SinkMatch};
use ignore::overrides::{Override, OverrideBuilder};
use ignore::{WalkBuilder, WalkState};
use std::fmt::Write as _;
use std::io::{self, Read};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

mod query;
mod render;
#[cfg(test)]
mod tests;
mod walk;

use query::{matcher, overrides};
use render::{display, render};
use walk::{seen_ranges, FileHits};

/// Hits shown when the caller sets no limit.
pub const DEFAULT_MAX_RESULTS: usize = 100;
/// Skipped files named per reason; the rest are only counted.
const NAMED_SKIPS: usize = 3;

/// What to search for, and where.
///
/// ```
/// let options = hashline::SearchOptions::new("fn main");
/// assert_eq!(options.pattern, "fn main");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchOptions {
    /// A Rust regular expression, or a literal with `fixed_strings`.
    pub pattern: String,
    /// Files or folders to search, relative to the root or absolute inside
    /// it; none means the whole root.
    pub paths: Vec<String>,
    /// Globs a file must match (one of them) to be searched; gitignore
    /// syntax relative to the root, where a leading `!` excludes.
    pub include: Vec<String>,
    /// Globs of files and folders not to search.
    pub exclude: Vec<String>,
    /// Match regardless of case.
    pub ignore_case: bool,
    /// Take the pattern as a literal string.
    pub fixed_strings: bool,
    /// Match only whole words.
    pub word: bool,
    /// Show the lines that do not match instead.
    pub invert: bool,
    /// Also search hidden files and folders (a `.git` folder only if named).
    pub hidden: bool,
    /// Hits shown at most; the walk stops once more are found.
    pub max_results: usize,
    /// Lines shown before and after each hit.
    pub context: usize,
}

impl SearchOptions {
    /// Options for `pattern` over the whole root, with the defaults.
    pub fn new(pattern: impl Into<String>) -> SearchOptions {
        SearchOptions {
            pattern: pattern.into(),
            paths: Vec::new(),
            include: Vec::new(),
            exclude: Vec::new(),
            ignore_case: false,
            fixed_strings: false,
            word: false,
            invert: false,
            hidden: false,
            max_results: DEFAULT_MAX_RESULTS,
            context: 0,
        }
    }
}

/// A line shown by a search, with its ref in the file's current version.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchLine {
    /// 1-based.
    pub line: usize,
    /// The line's ref, in the session's view style, as the text shows it.
    pub reference: String,
    /// The line, cut at `MAX_LINE_CHARS` characters when longer.
    pub text: String,
    /// Whether the text was cut.
    pub truncated: bool,
}

/// A matching line with its context.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchHit {
    /// Relative to the root, with `/` between folders.
    pub path: String,
    /// The REV of the file searched.
    pub rev: String,
    /// The line that matched.
    pub line: SearchLine,
    /// Context lines, nearest last.
    pub before: Vec<SearchLine>,
    /// Context lines after it, nearest first.
    pub after: Vec<SearchLine>,
}

/// Files the search passed over, by reason.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Skipped {
    /// Files holding a NUL byte.
    pub binary: usize,
    /// Files that are not UTF-8.
    pub not_utf8: usize,
    /// Files over the size limit.
    pub too_large: usize,
    /// Files and folders the system would not let us read.
    pub unreadable: usize,
    /// A few of them by name, sorted.
    pub files: Vec<SkippedFile>,
}

/// A file the search passed over.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkippedFile {
    /// Relative to the root.
    pub path: String,
    /// `Binary`, `NotUtf8`, `TooLarge`, or `Permission` for one that could
    /// not be read.
    pub reason: ErrorCode,
}

/// The hits of a search, with refs, and what it passed over.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchResult {
    /// What the model reads.
    pub text: String,
    /// Sorted by path, then line.
    pub hits: Vec<SearchHit>,
    /// Files with hits shown.
    pub files: usize,
    /// Hits found beyond the limit and not shown; when non-zero the walk
    /// stopped there, so there may be more still.
    pub more: usize,
    /// Files passed over.
    pub skipped: Skipped,
}

impl SearchResult {
    /// Whether the search stopped at the limit.
    pub fn stopped(&self) -> bool {
        self.more > 0
    }
}
