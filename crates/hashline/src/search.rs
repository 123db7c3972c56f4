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

impl Hashline {
    /// Searches the files under `options.paths` (default: the root) for
    /// lines matching `options.pattern`. The lines shown count as seen, so
    /// an edit may cite them.
    pub fn search(&self, options: &SearchOptions) -> Result<SearchResult> {
        self.search_with(options, &Cancel::new())
    }

    /// `search`, stopped between files once `cancel` is cancelled: then it
    /// fails with `CANCELLED` and records nothing as seen.
    pub fn search_with(&self, options: &SearchOptions, cancel: &Cancel) -> Result<SearchResult> {
        cancel.check()?;
        if options.max_results == 0 {
            return Err(Error::invalid_request(
                "The limit of hits shown must be at least 1.",
            ));
        }
        let matcher = matcher(options)?;
        let root = self.root().to_path_buf();
        let overrides = overrides(&root, options)?;
        let starts = self.starts(&options.paths)?;
        let dir = cap_std::fs::Dir::open_ambient_dir(&root, cap_std::ambient_authority()).map_err(
            |e| {
                Error::new(
                    ErrorCode::Io,
                    format!("The root {} cannot be opened: {e}", root.display()),
                )
            },
        )?;

        let shared = Shared {
            cancel,
            root: &root,
            dir: &dir,
            max_bytes: self.options.max_file_bytes,
            budget: Budget::new(options.max_results),
            stop: AtomicBool::new(false),
            found: Mutex::new(Vec::new()),
            skipped: Mutex::new(Skipped::default()),
            more: AtomicUsize::new(0),
        };
        let mut walk = WalkBuilder::new(&starts[0].path);
        for start in &starts[1..] {
            walk.add(&start.path);
        }
        walk.hidden(!options.hidden)
            .parents(true)
            .ignore(true)
            .git_ignore(true)
            .git_global(true)
            .git_exclude(true)
            // A project's .gitignore says what is not its source, whether
            // or not the folder is a git checkout.
            .require_git(false)
            .follow_links(false)
            .overrides(overrides)
            .filter_entry(|entry| entry.depth() == 0 || entry.file_name() != ".git");
        let worker = || Worker {
            shared: &shared,
            matcher: matcher.clone(),
            searcher: SearcherBuilder::new()
                .line_number(true)
                .invert_match(options.invert)
                .bom_sniffing(false)
                .build(),
            buffer: Vec::new(),
        };
        if let [Start { is_file: true, .. }] = starts.as_slice() {
            // One file is searched on this thread, as rg does: the parallel
            // walker's threads cost more than such a search, and an idle one
            // polls for work every millisecond before it quits.
            let mut worker = worker();
            for entry in walk.build() {
                if let WalkState::Quit = worker.visit(entry) {
                    break;
                }
            }
        } else {
            walk.build_parallel().run(|| {
                let mut worker = worker();
                Box::new(move |entry| worker.visit(entry))
            });
        }

        cancel.check()?;
        let mut found = shared.found.into_inner().unwrap_or_else(|e| e.into_inner());
        found.sort_by(|a, b| a.path.cmp(&b.path));
        let mut skipped = shared
            .skipped
            .into_inner()
            .unwrap_or_else(|e| e.into_inner());
        skipped.files.sort_by(|a, b| a.path.cmp(&b.path));
        let more = shared.more.into_inner();

        let mut hits = Vec::new();
        for file in &found {
            let seen = seen_ranges(&file.lines, options.context, file.doc.line_count());
            self.remember(&file.real, file.doc.rev(), &file.doc, &seen, Sight::Asked);
            hits.extend(file.hits(options.context, self.options.view));
        }
        let text = render(
            &found,
            options,
            more,
            &skipped,
            self.options.max_file_bytes,
            self.options.view,
        );
        Ok(SearchResult {
            text,
            hits,
            files: found.len(),
            more,
            skipped,
        })
    }

    /// The folders and files to walk, each resolved inside the root: a
    /// search never leaves it, whatever the session allows for edits.
    fn starts(&self, paths: &[String]) -> Result<Vec<Start>> {
        if paths.is_empty() {
            return Ok(vec![Start {
                path: self.root().to_path_buf(),
                is_file: false,
            }]);
        }
        paths
            .iter()
            .map(|path| {
                let target = self.root.resolve(path, false)?;
                match std::fs::symlink_metadata(&target.real) {
                    Ok(meta) => Ok(Start {
                        path: target.real,
                        is_file: meta.is_file(),
                    }),
                    Err(e) if e.kind() == io::ErrorKind::NotFound => Err(Error::new(
                        ErrorCode::NotFound,
                        format!("{path} does not exist: there is nothing there to search."),
                    )
                    .with_path(path)),
                    Err(e) => Err(Error::new(
                        ErrorCode::Io,
                        format!("{path} cannot be searched: {e}"),
                    )
                    .with_path(path)),
                }
            })
            .collect()
    }
}

