//! The local record of tool calls, read back for JS: `telemetryStats`
//! (`docs/telemetry.md`), and `flushTelemetry` for a host about to end.

use crate::args;
use crate::error::guard;
use crate::options::StatsOptions;
use crate::task::Call;
use hashline::telemetry::{self as t, Telemetry, Tool};
use napi::bindgen_prelude::*;
use napi_derive::napi;
use std::path::PathBuf;

/// Writes every record this process has queued, now: for a host about to
/// end its process by `process.exit`, which does not wait for the writer.
#[napi]
pub fn flush_telemetry() {
    Telemetry::flush_all();
}

/// What the record says, per model and host (`docs/telemetry.md`).
#[napi(object, object_from_js = false)]
pub struct TelemetryStats {
    /// The folder read.
    pub folder: String,
    /// Files read.
    pub files: u32,
    /// Records read.
    pub records: u32,
    /// Records in the window and the filters.
    pub matched: u32,
    /// Lines that were no record (cut short, planted, of another format).
    pub skipped: u32,
    /// Records the writers could not keep (a full queue, a failed write).
    pub lost: u32,
    /// Reading stopped at a bound no record the writer makes reaches.
    pub truncated: bool,
    /// The first and last matched call, in milliseconds since the epoch.
    pub first: Option<f64>,
    pub last: Option<f64>,
    /// Per model and host, most calls first.
    pub groups: Vec<TelemetryGroup>,
    /// Per day (UTC), model and host, in time order.
    pub days: Vec<TelemetryDay>,
    /// Settings the figures suggest, with the figures.
    pub advice: Vec<TelemetryAdvice>,
}

/// Edit attempts (calls of a tool that writes, not cancelled) and what
/// became of them.
#[napi(object, object_from_js = false)]
pub struct TelemetryFigures {
    pub attempts: u32,
    pub applied: u32,
    /// Attempts that were no retry.
    pub first_tries: u32,
    /// First tries that landed.
    pub first_try_applied: u32,
    /// `firstTryApplied / firstTries`; left out without first tries.
    pub first_try_rate: Option<f64>,
    pub request_tokens: f64,
    pub result_tokens: f64,
    /// Tokens of every attempt, refused ones included, per attempt that
    /// landed; left out when none did.
    pub tokens_per_success: Option<f64>,
}

/// A refusal's code and how many attempts it refused.
#[napi(object, object_from_js = false)]
pub struct TelemetryRefusal {
    pub code: String,
    pub count: u32,
}

/// Runs of attempts on one file that began with a refusal.
#[napi(object, object_from_js = false)]
pub struct TelemetryRetries {
    pub runs: u32,
    /// Runs that landed within the retry window.
    pub landed: u32,
    /// Runs that never landed.
    pub abandoned: u32,
    /// Retries the landed runs took, in all, and the most one took.
    pub retries: u32,
    pub most: u32,
    /// Retries per landed run; left out when none landed.
    pub to_success: Option<f64>,
}

/// The figures of one model on one host.
#[napi(object, object_from_js = false)]
pub struct TelemetryGroup {
    /// The model, where the host gave it.
    pub model: Option<String>,
    pub host: Option<String>,
    /// Calls of every tool.
    pub calls: u32,
    /// Calls that change nothing (read, grep), and their tokens.
    pub reads: u32,
    pub read_tokens: f64,
    /// Every edit attempt, and those made in each view.
    pub edits: TelemetryFigures,
    pub lean: TelemetryFigures,
    pub full: TelemetryFigures,
    /// Refused attempts by code, most first.
    pub refusals: Vec<TelemetryRefusal>,
    pub retries: TelemetryRetries,
    /// Attempts that landed with refs of an older version recovered.
    pub stale_recovered: u32,
    /// Lines the clean-up removed as proven copies: view prefixes and
    /// other output, boundary echoes.
    pub prefixes_removed: u32,
    pub echoes_dropped: u32,
    /// Retries with `literal` after an `AMBIGUOUS_ECHO`, and writes sent
    /// again as they were after one.
    pub literal_resends: u32,
    /// The engine's milliseconds, the median call.
    pub median_ms: f64,
}

/// The figures of one model on one host on one day.
#[napi(object, object_from_js = false)]
pub struct TelemetryDay {
    /// `YYYY-MM-DD`, UTC.
    pub day: String,
    pub model: Option<String>,
    pub host: Option<String>,
    pub edits: TelemetryFigures,
    pub lean: TelemetryFigures,
    pub full: TelemetryFigures,
}

/// A setting the figures suggest for a model.
#[napi(object, object_from_js = false)]
pub struct TelemetryAdvice {
    pub model: Option<String>,
    pub host: Option<String>,
    /// What the figures show: `lean-refs`, `boundary-echoes` or
    /// `patch-style`.
    pub kind: String,
    /// The per-model setting that would help, and its value.
    pub setting: String,
    pub value: String,
    /// The attempts the figures are of, and those that show it.
    pub attempts: u32,
    pub count: u32,
    /// What they are compared with, where they are.
    pub compared_attempts: Option<u32>,
    pub compared_count: Option<u32>,
    /// The advice with its figures, in a sentence or two.
    pub text: String,
}

fn count(n: u64) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

impl From<&t::Figures> for TelemetryFigures {
    fn from(f: &t::Figures) -> Self {
        TelemetryFigures {
            attempts: count(f.attempts),
            applied: count(f.applied),
            first_tries: count(f.first_tries),
            first_try_applied: count(f.first_try_applied),
            first_try_rate: f.first_try_rate(),
            request_tokens: f.request_tokens as f64,
            result_tokens: f.result_tokens as f64,
            tokens_per_success: f.tokens_per_success(),
        }
    }
}

