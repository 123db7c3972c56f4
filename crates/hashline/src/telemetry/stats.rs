//! What the record says, per model and host: how often an edit lands at the
//! first try, what refuses the others and how many tries it takes to land
//! them, what a landed edit costs in tokens, how many stale refs were
//! recovered; per day, for plots; and advice where the figures show a
//! setting would help (`docs/telemetry.md` defines every figure and the
//! thresholds). The files are read as untrusted input: only the folder's
//! own files, never through a link, within bounds of size, and every line
//! checked (`Record::parse`); anything else is counted as skipped.

use super::folder::{log_name, open_for_reading, MAX_FILES};
use super::record::{parse_lost, Cleaned, Outcome, Record, Tool, MAX_LINE_BYTES};
use crate::error::Doubted;
use crate::file::reading;
use crate::view::ViewStyle;
use cap_fs_ext::FollowSymlinks;
use cap_std::fs::Dir;
use std::collections::{BTreeMap, HashMap};
use std::io::{self, BufRead, BufReader, Read as _};
use std::path::Path;

/// An attempt that follows a refusal on the same file, by the same model
/// and host, within this long of it, is a retry (`docs/telemetry.md`).
pub const RETRY_WINDOW_MS: u64 = 10 * 60 * 1000;
/// Advice needs at least this many edit attempts behind it.
pub const MIN_ATTEMPTS: u64 = 20;
/// Refs refused in the lean view in at least this share of its attempts
/// suggest the full view.
pub const REF_REFUSAL_SHARE: f64 = 0.10;
/// Boundary echoes (dropped or refused) in at least this share of
/// attempts suggest the echo rule's literal hint.
pub const ECHO_SHARE: f64 = 0.10;
/// `oldString` requests in at least this share of a model's `edit` calls
/// suggest `apply_patch`.
pub const FALLBACK_SHARE: f64 = 0.30;
/// `apply_patch` landing at the first try this much more often than `edit`
/// suggests it too.
pub const PATCH_LEAD: f64 = 0.10;
/// The codes of refs that named no line they could: a mistyped or
/// invented ref, rather than a file that changed.
pub const REF_CODES: [&str; 4] = [
    "HASH_MISMATCH",
    "INVALID_REF",
    "OUT_OF_RANGE",
    "UNSEEN_LINES",
];

/// A file read past this many bytes is no file the writer made.
const MAX_FILE_READ: u64 = 64 << 20;
/// Records kept at most: the rotation bound holds far fewer.
const MAX_RECORDS: usize = 1_000_000;

/// Which records to count.
#[derive(Debug, Clone, Default)]
pub struct StatsOptions {
    /// Calls from this time on (milliseconds since the Unix epoch).
    pub since: Option<u64>,
    /// Calls before this time.
    pub until: Option<u64>,
    /// Models whose name holds this, in any case.
    pub model: Option<String>,
    /// This host only.
    pub host: Option<String>,
    /// This tool only.
    pub tool: Option<Tool>,
}

/// Edit attempts and what became of them.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Figures {
    /// Calls of a tool that writes that ended applied or refused
    /// (cancelled ones are no attempt).
    pub attempts: u64,
    /// Attempts that landed.
    pub applied: u64,
    /// Attempts that were no retry.
    pub first_tries: u64,
    /// First tries that landed.
    pub first_try_applied: u64,
    /// Tokens of the attempts' requests.
    pub request_tokens: u64,
    /// Tokens of the attempts' results (refusals' messages included).
    pub result_tokens: u64,
}

impl Figures {
    /// The share of first tries that landed.
    pub fn first_try_rate(&self) -> Option<f64> {
        ratio(self.first_try_applied, self.first_tries)
    }

    /// Tokens of every attempt, refused ones included, per attempt that
    /// landed.
    pub fn tokens_per_success(&self) -> Option<f64> {
        ratio(
            self.request_tokens.saturating_add(self.result_tokens),
            self.applied,
        )
    }