/// A path a search starts from.
struct Start {
    path: PathBuf,
    /// A regular file rather than a folder.
    is_file: bool,
}

fn matcher(options: &SearchOptions) -> Result<RegexMatcher> {
    RegexMatcherBuilder::new()
        .case_insensitive(options.ignore_case)
        .fixed_strings(options.fixed_strings)
        .word(options.word)
        // Lines are searched one at a time: a pattern may not span two.
        .line_terminator(Some(b'\n'))
        .build(&options.pattern)
        .map_err(|e| match e.kind() {
            grep_regex::ErrorKind::NotAllowed(_) => Error::invalid_request(format!(
                "The pattern cannot match across lines ({e}); each line is searched on its own."
            )),
            _ => Error::invalid_request(format!(
                "The pattern is not a valid regular expression (Rust regex syntax: no look-around or backreferences): {e}"
            )),
        })
}

fn overrides(root: &Path, options: &SearchOptions) -> Result<Override> {
    let mut builder = OverrideBuilder::new(root);
    let globs = options
        .include
        .iter()
        .map(|g| ("include", g.clone(), g.clone()))
        .chain(
            options
                .exclude
                .iter()
                .map(|g| ("exclude", g.clone(), format!("!{g}"))),
        );
    for (kind, given, line) in globs {
        builder.add(&line).map_err(|e| {
            let why = match e {
                ignore::Error::Glob { err, .. } => err,
                other => other.to_string(),
            };
            Error::invalid_request(format!("The {kind} glob {given:?} is not valid: {why}."))
        })?;
    }
    builder
        .build()
        .map_err(|e| Error::invalid_request(format!("The globs are not valid: {e}.")))
}

/// How many hits may still be shown, shared by the walker's threads.
struct Budget {
    taken: AtomicUsize,
    max: usize,
}

impl Budget {
    fn new(max: usize) -> Budget {
        Budget {
            taken: AtomicUsize::new(0),
            max,
        }
    }

    fn take(&self) -> bool {
        self.taken
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |t| {
                (t < self.max).then_some(t + 1)
            })
            .is_ok()
    }
}

struct Shared<'a> {
    /// The host's request to stop, looked at between files.
    cancel: &'a Cancel,
    root: &'a Path,
    dir: &'a cap_std::fs::Dir,
    max_bytes: u64,
    budget: Budget,
    /// Set once a hit found no room: every thread stops walking.
    stop: AtomicBool,
    found: Mutex<Vec<FileHits>>,
    skipped: Mutex<Skipped>,
    more: AtomicUsize,
}

impl Shared<'_> {
    fn skip(&self, path: &Path, reason: ErrorCode) {
        let mut skipped = self.skipped.lock().unwrap_or_else(|e| e.into_inner());
        let count = match reason {
            ErrorCode::Binary => &mut skipped.binary,
            ErrorCode::NotUtf8 => &mut skipped.not_utf8,
            ErrorCode::TooLarge => &mut skipped.too_large,
            _ => &mut skipped.unreadable,
        };
        *count += 1;
        let first_few = *count <= NAMED_SKIPS;
        // The first few names in path order, whichever thread reports them.
        let path = display(self.root, path);
        if first_few {
            skipped.files.push(SkippedFile { path, reason });
        } else if let Some(last) = skipped
            .files
            .iter_mut()
            .filter(|f| f.reason == reason)
            .max_by(|a, b| a.path.cmp(&b.path))
        {
            if path < last.path {
                last.path = path;
            }
        }
    }
}

/// The hits of one file, and the version they were found in.
struct FileHits {
    path: String,
    real: PathBuf,
    doc: Arc<Document>,
    /// 0-based indexes of the lines shown as hits, ascending.
    lines: Vec<usize>,
}

impl FileHits {
    /// The hits as data, each line's ref in `style`, as the text shows it.
    fn hits(&self, context: usize, style: ViewStyle) -> impl Iterator<Item = SearchHit> + '_ {
        let n = self.doc.line_count();
        self.lines.iter().map(move |&index| SearchHit {
            path: self.path.clone(),
            rev: self.doc.rev().to_owned(),
            line: search_line(&self.doc, index, style),
            before: (index.saturating_sub(context)..index)
                .map(|i| search_line(&self.doc, i, style))
                .collect(),
            after: (index + 1..n.min(index + 1 + context))
                .map(|i| search_line(&self.doc, i, style))
                .collect(),
        })
    }
}

