//! Error codes shared by every layer: hosts map `code` to their own error type
//! and show `message` to the model as-is, so the message is the repair kit.
//!
//! Specified in `docs/format.md` §9.

use std::fmt;

use crate::problem::Problem;
use std::ops::Range;

/// Declares the error codes once: each code's name, its text as hosts show
/// it, its class and what it means.
macro_rules! error_codes {
    ($($code:ident = $text:literal, $class:ident, $meaning:literal;)+) => {
        /// The stable code of an error, the same in every host (`err.code`).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum ErrorCode {
            $(
                #[doc = $meaning]
                $code,
            )+
        }

        impl ErrorCode {
            /// Every code, for hosts that map them (exit codes, tables).
            pub const ALL: &'static [ErrorCode] = &[$(ErrorCode::$code),+];

            /// The code as hosts show it, `HASH_MISMATCH` style.
            pub fn as_str(self) -> &'static str {
                match self {
                    $(ErrorCode::$code => $text,)+
                }
            }

            /// What kind of failure the code is.
            pub fn class(self) -> ErrorClass {
                match self {
                    $(ErrorCode::$code => ErrorClass::$class,)+
                }
            }

            /// What the code means, one sentence.
            pub fn description(self) -> &'static str {
                match self {
                    $(ErrorCode::$code => $meaning,)+
                }
            }
        }
    };
}

error_codes! {
    HashMismatch = "HASH_MISMATCH", Stale,
        "A ref no longer matches its line and cannot be proven moved.";
    InvalidRef = "INVALID_REF", Request,
        "A ref is not of the form `LINE#HASH#ANCHOR` or `LINEab`.";
    OutOfRange = "OUT_OF_RANGE", Request,
        "A ref or offset points past the end of the file.";
    Conflict = "CONFLICT", Request,
        "Operations of one batch overlap or are unordered.";
    NoChange = "NO_CHANGE", Request,
        "The request leaves the file as it is.";
    UnseenLines = "UNSEEN_LINES", Stale,
        "The batch cites lines no view showed.";
    NotFound = "NOT_FOUND", File,
        "The file does not exist.";
    NotAFile = "NOT_A_FILE", File,
        "The path is a folder or another kind of non-file.";
    NotUtf8 = "NOT_UTF8", File,
        "The file is not UTF-8.";
    Binary = "BINARY", File,
        "The file holds a NUL byte.";
    TooLarge = "TOO_LARGE", File,
        "The file is larger than the limit.";
    InvalidNotebook = "INVALID_NOTEBOOK", File,
        "The file is a notebook (`.ipynb`) that does not parse as JSON or does not validate as nbformat 4, so it is not read or edited through its cells; its text is, with `raw`.";
    OutsideRoot = "OUTSIDE_ROOT", Refused,
        "The path leads outside the root.";
    Permission = "PERMISSION", Refused,
        "The system refused access.";
    UntrustedJournal = "UNTRUSTED_JOURNAL", Refused,
        "The root's `.hashline-journal` folder is not the user's own private folder (a symlink, another user's, or writable by others), so its records are not trusted and no change of several files is written until it is put right.";
    BaseChanged = "BASE_CHANGED", Stale,
        "The file changed between plan and commit.";
    Locked = "LOCKED", Other,
        "Another write held a lock for longer than the lock timeout.";
    OldStringNotFound = "OLD_STRING_NOT_FOUND", Request,
        "The fallback's `oldString` is not in the file.";
    OldStringAmbiguous = "OLD_STRING_AMBIGUOUS", Request,
        "The fallback's `oldString` matches more than once.";
    ContextNotFound = "CONTEXT_NOT_FOUND", Request,
        "A patch hunk whose lines are nowhere in the file.";
    ContextAmbiguous = "CONTEXT_AMBIGUOUS", Request,
        "A patch hunk whose lines fit more than one place.";
    SyntaxError = "SYNTAX_ERROR", Request,
        "The edit breaks the file's parse and the session rejects such edits.";
    AmbiguousEcho = "AMBIGUOUS_ECHO", Request,
        "Content holds what may be text copied from the engine's output (view prefixes, a view's header, a line a view cut, a repeat of a neighbouring line) that the engine can neither prove copied nor rule out: nothing is removed on a guess.";
    InvalidRequest = "INVALID_REQUEST", Request,
        "The request is malformed.";
    Io = "IO", Other,
        "Another input or output error.";
    Internal = "INTERNAL", Other,
        "A bug: a panic caught at the host boundary.";
    Cancelled = "CANCELLED", Other,
        "The host stopped the call before it wrote anything.";
}

