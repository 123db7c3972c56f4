//! The record of the calls a model makes, from the binding's side
//! (`docs/telemetry.md`). A session keeps a `Recorder`: its host and model,
//! and the record's folder from its options or the environment (the one
//! place every host's options and variables meet). Each call a model makes
//! gets a `Probe` when its arguments are read, which `task` times around
//! the engine's work and finishes with the call's result: the outcome,
//! sizes and token estimates are read from the engine's results as data,
//! never from their texts. The engine's `telemetry` writes the record off
//! this thread; `telemetry` here reads it back for JS.

use hashline::telemetry::{self as t, Record, Telemetry, Tool};
use hashline::{Request, Value, ViewStyle};
use napi::bindgen_prelude::*;
use std::borrow::Cow;
use std::cell::Cell;
use std::path::{Component, Path, PathBuf};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// Who makes a session's calls, and where they are recorded.
pub(crate) struct Recorder {
    /// `None` when the record is off.
    sink: Option<Telemetry>,
    host: Option<String>,
    model: Option<String>,
    root: PathBuf,
    view: ViewStyle,
}

/// The options of a session that concern the record.
pub(crate) struct TelemetryOptions {
    pub host: Option<String>,
    pub model: Option<String>,
    pub telemetry: Option<bool>,
    pub telemetry_dir: Option<String>,
}

/// What a call's options say of who made it.
#[derive(Default)]
pub(crate) struct CallMeta {
    pub model: Option<String>,
    pub call_id: Option<String>,
    /// The host of this call, where it is not the session's.
    pub host: Option<String>,
}

thread_local! {
    /// Whether this thread's JS environment flushes the record when it
    /// ends (each environment runs on a thread of its own).
    static FLUSHES: Cell<bool> = const { Cell::new(false) };
}

impl Recorder {
    /// The recorder of a session over `root` whose views are in `view`:
    /// off when `options.telemetry` is false or `HASHLINE_TELEMETRY` says
    /// off; in `options.telemetryDir`, else where the environment says.
    pub fn new(
        env: &Env,
        options: TelemetryOptions,
        root: &Path,
        view: ViewStyle,
    ) -> hashline::Result<Recorder> {
        let var = |name: &str| std::env::var_os(name);
        let on = options.telemetry != Some(false) && !t::off(var);
        let settings = match (on, options.telemetry_dir) {
            (false, _) => None,
            (true, Some(dir)) => Some(t::Settings::new(std::path::absolute(&dir).map_err(
                |e| {
                    hashline::Error::invalid_request(format!(
                        "`options.telemetryDir` cannot be made absolute: {e}."
                    ))
                },
            )?)),
            (true, None) => t::Settings::from_env(var),
        };
        if settings.is_some() {
            flush_at_exit(env);
        }
        Ok(Recorder {
            sink: settings.map(Telemetry::open),
            host: options.host.filter(|h| !h.is_empty()),
            model: options.model.filter(|m| !m.is_empty()),
            root: root.to_owned(),
            view,
        })
    }

    /// A probe for a call of `tool`, or `None` when the record is off.
    pub fn probe(&self, tool: Tool, meta: CallMeta) -> Option<Probe> {
        let sink = self.sink.as_ref()?;
        let mut record = Record::new(t::now_ms(), tool, self.view);
        record.host = meta
            .host
            .filter(|h| !h.is_empty())
            .or_else(|| self.host.clone());
        record.model = meta
            .model
            .filter(|m| !m.is_empty())
            .or_else(|| self.model.clone());
        record.call_id = meta.call_id.filter(|c| !c.is_empty());
        Some(Probe {
            sink: sink.clone(),
            record,
            started: None,
            worked: Duration::ZERO,
            root: self.root.clone(),
        })
    }
}

/// Flushes every record of this process when the JS environment ends:
/// the writer threads do not outlive it, and a command line ends a few
/// milliseconds after its one call.
fn flush_at_exit(env: &Env) {
    if FLUSHES.with(|f| f.replace(true)) {
        return;
    }
    let env = *env;
    if env
        .add_env_cleanup_hook((), |()| Telemetry::flush_all())
        .is_err()
    {
        FLUSHES.with(|f| f.set(false));
    }
}

