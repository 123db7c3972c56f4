//! Error codes shared by every layer: hosts map `code` to their own error type
//! and show `message` to the model as-is, so the message is the repair kit.

use std::fmt;

use crate::check::Problem;
use std::ops::Range;

/// The stable code of an error, the same in every host (`err.code`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorCode {
    /// A ref no longer matches its line and cannot be proven moved.
    HashMismatch,
    /// A ref is not of the form `LINE#HASH#ANCHOR`.
    InvalidRef,
    /// A ref points past the end of the file.
    OutOfRange,
    /// Operations of one batch overlap or are unordered.
    Conflict,
    /// The request leaves the file as it is.
    NoChange,
    /// The batch cites lines no view showed.
    UnseenLines,
    /// The file does not exist.
    NotFound,
    /// The path is a folder or another kind of non-file.
    NotAFile,
    /// The file is not UTF-8.
    NotUtf8,
    /// The file holds a NUL byte.
    Binary,
    /// The file is larger than the limit.
    TooLarge,
    /// The path leads outside the root.
    OutsideRoot,
    /// The system refused access.
    Permission,
    /// The file changed between plan and commit.
    BaseChanged,
    /// Another write held a lock for longer than the lock timeout.
    Locked,
    /// The fallback's `oldString` is not in the file.
    OldStringNotFound,
    /// The fallback's `oldString` matches more than once.
    OldStringAmbiguous,
    /// A patch hunk whose lines are nowhere in the file.
    ContextNotFound,
    /// A patch hunk whose lines fit more than one place.
    ContextAmbiguous,
    /// The edit breaks the file's parse and the session rejects such edits.
    SyntaxError,
    /// Content holds what may be lines copied from a view (view prefixes,
    /// a repeat of a neighbouring line) that the engine can neither prove
    /// copies nor rule out: nothing is removed on a guess.
    AmbiguousEcho,
    /// The request is malformed.
    InvalidRequest,
    /// Another input or output error.
    Io,
    /// A bug: a panic caught at the host boundary.
    Internal,
    /// The host stopped the call before it wrote anything.
    Cancelled,
}

impl ErrorCode {
    /// Every code, for hosts that map them (exit codes, tables).
    pub const ALL: [ErrorCode; 25] = [
        ErrorCode::HashMismatch,
        ErrorCode::InvalidRef,
        ErrorCode::OutOfRange,
        ErrorCode::Conflict,
        ErrorCode::NoChange,
        ErrorCode::UnseenLines,
        ErrorCode::NotFound,
        ErrorCode::NotAFile,
        ErrorCode::NotUtf8,
        ErrorCode::Binary,
        ErrorCode::TooLarge,
        ErrorCode::OutsideRoot,
        ErrorCode::Permission,
        ErrorCode::BaseChanged,
        ErrorCode::Locked,
        ErrorCode::OldStringNotFound,
        ErrorCode::OldStringAmbiguous,
        ErrorCode::ContextNotFound,
        ErrorCode::ContextAmbiguous,
        ErrorCode::SyntaxError,
        ErrorCode::AmbiguousEcho,
        ErrorCode::InvalidRequest,
        ErrorCode::Io,
        ErrorCode::Internal,
        ErrorCode::Cancelled,
    ];