    fn add(&mut self, attempt: &Attempt<'_>) {
        self.attempts += 1;
        self.applied += u64::from(attempt.applied());
        self.first_tries += u64::from(attempt.first_try);
        self.first_try_applied += u64::from(attempt.first_try && attempt.applied());
        // Counts come from records anyone could have planted: they add up
        // to at most the largest count, never around to a small one.
        self.request_tokens = self
            .request_tokens
            .saturating_add(attempt.record.tokens.request);
        self.result_tokens = self
            .result_tokens
            .saturating_add(attempt.record.tokens.result);
    }
}

fn ratio(part: u64, whole: u64) -> Option<f64> {
    (whole > 0).then(|| part as f64 / whole as f64)
}

/// Runs of attempts on one file that began with a refusal.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Retries {
    /// Runs that began with a refused first try.
    pub runs: u64,
    /// Of those, the runs that landed.
    pub landed: u64,
    /// The runs that never landed (no attempt on the file landed within
    /// the window).
    pub abandoned: u64,
    /// Retries the landed runs took, in all.
    pub retries: u64,
    /// The most one landed run took.
    pub most: u64,
}

impl Retries {
    /// Retries a run that landed took, on average.
    pub fn to_success(&self) -> Option<f64> {
        ratio(self.retries, self.landed)
    }
}

/// The figures of one model on one host.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Group {
    /// The model, where the host gave it.
    pub model: Option<String>,
    /// The host.
    pub host: Option<String>,
    /// Calls of every tool.
    pub calls: u64,
    /// Calls that change nothing (read, grep).
    pub reads: u64,
    /// Tokens of those calls, requests and results.
    pub read_tokens: u64,
    /// Every edit attempt.
    pub edits: Figures,
    /// The attempts made in the lean view.
    pub lean: Figures,
    /// The attempts made in the full view.
    pub full: Figures,
    /// Refused attempts by code, most first.
    pub refusals: Vec<(String, u64)>,
    /// Runs that began with a refusal.
    pub retries: Retries,
    /// Attempts that landed with refs of an older version proven still
    /// to name their lines.
    pub stale_recovered: u64,
    /// What the clean-up removed as proven copies, in lines.
    pub cleaned: Cleaned,
    /// Retries with `literal` after an `AMBIGUOUS_ECHO`, and writes sent
    /// again as they were after one.
    pub literal_resends: u64,
    /// The engine's milliseconds, the median call.
    pub median_ms: f64,
}

/// The figures of one model on one host on one day (UTC).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Day {
    /// `YYYY-MM-DD`.
    pub day: String,
    /// The model.
    pub model: Option<String>,
    /// The host.
    pub host: Option<String>,
    /// Every edit attempt.
    pub edits: Figures,
    /// In the lean view.
    pub lean: Figures,
    /// In the full view.
    pub full: Figures,
}

/// A setting the record suggests for a model, with the figures that show
/// it.
#[derive(Debug, Clone, PartialEq)]
pub struct Advice {
    /// The model.
    pub model: Option<String>,
    /// The host.
    pub host: Option<String>,
    /// What the figures show: `lean-refs`, `boundary-echoes` or
    /// `patch-style`.
    pub kind: &'static str,
    /// The per-model setting that would help, and its value.
    pub setting: (&'static str, &'static str),
    /// The attempts the figures are of.
    pub attempts: u64,
    /// Those of them that show it.
    pub count: u64,
    /// What it is compared with, where it is: attempts and count.
    pub compared: Option<(u64, u64)>,
    /// The advice, with its figures, in a sentence or two.
    pub text: String,
}

/// What the record says.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Stats {
    /// Files read.
    pub files: u64,
    /// Records read.
    pub records: u64,
    /// Records in the window and the filters.
    pub matched: u64,
    /// Lines that were no record (cut short, planted, of another format).
    pub skipped: u64,
    /// Records the writers could not keep, as their notes say.
    pub lost: u64,
    /// Reading stopped at a bound: the record is larger than any the
    /// writer makes.
    pub truncated: bool,
    /// The first and last matched call.
    pub span: Option<(u64, u64)>,
    /// Per model and host, most calls first.
    pub groups: Vec<Group>,
    /// Per day, model and host, in time order.
    pub days: Vec<Day>,
    /// Settings the figures suggest.
    pub advice: Vec<Advice>,
}