/// One call's record in the making.
pub(crate) struct Probe {
    sink: Telemetry,
    record: Record,
    /// When the engine's work on the call began, while it runs.
    started: Option<Instant>,
    /// The engine's work so far (a plan's, for its commit).
    worked: Duration,
    root: PathBuf,
}

impl Probe {
    /// The file the call names, as a path from the root (hashed before it
    /// is written).
    pub fn path(mut self, path: &str) -> Probe {
        self.record.path = Some(absolute(&self.root, path));
        self
    }

    /// The files a change of several names.
    fn paths<'a>(&mut self, paths: impl Iterator<Item = &'a str>) {
        let mut all: Vec<String> = paths.map(|p| absolute(&self.root, p)).collect();
        all.sort();
        all.dedup();
        self.record.files = all.len() as u64;
        self.record.path = Some(all.join("\n"));
    }

    /// The view the call's refs are shown in, where the call chose one.
    pub fn view(mut self, view: Option<ViewStyle>) -> Probe {
        if let Some(view) = view {
            self.record.view = view;
        }
        self
    }

    /// What an edit request asks: its ops, whether literally, and the
    /// tokens of the arguments (`value`, as the model sent them).
    pub fn request(mut self, request: &Request, value: &Value) -> Probe {
        let (ops, literal) = ops(request);
        self.record.ops = ops;
        self.record.literal = literal;
        self.record.tokens.request = t::arguments_tokens(value) + self.path_tokens();
        self
    }

    /// A batch's entries, as `request` does for one.
    pub fn batch(mut self, batch: &Value) -> Probe {
        let entries = hashline::batch_entries(batch);
        for (_, request) in &entries {
            let (ops, literal) = ops(request);
            self.record.ops.extend(ops);
            self.record.literal |= literal;
        }
        self.paths(entries.iter().map(|(p, _)| p.as_str()));
        self.record.tokens.request = t::arguments_tokens(batch);
        self
    }

    /// A patch's files and the tokens of its text as an argument.
    pub fn patch(mut self, text: &str) -> Probe {
        let paths = hashline::patch_paths(text).unwrap_or_default();
        self.paths(paths.iter().map(String::as_str));
        let value = Value::Object(vec![(
            "patchText".to_owned(),
            Value::String(text.to_owned()),
        )]);
        self.record.tokens.request = t::arguments_tokens(&value);
        self
    }

    /// The tokens of arguments other than an edit's: `fields`, as JSON.
    pub fn arguments(mut self, fields: Vec<(&str, Value)>) -> Probe {
        let fields = fields.into_iter().map(|(k, v)| (k.to_owned(), v)).collect();
        self.record.tokens.request =
            t::arguments_tokens(&Value::Object(fields)) + self.path_tokens();
        self
    }

    /// What the model wrote to name the file, in the arguments.
    fn path_tokens(&self) -> u64 {
        self.record
            .path
            .as_deref()
            .and_then(|p| Path::new(p).strip_prefix(&self.root).ok())
            .map_or(0, |p| t::estimate_tokens(&p.to_string_lossy()) + 4)
    }

    /// The record, to fill from a result.
    pub fn record(&mut self) -> &mut Record {
        &mut self.record
    }

    fn start(&mut self) {
        self.started = Some(Instant::now());
    }

    fn stop(&mut self) {
        if let Some(started) = self.started.take() {
            self.worked += started.elapsed();
        }
    }

    /// Records the call as refused by `err`.
    fn refused(mut self, err: &hashline::Error) {
        let record = &mut self.record;
        record.outcome = t::Outcome::Refused(Cow::Borrowed(err.code.as_str()));
        record.doubt = err.doubted;
        record.tokens.result = t::estimate_tokens_bounded(&err.message);
        self.write();
    }

    /// Hands the record to the writer.
    fn write(mut self) {
        self.stop();
        self.record.ms = self.worked.as_secs_f64() * 1000.0;
        self.sink.record(self.record);
    }

    /// Ends the call: `result` fills the record, or keeps the probe for a
    /// later step.
    pub fn finish<T: Recorded>(mut self, result: &hashline::Result<T>) {
        self.stop();
        match result {
            Ok(value) => value.settle(self),
            Err(err) => self.refused(err),
        }
    }
}

