//! The binding of patches (`*** Begin Patch`) and of files rewritten after
//! a write: checked and planned, then written, as edits are.

use crate::args;
use crate::check::{problems, BindingProblem};
use crate::error::guard;
use crate::handover::hand_over;
use crate::options::{PatchOptions, ReformattedOptions};
use crate::plan::Held;
use crate::recorder::{record_now, CallMeta, Pending, Probe, Recorded};
use crate::session::{BindingEditResult, Hashline};
use crate::task::{Call, Running, Signal};
use hashline::telemetry::{Record, Tool};
use napi::bindgen_prelude::*;
use napi_derive::napi;
use std::path::PathBuf;
use std::sync::Arc;

/// What a patch does to a file.
// Named as the engine's type, not `BindingFileKind` with a `js_name`: napi's
// loader would export the Rust name too, as undefined.
#[napi(string_enum = "lowercase")]
pub enum FileKind {
    Add,
    Update,
    Delete,
    Move,
}

impl From<hashline::FileKind> for FileKind {
    fn from(kind: hashline::FileKind) -> Self {
        match kind {
            hashline::FileKind::Add => FileKind::Add,
            hashline::FileKind::Update => FileKind::Update,
            hashline::FileKind::Delete => FileKind::Delete,
            hashline::FileKind::Move => FileKind::Move,
        }
    }
}

#[napi(object)]
pub struct PatchFile {
    pub kind: FileKind,
    /// The file the patch names, as shown to the model, and its absolute path.
    pub path: String,
    pub absolute_path: String,
    /// Where a moved file goes.
    pub move_path: Option<String>,
    pub move_absolute_path: Option<String>,
    /// The REV written (none for a deleted file) and the one before (none for a new file).
    pub rev: Option<String>,
    pub previous_rev: Option<String>,
    /// A unified diff of the file for UIs.
    pub diff: String,
    pub additions: u32,
    pub deletions: u32,
    /// This file's part of the output: fresh refs around each change.
    pub output: String,
    /// The first sentence of `output` for a file written (`Patched
    /// src/a.ts with 2 hunks`), which a host extends when it does more to
    /// the file; none for a file deleted.
    pub headline: Option<String>,
    pub problems: Vec<BindingProblem>,
}

fn files(result: &hashline::PatchResult) -> Vec<PatchFile> {
    result
        .files
        .iter()
        .map(|f| PatchFile {
            kind: f.kind.into(),
            path: f.path.clone(),
            absolute_path: f.absolute.clone(),
            move_path: f.move_path.clone(),
            move_absolute_path: f.move_absolute.clone(),
            rev: f.rev.clone(),
            previous_rev: f.previous_rev.clone(),
            diff: f.diff.clone(),
            additions: f.additions as u32,
            deletions: f.deletions as u32,
            output: f.output.clone(),
            headline: f.headline.clone(),
            problems: problems(&f.problems),
        })
        .collect()
}

#[napi(object, js_name = "PatchResult")]
pub struct BindingPatchResult {
    /// The files changed, one line each (`M src/a.ts`).
    pub summary: String,
    /// What the model should read: the summary, then fresh refs for each change.
    pub output: String,
    pub files: Vec<PatchFile>,
}

impl Recorded for BindingPatchResult {
    fn observe(&self, record: &mut Record) {
        record.outcome = hashline::telemetry::Outcome::Applied;
        record.ops = self
            .files
            .iter()
            .map(|f| {
                std::borrow::Cow::Borrowed(match f.kind {
                    FileKind::Add => "add_file",
                    FileKind::Update => "update_file",
                    FileKind::Delete => "delete_file",
                    FileKind::Move => "move_file",
                })
            })
            .collect();
        for file in &self.files {
            record.lines.added += u64::from(file.additions);
            record.lines.removed += u64::from(file.deletions);
        }
        record.tokens.result = hashline::telemetry::estimate_tokens_bounded(&self.output);
    }
}

/// A patch checked against every file it names, nothing written yet.
#[napi]
pub struct PatchPlan {
    inner: Held<hashline::PatchPlan>,
    /// The record of the call that made it, finished by its commit.
    pending: Pending,
}

