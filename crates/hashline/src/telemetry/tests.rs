use super::folder::{log_name, LOG, SALT};
use super::record::{lost_line, parse_lost, MAX_LINE_BYTES};
use super::salt::Salt;
use super::stats::{day_of, read, summarise};
use super::writer::{CAPACITY, CHUNK_BYTES};
use super::*;
use crate::error::Doubted;
use crate::view::ViewStyle;
use std::borrow::Cow;
use std::ffi::OsString;
use std::fs;
use std::path::Path;

const T0: u64 = 1_780_000_000_000;
const MINUTE: u64 = 60_000;

fn settings(dir: &Path) -> Settings {
    Settings::new(dir.join("telemetry"))
}

/// A record of an edit attempt by `model` on `path`.
fn edit(at: u64, model: &str, path: &str, outcome: Outcome) -> Record {
    let mut r = Record::new(at, Tool::Edit, ViewStyle::Lean);
    r.host = Some("opencode".into());
    r.model = Some(model.into());
    r.path = Some(path.into());
    r.ops = vec![Cow::Borrowed("replace")];
    r.outcome = outcome;
    r.tokens = Tokens {
        request: 40,
        result: 60,
    };
    r
}

fn refused(code: &'static str) -> Outcome {
    Outcome::Refused(Cow::Borrowed(code))
}

/// Every line of every file of the record, the live one first.
fn lines(dir: &Path) -> Vec<String> {
    (0..16)
        .filter_map(|n| fs::read_to_string(dir.join(log_name(n))).ok())
        .flat_map(|text| text.lines().map(str::to_owned).collect::<Vec<_>>())
        .collect()
}

#[test]
fn a_record_reads_back_as_written_with_its_path_hashed() {
    let tmp = tempfile::tempdir().unwrap();
    let telemetry = Telemetry::unstarted(settings(tmp.path()));
    let mut record = edit(
        T0,
        "gpt-5.5",
        "/home/me/project/src/secret-name.ts",
        refused("AMBIGUOUS_ECHO"),
    );
    record.call_id = Some("toolu_01".into());
    record.doubt = Some(Doubted::Boundary);
    record.literal = true;
    record.remapped = true;
    record.cleaned = Cleaned {
        prefixes: 2,
        echoes: 1,
    };
    record.lines = Lines {
        file: 120,
        shown: 7,
        added: 3,
        removed: 1,
    };
    record.files = 2;
    record.ms = 12.345;
    telemetry.record(record.clone());
    telemetry.flush();
    let written = lines(&tmp.path().join("telemetry"));
    assert_eq!(written.len(), 1);
    assert!(!written[0].contains("secret-name"), "{}", written[0]);
    let back = Record::parse(&written[0]).expect("parses");
    let hash = back.path.clone().unwrap();
    assert_eq!(hash.len(), 16);
    assert_eq!(
        back,
        Record {
            path: Some(hash),
            ms: 12.35,
            ..record
        }
    );
}

#[test]
fn lines_that_are_not_exactly_a_records_shape_are_refused() {
    let good =
        String::from_utf8(edit(T0, "m", "0123456789abcdef", Outcome::Applied).line()).unwrap();
    let good = good.trim_end();
    assert!(Record::parse(good).is_some());
    let bad = [
        "",
        "{",
        "[]",
        "null",
        &good[..good.len() - 3],
        &good.replace("\"v\":1", "\"v\":2"),
        &good.replace("\"tool\":\"edit\"", "\"tool\":\"rm\""),
        &good.replace("\"outcome\":\"applied\"", "\"outcome\":\"refused\""),
        &good.replace(
            "\"outcome\":\"applied\"",
            "\"outcome\":\"refused\",\"code\":\"rm -rf\"",
        ),
        &good.replace("\"model\":\"m\"", "\"model\":\"\\u001b[31mred\""),
        &good.replace(
            "\"model\":\"m\"",
            &format!("\"model\":\"{}\"", "m".repeat(201)),
        ),
        &good.replace("\"model\":\"m\"", "\"model\":7"),
        &good.replace("0123456789abcdef", "../../etc/passwd"),
        &good.replace("\"at\":", "\"at\":-"),
        &good.replace(&format!("\"at\":{T0}"), "\"at\":1e300"),
        &good.replace("\"ops\":[\"replace\"]", "\"ops\":[\"Replace; rm\"]"),
        &good.replace("\"request\":40", "\"request\":-1"),
        &good.replace("\"request\":40", "\"request\":1e20"),
    ];
    for line in bad {
        assert_eq!(Record::parse(line), None, "{line}");
    }
    let long = format!("{}{}", good, " ".repeat(MAX_LINE_BYTES));
    assert_eq!(Record::parse(&long), None);
    // The writer's note of lost records is no record, and the other way.
    let note = String::from_utf8(lost_line(T0, 9)).unwrap();
    assert_eq!(Record::parse(note.trim_end()), None);
    assert_eq!(parse_lost(note.trim_end()), Some(9));
    assert_eq!(parse_lost(good), None);
}

