//! The binding of batches: edits of several files checked as a whole and
//! written as one transaction.

use crate::args;
use crate::error::guard;
use crate::handover::hand_over;
use crate::options::CallOptions;
use crate::plan::Held;
use crate::recorder::{record_now, Pending, Probe, Recorded};
use crate::session::{BindingEditResult, Hashline};
use crate::task::{Call, Running, Signal};
use hashline::telemetry::{Record, Tool};
use napi::bindgen_prelude::*;
use napi_derive::napi;
use std::sync::Arc;

/// One entry of a batch: the file (`path`, or `filePath`) and its edit.
#[napi(object, js_name = "BatchEntry")]
pub struct BindingBatchEntry {
    pub path: Option<String>,
    pub file_path: Option<String>,
    // Named here: this module's types are made before `request`'s.
    #[napi(ts_type = "Array<Operation>")]
    pub operations: Option<Vec<crate::request::BindingOperation>>,
    /// The REV of the view the refs were copied from.
    pub rev: Option<String>,
    /// Write every operation's content exactly as sent.
    pub literal: Option<bool>,
    /// The refs are of a notebook's own text, as a read with `raw` showed it.
    pub raw: Option<bool>,
    /// Code cells whose source changes keep their outputs and execution count.
    pub keep_outputs: Option<bool>,
    /// Fallback: exact text to replace (whitespace-tolerant if no exact match).
    pub old_string: Option<String>,
    pub new_string: Option<String>,
    pub replace_all: Option<bool>,
}

#[napi(object, js_name = "BatchResult", object_from_js = false)]
pub struct BindingBatchResult {
    /// What the model should read: a line naming the files, then each file's part with fresh refs.
    pub output: String,
    /// Each file's result, in the order of the batch.
    #[napi(ts_type = "Array<EditResult>")]
    pub files: Vec<BindingEditResult>,
}

impl Recorded for BindingBatchResult {
    fn observe(&self, record: &mut Record) {
        for file in &self.files {
            file.observe(record);
        }
        record.tokens.result = hashline::telemetry::estimate_tokens_bounded(&self.output);
    }
}

impl From<&hashline::BatchResult> for BindingBatchResult {
    fn from(r: &hashline::BatchResult) -> Self {
        BindingBatchResult {
            output: r.output.clone(),
            files: r.files.iter().map(BindingEditResult::from).collect(),
        }
    }
}

/// A batch checked against every file it names, nothing written yet.
#[napi]
pub struct BatchPlan {
    inner: Held<hashline::BatchPlan>,
    /// The record of the call that made it, finished by its commit.
    pending: Pending,
}

impl Recorded for BatchPlan {
    fn observe(&self, _: &mut Record) {}

    fn settle(&self, probe: Probe) {
        self.pending.keep(probe);
    }
}

#[napi]
impl BatchPlan {
    #[napi(getter)]
    pub fn output(&self) -> String {
        self.inner.read(|r| r.output.clone())
    }

    #[napi(getter, ts_return_type = "Array<EditResult>")]
    pub fn files(&self) -> Vec<BindingEditResult> {
        self.inner
            .read(|r| r.files.iter().map(BindingEditResult::from).collect())
    }
}

/// A batch's result as a JS value, made while no file is written yet.
fn result_to_js<'env>(
    env: &'env Env,
    result: &hashline::BatchResult,
    record: Option<&mut Record>,
) -> hashline::Result<Unknown<'env>> {
    hand_over(
        env,
        BindingBatchResult::from(result),
        record,
        "the batch",
        None,
    )
}

#[napi]
impl Hashline {
    /// Checks a batch of edits over several files and plans each, writing nothing; a rejection lists every failing entry in `err.errors`.
    #[napi]
    pub fn plan_batch(
        &self,
        env: Env,
        #[napi(ts_arg_type = "Array<BatchEntry>")] batch: Option<Unknown>,
        #[napi(ts_arg_type = "CallOptions | undefined | null")] options: Option<Unknown>,
    ) -> Result<BatchPlan> {
        self.plan_batch_call(&env, batch, options)?.now(&env)
    }

    /// `planBatch` on the thread pool.
    #[napi(ts_return_type = "Promise<BatchPlan>")]
    pub fn plan_batch_async(
        &self,
        env: Env,
        #[napi(ts_arg_type = "Array<BatchEntry>")] batch: Option<Unknown>,
        #[napi(ts_arg_type = "CallOptions & { signal?: AbortSignal } | undefined | null")]
        options: Option<Unknown>,
    ) -> Result<AsyncTask<Running<BatchPlan>>> {
        self.plan_batch_call(&env, batch, options)?.spawn(&env)
    }

