//! The Node/Bun binding: a thin layer that converts values and errors. Every
//! decision is the engine's.

use args::{CallOptions, FormatViewOptions, HashlineOptions, ReadOptions};
use hashline::ErrorCode;
use napi::bindgen_prelude::*;
use napi_derive::napi;
use std::panic::{catch_unwind, AssertUnwindSafe};

pub mod args;
pub mod check;
pub mod patch;
mod search;

/// Runs `f`, turning an engine error into a JS `Error` with `code` and
/// structured fields, and a panic into an `INTERNAL` error rather than a
/// crash of the host process.
fn guard<T>(env: &Env, f: impl FnOnce() -> hashline::Result<T>) -> Result<T> {
    let outcome = catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|panic| {
        let what = panic
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".into());
        Err(hashline::Error::new(
            ErrorCode::Internal,
            format!("Internal error in hashline ({what}). Please report it."),
        ))
    });
    outcome.map_err(|err| to_js_error(env, err))
}

#[napi(object)]
pub struct Mismatch {
    pub line: f64,
    pub expected: String,
    pub actual: Option<String>,
}

fn to_js_error(env: &Env, err: hashline::Error) -> Error {
    let build = || -> Result<Error> {
        let mut object =
            env.create_error(Error::new(Status::GenericFailure, err.message.clone()))?;
        object.set("code", err.code.as_str())?;
        let mismatches: Vec<Mismatch> = err
            .mismatches
            .iter()
            .map(|m| Mismatch {
                line: m.line as f64,
                expected: m.expected.clone(),
                actual: m.actual.clone(),
            })
            .collect();
        object.set("mismatches", mismatches)?;
        if let Some(suggestion) = &err.suggestion {
            object.set("suggestion", suggestion.as_str())?;
        }
        if let Some(path) = &err.path {
            object.set("path", path.as_str())?;
        }
        Ok(Error::from(object.to_unknown()))
    };
    build().unwrap_or_else(|_| {
        Error::new(
            Status::GenericFailure,
            format!("{}: {}", err.code, err.message),
        )
    })
}

#[napi(object)]
pub struct ReadView {
    pub text: String,
    pub path: String,
    pub rev: String,
    pub total_lines: u32,
    pub start_line: u32,
    pub end_line: u32,
}

#[napi(object)]
pub struct EditResult {
    /// What the model should read: fresh refs around each change, shift hints, notes.
    pub output: String,
    pub path: String,
    pub rev: String,
    pub previous_rev: String,
    /// A unified diff for UIs.
    pub diff: String,
    pub additions: u32,
    pub deletions: u32,
    /// What the edit broke that was not broken before, on the lines it wrote.
    pub problems: Vec<check::Problem>,
}

impl From<&hashline::EditResult> for EditResult {
    fn from(r: &hashline::EditResult) -> Self {
        EditResult {
            output: r.output.clone(),
            path: r.path.clone(),
            rev: r.rev.clone(),
            previous_rev: r.previous_rev.clone(),
            diff: r.diff.clone(),
            additions: r.additions as u32,
            deletions: r.deletions as u32,
            problems: check::problems(&r.problems),
        }
    }
}

#[napi(object)]
pub struct TagResult {
    pub rev: String,
    pub total_lines: u32,
    /// The ref of each shown line, or null where the text shown is not the file's line.
    pub refs: Vec<Option<String>>,
}

/// An edit computed and checked but not written.
#[napi]
pub struct EditPlan {
    pub(crate) inner: hashline::EditPlan,
}

#[napi]
impl EditPlan {
    #[napi(getter)]
    pub fn output(&self) -> String {
        self.inner.result().output.clone()
    }

    #[napi(getter)]
    pub fn path(&self) -> String {
        self.inner.result().path.clone()
    }

    #[napi(getter)]
    pub fn rev(&self) -> String {
        self.inner.result().rev.clone()
    }

    #[napi(getter)]
    pub fn previous_rev(&self) -> String {
        self.inner.result().previous_rev.clone()
    }