#[test]
fn a_soak_of_100000_records_stays_within_the_rotation_bound() {
    let tmp = tempfile::tempdir().unwrap();
    let settings = Settings {
        dir: tmp.path().join("telemetry"),
        max_file_bytes: 256 << 10,
        files: 3,
    };
    let telemetry = Telemetry::unstarted(settings.clone());
    for i in 0..100_000u64 {
        telemetry.record(edit(
            T0 + i,
            "soak-model",
            &format!("src/file{}.ts", i % 37),
            Outcome::Applied,
        ));
        if i % 1000 == 999 {
            telemetry.flush();
        }
    }
    telemetry.flush();
    let total: u64 = fs::read_dir(&settings.dir)
        .unwrap()
        .map(|e| e.unwrap())
        .filter(|e| e.file_name().to_string_lossy().ends_with(".jsonl"))
        .map(|e| e.metadata().unwrap().len())
        .sum();
    let bound = u64::from(settings.files) * (settings.max_file_bytes + CHUNK_BYTES as u64);
    assert!(total <= bound, "{total} bytes on disk, bound {bound}");
    assert!(!settings.dir.join(log_name(3)).exists());
    let read = read(&settings.dir).unwrap();
    assert_eq!(read.skipped, 0);
    assert_eq!(read.lost, 0);
    // The newest records are all there, in order, up to the last.
    let last = read.records.iter().map(|r| r.at).max().unwrap();
    assert_eq!(last, T0 + 99_999);
    assert!(read.records.len() > 1000);
}

#[test]
fn a_full_queue_drops_records_and_counts_them_rather_than_wait() {
    let tmp = tempfile::tempdir().unwrap();
    let telemetry = Telemetry::unstarted(settings(tmp.path()));
    for i in 0..CAPACITY as u64 + 10 {
        telemetry.record(edit(T0 + i, "m", "a", Outcome::Applied));
    }
    telemetry.flush();
    let read = read(&tmp.path().join("telemetry")).unwrap();
    assert_eq!(read.records.len(), CAPACITY);
    assert_eq!(read.lost, 10);
}

#[test]
fn a_failure_to_write_is_counted_and_told_once_the_folder_can_be_written() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("telemetry");
    // A file where the folder should be.
    fs::write(&dir, "not a folder").unwrap();
    let telemetry = Telemetry::unstarted(settings(tmp.path()));
    telemetry.record(edit(T0, "m", "a", Outcome::Applied));
    telemetry.record(edit(T0 + 1, "m", "a", Outcome::Applied));
    telemetry.flush();
    assert_eq!(fs::read_to_string(&dir).unwrap(), "not a folder");
    fs::remove_file(&dir).unwrap();
    telemetry.record(edit(T0 + 2, "m", "a", Outcome::Applied));
    telemetry.flush();
    let read = read(&dir).unwrap();
    assert_eq!(read.records.len(), 1);
    assert_eq!(read.lost, 2);
}

#[cfg(unix)]
#[test]
fn the_folder_is_made_private_and_one_others_may_write_is_not_written() {
    use std::os::unix::fs::PermissionsExt;
    let tmp = tempfile::tempdir().unwrap();
    let telemetry = Telemetry::unstarted(settings(tmp.path()));
    telemetry.record(edit(T0, "m", "a", Outcome::Applied));
    telemetry.flush();
    let dir = tmp.path().join("telemetry");
    let mode = |p: &Path| fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&dir), 0o700);
    assert_eq!(mode(&dir.join(LOG)), 0o600);
    assert_eq!(mode(&dir.join(SALT)), 0o600);
    assert!(dir.join("README.txt").exists());

    let open = tmp.path().join("open");
    fs::create_dir(&open).unwrap();
    fs::set_permissions(&open, fs::Permissions::from_mode(0o777)).unwrap();
    let telemetry = Telemetry::unstarted(Settings::new(&open));
    telemetry.record(edit(T0, "m", "a", Outcome::Applied));
    telemetry.flush();
    assert_eq!(fs::read_dir(&open).unwrap().count(), 0);
}