    /// The code as hosts show it, `HASH_MISMATCH` style.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::HashMismatch => "HASH_MISMATCH",
            ErrorCode::InvalidRef => "INVALID_REF",
            ErrorCode::OutOfRange => "OUT_OF_RANGE",
            ErrorCode::Conflict => "CONFLICT",
            ErrorCode::NoChange => "NO_CHANGE",
            ErrorCode::UnseenLines => "UNSEEN_LINES",
            ErrorCode::NotFound => "NOT_FOUND",
            ErrorCode::NotAFile => "NOT_A_FILE",
            ErrorCode::NotUtf8 => "NOT_UTF8",
            ErrorCode::Binary => "BINARY",
            ErrorCode::TooLarge => "TOO_LARGE",
            ErrorCode::OutsideRoot => "OUTSIDE_ROOT",
            ErrorCode::Permission => "PERMISSION",
            ErrorCode::BaseChanged => "BASE_CHANGED",
            ErrorCode::Locked => "LOCKED",
            ErrorCode::OldStringNotFound => "OLD_STRING_NOT_FOUND",
            ErrorCode::OldStringAmbiguous => "OLD_STRING_AMBIGUOUS",
            ErrorCode::ContextNotFound => "CONTEXT_NOT_FOUND",
            ErrorCode::ContextAmbiguous => "CONTEXT_AMBIGUOUS",
            ErrorCode::SyntaxError => "SYNTAX_ERROR",
            ErrorCode::AmbiguousEcho => "AMBIGUOUS_ECHO",
            ErrorCode::InvalidRequest => "INVALID_REQUEST",
            ErrorCode::Io => "IO",
            ErrorCode::Internal => "INTERNAL",
            ErrorCode::Cancelled => "CANCELLED",
        }
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One cited ref that does not match the file: what the model gave and what
/// the line holds now, so a host can show both without parsing the message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mismatch {
    /// The line the ref names, 1-based.
    pub line: usize,
    /// The ref as cited.
    pub expected: String,
    /// The current ref of that line; `None` when the line no longer exists.
    pub actual: Option<String>,
}

/// Boxed so that `Result`s stay small on the paths that succeed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error(Box<ErrorDetails>);

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ErrorDetails {
    pub code: ErrorCode,
    pub message: String,
    pub mismatches: Vec<Mismatch>,
    /// A corrected ref or request the model most likely meant.
    pub suggestion: Option<String>,
    /// The file the error is about, as shown to the model.
    pub path: Option<String>,
    /// Lines (0-based) of the current version the message displays with
    /// refs: a retry may cite them.
    pub shown: Vec<Range<usize>>,
    /// What the refused version would have broken (`SYNTAX_ERROR`), in
    /// that version's lines.
    pub problems: Vec<Problem>,
    /// The error of each entry of a batch that failed, by the entry's
    /// index (the message lists them all).
    pub entries: Vec<(usize, Error)>,
}

impl Error {
    /// An error with a code and a message for the model.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Error(Box::new(ErrorDetails {
            code,
            message: message.into(),
            mismatches: Vec::new(),
            suggestion: None,
            path: None,
            shown: Vec::new(),
            problems: Vec::new(),
            entries: Vec::new(),
        }))
    }

    /// The path the error is about.
    pub fn with_path(mut self, path: impl Into<String>) -> Self {
        self.path = Some(path.into());
        self
    }

    /// The ref that was probably meant.
    pub fn with_suggestion(mut self, suggestion: impl Into<String>) -> Self {
        self.suggestion = Some(suggestion.into());
        self
    }

    /// Every ref that did not hold.
    pub fn with_mismatches(mut self, mismatches: Vec<Mismatch>) -> Self {
        self.mismatches = mismatches;
        self
    }

    /// An `INVALID_REQUEST` error.
    pub fn invalid_request(message: impl Into<String>) -> Self {
        Error::new(ErrorCode::InvalidRequest, message)
    }
}

impl std::ops::Deref for Error {
    type Target = ErrorDetails;

    fn deref(&self) -> &ErrorDetails {
        &self.0
    }
}

impl std::ops::DerefMut for Error {
    fn deref_mut(&mut self) -> &mut ErrorDetails {
        &mut self.0
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

impl std::error::Error for Error {}

/// The engine's result type.
pub type Result<T> = std::result::Result<T, Error>;

/// What a message may quote of a value the caller sent: its start, quoted,
/// so that a megabyte of input does not come back as a megabyte of error.
pub fn excerpt(value: &str) -> String {
    const MAX_CHARS: usize = 60;
    match value.char_indices().nth(MAX_CHARS) {
        None => format!("{value:?}"),
        Some((cut, _)) => format!(
            "{:?}… ({} characters)",
            &value[..cut],
            value.chars().count()
        ),
    }
}

/// Numbers listed in a message, at most a few, then how many more.
pub fn list_numbers(numbers: &[usize]) -> String {
    const MAX_LISTED: usize = 10;
    let mut shown: Vec<String> = numbers
        .iter()
        .take(MAX_LISTED)
        .map(usize::to_string)
        .collect();
    if numbers.len() > MAX_LISTED {
        shown.push(format!("and {} more", numbers.len() - MAX_LISTED));
    }
    shown.join(", ")
}