/// What kind of failure an error code is; hosts that sort failures (the
/// command line's exit status) go by it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorClass {
    /// The refs or the plan no longer fit the file: read it again.
    Stale,
    /// The request cannot be applied as sent.
    Request,
    /// The file cannot be edited (missing, not text, too large).
    File,
    /// Access to the path was refused.
    Refused,
    /// Any other failure.
    Other,
}

impl ErrorClass {
    /// The class as hosts show it, lowercase.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorClass::Stale => "stale",
            ErrorClass::Request => "request",
            ErrorClass::File => "file",
            ErrorClass::Refused => "refused",
            ErrorClass::Other => "other",
        }
    }

    /// The exit status of a command that failed with an error of this
    /// class.
    pub fn exit_status(self) -> u8 {
        match self {
            ErrorClass::Stale => 1,
            ErrorClass::Request => 2,
            ErrorClass::File => 3,
            ErrorClass::Refused => 4,
            ErrorClass::Other => 5,
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
    /// What an `AMBIGUOUS_ECHO` refusal doubted.
    pub doubted: Option<Doubted>,
}

/// What content an `AMBIGUOUS_ECHO` refusal could neither prove copied nor
/// rule out (`docs/format.md` §7), as data for a host that counts them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Doubted {
    /// Output of the engine: view prefixes, a view's header, a line a view
    /// cut.
    Output,
    /// A boundary echo: a repeat of the line next to where the content goes.
    Boundary,
}

impl Doubted {
    /// `output` or `boundary`.
    pub fn name(self) -> &'static str {
        match self {
            Doubted::Output => "output",
            Doubted::Boundary => "boundary",
        }
    }

    /// The kind `name` names.
    pub fn parse(name: &str) -> Option<Doubted> {
        [Doubted::Output, Doubted::Boundary]
            .into_iter()
            .find(|d| d.name() == name)
    }
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
            doubted: None,
        }))
    }

    /// What an `AMBIGUOUS_ECHO` refusal doubted.
    pub fn with_doubted(mut self, doubted: Doubted) -> Self {
        self.doubted = Some(doubted);
        self
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

/// `n` and the noun for it: `1 line`, `2 lines`.
pub(crate) fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// Numbers listed in a message, at most a few, then how many more.
pub fn list_numbers(numbers: &[usize]) -> String {
    list_items(numbers.iter().map(usize::to_string))
}

/// Items listed in a message, at most a few, then how many more.
pub(crate) fn list_items(items: impl ExactSizeIterator<Item = String>) -> String {
    const MAX_LISTED: usize = 10;
    let total = items.len();
    let mut shown: Vec<String> = items.take(MAX_LISTED).collect();
    if total > MAX_LISTED {
        shown.push(format!("and {} more", total - MAX_LISTED));
    }
    shown.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_is_listed_once_with_the_exit_status_of_its_class() {
        let mut names: Vec<&str> = ErrorCode::ALL.iter().map(|c| c.as_str()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), 27);
        assert_eq!(ErrorCode::ALL.len(), 27);
        for (code, status) in [
            (ErrorCode::HashMismatch, 1),
            (ErrorCode::BaseChanged, 1),
            (ErrorCode::AmbiguousEcho, 2),
            (ErrorCode::InvalidRequest, 2),
            (ErrorCode::TooLarge, 3),
            (ErrorCode::InvalidNotebook, 3),
            (ErrorCode::Permission, 4),
            (ErrorCode::UntrustedJournal, 4),
            (ErrorCode::Locked, 5),
            (ErrorCode::Cancelled, 5),
        ] {
            assert_eq!(code.class().exit_status(), status, "{code}");
        }
    }
}