#[cfg(unix)]
#[test]
fn links_planted_in_or_as_the_folder_lead_nowhere() {
    let tmp = tempfile::tempdir().unwrap();
    let elsewhere = tmp.path().join("elsewhere");
    fs::create_dir(&elsewhere).unwrap();
    let target = elsewhere.join("victim");
    fs::write(&target, "keep me\n").unwrap();

    // The folder itself a link: not written through.
    let linked = tmp.path().join("linked");
    std::os::unix::fs::symlink(&elsewhere, &linked).unwrap();
    let telemetry = Telemetry::unstarted(Settings::new(&linked));
    telemetry.record(edit(T0, "m", "a", Outcome::Applied));
    telemetry.flush();
    assert_eq!(fs::read_dir(&elsewhere).unwrap().count(), 1);

    // The live file a link: neither written nor read through.
    let dir = tmp.path().join("telemetry");
    let telemetry = Telemetry::unstarted(settings(tmp.path()));
    telemetry.record(edit(T0, "m", "a", Outcome::Applied));
    telemetry.flush();
    fs::remove_file(dir.join(LOG)).unwrap();
    std::os::unix::fs::symlink(&target, dir.join(LOG)).unwrap();
    let planted = String::from_utf8(edit(T0, "planted", "a", Outcome::Applied).line()).unwrap();
    fs::write(&target, &planted).unwrap();
    std::os::unix::fs::symlink(&target, dir.join(log_name(1))).unwrap();
    telemetry.record(edit(T0 + 1, "m", "a", Outcome::Applied));
    telemetry.flush();
    assert_eq!(fs::read_to_string(&target).unwrap(), planted);
    let read = read(&dir).unwrap();
    assert!(read
        .records
        .iter()
        .all(|r| r.model.as_deref() != Some("planted")));
}

#[test]
fn an_unfit_salt_is_replaced_and_a_fit_one_kept() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = cap_std::fs::Dir::open_ambient_dir(tmp.path(), cap_std::ambient_authority()).unwrap();
    let salt = Salt::load(&dir).unwrap();
    let again = Salt::load(&dir).unwrap();
    assert_eq!(salt.hash("a/b.ts"), again.hash("a/b.ts"));
    assert_ne!(salt.hash("a/b.ts"), salt.hash("a/c.ts"));
    fs::write(tmp.path().join(SALT), b"short").unwrap();
    let fresh = Salt::load(&dir).unwrap();
    assert_ne!(fresh.hash("a/b.ts"), salt.hash("a/b.ts"));
    assert_eq!(fs::metadata(tmp.path().join(SALT)).unwrap().len(), 32);
    #[cfg(unix)]
    {
        let outside = tmp.path().join("outside");
        fs::write(&outside, [7u8; 32]).unwrap();
        fs::remove_file(tmp.path().join(SALT)).unwrap();
        std::os::unix::fs::symlink(&outside, tmp.path().join(SALT)).unwrap();
        let replaced = Salt::load(&dir).unwrap();
        assert_eq!(fs::read(&outside).unwrap(), [7u8; 32]);
        assert!(!fs::symlink_metadata(tmp.path().join(SALT))
            .unwrap()
            .is_symlink());
        assert_ne!(replaced.hash("a/b.ts"), fresh.hash("a/b.ts"));
    }
}

/// An environment of `pairs` alone, as `from_env` and `off` read one.
fn env(pairs: &'static [(&'static str, &'static str)]) -> impl Fn(&str) -> Option<OsString> {
    move |name: &str| {
        pairs
            .iter()
            .find(|(k, _)| *k == name)
            .map(|(_, v)| OsString::from(v))
    }
}

#[test]
fn the_folder_comes_from_the_environment_given() {
    let moved = default_dir(env(&[
        ("HASHLINE_TELEMETRY_DIR", "/x/t"),
        ("HOME", "/home/u"),
    ]));
    assert_eq!(moved, Some("/x/t".into()));
    let state = default_dir(env(&[("XDG_STATE_HOME", "/s"), ("HOME", "/home/u")]));
    assert_eq!(state, Some(Path::new("/s/hashline/telemetry").into()));
    let relative = default_dir(env(&[("XDG_STATE_HOME", "s"), ("HOME", "/home/u")]));
    assert!(relative.unwrap().starts_with("/home/u"));
    assert_eq!(default_dir(env(&[])), None);
    for value in ["0", "false", "OFF", " no "] {
        let pairs: &'static [(&str, &str)] =
            Box::leak(Box::new([("HASHLINE_TELEMETRY", value), ("HOME", "/h")]));
        assert!(off(env(pairs)), "{value}");
        assert_eq!(Settings::from_env(env(pairs)), None);
    }
    assert!(!off(env(&[("HASHLINE_TELEMETRY", "1")])));
}

