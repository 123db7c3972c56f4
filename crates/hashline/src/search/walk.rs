//! The walk: ripgrep's `ignore` over the root in parallel, each file
//! opened beneath the root's handle and searched, hits gathered within the
//! budget and recorded as seen.

use super::*;

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
pub(super) struct Start {
    path: PathBuf,
    /// A regular file rather than a folder.
    is_file: bool,
}

/// How many hits may still be shown, shared by the walker's threads.
pub(super) struct Budget {
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

pub(super) struct Shared<'a> {
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
pub(super) struct FileHits {
    pub(super) path: String,
    pub(super) real: PathBuf,
    pub(super) doc: Arc<Document>,
    /// 0-based indexes of the lines shown as hits, ascending.
    pub(super) lines: Vec<usize>,
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

pub(super) fn search_line(doc: &Document, index: usize, style: ViewStyle) -> SearchLine {
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
pub(super) fn seen_ranges(lines: &[usize], context: usize, count: usize) -> Vec<Range<usize>> {
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
pub(super) struct Worker<'s> {
    shared: &'s Shared<'s>,
    matcher: RegexMatcher,
    searcher: Searcher,
    buffer: Vec<u8>,
}

/// What reading a file gave.
pub(super) enum Contents {
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
pub(super) struct Collect<'a> {
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

pub(super) fn error_path(err: &ignore::Error) -> Option<&Path> {
    match err {
        ignore::Error::WithPath { path, .. } => Some(path),
        ignore::Error::WithDepth { err, .. } | ignore::Error::WithLineNumber { err, .. } => {
            error_path(err)
        }
        _ => None,
    }
}