    fn plan_batch_call<'env>(
        &self,
        env: &Env,
        batch: Option<Unknown<'env>>,
        options: Option<Unknown<'env>>,
    ) -> Result<Call<'env, BatchPlan>> {
        guard(env, || {
            let signal = Signal::of_options(env, options.as_ref())?;
            let batch = args::batch(env, batch)?;
            let (outside, meta) = CallOptions::of(env, options)?;
            let probe = self
                .recorder
                .probe(Tool::Apply, meta)
                .map(|p| p.batch(&batch));
            let hl = Arc::clone(&self.inner);
            Ok(Call::new(signal, move |_| {
                Ok(BatchPlan {
                    inner: Held::new(hl.plan_batch_with(
                        &batch,
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

    /// Writes a planned batch as one transaction: every file takes its new version, or none does.
    #[napi(ts_return_type = "BatchResult")]
    pub fn commit_batch<'env>(
        &self,
        env: &'env Env,
        #[napi(ts_arg_type = "BatchPlan")] plan: Unknown,
    ) -> Result<Unknown<'env>> {
        guard(env, || {
            let plan: ClassInstance<BatchPlan> = args::instance(
                env,
                Some(plan),
                "commitBatch() takes a plan that planBatch() returned",
            )?;
            record_now(plan.pending.take(), |record| {
                plan.inner.write(|plan| {
                    self.inner
                        .commit_batch_then(plan, |result| result_to_js(env, result, record))
                })
            })
        })
    }

    /// Plans and writes a batch in one step, as one transaction.
    #[napi(ts_return_type = "BatchResult")]
    pub fn apply_batch<'env>(
        &self,
        env: &'env Env,
        #[napi(ts_arg_type = "Array<BatchEntry>")] batch: Option<Unknown>,
        #[napi(ts_arg_type = "CallOptions | undefined | null")] options: Option<Unknown>,
    ) -> Result<Unknown<'env>> {
        guard(env, || {
            let batch = args::batch(env, batch)?;
            let (outside, meta) = CallOptions::of(env, options)?;
            let probe = self
                .recorder
                .probe(Tool::Apply, meta)
                .map(|p| p.batch(&batch));
            record_now(probe, |record| {
                self.inner.apply_batch_then(
                    &batch,
                    &hashline::CallOptions {
                        allow_outside: outside,
                        ..Default::default()
                    },
                    |result| result_to_js(env, result, record),
                )
            })
        })
    }

    /// `commitBatch` on the thread pool. Its `signal` is looked at once
    /// every file is checked, before the first is written: aborted by then,
    /// the call stops (nothing written, `CANCELLED`); after that the batch
    /// is written whole.
    #[napi(ts_return_type = "Promise<BatchResult>")]
    pub fn commit_batch_async(
        &self,
        env: Env,
        #[napi(ts_arg_type = "BatchPlan")] plan: Unknown,
        #[napi(ts_arg_type = "{ signal?: AbortSignal } | undefined | null")] options: Option<
            Unknown,
        >,
    ) -> Result<AsyncTask<Running<BindingBatchResult>>> {
        guard(&env, || {
            let signal = Signal::of_options(&env, options.as_ref())?;
            let plan: ClassInstance<BatchPlan> = args::instance(
                &env,
                Some(plan),
                "commitBatchAsync() takes a plan that planBatch() or planBatchAsync() returned",
            )?;
            let probe = plan.pending.take();
            let plan = plan.inner.share();
            let hl = Arc::clone(&self.inner);
            Ok(Call::new(signal, move |cancel: &hashline::Cancel| {
                plan.write(|plan| {
                    hl.commit_with(plan, cancel, |result| {
                        cancel.check()?;
                        Ok(BindingBatchResult::from(result))
                    })
                })
            })
            .recorded(probe))
        })?
        .spawn(&env)
    }

    /// `applyBatch` on the thread pool, stopped by its `signal` as
    /// `commitBatchAsync` is.
    #[napi(ts_return_type = "Promise<BatchResult>")]
    pub fn apply_batch_async(
        &self,
        env: Env,
        #[napi(ts_arg_type = "Array<BatchEntry>")] batch: Option<Unknown>,
        #[napi(ts_arg_type = "CallOptions & { signal?: AbortSignal } | undefined | null")]
        options: Option<Unknown>,
    ) -> Result<AsyncTask<Running<BindingBatchResult>>> {
        guard(&env, || {
            let signal = Signal::of_options(&env, options.as_ref())?;
            let batch = args::batch(&env, batch)?;
            let (outside, meta) = CallOptions::of(&env, options)?;
            let probe = self
                .recorder
                .probe(Tool::Apply, meta)
                .map(|p| p.batch(&batch));
            let hl = Arc::clone(&self.inner);
            Ok(Call::new(signal, move |cancel: &hashline::Cancel| {
                hl.apply_batch_then(
                    &batch,
                    &hashline::CallOptions {
                        allow_outside: outside,
                        cancel: cancel.clone(),
                    },
                    |result| {
                        cancel.check()?;
                        Ok(BindingBatchResult::from(result))
                    },
                )
            })
            .recorded(probe))
        })?
        .spawn(&env)
    }
}