fn stats_of(records: Vec<Record>, options: &StatsOptions) -> Stats {
    let records = records
        .into_iter()
        .map(|mut r| {
            r.path = r.path.map(|p| format!("{:0>16}", p.len()));
            r
        })
        .collect();
    summarise(
        stats::Loaded {
            records,
            ..Default::default()
        },
        options,
    )
}

#[test]
fn first_tries_retries_and_abandoned_runs_are_told_apart_per_file() {
    let records = vec![
        // a.ts: refused twice, then landed: a run of two retries.
        edit(T0, "m", "a.ts", refused("HASH_MISMATCH")),
        edit(T0 + MINUTE, "m", "a.ts", refused("INVALID_REF")),
        edit(T0 + 2 * MINUTE, "m", "a.ts", Outcome::Applied),
        // bb.ts: landed at once; a refusal long after, never retried.
        edit(T0, "m", "bb.ts", Outcome::Applied),
        edit(T0 + 60 * MINUTE, "m", "bb.ts", refused("NO_CHANGE")),
        // ccc.ts: refused, retried too late: abandoned, then a new first try.
        edit(T0, "m", "ccc.ts", refused("AMBIGUOUS_ECHO")),
        edit(T0 + 11 * MINUTE, "m", "ccc.ts", Outcome::Applied),
        // Cancelled calls are no attempt.
        edit(T0, "m", "dddd.ts", refused("CANCELLED")),
    ];
    let stats = stats_of(records, &StatsOptions::default());
    assert_eq!(stats.groups.len(), 1);
    let g = &stats.groups[0];
    assert_eq!(g.edits.attempts, 7);
    assert_eq!(g.edits.applied, 3);
    assert_eq!(g.edits.first_tries, 5);
    assert_eq!(g.edits.first_try_applied, 2);
    assert_eq!(g.retries.runs, 3);
    assert_eq!(g.retries.landed, 1);
    assert_eq!(g.retries.retries, 2);
    assert_eq!(g.retries.most, 2);
    assert_eq!(g.retries.abandoned, 2);
    assert_eq!(g.retries.to_success(), Some(2.0));
    assert_eq!(
        g.refusals,
        vec![
            ("AMBIGUOUS_ECHO".into(), 1),
            ("HASH_MISMATCH".into(), 1),
            ("INVALID_REF".into(), 1),
            ("NO_CHANGE".into(), 1)
        ]
    );
    // 7 attempts of 100 tokens each, 3 landed.
    assert_eq!(g.edits.tokens_per_success(), Some(700.0 / 3.0));
}

#[test]
fn a_literal_resend_after_an_echo_refusal_is_counted() {
    let mut resend = edit(T0 + MINUTE, "m", "a.ts", Outcome::Applied);
    resend.literal = true;
    let mut write = Record::new(T0, Tool::Write, ViewStyle::Lean);
    write.model = Some("m".into());
    write.host = Some("opencode".into());
    write.outcome = Outcome::Applied;
    write.resent = true;
    let stats = stats_of(
        vec![
            edit(T0, "m", "a.ts", refused("AMBIGUOUS_ECHO")),
            resend,
            write,
        ],
        &StatsOptions::default(),
    );
    assert_eq!(stats.groups[0].literal_resends, 2);
}

#[test]
fn the_window_and_the_filters_choose_the_records() {
    let mut other = edit(T0, "claude-sonnet-4-5", "a", Outcome::Applied);
    other.host = Some("pi".into());
    let mut read_call = Record::new(T0, Tool::Read, ViewStyle::Lean);
    read_call.model = Some("GPT-5.5".into());
    read_call.host = Some("opencode".into());
    let records = vec![
        edit(T0 - 1, "gpt-5.5", "a", Outcome::Applied),
        edit(T0, "gpt-5.5", "a", Outcome::Applied),
        edit(T0 + 10, "gpt-5.5", "a", Outcome::Applied),
        other,
        read_call,
    ];
    let window = StatsOptions {
        since: Some(T0),
        until: Some(T0 + 10),
        model: Some("gpt".into()),
        ..Default::default()
    };
    let stats = stats_of(records.clone(), &window);
    assert_eq!(stats.matched, 2);
    assert_eq!(
        stats.groups.len(),
        2,
        "models differ in case: {:?}",
        stats.groups
    );
    let hosts = StatsOptions {
        host: Some("pi".into()),
        ..Default::default()
    };
    assert_eq!(stats_of(records.clone(), &hosts).matched, 1);
    let tools = StatsOptions {
        tool: Some(Tool::Read),
        ..Default::default()
    };
    let read_only = stats_of(records, &tools);
    assert_eq!(read_only.matched, 1);
    assert_eq!(read_only.groups[0].reads, 1);
    assert_eq!(read_only.groups[0].edits.attempts, 0);
}