impl Recorded for PatchPlan {
    fn observe(&self, _: &mut Record) {}

    fn settle(&self, probe: Probe) {
        self.pending.keep(probe);
    }
}

#[napi]
impl PatchPlan {
    #[napi(getter)]
    pub fn summary(&self) -> String {
        self.inner.read(|r| r.summary.clone())
    }

    #[napi(getter)]
    pub fn output(&self) -> String {
        self.inner.read(|r| r.output.clone())
    }

    #[napi(getter)]
    pub fn files(&self) -> Vec<PatchFile> {
        self.inner.read(files)
    }
}

impl From<&hashline::PatchResult> for BindingPatchResult {
    fn from(result: &hashline::PatchResult) -> Self {
        BindingPatchResult {
            summary: result.summary.clone(),
            output: result.output.clone(),
            files: files(result),
        }
    }
}

#[napi]
impl Hashline {
    /// Checks a patch against every file it names and computes each new version, writing nothing.
    #[napi]
    pub fn plan_patch(
        &self,
        env: Env,
        #[napi(ts_arg_type = "string")] patch: Option<Unknown>,
        #[napi(ts_arg_type = "PatchOptions | undefined | null")] options: Option<Unknown>,
    ) -> Result<PatchPlan> {
        self.plan_patch_call(&env, patch, options)?.now(&env)
    }

    /// `planPatch` on the thread pool.
    #[napi(ts_return_type = "Promise<PatchPlan>")]
    pub fn plan_patch_async(
        &self,
        env: Env,
        #[napi(ts_arg_type = "string")] patch: Option<Unknown>,
        #[napi(ts_arg_type = "PatchOptions & { signal?: AbortSignal } | undefined | null")]
        options: Option<Unknown>,
    ) -> Result<AsyncTask<Running<PatchPlan>>> {
        self.plan_patch_call(&env, patch, options)?.spawn(&env)
    }