/// The records in the folder, and how reading went.
#[derive(Debug, Default)]
pub(crate) struct Loaded {
    pub records: Vec<Record>,
    pub files: u64,
    pub skipped: u64,
    pub lost: u64,
    pub truncated: bool,
}

/// Reads every file of the record in `dir`; a missing folder has none.
pub(crate) fn read(dir: &Path) -> io::Result<Loaded> {
    let mut read = Loaded::default();
    let Some(dir) = open_for_reading(dir)? else {
        return Ok(read);
    };
    for n in 0..MAX_FILES {
        if read.truncated {
            break;
        }
        read_file(&dir, &log_name(n), &mut read);
    }
    Ok(read)
}

/// Reads one file's lines into `read`; a file that is missing, a link or
/// no plain file is left alone.
fn read_file(dir: &Dir, name: &str, read: &mut Loaded) {
    let Ok(file) = dir.open_with(name, &reading(FollowSymlinks::No)) else {
        return;
    };
    if !file.metadata().is_ok_and(|m| m.is_file()) {
        return;
    }
    read.files += 1;
    let mut lines = BufReader::new(file.into_std().take(MAX_FILE_READ));
    let mut line = Vec::new();
    loop {
        line.clear();
        // At most one line past the bound is held: a longer one is read
        // through and skipped.
        let Ok(n) = (&mut lines)
            .take(MAX_LINE_BYTES as u64 + 1)
            .read_until(b'\n', &mut line)
        else {
            read.skipped += 1;
            return;
        };
        if n == 0 {
            break;
        }
        if line.last() != Some(&b'\n') && line.len() > MAX_LINE_BYTES {
            read.skipped += 1;
            if skip_line(&mut lines).is_err() {
                return;
            }
            continue;
        }
        let Ok(text) = std::str::from_utf8(&line) else {
            read.skipped += 1;
            continue;
        };
        let text = text.trim_end_matches(['\n', '\r']);
        if text.is_empty() {
            continue;
        }
        if let Some(record) = Record::parse(text) {
            if read.records.len() == MAX_RECORDS {
                read.truncated = true;
                return;
            }
            read.records.push(record);
        } else if let Some(lost) = parse_lost(text) {
            read.lost = read.lost.saturating_add(lost);
        } else {
            read.skipped += 1;
        }
    }
    if lines.into_inner().limit() == 0 {
        read.truncated = true;
    }
}

/// Reads up to the end of the line.
fn skip_line(lines: &mut impl BufRead) -> io::Result<()> {
    loop {
        let buffer = lines.fill_buf()?;
        if buffer.is_empty() {
            return Ok(());
        }
        match memchr::memchr(b'\n', buffer) {
            Some(at) => {
                lines.consume(at + 1);
                return Ok(());
            }
            None => {
                let n = buffer.len();
                lines.consume(n);
            }
        }
    }
}

/// What the record in `dir` says, for the calls `options` choose.
pub fn stats(dir: &Path, options: &StatsOptions) -> io::Result<Stats> {
    let read = read(dir)?;
    Ok(summarise(read, options))
}

/// One edit attempt, and whether it was a retry.
struct Attempt<'a> {
    record: &'a Record,
    first_try: bool,
}

impl Attempt<'_> {
    fn applied(&self) -> bool {
        self.record.outcome == Outcome::Applied
    }
}

fn code(record: &Record) -> Option<&str> {
    match &record.outcome {
        Outcome::Refused(code) => Some(code),
        _ => None,
    }
}

/// Whether a record is an edit attempt: a tool that writes, not cancelled.
fn attempt(record: &Record) -> bool {
    record.tool.writes() && code(record) != Some("CANCELLED") && record.outcome != Outcome::Ok
}

type Key = (Option<String>, Option<String>);