/// `n` attempts in `view`, the first `refused` of them refused with `code`.
fn attempts(view: ViewStyle, n: u64, refused_n: u64, code: &'static str) -> Vec<Record> {
    (0..n)
        .map(|i| {
            let outcome = if i < refused_n {
                refused(code)
            } else {
                Outcome::Applied
            };
            let mut r = edit(T0 + i * 20 * MINUTE, "mini", &format!("f{i}"), outcome);
            r.view = view;
            r
        })
        .collect()
}

#[test]
fn lean_refs_refused_often_advise_the_full_view_with_the_figures() {
    let stats = stats_of(
        attempts(ViewStyle::Lean, 40, 8, "INVALID_REF"),
        &StatsOptions::default(),
    );
    let advice: Vec<_> = stats
        .advice
        .iter()
        .filter(|a| a.kind == "lean-refs")
        .collect();
    assert_eq!(advice.len(), 1, "{:?}", stats.advice);
    assert_eq!(advice[0].setting, ("view", "full"));
    assert_eq!((advice[0].attempts, advice[0].count), (40, 8));
    assert!(advice[0].text.contains("8 of 40"), "{}", advice[0].text);

    // Too few calls: no advice.
    let few = stats_of(
        attempts(ViewStyle::Lean, 19, 10, "INVALID_REF"),
        &StatsOptions::default(),
    );
    assert!(few.advice.is_empty());
    // Under the share: none.
    let rare = stats_of(
        attempts(ViewStyle::Lean, 40, 3, "INVALID_REF"),
        &StatsOptions::default(),
    );
    assert!(rare.advice.is_empty());
    // The full view fails as often: none.
    let mut both = attempts(ViewStyle::Lean, 40, 8, "HASH_MISMATCH");
    both.extend(
        attempts(ViewStyle::Full, 40, 8, "HASH_MISMATCH")
            .into_iter()
            .map(|mut r| {
                r.at += 1;
                r.path = r.path.map(|p| format!("{p}x"));
                r
            }),
    );
    assert!(stats_of(both, &StatsOptions::default()).advice.is_empty());
}

#[test]
fn boundary_echoes_and_patch_style_requests_advise_their_settings() {
    let mut echoes = attempts(ViewStyle::Lean, 30, 3, "AMBIGUOUS_ECHO");
    for r in echoes.iter_mut().take(3) {
        r.doubt = Some(Doubted::Boundary);
    }
    echoes[10].cleaned.echoes = 1;
    let stats = stats_of(echoes.clone(), &StatsOptions::default());
    let kinds: Vec<_> = stats.advice.iter().map(|a| (a.kind, a.setting)).collect();
    assert_eq!(kinds, vec![("boundary-echoes", ("echoHint", "literal"))]);
    assert_eq!(stats.advice[0].count, 4);
    // Doubted view output is not a boundary echo.
    for r in echoes.iter_mut().take(3) {
        r.doubt = Some(Doubted::Output);
    }
    assert!(stats_of(echoes, &StatsOptions::default()).advice.is_empty());

    let mut fallback = attempts(ViewStyle::Lean, 30, 0, "");
    for r in fallback.iter_mut().take(12) {
        r.ops = vec![Cow::Borrowed("old_string")];
    }
    let stats = stats_of(fallback, &StatsOptions::default());
    assert_eq!(stats.advice.len(), 1);
    assert_eq!(stats.advice[0].setting, ("editKind", "apply_patch"));
    assert!(
        stats.advice[0].text.contains("12 of 30"),
        "{}",
        stats.advice[0].text
    );
}

#[test]
fn figures_per_day_follow_the_calendar() {
    assert_eq!(day_of(0), "1970-01-01");
    assert_eq!(day_of(951_782_400_000), "2000-02-29");
    assert_eq!(day_of(T0), "2026-05-28");
    let stats = stats_of(
        vec![
            edit(T0, "m", "a", Outcome::Applied),
            edit(T0 + 24 * 60 * MINUTE, "m", "b", Outcome::Applied),
        ],
        &StatsOptions::default(),
    );
    let days: Vec<_> = stats
        .days
        .iter()
        .map(|d| (d.day.as_str(), d.edits.applied))
        .collect();
    assert_eq!(days, vec![("2026-05-28", 1), ("2026-05-29", 1)]);
}