fn search_line(doc: &Document, index: usize, style: ViewStyle) -> SearchLine {
    let line = doc.line(index);
    let (text, truncated) = match line.char_indices().nth(MAX_LINE_CHARS) {
        Some((cut, _)) => (line[..cut].to_owned(), true),
        None => (line.to_owned(), false),
    };
    SearchLine {
        line: index + 1,
        reference: match style {
            ViewStyle::Lean => Ref::pair_of_line(doc, index),
            ViewStyle::Full => Ref::of_line(doc, index),
        }
        .to_string(),
        text,
        truncated,
    }
}

/// The lines shown, hits and their context, as merged 0-based ranges.
fn seen_ranges(lines: &[usize], context: usize, count: usize) -> Vec<Range<usize>> {
    let mut ranges: Vec<Range<usize>> = Vec::new();
    for &index in lines {
        let range = index.saturating_sub(context)..count.min(index + 1 + context);
        match ranges.last_mut() {
            Some(last) if range.start <= last.end => last.end = last.end.max(range.end),
            _ => ranges.push(range),
        }
    }
    ranges
}

/// One thread of the walk, with its own matcher, searcher and read buffer.
struct Worker<'s> {
    shared: &'s Shared<'s>,
    matcher: RegexMatcher,
    searcher: Searcher,
    buffer: Vec<u8>,
}

/// What reading a file gave.
enum Contents {
    /// Text already in canonical form (no BOM, no CR): the buffer itself.
    Plain,
    /// Text with a BOM or CRs, converted.
    Converted(Document),
    /// Gone, or not a regular file any more: nothing to say.
    Nothing,
}

impl Worker<'_> {
    fn visit(&mut self, entry: std::result::Result<ignore::DirEntry, ignore::Error>) -> WalkState {
        if self.shared.stop.load(Ordering::Acquire) || self.shared.cancel.is_cancelled() {
            return WalkState::Quit;
        }
        let entry = match entry {
            Ok(entry) => entry,
            Err(err) => {
                // A folder that cannot be listed; a damaged ignore file
                // still applies its valid lines and says nothing here.
                if !err.is_partial() && err.io_error().is_some() {
                    if let Some(path) = error_path(&err) {
                        self.shared.skip(path, ErrorCode::Permission);
                    }
                }
                return WalkState::Continue;
            }
        };
        // Links are not followed: what they lead to is searched, if inside
        // the root, where it lies.
        if !entry.file_type().is_some_and(|t| t.is_file()) {
            return WalkState::Continue;
        }
        match self.search_file(entry.path()) {
            Ok(()) => {}
            Err(reason) => self.shared.skip(entry.path(), reason),
        }
        if self.shared.stop.load(Ordering::Acquire) {
            WalkState::Quit
        } else {
            WalkState::Continue
        }
    }

    fn search_file(&mut self, path: &Path) -> std::result::Result<(), ErrorCode> {
        let contents = self.read(path)?;
        let haystack = match &contents {
            Contents::Plain => &self.buffer[..],
            Contents::Converted(doc) => doc.text().as_bytes(),
            Contents::Nothing => return Ok(()),
        };
        let mut sink = Collect {
            budget: &self.shared.budget,
            lines: Vec::new(),
            more: 0,
        };
        // The sink never fails and the matcher cannot: a search of bytes
        // in memory has no other error to give.
        let _ = self
            .searcher
            .search_slice(&self.matcher, haystack, &mut sink);
        if sink.more > 0 {
            self.shared.more.fetch_add(sink.more, Ordering::AcqRel);
            self.shared.stop.store(true, Ordering::Release);
        }
        if sink.lines.is_empty() {
            return Ok(());
        }
        let doc = match contents {
            Contents::Converted(doc) => doc,
            // Checked as UTF-8 when read; the buffer becomes the document's
            // text rather than a copy of it.
            _ => Document::from_vec(std::mem::take(&mut self.buffer))
                .map_err(|_| ErrorCode::NotUtf8)?,
        };
        let hits = FileHits {
            path: display(self.shared.root, path),
            real: path.to_path_buf(),
            doc: Arc::new(doc),
            lines: sink.lines,
        };
        self.shared
            .found
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(hits);
        Ok(())
    }

    /// Reads the file into the buffer, as the engine would read it for an
    /// edit: a file it would refuse is skipped with the reason.
    fn read(&mut self, path: &Path) -> std::result::Result<Contents, ErrorCode> {
        let Ok(relative) = path.strip_prefix(self.shared.root) else {
            return Ok(Contents::Nothing);
        };
        let mut options = cap_std::fs::OpenOptions::new();
        // Non-blocking, so that a file swapped for a pipe cannot hang the
        // walk; not through a link, which the walk would not follow either.
        options.read(true).follow(FollowSymlinks::No).nonblock(true);
        let file = match self.shared.dir.open_with(relative, &options) {
            Ok(file) => file.into_std(),
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Contents::Nothing),
            Err(_) => return Err(ErrorCode::Permission),
        };
        let meta = file.metadata().map_err(|_| ErrorCode::Permission)?;
        if !meta.is_file() {
            return Ok(Contents::Nothing);
        }
        let max = self.shared.max_bytes;
        if meta.len() > max {
            return Err(ErrorCode::TooLarge);
        }
        self.buffer.clear();
        // Room for the whole file at once: `take` hides its size from
        // `read_to_end`, which would otherwise grow the buffer by copies.
        self.buffer.reserve(meta.len() as usize);
        file.take(max.saturating_add(1))
            .read_to_end(&mut self.buffer)
            .map_err(|_| ErrorCode::Permission)?;
        if self.buffer.len() as u64 > max {
            return Err(ErrorCode::TooLarge);
        }
        if memchr::memchr(0, &self.buffer).is_some() {
            return Err(ErrorCode::Binary);
        }
        if self.buffer.starts_with(b"\xEF\xBB\xBF") || memchr::memchr(b'\r', &self.buffer).is_some()
        {
            return Document::from_bytes(&self.buffer)
                .map(Contents::Converted)
                .map_err(|_| ErrorCode::NotUtf8);
        }
        match std::str::from_utf8(&self.buffer) {
            Ok(_) => Ok(Contents::Plain),
            Err(_) => Err(ErrorCode::NotUtf8),
        }
    }
}

