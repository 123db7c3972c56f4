//! The `Hashline` class: a session over one root, and the edit plans it
//! makes. Arguments are read by `args`, errors mapped by `error`.

use crate::args;
use crate::check;
use crate::error::guard;
use crate::js_string::Text;
use crate::list::List;
use crate::options::{self, CallOptions, HashlineOptions, ReadOptions};
use crate::plan::Held;
use crate::task::{Call, Running, Signal};
use hashline::ErrorCode;
use napi::bindgen_prelude::*;
use napi_derive::napi;
use std::sync::Arc;

#[napi(object, object_from_js = false)]
pub struct ReadView {
    #[napi(ts_type = "string")]
    pub text: Text,
    pub path: String,
    pub rev: String,
    pub total_lines: u32,
    pub start_line: u32,
    pub end_line: u32,
}

#[napi(object, js_name = "EditResult")]
pub struct BindingEditResult {
    /// What the model should read: fresh refs around each change, shift hints, notes.
    pub output: String,
    /// The first sentence of `output`, naming what was done and the path
    /// (`Applied 2 operations to src/a.ts`); the output's first line adds
    /// the REVs and the counts. A host that does more to the file (formats
    /// it) extends it, and hands it back as `ReformattedOptions.headline`.
    pub headline: String,
    pub path: String,
    pub rev: String,
    pub previous_rev: String,
    /// A unified diff for UIs.
    pub diff: String,
    pub additions: u32,
    pub deletions: u32,
    /// What the edit broke that was not broken before, on the lines it wrote.
    pub problems: Vec<check::BindingProblem>,
}