#[test]
fn planted_and_cut_lines_are_skipped_and_counted_when_read() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let good =
        String::from_utf8(edit(T0, "m", "0123456789abcdef", Outcome::Applied).line()).unwrap();
    let mut text = good.clone();
    text.push_str("{\"v\":1,\"at\":");
    text.push('\n');
    text.push_str(&"x".repeat(3 * MAX_LINE_BYTES));
    text.push('\n');
    text.push_str("\u{FFFD}\u{0}garbage\n");
    text.push_str(&good);
    text.push_str(&good[..good.len() / 2]);
    fs::write(dir.join(LOG), text).unwrap();
    let read = read(dir).unwrap();
    assert_eq!(read.records.len(), 2);
    assert_eq!(read.skipped, 4);
    assert_eq!(read.files, 1);
}

#[test]
fn token_estimates_come_near_o200k() {
    // Exact o200k counts of these texts, from js-tiktoken 1.0.21.
    let rust = "/// Cuts `text` to `MAX_RESULT_BYTES` at a line end, and says so.\npub(super) fn bound(text: &mut String, what: &str) {\n    let total = text.len();\n    if total <= MAX_RESULT_BYTES {\n        return;\n    }\n    let mut cut = MAX_RESULT_BYTES;\n    while !text.is_char_boundary(cut) {\n        cut -= 1;\n    }\n}\n";
    let prose = "The second edit cites 3xd from the first read although that line is line 5 by then: the versions the engine keeps prove it unchanged, so the edit lands. A ref whose line changed, or whose new place cannot be proven, is refused with the lines as they are now and fresh refs.\n";
    let json = "{\"filePath\":\"src/app.ts\",\"operations\":[{\"op\":\"replace\",\"ref\":\"2ky\",\"content\":\"  if (!items) {\\n    return 0;\\n  }\"},{\"op\":\"insert_after\",\"ref\":\"3xd\",\"content\":\"  // counted\"}]}";
    let near = |estimate: u64, exact: u64| {
        let error = (estimate as f64 - exact as f64).abs() / exact as f64;
        assert!(error < 0.15, "{estimate} against {exact}");
    };
    near(estimate_tokens(rust), 86);
    near(estimate_tokens(prose), 62);
    near(estimate_tokens(json), 55);
    let lean = crate::format_view_with(rust, "src/bound.rs", &crate::FormatViewOptions::default())
        .unwrap();
    near(view_tokens(lean.text.len(), 1, 11, ViewStyle::Lean), 130);
    let options = crate::FormatViewOptions {
        view: ViewStyle::Full,
        ..Default::default()
    };
    let full = crate::format_view_with(rust, "src/bound.rs", &options).unwrap();
    near(view_tokens(full.text.len(), 1, 11, ViewStyle::Full), 191);
}

/// The folder a child process of `several_processes_…` writes to, its
/// name and the size its files rotate at.
const CHILD_DIR: &str = "HASHLINE_TELEMETRY_TEST_CHILD_DIR";
const CHILD_NAME: &str = "HASHLINE_TELEMETRY_TEST_CHILD_NAME";
const CHILD_MAX: &str = "HASHLINE_TELEMETRY_TEST_CHILD_MAX";
const CHILD_RECORDS: u64 = 3000;
const CHILDREN: usize = 4;

/// One writer of `several_processes_…`, run in a process of its own.
#[test]
#[ignore = "run by several_processes_append_whole_records_and_rotate_within_the_bound"]
fn telemetry_child_writer() {
    let var = |name| std::env::var(name).ok();
    let (Some(dir), Some(name), Some(max)) = (var(CHILD_DIR), var(CHILD_NAME), var(CHILD_MAX))
    else {
        return;
    };
    let telemetry = Telemetry::unstarted(Settings {
        dir: dir.into(),
        max_file_bytes: max.parse().unwrap(),
        files: 3,
    });
    for i in 0..CHILD_RECORDS {
        let mut record = edit(T0 + i, &name, "a", Outcome::Applied);
        record.call_id = Some(format!("{name}-{i}"));
        telemetry.record(record);
        if i % 7 == 6 {
            telemetry.flush();
        }
    }
    telemetry.flush();
}