    fn plan_patch_call<'env>(
        &self,
        env: &Env,
        patch: Option<Unknown<'env>>,
        options: Option<Unknown<'env>>,
    ) -> Result<Call<'env, PatchPlan>> {
        guard(env, || {
            let signal = Signal::of_options(env, options.as_ref())?;
            let text = args::required_string(
                env,
                patch,
                "patch",
                "the patch text, *** Begin Patch … *** End Patch",
            )?;
            let options = PatchOptions::read(env, options)?;
            let meta = CallMeta {
                model: options.model,
                call_id: options.call_id,
                host: options.host,
            };
            let probe = self.recorder.probe(Tool::Patch, meta).map(|probe| {
                let mut probe = probe.patch(&text);
                probe.record().literal = options.literal == Some(true);
                probe
            });
            let options = hashline::PatchOptions {
                directory: options.directory.map(PathBuf::from),
                allow_outside: options.allow_outside_root.unwrap_or(false),
                literal: options.literal.unwrap_or(false),
            };
            let hl = Arc::clone(&self.inner);
            Ok(Call::new(signal, move |cancel: &hashline::Cancel| {
                let plan = hl.plan_patch_with(&text, &options)?;
                cancel.check()?;
                Ok(PatchPlan {
                    inner: Held::new(plan),
                    pending: Pending::default(),
                })
            })
            .recorded(probe))
        })
    }

    /// Writes a planned patch; throws `BASE_CHANGED`, writing nothing, if any of its files changed since it was planned.
    #[napi(ts_return_type = "PatchResult")]
    pub fn commit_patch<'env>(
        &self,
        env: &'env Env,
        #[napi(ts_arg_type = "PatchPlan")] plan: Unknown,
    ) -> Result<Unknown<'env>> {
        guard(env, || {
            let plan: ClassInstance<PatchPlan> = args::instance(
                env,
                Some(plan),
                "commitPatch() takes a plan that planPatch() returned",
            )?;
            record_now(plan.pending.take(), |record| {
                plan.inner.write(|plan| {
                    self.inner.commit_patch_then(plan, |result| {
                        hand_over(
                            env,
                            BindingPatchResult::from(result),
                            record,
                            "the patch",
                            None,
                        )
                    })
                })
            })
        })
    }

    /// `commitPatch` on the thread pool. Its `signal` is looked at once
    /// every file is checked, before the first is written: aborted by then,
    /// the call stops (nothing written, `CANCELLED`); after that the patch
    /// is written whole.
    #[napi(ts_return_type = "Promise<PatchResult>")]
    pub fn commit_patch_async(
        &self,
        env: Env,
        #[napi(ts_arg_type = "PatchPlan")] plan: Unknown,
        #[napi(ts_arg_type = "{ signal?: AbortSignal } | undefined | null")] options: Option<
            Unknown,
        >,
    ) -> Result<AsyncTask<Running<BindingPatchResult>>> {
        guard(&env, || {
            let signal = Signal::of_options(&env, options.as_ref())?;
            let plan: ClassInstance<PatchPlan> = args::instance(
                &env,
                Some(plan),
                "commitPatchAsync() takes a plan that planPatch() or planPatchAsync() returned",
            )?;
            let probe = plan.pending.take();
            let plan = plan.inner.share();
            let hl = Arc::clone(&self.inner);
            Ok(Call::new(signal, move |cancel: &hashline::Cancel| {
                plan.write(|plan| {
                    hl.commit_with(plan, cancel, |result| {
                        cancel.check()?;
                        Ok(BindingPatchResult::from(result))
                    })
                })
            })
            .recorded(probe))
        })?
        .spawn(&env)
    }

    /// Takes in a file rewritten after this session wrote REV `written` (a formatter ran):
    /// null if it is unchanged, else the result with fresh refs of the file as it is now.
    #[napi(ts_return_type = "EditResult | null")]
    pub fn reformatted(
        &self,
        env: Env,
        #[napi(ts_arg_type = "string")] path: Option<Unknown>,
        #[napi(ts_arg_type = "string")] written: Unknown,
        #[napi(ts_arg_type = "ReformattedOptions | undefined | null")] options: Option<Unknown>,
    ) -> Result<Option<BindingEditResult>> {
        self.reformatted_call(&env, path, written, options)?
            .now(&env)
    }

    /// `reformatted` on the thread pool.
    #[napi(ts_return_type = "Promise<EditResult | null>")]
    pub fn reformatted_async(
        &self,
        env: Env,
        #[napi(ts_arg_type = "string")] path: Option<Unknown>,
        #[napi(ts_arg_type = "string")] written: Unknown,
        #[napi(ts_arg_type = "ReformattedOptions & { signal?: AbortSignal } | undefined | null")]
        options: Option<Unknown>,
    ) -> Result<AsyncTask<Running<Option<BindingEditResult>>>> {
        self.reformatted_call(&env, path, written, options)?
            .spawn(&env)
    }

    fn reformatted_call<'env>(
        &self,
        env: &Env,
        path: Option<Unknown<'env>>,
        written: Unknown<'env>,
        options: Option<Unknown<'env>>,
    ) -> Result<Call<'env, Option<BindingEditResult>>> {
        guard(env, || {
            let signal = Signal::of_options(env, options.as_ref())?;
            let path = args::path(env, path)?;
            let written =
                args::required_string(env, Some(written), "written", "the REV the edit wrote")?;
            let o = ReformattedOptions::read(env, options)?;
            let options = hashline::ReformatOptions {
                since: o.since,
                headline: o.headline,
                allow_outside: o.allow_outside_root.unwrap_or(false),
            };
            let hl = Arc::clone(&self.inner);
            Ok(Call::new(signal, move |cancel: &hashline::Cancel| {
                Ok(hl
                    .reformatted_with(&path, &written, &options, cancel)?
                    .as_ref()
                    .map(BindingEditResult::from))
            }))
        })
    }
}

/// Every path a patch names (a move's destination after its source); throws `INVALID_REQUEST` for a malformed patch.
#[napi]
pub fn patch_paths(
    env: Env,
    #[napi(ts_arg_type = "string")] patch: Unknown,
) -> Result<Vec<String>> {
    guard(&env, || {
        let patch = args::required_string(&env, Some(patch), "patch", "the patch text")?;
        hashline::patch_paths(&patch)
    })
}
