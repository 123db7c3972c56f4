//! Error codes shared by every layer: hosts map `code` to their own error type
//! and show `message` to the model as-is, so the message is the repair kit.

use std::fmt;
use std::ops::Range;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorCode {
    HashMismatch,
    InvalidRef,
    OutOfRange,
    Conflict,
    NoChange,
    UnseenLines,
    NotFound,
    NotAFile,
    NotUtf8,
    Binary,
    TooLarge,
    OutsideRoot,
    Permission,
    BaseChanged,
    /// Another write held a lock for longer than the lock timeout.
    Locked,
    OldStringNotFound,
    OldStringAmbiguous,
    /// A patch hunk whose lines are nowhere in the file.
    ContextNotFound,
    /// A patch hunk whose lines fit more than one place.
    ContextAmbiguous,
    InvalidRequest,
    Io,
    /// A bug: a panic caught at the host boundary.
    Internal,
}

impl ErrorCode {
    pub const ALL: [ErrorCode; 22] = [
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
        ErrorCode::InvalidRequest,
        ErrorCode::Io,
        ErrorCode::Internal,
    ];

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
            ErrorCode::InvalidRequest => "INVALID_REQUEST",
            ErrorCode::Io => "IO",
            ErrorCode::Internal => "INTERNAL",
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
    pub line: usize,
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
}

impl Error {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Error(Box::new(ErrorDetails {
            code,
            message: message.into(),
            mismatches: Vec::new(),
            suggestion: None,
            path: None,
            shown: Vec::new(),
        }))
    }

    pub fn with_path(mut self, path: impl Into<String>) -> Self {
        self.path = Some(path.into());
        self
    }

    pub fn with_suggestion(mut self, suggestion: impl Into<String>) -> Self {
        self.suggestion = Some(suggestion.into());
        self
    }

    pub fn with_mismatches(mut self, mismatches: Vec<Mismatch>) -> Self {
        self.mismatches = mismatches;
        self
    }

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