    #[napi(getter)]
    pub fn diff(&self) -> String {
        self.inner.result().diff.clone()
    }

    #[napi(getter)]
    pub fn additions(&self) -> u32 {
        self.inner.result().additions as u32
    }

    #[napi(getter)]
    pub fn deletions(&self) -> u32 {
        self.inner.result().deletions as u32
    }
}

/// A session: a root, options, and the recent versions of the files it read
/// and wrote (so refs from an earlier view stay usable).
#[napi]
pub struct Hashline {
    inner: hashline::Hashline,
}

#[napi]
impl Hashline {
    #[napi(constructor)]
    pub fn new(
        env: Env,
        #[napi(ts_arg_type = "HashlineOptions | undefined | null")] options: Option<Unknown>,
    ) -> Result<Self> {
        guard(&env, || {
            let o = HashlineOptions::read(&env, options)?;
            let root = match o.root {
                Some(root) => root.into(),
                None => std::env::current_dir().map_err(|e| {
                    hashline::Error::new(
                        ErrorCode::Io,
                        format!("The current folder cannot be read: {e}"),
                    )
                })?,
            };
            let mut opts = hashline::Options::new(root);
            if let Some(max) = args::count(o.max_file_bytes, "options.maxFileBytes", 1.0)? {
                opts.max_file_bytes = max as u64;
            }
            opts.allow_outside_root = o.allow_outside_root.unwrap_or(false);
            opts.cleanup = o.cleanup.unwrap_or(true);
            opts.seen_guard = o.seen_guard.unwrap_or(true);
            opts.store_dir = o.store_dir.map(Into::into);
            if let Some(view) = args::view(o.view.as_deref(), "options.view")? {
                opts.view = view;
            }
            if let Some(ms) = args::count(o.lock_timeout_ms, "options.lockTimeoutMs", 0.0)? {
                opts.lock_timeout = std::time::Duration::from_millis(ms as u64);
            }
            Ok(Hashline {
                inner: hashline::Hashline::new(opts)?,
            })
        })
    }

    /// The canonical root folder.
    #[napi(getter)]
    pub fn root(&self) -> String {
        self.inner.root().display().to_string()
    }

    /// A tagged view of the file: `LINEab content` (lean) or
    /// `LINE#HASH#ANCHOR|content` (full) lines under a header with the REV.
    #[napi]
    pub fn read(
        &self,
        env: Env,
        #[napi(ts_arg_type = "string")] path: Option<Unknown>,
        #[napi(ts_arg_type = "ReadOptions | undefined | null")] options: Option<Unknown>,
    ) -> Result<ReadView> {
        guard(&env, || {
            let path = args::path(&env, path)?;
            let o = ReadOptions::read(&env, options)?;
            let offset = args::count(o.offset, "options.offset", 1.0)?;
            let limit = args::count(o.limit, "options.limit", 1.0)?;
            let outside = o.allow_outside_root.unwrap_or(false);
            let read = match args::view(o.view.as_deref(), "options.view")? {
                Some(style) => self.inner.read_in(&path, offset, limit, outside, style)?,
                None => self.inner.read(&path, offset, limit, outside)?,
            };
            Ok(ReadView {
                text: read.view.text,
                path: read.path,
                rev: read.view.rev,
                total_lines: read.view.total_lines as u32,
                start_line: read.view.start_line as u32,
                end_line: read.view.end_line as u32,
            })
        })
    }

    /// Refs for lines another viewer displayed, computed from the file itself.
    #[napi]
    pub fn tag(
        &self,
        env: Env,
        #[napi(ts_arg_type = "string")] path: Unknown,
        #[napi(ts_arg_type = "Array<ShownLine>")] lines: Unknown,
        #[napi(ts_arg_type = "CallOptions | undefined | null")] options: Option<Unknown>,
    ) -> Result<TagResult> {
        guard(&env, || {
            let path = args::path(&env, Some(path))?;
            let shown = args::shown_lines(&env, Some(lines))?;
            let outside = CallOptions::outside(&env, options)?;
            let tagged = self.inner.tag(&path, &shown, outside)?;
            Ok(TagResult {
                rev: tagged.rev,
                total_lines: tagged.total_lines as u32,
                refs: tagged.refs,
            })
        })
    }