pub(crate) fn summarise(read: Loaded, options: &StatsOptions) -> Stats {
    let model = options.model.as_ref().map(|m| m.to_lowercase());
    let mut records: Vec<Record> = read
        .records
        .iter()
        .filter(|r| options.since.is_none_or(|since| r.at >= since))
        .filter(|r| options.until.is_none_or(|until| r.at < until))
        .filter(|r| options.host.is_none() || r.host == options.host)
        .filter(|r| options.tool.is_none_or(|tool| r.tool == tool))
        .filter(|r| {
            model.as_ref().is_none_or(|want| {
                r.model
                    .as_ref()
                    .is_some_and(|m| m.to_lowercase().contains(want.as_str()))
            })
        })
        .cloned()
        .collect();
    records.sort_by_key(|r| r.at);
    let mut stats = Stats {
        files: read.files,
        records: read.records.len() as u64,
        matched: records.len() as u64,
        skipped: read.skipped,
        lost: read.lost,
        truncated: read.truncated,
        span: records
            .first()
            .zip(records.last())
            .map(|(a, b)| (a.at, b.at)),
        ..Stats::default()
    };
    let mut by_group: HashMap<Key, Vec<&Record>> = HashMap::new();
    for record in &records {
        let key = (record.model.clone(), record.host.clone());
        by_group.entry(key).or_default().push(record);
    }
    let mut days: BTreeMap<(String, Key), Day> = BTreeMap::new();
    for ((model, host), calls) in by_group {
        let (group, attempts) = group(model, host, &calls);
        for attempt in &attempts {
            let day = day_of(attempt.record.at);
            let key = (group.model.clone(), group.host.clone());
            let entry = days.entry((day.clone(), key)).or_insert_with(|| Day {
                day,
                model: group.model.clone(),
                host: group.host.clone(),
                ..Day::default()
            });
            entry.edits.add(attempt);
            match attempt.record.view {
                ViewStyle::Lean => entry.lean.add(attempt),
                ViewStyle::Full => entry.full.add(attempt),
            }
        }
        stats.advice.extend(advise(&group, &attempts));
        stats.groups.push(group);
    }
    stats.groups.sort_by(|a, b| {
        b.calls
            .cmp(&a.calls)
            .then_with(|| (&a.model, &a.host).cmp(&(&b.model, &b.host)))
    });
    stats
        .advice
        .sort_by(|a, b| (&a.model, &a.host, a.kind).cmp(&(&b.model, &b.host, b.kind)));
    stats.days = days.into_values().collect();
    stats
}

