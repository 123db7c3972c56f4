//! The Node/Bun binding: a thin layer that converts values and errors. Every
//! decision is the engine's.

use hashline::{ErrorCode, Request, Value};
use napi::bindgen_prelude::*;
use napi::{JsValue, ValueType};
use napi_derive::napi;
use std::panic::{catch_unwind, AssertUnwindSafe};

pub mod check;
pub mod patch;

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

fn to_value(json: serde_json::Value) -> Value {
    match json {
        serde_json::Value::Null => Value::Null,
        serde_json::Value::Bool(b) => Value::Bool(b),
        serde_json::Value::Number(n) => Value::Number(n.as_f64().unwrap_or(f64::NAN)),
        serde_json::Value::String(s) => Value::String(s),
        serde_json::Value::Array(items) => Value::Array(items.into_iter().map(to_value).collect()),
        serde_json::Value::Object(fields) => {
            Value::Object(fields.into_iter().map(|(k, v)| (k, to_value(v))).collect())
        }
    }
}

/// Arguments arrive as whatever the caller passed; converting them here,
/// rather than in the generated glue, gives a wrong type the same
/// `INVALID_REQUEST` code and a message that names the argument.
fn arg<T: FromNapiValue>(value: Option<Unknown>, name: &str) -> hashline::Result<Option<T>> {
    let Some(value) = value else {
        return Ok(None);
    };
    if matches!(value.get_type(), Ok(ValueType::Undefined | ValueType::Null)) {
        return Ok(None);
    }
    // SAFETY: `value` is a live handle of this call; the conversion checks
    // the value's type and answers an error for a mismatch.
    unsafe { value.cast::<T>() }.map(Some).map_err(|e| {
        hashline::Error::invalid_request(format!("`{name}` is not valid: {}.", e.reason))
    })
}

fn required<T: FromNapiValue>(
    value: Option<Unknown>,
    name: &str,
    what: &str,
) -> hashline::Result<T> {
    arg(value, name)?.ok_or_else(|| {
        hashline::Error::invalid_request(format!("`{name}` is missing: give {what}."))
    })
}

fn request(value: Option<Unknown>) -> hashline::Result<Request> {
    let missing = || {
        hashline::Error::invalid_request(
            "The request must be an object with `operations` (or `oldString` and `newString`); none was given.",
        )
    };
    let value = value.ok_or_else(missing)?;
    if matches!(value.get_type(), Ok(ValueType::Undefined)) {
        return Err(missing());
    }
    // SAFETY: `value` is a live handle of this call, and the conversion to
    // `serde_json::Value` accepts any JS value (answering an error for what
    // JSON cannot hold). It is used rather than serde because it bounds the
    // nesting depth and size of what it walks.
    let json: serde_json::Value = unsafe { value.cast() }.map_err(|e| {
        hashline::Error::invalid_request(format!("The request is not valid: {}.", e.reason))
    })?;
    Request::from_value(&to_value(json))
}

fn path(value: Option<Unknown>) -> hashline::Result<String> {
    required(value, "path", "the path of a file, as a string")
}

/// A JS number that must be a whole count of at least `min`.
fn count(value: Option<f64>, name: &str, min: f64) -> hashline::Result<Option<usize>> {
    match value {
        None => Ok(None),
        Some(v) if v.is_finite() && v.fract() == 0.0 && v >= min && v <= 9.0e15 => {
            Ok(Some(v as usize))
        }
        Some(v) => Err(hashline::Error::invalid_request(format!(
            "`{name}` must be a whole number of at least {min}, not {v}."
        ))),
    }
}

#[napi(object)]
#[derive(Default)]
pub struct HashlineOptions {
    /// Folder that relative paths resolve against and edits stay inside
    /// (default: the current working directory).
    pub root: Option<String>,
    /// Files larger than this are refused with `TOO_LARGE` (default 16 MiB).
    pub max_file_bytes: Option<f64>,
    /// Allow paths that resolve outside `root` (default false).
    pub allow_outside_root: Option<bool>,
    /// Strip echoed view prefixes and boundary echoes from content (default true).
    pub cleanup: Option<bool>,
    /// Reject edits anchored on lines no view displayed (default true).
    pub seen_guard: Option<bool>,
    /// Also keep the recent versions of files in this folder, so that a later
    /// process can remap refs from an earlier one's view (for command lines).
    pub store_dir: Option<String>,
}