    /// Checks and computes an edit without writing it.
    #[napi]
    pub fn plan(
        &self,
        env: Env,
        #[napi(ts_arg_type = "string")] path: Option<Unknown>,
        #[napi(ts_arg_type = "EditRequest")] request: Option<Unknown>,
        #[napi(ts_arg_type = "CallOptions | undefined | null")] options: Option<Unknown>,
    ) -> Result<EditPlan> {
        guard(&env, || {
            let path = args::path(&env, path)?;
            let request = args::request(&env, request)?;
            let outside = CallOptions::outside(&env, options)?;
            Ok(EditPlan {
                inner: self.inner.plan(&path, &request, outside)?,
            })
        })
    }

    /// Writes a plan; throws `BASE_CHANGED` if the file changed since it was planned.
    #[napi(ts_return_type = "EditResult")]
    pub fn commit<'env>(
        &self,
        env: &'env Env,
        #[napi(ts_arg_type = "EditPlan")] plan: Unknown,
    ) -> Result<Unknown<'env>> {
        guard(env, || {
            let plan = args::plan(env, Some(plan))?;
            self.inner
                .commit_with(&plan.inner, |result| result_to_js(env, result))
        })
    }

    /// Plans and writes in one step.
    #[napi(ts_return_type = "EditResult")]
    pub fn edit<'env>(
        &self,
        env: &'env Env,
        #[napi(ts_arg_type = "string")] path: Option<Unknown>,
        #[napi(ts_arg_type = "EditRequest")] request: Option<Unknown>,
        #[napi(ts_arg_type = "CallOptions | undefined | null")] options: Option<Unknown>,
    ) -> Result<Unknown<'env>> {
        guard(env, || {
            let path = args::path(env, path)?;
            let request = args::request(env, request)?;
            let outside = CallOptions::outside(env, options)?;
            self.inner
                .edit_with(&path, &request, outside, |result| result_to_js(env, result))
        })
    }
}

/// An edit's result as a JS value, made while the file is still unwritten:
/// if the conversion fails, the edit fails with the file as it was.
fn result_to_js<'env>(
    env: &'env Env,
    result: &hashline::EditResult,
) -> hashline::Result<Unknown<'env>> {
    EditResult::from(result).into_unknown(env).map_err(|e| {
        hashline::Error::new(
            ErrorCode::Internal,
            format!(
                "The result of the edit could not be handed over ({}); nothing was written.",
                e.reason
            ),
        )
        .with_path(&result.path)
    })
}

/// A tagged view of text the caller holds.
#[napi]
pub fn format_view(
    env: Env,
    #[napi(ts_arg_type = "string")] text: Unknown,
    #[napi(ts_arg_type = "FormatViewOptions | undefined | null")] options: Option<Unknown>,
) -> Result<String> {
    guard(&env, || {
        let text =
            args::required_string(&env, Some(text), "text", "the text to show, as a string")?;
        let o = FormatViewOptions::read(&env, options)?;
        let offset = args::count(o.offset, "options.offset", 1.0)?;
        let limit = args::count(o.limit, "options.limit", 1.0)?;
        let path = o.path.as_deref().unwrap_or("text");
        let style = args::view(o.view.as_deref(), "options.view")?.unwrap_or_default();
        Ok(hashline::format_view(&text, path, offset, limit, style)?.text)
    })
}

#[napi(object)]
pub struct TextEditResult {
    pub text: String,
    pub output: String,
    pub rev: String,
    pub previous_rev: String,
    pub diff: String,
    pub additions: u32,
    pub deletions: u32,
}