/// Collects the numbers of the matching lines while the budget lasts, and
/// counts the rest.
struct Collect<'a> {
    budget: &'a Budget,
    lines: Vec<usize>,
    more: usize,
}

impl Sink for Collect<'_> {
    type Error = io::Error;

    fn matched(&mut self, _: &Searcher, found: &SinkMatch<'_>) -> io::Result<bool> {
        if self.budget.take() {
            let number = found.line_number().unwrap_or(1) as usize;
            self.lines.push(number.saturating_sub(1));
        } else {
            self.more += 1;
        }
        Ok(true)
    }
}

fn error_path(err: &ignore::Error) -> Option<&Path> {
    match err {
        ignore::Error::WithPath { path, .. } => Some(path),
        ignore::Error::WithDepth { err, .. } | ignore::Error::WithLineNumber { err, .. } => {
            error_path(err)
        }
        _ => None,
    }
}

/// A path as the model sees it: relative to the root, `/` between folders.
fn display(root: &Path, path: &Path) -> String {
    let relative = path.strip_prefix(root).unwrap_or(path);
    let shown = relative.to_string_lossy();
    if std::path::MAIN_SEPARATOR == '/' {
        shown.into_owned()
    } else {
        shown.replace(std::path::MAIN_SEPARATOR, "/")
    }
}

fn render(
    found: &[FileHits],
    options: &SearchOptions,
    more: usize,
    skipped: &Skipped,
    max_bytes: u64,
    style: ViewStyle,
) -> String {
    let mut out = String::new();
    let shown: usize = found.iter().map(|f| f.lines.len()).sum();
    let (one, many) = if options.invert {
        ("line not matching", "lines not matching")
    } else {
        ("matching line", "matching lines")
    };
    if shown == 0 {
        out.push_str("No matches found.\n");
    } else {
        let _ = write!(
            out,
            "Found {} in {}",
            plural(shown, one, many),
            plural(found.len(), "file", "files")
        );
        if more > 0 {
            let _ = write!(
                out,
                " and stopped at the limit of {}: at least {} {} not shown",
                options.max_results,
                plural(more, "more", "more"),
                if more == 1 {
                    format!("{one} was")
                } else {
                    format!("{many} were")
                }
            );
        }
        if options.context > 0 {
            let _ = write!(
                out,
                ", with {} of context; {} are marked >>>",
                plural(options.context, "line", "lines"),
                many
            );
        }
        out.push_str(".\n");
    }
    for file in found {
        let _ = write!(out, "\n{} REV:{}\n", file.path, file.doc.rev());
        if options.context == 0 {
            for &index in &file.lines {
                out.push_str("  ");
                push_line(&mut out, &file.doc, index, style);
                out.push('\n');
            }
            continue;
        }
        let ranges = seen_ranges(&file.lines, options.context, file.doc.line_count());
        let mut hits = file.lines.iter().peekable();
        for (i, range) in ranges.into_iter().enumerate() {
            if i > 0 {
                out.push_str("--\n");
            }
            for index in range {
                let hit = hits.next_if(|&&h| h == index).is_some();
                out.push_str(if hit { ">>> " } else { "    " });
                push_line(&mut out, &file.doc, index, style);
                out.push('\n');
            }
        }
    }
    if more > 0 {
        out.push_str(
            "\nNarrow the pattern, path or globs, or raise the limit, to see the others.\n",
        );
    }
    let notes = skip_notes(skipped, max_bytes);
    if !notes.is_empty() {
        if shown > 0 {
            out.push('\n');
        }
        let _ = writeln!(out, "Not searched: {}.", notes.join("; "));
    }
    out
}

