//! What the engine knows of a file's syntax, through tree-sitter grammars
//! chosen by file extension: whether an edit broke the parse, where a block
//! that starts on a line ends, and which of two readings of a payload's
//! boundary parses better. A file in a language without a grammar (or with
//! its grammar's feature left out of the build) is plain text to all of it.

mod block;
mod check;
mod echo;
mod grammar;
/// Named by `problem` directly, not through this facade, which reaches
/// `document` and so `error`, whose errors carry problems.
pub(crate) mod language;
mod trees;

pub(crate) use block::block_at;
pub use check::SyntaxCheck;
pub(crate) use check::{broken, KeptTree, Parsed};
pub(crate) use echo::EchoJudge;
pub use language::Language;
pub(crate) use trees::Trees;