/// Applies an edit request to text the caller holds; no file, no store.
#[napi]
pub fn apply_edits(
    env: Env,
    #[napi(ts_arg_type = "string")] text: Unknown,
    #[napi(ts_arg_type = "EditRequest")] request: Option<Unknown>,
) -> Result<TextEditResult> {
    guard(&env, || {
        let text =
            args::required_string(&env, Some(text), "text", "the text to edit, as a string")?;
        let request = args::request(&env, request)?;
        let (text, edited) = hashline::apply_to_text(&text, &request, true)?;
        Ok(TextEditResult {
            text,
            output: edited.summary.output,
            rev: edited.rev,
            previous_rev: edited.previous_rev,
            diff: edited.summary.diff,
            additions: edited.summary.additions as u32,
            deletions: edited.summary.deletions as u32,
        })
    })
}

#[napi(object)]
pub struct ParsedRef {
    pub line: u32,
    /// The HASH of a full ref.
    pub hash: Option<String>,
    pub anchor: Option<String>,
    /// The two letters of a lean ref.
    pub pair: Option<String>,
}

/// Parses a ref as models write it (tolerant); throws `INVALID_REF` otherwise.
#[napi]
pub fn parse_ref(
    env: Env,
    #[napi(ts_arg_type = "string")] reference: Unknown,
) -> Result<ParsedRef> {
    guard(&env, || {
        let reference = args::required_string(
            &env,
            Some(reference),
            "reference",
            "a ref such as 12#A3F#9BC",
        )?;
        let parsed = hashline::Ref::parse(&reference)?;
        Ok(ParsedRef {
            line: u32::try_from(parsed.line).unwrap_or(u32::MAX),
            hash: parsed.hash().map(|h| h.to_string()),
            anchor: parsed.anchor().map(|a| a.to_string()),
            pair: match parsed.tag {
                hashline::RefTag::Pair(tag) => Some(String::from_utf8_lossy(&tag).into_owned()),
                hashline::RefTag::Full { .. } => None,
            },
        })
    })
}

/// HASH: 3 hex digits of SHA-1 of the line (trailing spaces and tabs ignored).
#[napi]
pub fn line_hash(env: Env, #[napi(ts_arg_type = "string")] line: Unknown) -> Result<String> {
    guard(&env, || {
        let line = args::required_string(&env, Some(line), "line", "the text of a line")?;
        Ok(hashline::line_hash(&line).to_string())
    })
}

/// ANCHOR: 3 hex digits of SHA-1 of `prev ␞ line ␞ next` (a missing neighbour is empty).
#[napi]
pub fn anchor_hash(
    env: Env,
    #[napi(ts_arg_type = "string | undefined | null")] prev: Unknown,
    #[napi(ts_arg_type = "string")] line: Unknown,
    #[napi(ts_arg_type = "string | undefined | null")] next: Option<Unknown>,
) -> Result<String> {
    guard(&env, || {
        let prev = args::string(&env, Some(prev), "prev")?;
        let line = args::required_string(&env, Some(line), "line", "the text of a line")?;
        let next = args::string(&env, next, "next")?;
        Ok(hashline::anchor_hash(prev.as_deref(), &line, next.as_deref()).to_string())
    })
}

/// REV: 8 hex digits of SHA-1 of the canonical text (BOM removed, line endings as LF).
#[napi]
pub fn rev(env: Env, #[napi(ts_arg_type = "string")] text: Unknown) -> Result<String> {
    guard(&env, || {
        let text = args::required_string(&env, Some(text), "text", "the text, as a string")?;
        Ok(hashline::Document::from_text(&text).rev().to_owned())
    })
}

#[napi(object)]
pub struct StripResult {
    pub text: String,
    /// How many lines lost a view prefix (0: text unchanged).
    pub stripped: u32,
}

/// Removes echoed view prefixes (`12#A3F#9BC|`) from text, only when every non-empty line carries one.
#[napi]
pub fn strip_view_prefixes(
    env: Env,
    #[napi(ts_arg_type = "string")] text: Unknown,
) -> Result<StripResult> {
    guard(&env, || {
        let text = args::required_string(&env, Some(text), "text", "the text, as a string")?;
        let (text, stripped) = hashline::cleanup::strip_view_prefixes_text(&text);
        Ok(StripResult {
            text,
            stripped: stripped as u32,
        })
    })
}