/// The figures of one group's calls (in time order), and its attempts,
/// each told first try or retry.
fn group<'a>(
    model: Option<String>,
    host: Option<String>,
    calls: &[&'a Record],
) -> (Group, Vec<Attempt<'a>>) {
    let mut group = Group {
        model,
        host,
        calls: calls.len() as u64,
        ..Group::default()
    };
    let mut ms: Vec<f64> = calls.iter().map(|r| r.ms).collect();
    ms.sort_by(f64::total_cmp);
    group.median_ms = ms.get(ms.len() / 2).copied().unwrap_or(0.0);
    let mut refusals: HashMap<&str, u64> = HashMap::new();
    // The open run of each file: when its last attempt was, its code, and
    // the retries so far.
    let mut open: HashMap<&str, (u64, &str, u64)> = HashMap::new();
    let mut attempts = Vec::new();
    for record in calls {
        if !record.tool.writes() {
            group.reads += 1;
            group.read_tokens = group
                .read_tokens
                .saturating_add(record.tokens.request.saturating_add(record.tokens.result));
            continue;
        }
        if record.resent {
            group.literal_resends += 1;
        }
        if !attempt(record) {
            continue;
        }
        group.cleaned.prefixes = group
            .cleaned
            .prefixes
            .saturating_add(record.cleaned.prefixes);
        group.cleaned.echoes = group.cleaned.echoes.saturating_add(record.cleaned.echoes);
        let applied = record.outcome == Outcome::Applied;
        group.stale_recovered += u64::from(applied && record.remapped);
        if let Some(code) = code(record) {
            *refusals.entry(code).or_default() += 1;
        }
        // A call without a path is a file of its own.
        let file = record.path.as_deref();
        let run = file.and_then(|f| open.get(f).copied());
        let retry = run.filter(|(last, _, _)| record.at.saturating_sub(*last) <= RETRY_WINDOW_MS);
        if run.is_some() && retry.is_none() {
            group.retries.abandoned += 1;
            open.remove(file.unwrap_or_default());
        }
        match retry {
            Some((_, last_code, retries)) => {
                let retries = retries + 1;
                if record.literal && last_code == "AMBIGUOUS_ECHO" {
                    group.literal_resends += 1;
                }
                let file = file.unwrap_or_default();
                if applied {
                    group.retries.landed += 1;
                    group.retries.retries += retries;
                    group.retries.most = group.retries.most.max(retries);
                    open.remove(file);
                } else {
                    open.insert(file, (record.at, code(record).unwrap_or_default(), retries));
                }
            }
            None => {
                if !applied {
                    group.retries.runs += 1;
                    match file {
                        Some(file) => {
                            open.insert(file, (record.at, code(record).unwrap_or_default(), 0));
                        }
                        None => group.retries.abandoned += 1,
                    }
                }
            }
        }
        let attempt = Attempt {
            record,
            first_try: retry.is_none(),
        };
        group.edits.add(&attempt);
        match record.view {
            ViewStyle::Lean => group.lean.add(&attempt),
            ViewStyle::Full => group.full.add(&attempt),
        }
        attempts.push(attempt);
    }
    group.retries.abandoned += open.len() as u64;
    let mut refusals: Vec<(String, u64)> = refusals
        .into_iter()
        .map(|(c, n)| (c.to_owned(), n))
        .collect();
    refusals.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    group.refusals = refusals;
    (group, attempts)
}

/// Percent, rounded, for advice.
fn percent(part: u64, whole: u64) -> String {
    format!("{:.0}%", part as f64 * 100.0 / whole.max(1) as f64)
}

/// How a user gives a model a setting of the tools (`docs/telemetry.md`,
/// Settings per model): `setting` under the model's id in `HASHLINE_MODELS`
/// or the tools' option `models`.
fn setting_for(group: &Group, setting: &str) -> String {
    match &group.model {
        Some(model) => format!(
            " ({{{}: {setting}}} in HASHLINE_MODELS or the option models)",
            serde_json::Value::String(model.clone())
        ),
        None => String::new(),
    }
}

/// The model and host as advice names them.
fn who(group: &Group) -> String {
    let model = group.model.as_deref().unwrap_or("(model unknown)");
    match &group.host {
        Some(host) => format!("{model} on {host}"),
        None => model.to_owned(),
    }
}