#[napi(object)]
#[derive(Default)]
pub struct ReadOptions {
    /// First line to show, 1-based (default 1).
    pub offset: Option<f64>,
    /// Number of lines to show (default 2000).
    pub limit: Option<f64>,
    pub allow_outside_root: Option<bool>,
}

#[napi(object)]
#[derive(Default)]
pub struct CallOptions {
    pub allow_outside_root: Option<bool>,
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
pub struct ShownLine {
    /// 1-based line number.
    pub line: u32,
    pub text: String,
    /// `text` is only the start of the line (the viewer cut it).
    pub truncated: Option<bool>,
}

#[napi(object)]
pub struct TagResult {
    pub rev: String,
    pub total_lines: u32,
    /// The ref of each shown line, or null where the text shown is not the file's line.
    pub refs: Vec<Option<String>>,
}

#[napi(object)]
pub struct Operation {
    /// replace | delete | insert_before | insert_after | prepend | append
    pub op: String,
    /// The first line, as `LINE#HASH#ANCHOR` from a view.
    pub r#ref: Option<String>,
    /// The last line of a range (replace, delete), inclusive.
    pub through: Option<String>,
    /// The new lines: one string split on newlines (one final newline dropped), or an array of lines.
    pub content: Option<Either<String, Vec<String>>>,
}

#[napi(object)]
pub struct EditRequest {
    pub operations: Option<Vec<Operation>>,
    /// The REV of the view the refs were copied from.
    pub rev: Option<String>,
    /// Fallback: exact text to replace (whitespace-tolerant if no exact match).
    pub old_string: Option<String>,
    pub new_string: Option<String>,
    pub replace_all: Option<bool>,
}

/// An edit computed and checked but not written.
#[napi]
pub struct EditPlan {
    inner: hashline::EditPlan,
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
            let o: HashlineOptions = arg(options, "options")?.unwrap_or_default();
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
            if let Some(max) = count(o.max_file_bytes, "maxFileBytes", 1.0)? {
                opts.max_file_bytes = max as u64;
            }
            opts.allow_outside_root = o.allow_outside_root.unwrap_or(false);
            opts.cleanup = o.cleanup.unwrap_or(true);
            opts.seen_guard = o.seen_guard.unwrap_or(true);
            opts.store_dir = o.store_dir.map(Into::into);
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