fn skip_notes(skipped: &Skipped, max_bytes: u64) -> Vec<String> {
    let kinds = [
        (
            ErrorCode::Binary,
            skipped.binary,
            "binary file",
            "binary files".to_owned(),
        ),
        (
            ErrorCode::NotUtf8,
            skipped.not_utf8,
            "file not valid UTF-8",
            "files not valid UTF-8".to_owned(),
        ),
        (
            ErrorCode::TooLarge,
            skipped.too_large,
            "file over the size limit",
            "files over the size limit".to_owned(),
        ),
        (
            ErrorCode::Permission,
            skipped.unreadable,
            "file or folder that could not be read",
            "files or folders that could not be read".to_owned(),
        ),
    ];
    kinds
        .into_iter()
        .filter(|(_, count, _, _)| *count > 0)
        .map(|(code, count, one, many)| {
            let mut note = if count == 1 {
                format!("1 {one}")
            } else {
                format!("{count} {many}")
            };
            if code == ErrorCode::TooLarge {
                let _ = write!(note, " of {max_bytes} bytes");
            }
            let names: Vec<&str> = skipped
                .files
                .iter()
                .filter(|f| f.reason == code)
                .map(|f| f.path.as_str())
                .collect();
            if !names.is_empty() {
                let rest = count - names.len();
                let _ = write!(
                    note,
                    " ({}{})",
                    names.join(", "),
                    if rest > 0 {
                        format!(" and {rest} more")
                    } else {
                        String::new()
                    }
                );
            }
            note
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::request::{OpKind, Operation, Request};
    use crate::session::Options;
    use std::fs;

    type Tune = fn(&mut SearchOptions);

    fn project(files: &[(&str, &[u8])]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for (name, content) in files {
            let path = dir.path().join(name);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(path, content).unwrap();
        }
        dir
    }

    fn engine(dir: &tempfile::TempDir) -> Hashline {
        Hashline::new(Options::new(dir.path())).unwrap()
    }

    fn search(
        engine: &Hashline,
        pattern: &str,
        tune: impl FnOnce(&mut SearchOptions),
    ) -> SearchResult {
        let mut options = SearchOptions::new(pattern);
        tune(&mut options);
        engine.search(&options).unwrap()
    }

    fn paths(result: &SearchResult) -> Vec<&str> {
        let mut paths: Vec<&str> = result.hits.iter().map(|h| h.path.as_str()).collect();
        paths.dedup();
        paths
    }

    fn replace(reference: &str, content: &str) -> Request {
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

    #[test]
    fn gitignored_build_output_is_skipped_unless_named() {
        let dir = project(&[
            (".gitignore", b"target/\n"),
            ("src/lib.rs", b"fn needle() {}\n"),
            ("target/debug/out.rs", b"fn needle() {}\n"),
        ]);
        let engine = engine(&dir);
        assert_eq!(paths(&search(&engine, "needle", |_| {})), ["src/lib.rs"]);
        let named = search(&engine, "needle", |o| o.paths = vec!["target".into()]);
        assert_eq!(paths(&named), ["target/debug/out.rs"]);
    }

    #[test]
    fn a_file_named_alone_is_searched_even_ignored_or_hidden_and_the_limit_holds() {
        let dir = project(&[
            (".gitignore", b"out.rs\n"),
            (".env", b"needle 1\nneedle 2\nneedle 3\n"),
            ("out.rs", b"needle 4\n"),
            ("bin.dat", b"needle\0"),
        ]);
        let engine = engine(&dir);
        let alone = |name: &str, max_results: usize| {
            search(&engine, "needle", |o| {
                o.paths = vec![name.into()];
                o.max_results = max_results;
            })
        };
        assert_eq!(alone(".env", 100).hits.len(), 3);
        assert_eq!(paths(&alone("out.rs", 100)), ["out.rs"]);
        let binary = alone("bin.dat", 100);
        assert_eq!((binary.hits.len(), binary.skipped.binary), (0, 1));
        let capped = alone(".env", 2);
        assert_eq!((capped.hits.len(), capped.more), (2, 1));
        assert!(capped.stopped());
    }

    #[test]
    fn hidden_files_are_searched_when_asked_or_named_and_git_folders_only_when_named() {
        let dir = project(&[
            (".env", b"needle\n"),
            (".git/config", b"needle\n"),
            ("a.txt", b"needle\n"),
        ]);
        let engine = engine(&dir);
        assert_eq!(paths(&search(&engine, "needle", |_| {})), ["a.txt"]);
        assert_eq!(
            paths(&search(&engine, "needle", |o| o.hidden = true)),
            [".env", "a.txt"]
        );
        let named = search(&engine, "needle", |o| o.paths = vec![".git".into()]);
        assert_eq!(paths(&named), [".git/config"]);
    }

    #[test]
    fn files_the_engine_would_refuse_are_counted_and_the_first_few_named_in_order() {
        let mut files: Vec<(String, Vec<u8>)> = (0..6)
            .map(|i| (format!("bin{i}.dat"), b"needle\0".to_vec()))
            .collect();
        files.push(("latin1.txt".into(), b"needle caf\xe9\n".to_vec()));
        files.push((
            "big.txt".into(),
            [b"needle\n".as_slice(), &[b'x'; 100]].concat(),
        ));
        files.push(("ok.txt".into(), b"needle\n".to_vec()));
        let borrowed: Vec<(&str, &[u8])> = files
            .iter()
            .map(|(n, c)| (n.as_str(), c.as_slice()))
            .collect();
        let dir = project(&borrowed);
        let mut options = Options::new(dir.path());
        options.max_file_bytes = 50;
        let engine = Hashline::new(options).unwrap();
        let result = search(&engine, "needle", |_| {});
        assert_eq!(paths(&result), ["ok.txt"]);
        assert_eq!(
            (
                result.skipped.binary,
                result.skipped.not_utf8,
                result.skipped.too_large
            ),
            (6, 1, 1)
        );
        let named: Vec<(&str, ErrorCode)> = result
            .skipped
            .files
            .iter()
            .map(|f| (f.path.as_str(), f.reason))
            .collect();
        assert_eq!(
            named,
            [
                ("big.txt", ErrorCode::TooLarge),
                ("bin0.dat", ErrorCode::Binary),
                ("bin1.dat", ErrorCode::Binary),
                ("bin2.dat", ErrorCode::Binary),
                ("latin1.txt", ErrorCode::NotUtf8),
            ]
        );
        assert!(result.text.contains(
            "Not searched: 6 binary files (bin0.dat, bin1.dat, bin2.dat and 3 more); 1 file not valid UTF-8 (latin1.txt); 1 file over the size limit of 50 bytes (big.txt)."
        ));
    }

    #[test]
    fn at_the_limit_the_walk_stops_and_says_how_many_more_it_found() {
        let files: Vec<(String, &[u8])> = (0..300)
            .map(|i| {
                (
                    format!("d{}/f{i}.txt", i % 10),
                    b"needle\nneedle\nneedle\n".as_slice(),
                )
            })
            .collect();
        let borrowed: Vec<(&str, &[u8])> = files.iter().map(|(n, c)| (n.as_str(), *c)).collect();
        let dir = project(&borrowed);
        let result = search(&engine(&dir), "needle", |o| o.max_results = 4);
        assert_eq!(result.hits.len(), 4);
        assert!(result.stopped());
        // Had the walk gone on, it would have found all 900.
        assert!(result.more >= 2 && 4 + result.more < 900, "{}", result.more);
        assert!(result.text.contains(&format!(
            "stopped at the limit of 4: at least {} more matching lines were not shown",
            result.more
        )));

        let all = search(&engine(&dir), "needle", |o| o.max_results = 900);
        assert_eq!((all.hits.len(), all.more), (900, 0));
    }

    #[test]
    fn refs_of_hits_are_the_refs_read_shows_whatever_the_line_endings() {
        let long = format!("needle {}", "é".repeat(MAX_LINE_CHARS + 10));
        let dir = project(&[
            ("bom.txt", "\u{FEFF}needle one\r\nplain\r\n".as_bytes()),
            ("cr.txt", b"a\rneedle two\r\rb\n"),
            ("mixed.txt", b"x\r\nneedle three\ny\r"),
            ("long.txt", format!("first\n{long}\nlast\n").as_bytes()),
        ]);
        let engine = engine(&dir);
        let result = search(&engine, "needle", |_| {});
        assert_eq!(result.hits.len(), 4);
        for hit in &result.hits {
            let doc = Document::from_bytes(&fs::read(dir.path().join(&hit.path)).unwrap()).unwrap();
            let index = hit.line.line - 1;
            // The session's view is lean: the data carries the ref the
            // text shows.
            assert_eq!(
                hit.line.reference,
                Ref::pair_of_line(&doc, index).to_string(),
                "{}",
                hit.path
            );
            assert!(
                result.text.contains(&format!("{} ", hit.line.reference)),
                "{}",
                hit.path
            );
            assert_eq!(hit.rev, doc.rev());
            assert_eq!(hit.line.truncated, hit.path == "long.txt");
            assert!(doc.line(index).starts_with(&hit.line.text));
        }
        let cr = result.hits.iter().find(|h| h.path == "cr.txt").unwrap();
        assert_eq!(cr.line.line, 2);
        engine
            .edit("cr.txt", &replace(&cr.line.reference, "found"))
            .unwrap();
        assert_eq!(
            fs::read(dir.path().join("cr.txt")).unwrap(),
            b"a\rfound\r\rb\n"
        );
    }

    #[test]
    fn hits_and_their_context_count_as_seen_and_other_lines_do_not() {
        let dir = project(&[("a.txt", b"1\n2\nneedle\n4\n5\n6\n")]);
        let engine = engine(&dir);
        let result = search(&engine, "needle", |o| o.context = 1);
        let hit = &result.hits[0];
        assert_eq!(hit.before.iter().map(|l| l.line).collect::<Vec<_>>(), [2]);
        assert_eq!(hit.after.iter().map(|l| l.line).collect::<Vec<_>>(), [4]);
        engine
            .edit("a.txt", &replace(&hit.after[0].reference, "four"))
            .unwrap();
        let doc = Document::from_bytes(&fs::read(dir.path().join("a.txt")).unwrap()).unwrap();
        let unseen = Ref::of_line(&doc, 5).to_string();
        let err = engine.edit("a.txt", &replace(&unseen, "six")).unwrap_err();
        assert_eq!(err.code, ErrorCode::UnseenLines);
        assert_eq!(
            fs::read(dir.path().join("a.txt")).unwrap(),
            b"1\n2\nneedle\nfour\n5\n6\n"
        );
    }

    #[test]
    fn a_hit_recorded_by_search_remaps_after_an_outside_edit() {
        let dir = project(&[("a.txt", b"x\nneedle\ny\n")]);
        let engine = engine(&dir);
        let hit = search(&engine, "needle", |_| {}).hits.remove(0);
        fs::write(dir.path().join("a.txt"), "new\nx\nneedle\ny\n").unwrap();
        engine
            .edit("a.txt", &replace(&hit.line.reference, "pin"))
            .unwrap();
        assert_eq!(
            fs::read(dir.path().join("a.txt")).unwrap(),
            b"new\nx\npin\ny\n"
        );
    }

    #[test]
    fn nested_repetition_runs_in_linear_time() {
        let text = format!("{}b\n{}\n", "a".repeat(200_000), "a".repeat(40));
        let dir = project(&[("a.txt", text.as_bytes())]);
        let result = search(&engine(&dir), "^(a+)+$", |_| {});
        assert_eq!(
            result.hits.iter().map(|h| h.line.line).collect::<Vec<_>>(),
            [2]
        );
    }

    #[test]
    fn a_cancelled_search_stops_and_records_no_line_as_seen() {
        let dir = project(&[("a.txt", b"other\nneedle\n"), ("b.txt", b"needle\n")]);
        let hl = engine(&dir);
        // The session showed line 1 only.
        hl.read_with(
            "a.txt",
            &crate::ReadOptions {
                limit: Some(1),
                ..Default::default()
            },
        )
        .unwrap();
        let cancel = Cancel::new();
        cancel.cancel();
        let err = hl
            .search_with(&SearchOptions::new("needle"), &cancel)
            .unwrap_err();
        assert_eq!(err.code, ErrorCode::Cancelled);
        // The ref as another session's search shows it: this one saw none.
        let found = search(&engine(&dir), "needle", |_| {});
        let reference = &found.hits[0].line.reference;
        let err = hl.edit("a.txt", &replace(reference, "x")).unwrap_err();
        assert_eq!(err.code, ErrorCode::UnseenLines);
    }

    #[test]
    fn invalid_patterns_globs_and_limits_are_invalid_requests() {
        let dir = project(&[("a.txt", b"x\n")]);
        let engine = engine(&dir);
        let cases: [(&str, Tune, &str); 6] = [
            ("(", |_| {}, "not a valid regular expression"),
            ("(?<=a)b", |_| {}, "look-around"),
            ("a\\nb", |_| {}, "cannot match across lines"),
            (
                "x",
                |o| o.include = vec!["*.{ts".into()],
                "include glob \"*.{ts\" is not valid",
            ),
            (
                "x",
                |o| o.exclude = vec!["[z-a]".into()],
                "exclude glob \"[z-a]\" is not valid",
            ),
            ("x", |o| o.max_results = 0, "at least 1"),
        ];
        for (pattern, tune, message) in cases {
            let mut options = SearchOptions::new(pattern);
            tune(&mut options);
            let err = engine.search(&options).unwrap_err();
            assert_eq!(err.code, ErrorCode::InvalidRequest, "{pattern}");
            assert!(err.message.contains(message), "{}", err.message);
        }
    }

    #[test]
    fn options_select_lines_as_rg_does() {
        let dir = project(&[("a.txt", b"Total\ntotal\nsubtotal\na.b\naxb\n")]);
        let engine = engine(&dir);
        let lines = |pattern: &str, tune: fn(&mut SearchOptions)| -> Vec<String> {
            search(&engine, pattern, tune)
                .hits
                .into_iter()
                .map(|h| h.line.text)
                .collect()
        };
        assert_eq!(lines("total", |_| {}), ["total", "subtotal"]);
        assert_eq!(
            lines("total", |o| o.ignore_case = true),
            ["Total", "total", "subtotal"]
        );
        assert_eq!(lines("total", |o| o.word = true), ["total"]);
        assert_eq!(lines("a.b", |o| o.fixed_strings = true), ["a.b"]);
        assert_eq!(lines("total", |o| o.invert = true), ["Total", "a.b", "axb"]);
    }

    #[test]
    fn globs_are_relative_to_the_root_and_exclusions_win() {
        let dir = project(&[
            ("src/a.ts", b"needle\n"),
            ("src/a.test.ts", b"needle\n"),
            ("src/deep/b.mjs", b"needle\n"),
            ("c.txt", b"needle\n"),
        ]);
        let engine = engine(&dir);
        let found = |tune: fn(&mut SearchOptions)| -> Vec<String> {
            paths(&search(&engine, "needle", tune))
                .into_iter()
                .map(String::from)
                .collect()
        };
        assert_eq!(
            found(|o| o.include = vec!["*.ts".into()]),
            ["src/a.test.ts", "src/a.ts"]
        );
        assert_eq!(
            found(|o| {
                o.include = vec!["*.{ts,mjs}".into()];
                o.exclude = vec!["*.test.ts".into()];
            }),
            ["src/a.ts", "src/deep/b.mjs"]
        );
        assert_eq!(
            found(|o| {
                o.paths = vec!["src".into()];
                o.include = vec!["src/deep/*".into()];
            }),
            ["src/deep/b.mjs"]
        );
        assert_eq!(found(|o| o.exclude = vec!["src/".into()]), ["c.txt"]);
    }

    #[cfg(unix)]
    #[test]
    fn links_out_of_the_root_are_not_followed_and_paths_outside_are_refused() {
        let outside = project(&[("secret.txt", b"needle\n")]);
        let dir = project(&[("in.txt", b"needle\n")]);
        std::os::unix::fs::symlink(outside.path(), dir.path().join("out")).unwrap();
        std::os::unix::fs::symlink(outside.path().join("secret.txt"), dir.path().join("s.txt"))
            .unwrap();
        let engine = engine(&dir);
        assert_eq!(paths(&search(&engine, "needle", |_| {})), ["in.txt"]);
        for path in ["out", "s.txt", "..", outside.path().to_str().unwrap()] {
            let mut options = SearchOptions::new("needle");
            options.paths = vec![path.into()];
            assert_eq!(
                engine.search(&options).unwrap_err().code,
                ErrorCode::OutsideRoot,
                "{path}"
            );
        }
    }

    #[test]
    fn the_text_lists_hits_by_file_and_marks_them_among_context() {
        let dir = project(&[
            ("b.txt", b"needle\n"),
            ("a.txt", b"1\nneedle\n3\n4\n5\nneedle\n"),
        ]);
        let lean = search(&engine(&dir), "needle", |_| {});
        let pair = crate::hash::pair_tag(2, "needle");
        let want = format!("  2{}{} needle", char::from(pair[0]), char::from(pair[1]));
        assert_eq!(lean.text.lines().nth(3), Some(want.as_str()));
        let mut options = Options::new(dir.path());
        options.view = ViewStyle::Full;
        let engine = Hashline::new(options).unwrap();
        let plain = search(&engine, "needle", |_| {});
        let lines: Vec<&str> = plain.text.lines().collect();
        assert_eq!(lines[0], "Found 3 matching lines in 2 files.");
        assert!(lines[2].starts_with("a.txt REV:"));
        assert!(lines[3].starts_with("  2#") && lines[3].ends_with("|needle"));
        let with_context = search(&engine, "needle", |o| o.context = 1);
        let marks: Vec<String> = with_context
            .text
            .lines()
            .filter(|l| l.starts_with(">>> ") || l.starts_with("    ") || *l == "--")
            .map(|l| l.split('#').next().unwrap().to_owned())
            .collect();
        assert_eq!(
            marks,
            ["    1", ">>> 2", "    3", "--", "    5", ">>> 6", ">>> 1"]
        );
    }
}