impl From<&hashline::EditResult> for BindingEditResult {
    fn from(r: &hashline::EditResult) -> Self {
        BindingEditResult {
            output: r.output.clone(),
            headline: r.headline.clone(),
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

#[napi(object, object_from_js = false)]
pub struct StripResult {
    pub text: String,
    /// How many lines the clean-up changed (0: the text as sent): a view
    /// prefix removed, a view's header left out, a line a view cut written
    /// whole.
    pub stripped: u32,
    /// What the clean-up did, to tell the model with the write's result.
    pub note: Option<String>,
}

#[napi(object, object_from_js = false)]
pub struct TagResult {
    pub rev: String,
    pub total_lines: u32,
    /// The ref of each shown line, or null where the text shown is not the file's line.
    #[napi(ts_type = "Array<string | undefined | null>")]
    pub refs: List<Option<String>>,
}

/// What `commit` says when given anything but an `EditPlan` this addon
/// made, something shaped like one included.
const COMMIT_TAKES: &str = "commit() takes a plan that plan() returned";

/// An edit computed and checked but not written.
#[napi]
pub struct EditPlan {
    pub(crate) inner: Held<hashline::EditPlan>,
}

#[napi]
impl EditPlan {
    #[napi(getter)]
    pub fn output(&self) -> String {
        self.inner.read(|r| r.output.clone())
    }

    #[napi(getter)]
    pub fn path(&self) -> String {
        self.inner.read(|r| r.path.clone())
    }

    #[napi(getter)]
    pub fn rev(&self) -> String {
        self.inner.read(|r| r.rev.clone())
    }

    #[napi(getter)]
    pub fn previous_rev(&self) -> String {
        self.inner.read(|r| r.previous_rev.clone())
    }

    #[napi(getter)]
    pub fn diff(&self) -> String {
        self.inner.read(|r| r.diff.clone())
    }

    #[napi(getter)]
    pub fn additions(&self) -> u32 {
        self.inner.read(|r| r.additions as u32)
    }

    #[napi(getter)]
    pub fn deletions(&self) -> u32 {
        self.inner.read(|r| r.deletions as u32)
    }
}

/// A session: a root, options, and the recent versions of the files it read
/// and wrote (so refs from an earlier view stay usable).
#[napi]
pub struct Hashline {
    /// Shared with the calls running on the thread pool.
    pub(crate) inner: Arc<hashline::Hashline>,
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
            if let Some(view) = options::view(o.view.as_deref(), "options.view")? {
                opts.view = view;
            }
            if let Some(syntax) = options::syntax(o.syntax.as_deref(), "options.syntax")? {
                opts.syntax = syntax;
            }
            if let Some(max) = args::count(o.store_max_bytes, "options.storeMaxBytes", 0.0)? {
                opts.store.max_disk_bytes = max as u64;
            }
            if let Some(ms) = args::count(o.lock_timeout_ms, "options.lockTimeoutMs", 0.0)? {
                opts.lock_timeout = std::time::Duration::from_millis(ms as u64);
            }
            Ok(Hashline {
                inner: Arc::new(hashline::Hashline::new(opts)?),
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
        self.read_call(&env, path, options)?.now(&env)
    }

    /// `read` on the thread pool: the event loop keeps running meanwhile.
    #[napi(ts_return_type = "Promise<ReadView>")]
    pub fn read_async(
        &self,
        env: Env,
        #[napi(ts_arg_type = "string")] path: Option<Unknown>,
        #[napi(ts_arg_type = "ReadOptions & { signal?: AbortSignal } | undefined | null")]
        options: Option<Unknown>,
    ) -> Result<AsyncTask<Running<ReadView>>> {
        self.read_call(&env, path, options)?.spawn(&env)
    }

    fn read_call<'env>(
        &self,
        env: &Env,
        path: Option<Unknown<'env>>,
        options: Option<Unknown<'env>>,
    ) -> Result<Call<'env, ReadView>> {
        guard(env, || {
            let signal = Signal::of_options(env, options.as_ref())?;
            let path = args::path(env, path)?;
            let o = ReadOptions::read(env, options)?;
            let offset = args::count(o.offset, "options.offset", 1.0)?;
            let limit = args::count(o.limit, "options.limit", 1.0)?;
            let outside = o.allow_outside_root.unwrap_or(false);
            let style = options::view(o.view.as_deref(), "options.view")?;
            let read_options = hashline::ReadOptions {
                offset,
                limit,
                allow_outside: outside,
                view: style,
                raw: o.raw.unwrap_or(false),
            };
            let hl = Arc::clone(&self.inner);
            Ok(Call::new(signal, move |_| {
                let read = hl.read_with(&path, &read_options)?;
                Ok(ReadView {
                    text: read.view.text.into(),
                    path: read.path,
                    rev: read.view.rev,
                    total_lines: read.view.total_lines as u32,
                    start_line: read.view.start_line as u32,
                    end_line: read.view.end_line as u32,
                })
            }))
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
        self.tag_call(&env, path, lines, options)?.now(&env)
    }

    /// `tag` on the thread pool.
    #[napi(ts_return_type = "Promise<TagResult>")]
    pub fn tag_async(
        &self,
        env: Env,
        #[napi(ts_arg_type = "string")] path: Unknown,
        #[napi(ts_arg_type = "Array<ShownLine>")] lines: Unknown,
        #[napi(ts_arg_type = "CallOptions & { signal?: AbortSignal } | undefined | null")]
        options: Option<Unknown>,
    ) -> Result<AsyncTask<Running<TagResult>>> {
        self.tag_call(&env, path, lines, options)?.spawn(&env)
    }

    fn tag_call<'env>(
        &self,
        env: &Env,
        path: Unknown<'env>,
        lines: Unknown<'env>,
        options: Option<Unknown<'env>>,
    ) -> Result<Call<'env, TagResult>> {
        guard(env, || {
            let signal = Signal::of_options(env, options.as_ref())?;
            let path = args::path(env, Some(path))?;
            let shown = args::shown_lines(env, Some(lines))?;
            let outside = CallOptions::outside(env, options)?;
            let hl = Arc::clone(&self.inner);
            Ok(Call::new(signal, move |_| {
                let tagged = hl.tag_with(
                    &path,
                    &shown,
                    &hashline::CallOptions {
                        allow_outside: outside,
                        ..Default::default()
                    },
                )?;
                Ok(TagResult {
                    rev: tagged.rev,
                    total_lines: tagged.total_lines as u32,
                    refs: tagged.refs.into(),
                })
            }))
        })
    }

    /// Removes view prefixes a model copied into the new content of a file
    /// (a `write`), and the other text of views copied with them, where the
    /// views this session showed prove them copies;
    /// content whose prefixes nothing proves copies comes back as sent. Throws
    /// `AMBIGUOUS_ECHO` for content in between; the same content sent again
    /// for the same file then comes back as sent.
    #[napi]
    pub fn strip_view_prefixes(
        &self,
        env: Env,
        #[napi(ts_arg_type = "string")] path: Unknown,
        #[napi(ts_arg_type = "string")] text: Unknown,
        #[napi(ts_arg_type = "CallOptions | undefined | null")] options: Option<Unknown>,
    ) -> Result<StripResult> {
        guard(&env, || {
            let path = args::path(&env, Some(path))?;
            let text = args::required_string(&env, Some(text), "text", "the text, as a string")?;
            let outside = CallOptions::outside(&env, options)?;
            let stripped = self.inner.strip_view_prefixes_with(
                &path,
                &text,
                &hashline::CallOptions {
                    allow_outside: outside,
                    ..Default::default()
                },
            )?;
            Ok(StripResult {
                text: stripped.text,
                stripped: stripped.stripped as u32,
                note: stripped.note,
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
        self.plan_call(&env, path, request, options)?.now(&env)
    }

    /// `plan` on the thread pool.
    #[napi(ts_return_type = "Promise<EditPlan>")]
    pub fn plan_async(
        &self,
        env: Env,
        #[napi(ts_arg_type = "string")] path: Option<Unknown>,
        #[napi(ts_arg_type = "EditRequest")] request: Option<Unknown>,
        #[napi(ts_arg_type = "CallOptions & { signal?: AbortSignal } | undefined | null")]
        options: Option<Unknown>,
    ) -> Result<AsyncTask<Running<EditPlan>>> {
        self.plan_call(&env, path, request, options)?.spawn(&env)
    }

    fn plan_call<'env>(
        &self,
        env: &Env,
        path: Option<Unknown<'env>>,
        request: Option<Unknown<'env>>,
        options: Option<Unknown<'env>>,
    ) -> Result<Call<'env, EditPlan>> {
        guard(env, || {
            let signal = Signal::of_options(env, options.as_ref())?;
            let path = args::path(env, path)?;
            let request = args::request(env, request)?;
            let outside = CallOptions::outside(env, options)?;
            let hl = Arc::clone(&self.inner);
            Ok(Call::new(signal, move |_| {
                Ok(EditPlan {
                    inner: Held::new(hl.plan_with(
                        &path,
                        &request,
                        &hashline::CallOptions {
                            allow_outside: outside,
                            ..Default::default()
                        },
                    )?),
                })
            }))
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
            let plan = args::instance::<EditPlan>(env, Some(plan), COMMIT_TAKES)?;
            plan.inner.write(|plan| {
                self.inner
                    .commit_then(plan, |result| result_to_js(env, result))
            })
        })
    }

    /// `commit` on the thread pool. An aborted `signal` stops it before the
    /// file is replaced (nothing written, `CANCELLED`); once the file is
    /// replaced the call completes.
    #[napi(ts_return_type = "Promise<EditResult>")]
    pub fn commit_async(
        &self,
        env: Env,
        #[napi(ts_arg_type = "EditPlan")] plan: Unknown,
        #[napi(ts_arg_type = "{ signal?: AbortSignal } | undefined | null")] options: Option<
            Unknown,
        >,
    ) -> Result<AsyncTask<Running<BindingEditResult>>> {
        guard(&env, || {
            let signal = Signal::of_options(&env, options.as_ref())?;
            let plan = args::instance::<EditPlan>(&env, Some(plan), COMMIT_TAKES)?
                .inner
                .share();
            let hl = Arc::clone(&self.inner);
            Ok(Call::new(signal, move |cancel: &hashline::Cancel| {
                plan.write(|plan| {
                    hl.commit_with(plan, cancel, |result| {
                        cancel.check()?;
                        Ok(BindingEditResult::from(result))
                    })
                })
            }))
        })?
        .spawn(&env)
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
            self.inner.edit_then(
                &path,
                &request,
                &hashline::CallOptions {
                    allow_outside: outside,
                    ..Default::default()
                },
                |result| result_to_js(env, result),
            )
        })
    }

    /// `edit` on the thread pool. An aborted `signal` stops it before the
    /// file is replaced (nothing written, `CANCELLED`).
    #[napi(ts_return_type = "Promise<EditResult>")]
    pub fn edit_async(
        &self,
        env: Env,
        #[napi(ts_arg_type = "string")] path: Option<Unknown>,
        #[napi(ts_arg_type = "EditRequest")] request: Option<Unknown>,
        #[napi(ts_arg_type = "CallOptions & { signal?: AbortSignal } | undefined | null")]
        options: Option<Unknown>,
    ) -> Result<AsyncTask<Running<BindingEditResult>>> {
        guard(&env, || {
            let signal = Signal::of_options(&env, options.as_ref())?;
            let path = args::path(&env, path)?;
            let request = args::request(&env, request)?;
            let outside = CallOptions::outside(&env, options)?;
            let hl = Arc::clone(&self.inner);
            Ok(Call::new(signal, move |cancel: &hashline::Cancel| {
                hl.edit_then(
                    &path,
                    &request,
                    &hashline::CallOptions {
                        allow_outside: outside,
                        cancel: cancel.clone(),
                    },
                    |result| {
                        cancel.check()?;
                        Ok(BindingEditResult::from(result))
                    },
                )
            }))
        })?
        .spawn(&env)
    }
}

/// An edit's result as a JS value, made while the file is still unwritten:
/// if the conversion fails, the edit fails with the file as it was.
pub(crate) fn result_to_js<'env>(
    env: &'env Env,
    result: &hashline::EditResult,
) -> hashline::Result<Unknown<'env>> {
    BindingEditResult::from(result)
        .into_unknown(env)
        .map_err(|e| {
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