/// Runs the writers, each in a process of its own, into `dir`.
fn run_children(dir: &Path, max_file_bytes: u64) {
    let me = std::env::current_exe().unwrap();
    let children: Vec<_> = (0..CHILDREN)
        .map(|n| {
            std::process::Command::new(&me)
                .args([
                    "--exact",
                    "telemetry::tests::telemetry_child_writer",
                    "--ignored",
                    "--quiet",
                ])
                .env(CHILD_DIR, dir)
                .env(CHILD_NAME, format!("process-{n}"))
                .env(CHILD_MAX, max_file_bytes.to_string())
                .stdout(std::process::Stdio::null())
                .spawn()
                .unwrap()
        })
        .collect();
    for mut child in children {
        assert!(child.wait().unwrap().success());
    }
}

#[test]
fn several_processes_append_whole_records_and_rotate_within_the_bound() {
    // Room for every record: each is there once, whole.
    let tmp = tempfile::tempdir().unwrap();
    let roomy = tmp.path().join("roomy");
    run_children(&roomy, 64 << 20);
    let all = read(&roomy).unwrap();
    assert_eq!((all.skipped, all.lost), (0, 0));
    let mut ids: Vec<&str> = all
        .records
        .iter()
        .filter_map(|r| r.call_id.as_deref())
        .collect();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), CHILDREN * CHILD_RECORDS as usize);

    // Rotated many times over by all of them at once: still whole, and
    // within the bound.
    let tight = tmp.path().join("tight");
    let max_file_bytes = 64 << 10;
    run_children(&tight, max_file_bytes);
    let kept = read(&tight).unwrap();
    assert_eq!((kept.skipped, kept.lost), (0, 0));
    assert!(!kept.records.is_empty());
    let total: u64 = (0..16)
        .filter_map(|n| fs::metadata(tight.join(log_name(n))).ok())
        .map(|m| m.len())
        .sum();
    // Each process may append one chunk to a file past its size before it
    // rotates it.
    let bound = 3 * (max_file_bytes + (CHILDREN * CHUNK_BYTES) as u64);
    assert!(total <= bound, "{total} bytes on disk, bound {bound}");
    assert!(!tight.join(log_name(3)).exists());
}

/// Runs `work` on a thread of its own; whether it ended within `limit`.
fn ends_within(limit: std::time::Duration, work: impl FnOnce() + Send + 'static) -> bool {
    let (done, ended) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        work();
        let _ = done.send(());
    });
    ended.recv_timeout(limit).is_ok()
}

#[cfg(unix)]
#[test]
fn a_fifo_planted_as_a_file_of_the_folder_never_holds_a_write_up() {
    use rustix::fs::{mknodat, FileType, Mode, CWD};
    for name in [LOG, super::folder::LOCK] {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("telemetry");
        let mut settings = settings(tmp.path());
        // A file already past its bound, so that the lock is taken too.
        settings.max_file_bytes = 1;
        let telemetry = Telemetry::unstarted(settings);
        telemetry.record(edit(T0, "m", "a", Outcome::Applied));
        telemetry.flush();
        fs::remove_file(dir.join(name)).ok();
        mknodat(
            CWD,
            dir.join(name),
            FileType::Fifo,
            Mode::from_raw_mode(0o600),
            0,
        )
        .unwrap();
        // No process reads it: an open for writing would wait for one.
        let ended = ends_within(std::time::Duration::from_secs(20), move || {
            for at in 0..3 {
                telemetry.record(edit(T0 + at, "m", "a", Outcome::Applied));
                telemetry.flush();
            }
        });
        assert!(ended, "a write held up by a pipe named {name}");
    }
}

#[cfg(unix)]
#[test]
fn a_hard_link_planted_as_the_live_file_is_not_written_through() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("telemetry");
    let telemetry = Telemetry::unstarted(settings(tmp.path()));
    telemetry.record(edit(T0, "m", "a", Outcome::Applied));
    telemetry.flush();
    let outside = tmp.path().join("outside.txt");
    fs::write(&outside, "keep me\n").unwrap();
    fs::remove_file(dir.join(LOG)).unwrap();
    fs::hard_link(&outside, dir.join(LOG)).unwrap();
    telemetry.record(edit(T0 + 1, "m", "a", Outcome::Applied));
    telemetry.flush();
    assert_eq!(fs::read_to_string(&outside).unwrap(), "keep me\n");
}

