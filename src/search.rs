//! The binding of search: options in, structured hits and the text for the
//! model out.

use crate::args::{count, required_string};
use crate::error::guard;
use crate::list::List;
use crate::options::BindingSearchOptions;
use crate::recorder::{self, CallMeta, Recorded};
use crate::session::Hashline;
use crate::task::{Call, Running, Signal};
use hashline::telemetry::{Record, Tool};
use hashline::Value;
use napi::bindgen_prelude::*;
use napi_derive::napi;
use std::sync::Arc;

/// The strings of a list option; the reader already dropped blank ones.
fn list(value: Option<Either<String, Vec<String>>>) -> Vec<String> {
    match value {
        None => Vec::new(),
        Some(Either::A(one)) => vec![one],
        Some(Either::B(many)) => many,
    }
}

#[napi(object)]
pub struct SearchLine {
    /// 1-based.
    pub line: u32,
    pub r#ref: String,
    /// The line, cut at 2000 characters when longer.
    pub text: String,
    pub truncated: bool,
}

#[napi(object)]
pub struct SearchHit {
    /// Relative to the root.
    pub path: String,
    /// The REV of the file the hit was found in.
    pub rev: String,
    pub line: u32,
    pub r#ref: String,
    pub text: String,
    pub truncated: bool,
    /// Context lines before the hit, in order.
    pub before: Vec<SearchLine>,
    pub after: Vec<SearchLine>,
}

#[napi(object)]
pub struct SkippedFile {
    pub path: String,
    /// `BINARY`, `NOT_UTF8`, `TOO_LARGE`, or `PERMISSION` for one that could not be read.
    pub reason: String,
}

#[napi(object)]
pub struct SkippedFiles {
    pub binary: u32,
    pub not_utf8: u32,
    pub too_large: u32,
    pub unreadable: u32,
    /// The first few of them by name.
    pub files: Vec<SkippedFile>,
}

#[napi(object, object_from_js = false)]
pub struct SearchResult {
    /// What the model reads: hits with refs under each file's path and REV.
    pub text: String,
    /// Sorted by path, then line.
    #[napi(ts_type = "Array<SearchHit>")]
    pub hits: List<SearchHit>,
    /// Hits shown.
    pub shown: u32,
    /// Files with hits shown.
    pub files: u32,
    /// Hits found beyond `maxResults` and not shown.
    pub more: u32,
    /// The search stopped at `maxResults`: there are at least `more` other hits.
    pub stopped: bool,
    /// Files not searched: binary, not UTF-8, over `maxFileBytes`, unreadable.
    pub skipped: SkippedFiles,
}

fn u32_of(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

fn line(l: hashline::SearchLine) -> SearchLine {
    SearchLine {
        line: u32_of(l.line),
        r#ref: l.reference,
        text: l.text,
        truncated: l.truncated,
    }
}

#[napi]
impl Hashline {
    /// Searches the files under the root for lines matching `pattern` (Rust
    /// regex syntax), honouring `.gitignore`; each hit carries its ref, and the
    /// lines shown count as seen for later edits.
    #[napi]
    pub fn search(
        &self,
        env: Env,
        #[napi(ts_arg_type = "string")] pattern: Option<Unknown>,
        #[napi(ts_arg_type = "SearchOptions | undefined | null")] options: Option<Unknown>,
    ) -> Result<SearchResult> {
        self.search_call(&env, pattern, options)?.now(&env)
    }

    /// `search` on the thread pool; an aborted `signal` stops it between files.
    #[napi(ts_return_type = "Promise<SearchResult>")]
    pub fn search_async(
        &self,
        env: Env,
        #[napi(ts_arg_type = "string")] pattern: Option<Unknown>,
        #[napi(ts_arg_type = "SearchOptions & { signal?: AbortSignal } | undefined | null")]
        options: Option<Unknown>,
    ) -> Result<AsyncTask<Running<SearchResult>>> {
        self.search_call(&env, pattern, options)?.spawn(&env)
    }

    fn search_call<'env>(
        &self,
        env: &Env,
        pattern: Option<Unknown<'env>>,
        options: Option<Unknown<'env>>,
    ) -> Result<Call<'env, SearchResult>> {
        guard(env, || {
            let signal = Signal::of_options(env, options.as_ref())?;
            let pattern =
                required_string(env, pattern, "pattern", "a regular expression, as a string")?;
            let o = BindingSearchOptions::read(env, options)?;
            let probe = self
                .probe(
                    Tool::Grep,
                    CallMeta {
                        model: o.model.clone(),
                        call_id: o.call_id.clone(),
                        host: o.host.clone(),
                    },
                )
                .map(|probe| {
                    let mut fields = vec![("pattern", recorder::text(&pattern))];
                    for (key, list) in [
                        ("path", &o.path),
                        ("include", &o.include),
                        ("exclude", &o.exclude),
                    ] {
                        if let Some(Either::B(items)) = list {
                            if !items.is_empty() {
                                fields.push((
                                    key,
                                    Value::Array(items.iter().map(|i| recorder::text(i)).collect()),
                                ));
                            }
                        }
                    }
                    probe.arguments(fields)
                });
            let mut search = hashline::SearchOptions::new(pattern);
            search.paths = list(o.path);
            search.include = list(o.include);
            search.exclude = list(o.exclude);
            search.ignore_case = o.ignore_case.unwrap_or(false);
            search.fixed_strings = o.fixed_strings.unwrap_or(false);
            search.word = o.word.unwrap_or(false);
            search.invert = o.invert.unwrap_or(false);
            search.hidden = o.hidden.unwrap_or(false);
            if let Some(max) = count(o.max_results, "options.maxResults", 1.0)? {
                search.max_results = max;
            }
            if let Some(context) = count(o.context, "options.context", 0.0)? {
                search.context = context;
            }
            let hl = Arc::clone(&self.inner);
            Ok(Call::new(signal, move |cancel: &hashline::Cancel| {
                Ok(result(hl.search_with(&search, cancel)?))
            })
            .recorded(probe))
        })
    }
}

impl Recorded for SearchResult {
    fn observe(&self, record: &mut Record) {
        record.lines.shown = u64::from(self.shown);
        record.files = u64::from(self.files);
        record.tokens.result = hashline::telemetry::estimate_tokens_bounded(&self.text);
    }
}

/// A search's result for JS.
fn result(result: hashline::SearchResult) -> SearchResult {
    let stopped = result.stopped();
    let shown = result.hits.len();
    let skipped = result.skipped;
    SearchResult {
        text: result.text,
        hits: result
            .hits
            .into_iter()
            .map(|h| SearchHit {
                path: h.path,
                rev: h.rev,
                line: u32_of(h.line.line),
                r#ref: h.line.reference,
                text: h.line.text,
                truncated: h.line.truncated,
                before: h.before.into_iter().map(line).collect(),
                after: h.after.into_iter().map(line).collect(),
            })
            .collect::<Vec<_>>()
            .into(),
        shown: u32_of(shown),
        files: u32_of(result.files),
        more: u32_of(result.more),
        stopped,
        skipped: SkippedFiles {
            binary: u32_of(skipped.binary),
            not_utf8: u32_of(skipped.not_utf8),
            too_large: u32_of(skipped.too_large),
            unreadable: u32_of(skipped.unreadable),
            files: skipped
                .files
                .into_iter()
                .map(|f| SkippedFile {
                    path: f.path,
                    reason: f.reason.as_str().to_owned(),
                })
                .collect(),
        },
    }
}
