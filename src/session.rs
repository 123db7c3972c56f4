//! The `Hashline` class: a session over one root, and the edit plans it
//! makes. Arguments are read by `args`, errors mapped by `error`.

use crate::args;
use crate::check;
use crate::error::guard;
use crate::handover::hand_over;
use crate::js_string::Text;
use crate::list::List;
use crate::options::{self, CallOptions, HashlineOptions, ReadOptions};
use crate::plan::Held;
use crate::recorder::{self, record_now, CallMeta, Pending, Recorded, Recorder};
use crate::task::{Call, Running, Signal};
use hashline::telemetry::{Outcome, Record, Tool};
use hashline::{ErrorCode, Value};
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
    /// How the edit came to be: stale refs recovered, copies the clean-up
    /// removed.
    #[napi(ts_type = "EditOutcome")]
    pub outcome: BindingEditOutcome,
}

/// How an edit came to be what it is: what the stale-ref policy and the
/// clean-up did (`docs/format.md` §6, §7).
#[napi(object, js_name = "EditOutcome")]
pub struct BindingEditOutcome {
    /// The refs were of an older version, proven to name lines still in
    /// the file (stale refs recovered).
    pub remapped: bool,
    /// Content lines the clean-up changed or left out as copied output of
    /// the engine (view prefixes, a view's header, a line a view cut).
    pub prefixes_removed: u32,
    /// Boundary echoes the clean-up dropped.
    pub echoes_dropped: u32,
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
            outcome: BindingEditOutcome {
                remapped: r.outcome.remapped,
                prefixes_removed: r.outcome.prefixes_removed as u32,
                echoes_dropped: r.outcome.echoes_dropped as u32,
            },
        }
    }
}

impl Recorded for BindingEditResult {
    fn observe(&self, record: &mut Record) {
        record.outcome = Outcome::Applied;
        record.remapped |= self.outcome.remapped;
        record.cleaned.prefixes += u64::from(self.outcome.prefixes_removed);
        record.cleaned.echoes += u64::from(self.outcome.echoes_dropped);
        record.lines.added += u64::from(self.additions);
        record.lines.removed += u64::from(self.deletions);
        record.tokens.result = hashline::telemetry::estimate_tokens_bounded(&self.output);
    }
}

impl Recorded for ReadView {
    fn observe(&self, record: &mut Record) {
        let (first, last) = (self.start_line as usize, self.end_line as usize);
        record.lines.file = u64::from(self.total_lines);
        record.lines.shown = (last + 1).saturating_sub(first) as u64;
        record.tokens.result =
            hashline::telemetry::view_tokens(self.text.utf8_len(), first, last, record.view);
    }
}

impl Recorded for TagResult {
    fn observe(&self, record: &mut Record) {
        record.lines.file = u64::from(self.total_lines);
        record.lines.shown = self.refs.0.iter().filter(|r| r.is_some()).count() as u64;
    }
}

impl Recorded for StripResult {
    fn observe(&self, record: &mut Record) {
        record.cleaned.prefixes = u64::from(self.stripped);
        record.resent = self.resent;
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
    /// The same content was refused for this file before and is handed
    /// back as sent: sent again, it is meant as it is.
    pub resent: bool,
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
    /// The record of the call that made it, finished by its commit.
    pub(crate) pending: Pending,
}

impl Recorded for EditPlan {
    fn observe(&self, _: &mut Record) {}