    /// A tagged view of the file: `LINE#HASH#ANCHOR|content` lines under a header with the REV.
    #[napi]
    pub fn read(
        &self,
        env: Env,
        #[napi(ts_arg_type = "string")] path: Option<Unknown>,
        #[napi(ts_arg_type = "ReadOptions | undefined | null")] options: Option<Unknown>,
    ) -> Result<ReadView> {
        guard(&env, || {
            let path = self::path(path)?;
            let options: Option<ReadOptions> = arg(options, "options")?;
            let (offset, limit, outside) = match &options {
                Some(o) => (
                    count(o.offset, "offset", 1.0)?,
                    count(o.limit, "limit", 1.0)?,
                    o.allow_outside_root.unwrap_or(false),
                ),
                None => (None, None, false),
            };
            let read = self.inner.read(&path, offset, limit, outside)?;
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
        #[napi(ts_arg_type = "string")] path: Option<Unknown>,
        lines: Vec<ShownLine>,
        #[napi(ts_arg_type = "CallOptions | undefined | null")] options: Option<Unknown>,
    ) -> Result<TagResult> {
        guard(&env, || {
            let path = self::path(path)?;
            let options: Option<CallOptions> = arg(options, "options")?;
            let shown: Vec<hashline::ShownLine> = lines
                .into_iter()
                .map(|l| hashline::ShownLine {
                    line: l.line as usize,
                    text: l.text,
                    truncated: l.truncated.unwrap_or(false),
                })
                .collect();
            let tagged = self.inner.tag(&path, &shown, outside(&options))?;
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
            let path = self::path(path)?;
            let request = self::request(request)?;
            let options: Option<CallOptions> = arg(options, "options")?;
            Ok(EditPlan {
                inner: self.inner.plan(&path, &request, outside(&options))?,
            })
        })
    }

    /// Writes a plan; throws `BASE_CHANGED` if the file changed since it was planned.
    #[napi]
    pub fn commit(&self, env: Env, plan: &EditPlan) -> Result<EditResult> {
        guard(&env, || {
            Ok(EditResult::from(&self.inner.commit(&plan.inner)?))
        })
    }

    /// Plans and writes in one step.
    #[napi]
    pub fn edit(
        &self,
        env: Env,
        #[napi(ts_arg_type = "string")] path: Option<Unknown>,
        #[napi(ts_arg_type = "EditRequest")] request: Option<Unknown>,
        #[napi(ts_arg_type = "CallOptions | undefined | null")] options: Option<Unknown>,
    ) -> Result<EditResult> {
        guard(&env, || {
            let path = self::path(path)?;
            let request = self::request(request)?;
            let options: Option<CallOptions> = arg(options, "options")?;
            Ok(EditResult::from(&self.inner.edit(
                &path,
                &request,
                outside(&options),
            )?))
        })
    }
}

fn outside(options: &Option<CallOptions>) -> bool {
    options
        .as_ref()
        .and_then(|o| o.allow_outside_root)
        .unwrap_or(false)
}

#[napi(object)]
#[derive(Default)]
pub struct FormatViewOptions {
    /// The name shown in the header (default "text").
    pub path: Option<String>,
    pub offset: Option<f64>,
    pub limit: Option<f64>,
}

/// A tagged view of text the caller holds.
#[napi]
pub fn format_view(env: Env, text: String, options: Option<FormatViewOptions>) -> Result<String> {
    guard(&env, || {
        let (path, offset, limit) = match options {
            Some(o) => (
                o.path,
                count(o.offset, "offset", 1.0)?,
                count(o.limit, "limit", 1.0)?,
            ),
            None => (None, None, None),
        };
        Ok(hashline::format_view(&text, path.as_deref().unwrap_or("text"), offset, limit)?.text)
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
    text: String,
    #[napi(ts_arg_type = "EditRequest")] request: Option<Unknown>,
) -> Result<TextEditResult> {
    guard(&env, || {
        let request = self::request(request)?;
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
    pub hash: String,
    pub anchor: Option<String>,
}

/// Parses a ref as models write it (tolerant); throws `INVALID_REF` otherwise.
#[napi]
pub fn parse_ref(env: Env, reference: String) -> Result<ParsedRef> {
    guard(&env, || {
        let parsed = hashline::Ref::parse(&reference)?;
        Ok(ParsedRef {
            line: u32::try_from(parsed.line).unwrap_or(u32::MAX),
            hash: parsed.hash.to_string(),
            anchor: parsed.anchor.map(|a| a.to_string()),
        })
    })
}

/// HASH: 3 hex digits of SHA-1 of the line (trailing spaces and tabs ignored).
#[napi]
pub fn line_hash(line: String) -> String {
    hashline::line_hash(&line).to_string()
}

/// ANCHOR: 3 hex digits of SHA-1 of `prev ␞ line ␞ next` (a missing neighbour is empty).
#[napi]
pub fn anchor_hash(prev: Option<String>, line: String, next: Option<String>) -> String {
    hashline::anchor_hash(prev.as_deref(), &line, next.as_deref()).to_string()
}

/// REV: 8 hex digits of SHA-1 of the canonical text (BOM removed, line endings as LF).
#[napi]
pub fn rev(text: String) -> String {
    hashline::Document::from_text(&text).rev().to_owned()
}

#[napi(object)]
pub struct StripResult {
    pub text: String,
    /// How many lines lost a view prefix (0: text unchanged).
    pub stripped: u32,
}

/// Removes echoed view prefixes (`12#A3F#9BC|`) from text, only when every non-empty line carries one.
#[napi]
pub fn strip_view_prefixes(text: String) -> StripResult {
    let (text, stripped) = hashline::cleanup::strip_view_prefixes_text(&text);
    StripResult {
        text,
        stripped: stripped as u32,
    }
}