impl From<t::Stats> for TelemetryStats {
    fn from(s: t::Stats) -> Self {
        TelemetryStats {
            folder: String::new(),
            files: count(s.files),
            records: count(s.records),
            matched: count(s.matched),
            skipped: count(s.skipped),
            lost: count(s.lost),
            truncated: s.truncated,
            first: s.span.map(|(a, _)| a as f64),
            last: s.span.map(|(_, b)| b as f64),
            groups: s
                .groups
                .iter()
                .map(|g| TelemetryGroup {
                    model: g.model.clone(),
                    host: g.host.clone(),
                    calls: count(g.calls),
                    reads: count(g.reads),
                    read_tokens: g.read_tokens as f64,
                    edits: (&g.edits).into(),
                    lean: (&g.lean).into(),
                    full: (&g.full).into(),
                    refusals: g
                        .refusals
                        .iter()
                        .map(|(code, n)| TelemetryRefusal {
                            code: code.clone(),
                            count: count(*n),
                        })
                        .collect(),
                    retries: TelemetryRetries {
                        runs: count(g.retries.runs),
                        landed: count(g.retries.landed),
                        abandoned: count(g.retries.abandoned),
                        retries: count(g.retries.retries),
                        most: count(g.retries.most),
                        to_success: g.retries.to_success(),
                    },
                    stale_recovered: count(g.stale_recovered),
                    prefixes_removed: count(g.cleaned.prefixes),
                    echoes_dropped: count(g.cleaned.echoes),
                    literal_resends: count(g.literal_resends),
                    median_ms: g.median_ms,
                })
                .collect(),
            days: s
                .days
                .iter()
                .map(|d| TelemetryDay {
                    day: d.day.clone(),
                    model: d.model.clone(),
                    host: d.host.clone(),
                    edits: (&d.edits).into(),
                    lean: (&d.lean).into(),
                    full: (&d.full).into(),
                })
                .collect(),
            advice: s
                .advice
                .iter()
                .map(|a| TelemetryAdvice {
                    model: a.model.clone(),
                    host: a.host.clone(),
                    kind: a.kind.to_owned(),
                    setting: a.setting.0.to_owned(),
                    value: a.setting.1.to_owned(),
                    attempts: count(a.attempts),
                    count: count(a.count),
                    compared_attempts: a.compared.map(|(n, _)| count(n)),
                    compared_count: a.compared.map(|(_, n)| count(n)),
                    text: a.text.clone(),
                })
                .collect(),
        }
    }
}

/// What the record says, per model and host: success at the first try,
/// refusals by code, retries to success, tokens per successful edit, stale
/// refs recovered, per day, and advice (`docs/telemetry.md`). Reads the
/// folder `options.dir`, else `HASHLINE_TELEMETRY_DIR`, else the default
/// one; a missing folder has no records.
#[napi]
pub fn telemetry_stats(
    env: Env,
    #[napi(ts_arg_type = "TelemetryStatsOptions | undefined | null")] options: Option<Unknown>,
) -> Result<TelemetryStats> {
    stats_call(&env, options)?.now(&env)
}

/// `telemetryStats` on the thread pool.
#[napi(ts_return_type = "Promise<TelemetryStats>")]
pub fn telemetry_stats_async(
    env: Env,
    #[napi(ts_arg_type = "TelemetryStatsOptions | undefined | null")] options: Option<Unknown>,
) -> Result<AsyncTask<crate::task::Running<TelemetryStats>>> {
    stats_call(&env, options)?.spawn(&env)
}

fn stats_call<'env>(
    env: &Env,
    options: Option<Unknown<'env>>,
) -> Result<Call<'env, TelemetryStats>> {
    guard(env, || {
        let o = StatsOptions::read(env, options)?;
        let time = |value: Option<f64>, what: &str| {
            args::count(value, what, 0.0).map(|ms| ms.map(|ms| ms as u64))
        };
        let tool = match o.tool.as_deref() {
            None => None,
            Some(name) => Some(Tool::parse(name).ok_or_else(|| {
                hashline::Error::invalid_request(format!(
                    "`options.tool` must be one of {}, not {}.",
                    Tool::ALL.map(Tool::name).join(", "),
                    hashline::excerpt(name)
                ))
            })?),
        };
        let options = t::StatsOptions {
            since: time(o.since, "options.since")?,
            until: time(o.until, "options.until")?,
            model: o.model.filter(|m| !m.is_empty()),
            host: o.host.filter(|h| !h.is_empty()),
            tool,
        };
        let dir = match o.dir {
            Some(dir) => std::path::absolute(&dir).unwrap_or_else(|_| PathBuf::from(dir)),
            None => t::default_dir(|name| std::env::var_os(name)).ok_or_else(|| {
                hashline::Error::new(
                    hashline::ErrorCode::NotFound,
                    "No telemetry folder: HASHLINE_TELEMETRY_DIR, XDG_STATE_HOME and HOME are all unset. Name the folder with `dir`.",
                )
            })?,
        };
        Ok(Call::new(None, move |_| {
            let stats = t::stats(&dir, &options).map_err(|e| {
                hashline::Error::new(
                    hashline::ErrorCode::Io,
                    format!(
                        "The telemetry folder {} could not be read: {e}",
                        dir.display()
                    ),
                )
            })?;
            Ok(TelemetryStats {
                folder: dir.display().to_string(),
                ..stats.into()
            })
        }))
    })
}