/// A call's result as the record reads it.
pub(crate) trait Recorded {
    /// Fills the record from the result.
    fn observe(&self, record: &mut Record);

    /// Ends the probe of the call that made this result: by default
    /// filled from it and written.
    fn settle(&self, mut probe: Probe) {
        self.observe(&mut probe.record);
        probe.write();
    }
}

/// A plan's probe, kept until the plan is committed: the attempt is one
/// record, its outcome the commit's.
#[derive(Default)]
pub(crate) struct Pending(Mutex<Option<Probe>>);

impl Pending {
    fn lock(&self) -> MutexGuard<'_, Option<Probe>> {
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Keeps the probe of a plan that was made.
    pub fn keep(&self, probe: Probe) {
        *self.lock() = Some(probe);
    }

    /// The probe of the plan, for its commit (once).
    pub fn take(&self) -> Option<Probe> {
        self.lock().take()
    }
}

/// Runs a call whose result is handed to JS inside the engine's last
/// step (the synchronous writes), timing it and recording its outcome:
/// `work` gets the record to fill from the result, if there is one.
pub(crate) fn record_now<T>(
    probe: Option<Probe>,
    work: impl FnOnce(Option<&mut Record>) -> hashline::Result<T>,
) -> hashline::Result<T> {
    let Some(mut probe) = probe else {
        return work(None);
    };
    probe.start();
    let result = work(Some(&mut probe.record));
    probe.stop();
    match &result {
        Ok(_) => {
            probe.record.outcome = t::Outcome::Applied;
            probe.write();
        }
        Err(err) => probe.refused(err),
    }
    result
}

/// A call's probe, and how its result finishes it.
pub(crate) type Recording<T> = (Probe, fn(Probe, &hashline::Result<T>));

/// Times `probe` around `work`, then finishes it with the result.
pub(crate) fn timed<T>(
    probe: Option<Recording<T>>,
    work: impl FnOnce() -> hashline::Result<T>,
) -> hashline::Result<T> {
    let Some((mut probe, finish)) = probe else {
        return work();
    };
    probe.start();
    let result = work();
    finish(probe, &result);
    result
}

/// An edit request's ops, in order, and whether any asks for its content
/// as sent.
fn ops(request: &Request) -> (Vec<Cow<'static, str>>, bool) {
    match request {
        Request::Operations { operations, .. } => (
            operations
                .iter()
                .map(|op| Cow::Borrowed(op.kind.name()))
                .collect(),
            operations.iter().any(|op| op.literal),
        ),
        Request::Replace { old_string, .. } => (
            vec![Cow::Borrowed(if old_string.is_empty() {
                "create"
            } else {
                "old_string"
            })],
            false,
        ),
    }
}

/// `path` from `root`, with `.` and `..` folded, so that the names a model
/// gives one file hash alike (links are not followed: that would read the
/// disk on the host's thread).
fn absolute(root: &Path, path: &str) -> String {
    let joined = root.join(path);
    let mut out = PathBuf::new();
    for part in joined.components() {
        match part {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out.to_string_lossy().into_owned()
}

/// The string a JS value of the options names, for `arguments`.
pub(crate) fn text(value: &str) -> Value {
    Value::String(value.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_of_one_file_fold_to_one_path() {
        let root = Path::new("/work/project");
        assert_eq!(absolute(root, "src/a.ts"), "/work/project/src/a.ts");
        assert_eq!(
            absolute(root, "./src/../src/a.ts"),
            "/work/project/src/a.ts"
        );
        assert_eq!(absolute(root, "/elsewhere/b.ts"), "/elsewhere/b.ts");
    }
}