/// The settings a group's figures suggest (`docs/telemetry.md`, Advice).
fn advise(group: &Group, attempts: &[Attempt<'_>]) -> Vec<Advice> {
    let mut advice = Vec::new();
    let advice_for = |kind, setting, attempts, count, compared, text| Advice {
        model: group.model.clone(),
        host: group.host.clone(),
        kind,
        setting,
        attempts,
        count,
        compared,
        text,
    };

    // Refs mistyped in the lean view.
    let ref_refused = |view: ViewStyle| {
        attempts
            .iter()
            .filter(|a| a.record.view == view)
            .filter(|a| code(a.record).is_some_and(|c| REF_CODES.contains(&c)))
            .count() as u64
    };
    let (lean, full) = (group.lean.attempts, group.full.attempts);
    let (lean_refused, full_refused) = (ref_refused(ViewStyle::Lean), ref_refused(ViewStyle::Full));
    let lean_share = lean_refused as f64 / lean.max(1) as f64;
    let full_is_better =
        full < MIN_ATTEMPTS || (full_refused as f64 / full as f64) <= lean_share / 2.0;
    if lean >= MIN_ATTEMPTS && lean_share >= REF_REFUSAL_SHARE && full_is_better {
        let against = if full >= MIN_ATTEMPTS {
            format!(
                ", against {full_refused} of {full} ({}) in the full view",
                percent(full_refused, full)
            )
        } else {
            String::new()
        };
        advice.push(advice_for(
            "lean-refs",
            ("view", "full"),
            lean,
            lean_refused,
            (full >= MIN_ATTEMPTS).then_some((full, full_refused)),
            format!(
                "{}: {lean_refused} of {lean} edits in the lean view ({}) were refused for their refs ({}){against}. The full view's refs carry more to check: set view \"full\" for this model{}.",
                who(group),
                percent(lean_refused, lean),
                REF_CODES.join(", "),
                setting_for(group, "{\"view\": \"full\"}"),
            ),
        ));
    }

    // Boundary echoes.
    let echoes = attempts
        .iter()
        .filter(|a| {
            a.record.cleaned.echoes > 0
                || (code(a.record) == Some("AMBIGUOUS_ECHO")
                    && a.record.doubt == Some(Doubted::Boundary))
        })
        .count() as u64;
    let all = group.edits.attempts;
    if all >= MIN_ATTEMPTS && echoes as f64 / all as f64 >= ECHO_SHARE {
        advice.push(advice_for(
            "boundary-echoes",
            ("echoHint", "literal"),
            all,
            echoes,
            None,
            format!(
                "{}: {echoes} of {all} edits ({}) repeated a line next to where their content went (dropped as proven copies, or refused with AMBIGUOUS_ECHO). Give this model the echo rule's literal hint: content holds only the new lines, and \"literal\": true writes a repeat that is meant.",
                who(group),
                percent(echoes, all),
            ),
        ));
    }

    // Patch-style models.
    let edit_tool: Vec<&Attempt<'_>> = attempts
        .iter()
        .filter(|a| a.record.tool == Tool::Edit)
        .collect();
    let fallback = edit_tool
        .iter()
        .filter(|a| a.record.ops.iter().any(|op| op == "old_string"))
        .count() as u64;
    let edits = edit_tool.len() as u64;
    let first = |tool: Tool| {
        let mut figures = Figures::default();
        for a in attempts.iter().filter(|a| a.record.tool == tool) {
            figures.add(a);
        }
        figures
    };
    let (by_edit, by_patch) = (first(Tool::Edit), first(Tool::Patch));
    let patch_leads = by_edit.first_tries >= MIN_ATTEMPTS
        && by_patch.first_tries >= MIN_ATTEMPTS
        && by_patch.first_try_rate().unwrap_or(0.0)
            >= by_edit.first_try_rate().unwrap_or(0.0) + PATCH_LEAD;
    let falls_back = edits >= MIN_ATTEMPTS && fallback as f64 / edits as f64 >= FALLBACK_SHARE;
    if patch_leads {
        advice.push(advice_for(
            "patch-style",
            ("editKind", "apply_patch"),
            by_edit.first_tries,
            by_edit.first_try_applied,
            Some((by_patch.first_tries, by_patch.first_try_applied)),
            format!(
                "{}: apply_patch landed {} of {} first tries ({}), edit {} of {} ({}). Offer this model apply_patch.",
                who(group),
                by_patch.first_try_applied,
                by_patch.first_tries,
                percent(by_patch.first_try_applied, by_patch.first_tries),
                by_edit.first_try_applied,
                by_edit.first_tries,
                percent(by_edit.first_try_applied, by_edit.first_tries),
            ),
        ));
    } else if falls_back {
        advice.push(advice_for(
            "patch-style",
            ("editKind", "apply_patch"),
            edits,
            fallback,
            None,
            format!(
                "{}: {fallback} of {edits} edits ({}) retyped old text (oldString) instead of citing refs. This model writes patches: offer it apply_patch.",
                who(group),
                percent(fallback, edits),
            ),
        ));
    }
    advice
}

/// The UTC day of a time, `YYYY-MM-DD` (the civil calendar from days since
/// the epoch, after Howard Hinnant's `civil_from_days`).
pub(crate) fn day_of(ms: u64) -> String {
    let days = (ms / 86_400_000) as i64;
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}")
}