#[test]
fn a_line_another_process_left_cut_short_does_not_swallow_the_next_record() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("telemetry");
    let telemetry = Telemetry::unstarted(settings(tmp.path()));
    telemetry.record(edit(T0, "m", "a", Outcome::Applied));
    telemetry.flush();
    drop(telemetry);
    let whole = fs::read_to_string(dir.join(LOG)).unwrap();
    fs::write(
        dir.join(LOG),
        format!("{whole}{}", &whole[..whole.len() / 2]),
    )
    .unwrap();
    let telemetry = Telemetry::unstarted(settings(tmp.path()));
    telemetry.record(edit(T0 + 1, "later", "a", Outcome::Applied));
    telemetry.flush();
    let read = read(&dir).unwrap();
    assert_eq!(read.records.len(), 2, "{:?}", lines(&dir));
    assert_eq!(read.records[1].model.as_deref(), Some("later"));
    assert_eq!(read.skipped, 1);
}

#[test]
fn a_live_file_that_cannot_be_rotated_stops_growing_at_twice_its_bound() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("telemetry");
    let mut settings = settings(tmp.path());
    settings.max_file_bytes = 4096;
    settings.files = 3;
    let telemetry = Telemetry::unstarted(settings);
    telemetry.record(edit(T0, "m", "a", Outcome::Applied));
    telemetry.flush();
    // A folder where the oldest file goes: every rotation fails.
    fs::write(dir.join(log_name(1)), "").unwrap();
    fs::create_dir(dir.join(log_name(2))).unwrap();
    fs::create_dir(dir.join(log_name(2)).join("x")).unwrap();
    for at in 0..400 {
        telemetry.record(edit(T0 + at, "m", "a", Outcome::Applied));
        telemetry.flush();
    }
    let size = fs::metadata(dir.join(LOG)).unwrap().len();
    assert!(size <= 2 * 4096 + MAX_LINE_BYTES as u64, "{size}");
}

#[test]
fn planted_counts_at_their_limits_add_up_without_overflow() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let mut text = String::new();
    for at in 0..3000u64 {
        text.push_str(&format!(
            "{{\"v\":1,\"at\":{},\"lost\":9007199254740991}}\n",
            T0 + at
        ));
        let mut big = edit(T0 + at, "m", "0123456789abcdef", Outcome::Applied);
        big.tokens = Tokens {
            request: 9_007_199_254_740_991,
            result: 9_007_199_254_740_991,
        };
        big.lines.file = 9_007_199_254_740_991;
        text.push_str(std::str::from_utf8(&big.line()).unwrap());
    }
    fs::write(dir.join(LOG), text).unwrap();
    let loaded = read(dir).unwrap();
    assert!(loaded.lost > 0);
    let stats = summarise(loaded, &StatsOptions::default());
    assert!(!stats.groups.is_empty());
}

#[test]
fn every_usual_way_to_say_no_turns_the_record_off() {
    for value in ["disabled", "none", "n", "0.0", "False", "disable"] {
        let pairs: &'static [(&str, &str)] = Box::leak(Box::new([("HASHLINE_TELEMETRY", value)]));
        assert!(off(env(pairs)), "{value}");
    }
    assert!(off(env(&[("DO_NOT_TRACK", "1")])));
    assert!(!off(env(&[("DO_NOT_TRACK", "0")])));
    assert!(!off(env(&[
        ("HASHLINE_TELEMETRY", "1"),
        ("DO_NOT_TRACK", "")
    ])));
}

#[test]
fn processes_making_the_salt_at_once_all_take_the_same_one() {
    for _ in 0..20 {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().to_owned();
        let hashes: Vec<String> = (0..8)
            .map(|_| {
                let path = path.clone();
                std::thread::spawn(move || {
                    let dir =
                        cap_std::fs::Dir::open_ambient_dir(&path, cap_std::ambient_authority())
                            .unwrap();
                    Salt::load(&dir).unwrap().hash("a/b.ts")
                })
            })
            .collect::<Vec<_>>()
            .into_iter()
            .map(|t| t.join().unwrap())
            .collect();
        assert!(hashes.iter().all(|h| *h == hashes[0]), "{hashes:?}");
        assert_eq!(
            fs::read_dir(&path).unwrap().count(),
            1,
            "only the salt is left"
        );
    }
}

#[test]
fn a_label_of_control_characters_alone_is_written_as_none_and_the_record_reads_back() {
    let mut record = edit(T0, "\u{1b}", "0123456789abcdef", Outcome::Applied);
    record.host = Some("\u{7}".into());
    record.call_id = Some("\n\n".into());
    let line = String::from_utf8(record.line()).unwrap();
    let back = Record::parse(line.trim_end()).expect("reads back");
    assert_eq!((back.model, back.host, back.call_id), (None, None, None));
}
