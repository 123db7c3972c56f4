//! The local record of tool calls (`docs/telemetry.md`): what each call
//! was and how it ended, for `hashline stats` to tell a user how their
//! models fare. A host fills a `Record` per call from the engine's results
//! (never a file's content, a path in clear or the model's text) and hands
//! it to `Telemetry`, which writes it off the host's thread into a private
//! folder, bounded by rotation; nothing is ever sent anywhere. `stats`
//! reads the folder back as untrusted input.
//!
//! The record's file format (`record`), the writer and its rotation
//! (`writer`), the folder and its trust (`folder`), the salt that hides
//! paths (`salt`), the token estimate (`tokens`) and the figures read back
//! (`stats`) each have a file.

mod folder;
mod record;
mod salt;
mod stats;
#[cfg(test)]
mod tests;
mod tokens;
mod writer;

pub use folder::{default_dir, off, Settings, DEFAULT_FILES, DEFAULT_MAX_FILE_BYTES};
pub use record::{Cleaned, Lines, Outcome, Record, Tokens, Tool};
pub use stats::{
    stats, Advice, Day, Figures, Group, Retries, Stats, StatsOptions, ECHO_SHARE, FALLBACK_SHARE,
    MIN_ATTEMPTS, PATCH_LEAD, REF_CODES, REF_REFUSAL_SHARE, RETRY_WINDOW_MS,
};
pub use tokens::{
    arguments as arguments_tokens, estimate as estimate_tokens,
    estimate_bounded as estimate_tokens_bounded, view as view_tokens,
    view_lines as view_lines_tokens,
};
pub use writer::{now_ms, Telemetry};