    fn settle(&self, probe: recorder::Probe) {
        self.pending.keep(probe);
    }
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
    /// Who makes the session's calls, and where they are recorded.
    pub(crate) recorder: Recorder,
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
            let view = opts.view;
            let inner = hashline::Hashline::new(opts)?;
            let recorder = Recorder::new(
                &env,
                recorder::TelemetryOptions {
                    host: o.host,
                    model: o.model,
                    telemetry: o.telemetry,
                    telemetry_dir: o.telemetry_dir,
                },
                inner.root(),
                view,
            )?;
            Ok(Hashline {
                inner: Arc::new(inner),
                recorder,
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
            let probe = self
                .probe(
                    Tool::Read,
                    CallMeta {
                        model: o.model,
                        call_id: o.call_id,
                        host: o.host,
                    },
                )
                .map(|probe| {
                    let numbers = [("offset", offset), ("limit", limit)];
                    let mut fields = vec![("filePath", recorder::text(&path))];
                    fields.extend(numbers.iter().filter_map(|(k, n)| {
                        Some((*k, Value::Number(n.as_ref().copied()? as f64)))
                    }));
                    probe.path(&path).view(style).arguments(fields)
                });
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
            })
            .recorded(probe))
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
            let (outside, meta) = CallOptions::of(env, options)?;
            let probe = self.recorder.probe(Tool::Read, meta).map(|probe| {
                let mut probe = probe
                    .path(&path)
                    .arguments(vec![("filePath", recorder::text(&path))]);
                // The host's view, with the refs the plugin adds.
                let bytes = shown.iter().map(|s| s.text.len() + 1).sum();
                probe.record().tokens.result =
                    hashline::telemetry::view_lines_tokens(bytes, shown.len(), probe.record().view);
                probe
            });
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
            })
            .recorded(probe))
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
            let (outside, meta) = CallOptions::of(&env, options)?;
            let probe = self.recorder.probe(Tool::Write, meta).map(|probe| {
                let fields = vec![
                    ("filePath", recorder::text(&path)),
                    ("content", recorder::text(&text)),
                ];
                probe.path(&path).arguments(fields)
            });
            record_now(probe, |record| {
                let stripped = self.inner.strip_view_prefixes_with(
                    &path,
                    &text,
                    &hashline::CallOptions {
                        allow_outside: outside,
                        ..Default::default()
                    },
                )?;
                let result = StripResult {
                    text: stripped.text,
                    stripped: stripped.stripped as u32,
                    note: stripped.note,
                    resent: stripped.resent,
                };
                if let Some(record) = record {
                    result.observe(record);
                }
                Ok(result)
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
            let value = args::request_value(env, request)?;
            let request = hashline::Request::from_value(&value)?;
            let (outside, meta) = CallOptions::of(env, options)?;
            let probe = self.probe_edit(meta, &path, &request, &value);
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
                    pending: Pending::default(),
                })
            })
            .recorded(probe))
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
            record_now(plan.pending.take(), |record| {
                plan.inner.write(|plan| {
                    self.inner
                        .commit_then(plan, |result| result_to_js(env, result, record))
                })
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
            let plan = args::instance::<EditPlan>(&env, Some(plan), COMMIT_TAKES)?;
            let probe = plan.pending.take();
            let plan = plan.inner.share();
            let hl = Arc::clone(&self.inner);
            Ok(Call::new(signal, move |cancel: &hashline::Cancel| {
                plan.write(|plan| {
                    hl.commit_with(plan, cancel, |result| {
                        cancel.check()?;
                        Ok(BindingEditResult::from(result))
                    })
                })
            })
            .recorded(probe))
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
            let value = args::request_value(env, request)?;
            let request = hashline::Request::from_value(&value)?;
            let (outside, meta) = CallOptions::of(env, options)?;
            let probe = self.probe_edit(meta, &path, &request, &value);
            record_now(probe, |record| {
                self.inner.edit_then(
                    &path,
                    &request,
                    &hashline::CallOptions {
                        allow_outside: outside,
                        ..Default::default()
                    },
                    |result| result_to_js(env, result, record),
                )
            })
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
            let value = args::request_value(&env, request)?;
            let request = hashline::Request::from_value(&value)?;
            let (outside, meta) = CallOptions::of(&env, options)?;
            let probe = self.probe_edit(meta, &path, &request, &value);
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
            })
            .recorded(probe))
        })?
        .spawn(&env)
    }
}

impl Hashline {
    /// A probe for a call of `tool` by the model and host `meta` names (or
    /// the session's), or `None` when the record is off.
    pub(crate) fn probe(&self, tool: Tool, meta: CallMeta) -> Option<recorder::Probe> {
        self.recorder.probe(tool, meta)
    }

    /// A probe for an edit of `path` by `request`, as the model sent it
    /// (`value`).
    fn probe_edit(
        &self,
        meta: CallMeta,
        path: &str,
        request: &hashline::Request,
        value: &Value,
    ) -> Option<recorder::Probe> {
        let probe = self.recorder.probe(Tool::Edit, meta)?;
        Some(probe.path(path).request(request, value))
    }
}

/// An edit's result as a JS value, made while the file is still unwritten.
pub(crate) fn result_to_js<'env>(
    env: &'env Env,
    result: &hashline::EditResult,
    record: Option<&mut Record>,
) -> hashline::Result<Unknown<'env>> {
    let result = BindingEditResult::from(result);
    let path = result.path.clone();
    hand_over(env, result, record, "the edit", Some(path))
}
