//! The store's tests: versions in memory and on disk, damage, the byte cap.

use super::disk::*;
use super::*;

proptest::proptest! {
    /// Ranges recorded in any order, overlapping or not, are found by
    /// the search `saw` makes as by a look at each of them.
    #[test]
    fn a_line_is_seen_exactly_when_some_recorded_range_holds_it(
        batches in proptest::collection::vec(
            proptest::collection::vec((0usize..40, 0usize..6), 0..6),
            1..5,
        ),
    ) {
        let mut store = Store::new(StoreLimits::default());
        let text: String = (0..50).map(|i| format!("{i}\n")).collect();
        let d = doc(&text);
        let p = Path::new("/r/a");
        let mut all = Vec::new();
        for batch in &batches {
            let ranges: Vec<Range<usize>> = batch.iter().map(|&(s, l)| s..s + l).collect();
            store.record_all(p, "R", &d, &ranges, Sight::Asked);
            all.extend(ranges);
        }
        let version = &store.versions(p)[0];
        for i in 0..50 {
            proptest::prop_assert_eq!(version.saw(i), all.iter().any(|r| r.contains(&i)), "line {}", i);
        }
    }
}

fn doc(text: &str) -> Arc<Document> {
    Arc::new(Document::from_text(text))
}

#[test]
fn records_versions_per_path_most_recent_first_and_merges_seen_lines() {
    let mut store = Store::new(StoreLimits::default());
    let a = Path::new("/r/a");
    store.record(a, "R1", doc("x\n"), 0..1);
    store.record(a, "R2", doc("y\n"), 0..1);
    store.record(Path::new("/r/b"), "R3", doc("z\n"), 0..1);
    store.record(a, "R1", doc("x\n"), 3..5);
    store.record(a, "R1", doc("x\n"), 1..3);
    let versions = store.versions(a);
    assert_eq!(
        versions.iter().map(|v| v.rev.as_str()).collect::<Vec<_>>(),
        ["R1", "R2"]
    );
    assert_eq!(versions[0].seen, vec![0..5]);
    assert!(versions[0].saw(4) && !versions[0].saw(5));
}

#[test]
fn a_persistent_store_gives_a_new_process_the_versions_and_seen_lines_of_an_earlier_one() {
    let dir = tempfile::tempdir().unwrap();
    let p = Path::new("/r/a.txt");
    let text = "x\ny\n";
    let r = rev(text);
    {
        let mut store = Store::persistent(StoreLimits::default(), dir.path().to_owned());
        store.record(p, &r, doc(text), 0..1);
        store.record(p, &r, doc(text), 1..2);
        store.link(
            p,
            &r,
            Parent {
                rev: "OLD".into(),
                map: Arc::new(LineMap::from_changes(1, [(0..0, 0..1)])),
            },
        );
    }
    let mut later = Store::persistent(StoreLimits::default(), dir.path().to_owned());
    let versions = later.versions(p);
    assert_eq!(versions.len(), 1);
    assert_eq!(versions[0].rev, r);
    assert_eq!(versions[0].seen, vec![0..2]);
    assert_eq!(versions[0].doc.text(), text);
    let parent = versions[0].parent.as_ref().unwrap();
    assert_eq!(parent.rev, "OLD");
    assert_eq!(parent.map.line(0), Some(1));
    assert!(later.versions(Path::new("/r/other")).is_empty());
}

#[test]
fn a_damaged_version_file_is_ignored() {
    let dir = tempfile::tempdir().unwrap();
    let p = Path::new("/r/a.txt");
    let mut store = Store::persistent(StoreLimits::default(), dir.path().to_owned());
    store.record(p, &rev("x\n"), doc("x\n"), 0..1);
    for entry in fs::read_dir(dir.path()).unwrap().flatten() {
        fs::write(
            entry.path(),
            "hashline-version 1\n/r/a.txt\n0-1\ntampered\n",
        )
        .unwrap();
    }
    let mut later = Store::persistent(StoreLimits::default(), dir.path().to_owned());
    assert!(later.versions(p).is_empty());
}

#[test]
fn evicts_least_recently_used_past_the_limits() {
    let mut store = Store::new(StoreLimits {
        max_versions: 2,
        max_bytes: 1 << 20,
        max_version_bytes: 4,
        ..StoreLimits::default()
    });
    let p = Path::new("/r/a");
    store.record(p, "R1", doc("1\n"), 0..1);
    store.record(p, "R2", doc("2\n"), 0..1);
    store.record(p, "R1", doc("1\n"), 0..1);
    store.record(p, "R3", doc("3\n"), 0..1);
    store.record(p, "BIG", doc("too large\n"), 0..1);
    let revs: Vec<String> = store.versions(p).into_iter().map(|v| v.rev).collect();
    assert_eq!(revs, ["R3", "R1"]);
}

fn disk_files(dir: &Path) -> Vec<(String, u64)> {
    let mut files: Vec<(String, u64)> = fs::read_dir(dir)
        .unwrap()
        .flatten()
        .filter(|e| e.file_name() != LEDGER)
        .map(|e| {
            let meta = e.metadata().unwrap();
            (e.file_name().to_string_lossy().into_owned(), meta.len())
        })
        .collect();
    files.sort();
    files
}

#[cfg(unix)]
fn inode(file: &Path) -> u64 {
    use std::os::unix::fs::MetadataExt;
    fs::metadata(file).unwrap().ino()
}

fn persistent(dir: &Path, max_disk_bytes: u64) -> Store {
    Store::persistent(
        StoreLimits {
            max_disk_bytes,
            ..StoreLimits::default()
        },
        dir.to_owned(),
    )
}

#[cfg(unix)]
#[test]
fn showing_an_unchanged_version_again_writes_no_copy_of_its_text() {
    let dir = tempfile::tempdir().unwrap();
    let p = Path::new("/r/a.txt");
    let text = "x\n".repeat(1000);
    let r = rev(&text);
    persistent(dir.path(), 1 << 30).record(p, &r, doc(&text), 0..10);
    let before = disk_files(dir.path());
    let text_file = dir.path().join(format!("{}-{r}{TEXT_SUFFIX}", file_key(p)));
    let text_inode = inode(&text_file);

    // The same lines in a later process: nothing is written.
    persistent(dir.path(), 1 << 30).record(p, &r, doc(&text), 0..10);
    assert_eq!(disk_files(dir.path()), before);
    assert_eq!(inode(&text_file), text_inode);

    // More lines shown: only the small header is rewritten.
    persistent(dir.path(), 1 << 30).record(p, &r, doc(&text), 10..20);
    assert_eq!(inode(&text_file), text_inode);
    let after = disk_files(dir.path());
    assert_eq!(after.len(), 2);
    let header = after
        .iter()
        .find(|(n, _)| n.ends_with(DISK_SUFFIX))
        .unwrap();
    assert!(header.1 < 100, "{after:?}");
    assert_eq!(
        persistent(dir.path(), 1 << 30).versions(p)[0].seen,
        vec![0..20]
    );
}

#[test]
fn the_store_folder_stays_under_its_byte_cap_across_processes_least_recently_used_out_first() {
    let dir = tempfile::tempdir().unwrap();
    let cap = 64 << 10;
    let text = |i: usize| format!("{i}\n{}", "y".repeat(4000));
    let keep = Path::new("/r/keep.txt");
    let kept = text(0);
    persistent(dir.path(), cap).record(keep, &rev(&kept), doc(&kept), 0..1);
    for i in 1..60 {
        let p = PathBuf::from(format!("/r/{i}.txt"));
        let t = text(i);
        // A separate process per file, as command-line runs are.
        persistent(dir.path(), cap).record(&p, &rev(&t), doc(&t), 0..1);
        // The kept file is read again now and then.
        if i % 5 == 0 {
            std::thread::sleep(std::time::Duration::from_millis(5));
            persistent(dir.path(), cap).record(keep, &rev(&kept), doc(&kept), 0..1);
        }
    }
    let total: u64 = disk_files(dir.path()).iter().map(|(_, n)| n).sum();
    assert!(total <= cap + cap / SWEEP_SHARE as u64 + 8192, "{total}");
    assert_eq!(persistent(dir.path(), cap).versions(keep).len(), 1);
    assert!(persistent(dir.path(), cap)
        .versions(Path::new("/r/1.txt"))
        .is_empty());
}

#[test]
fn a_write_sweeps_the_folder_once_the_writes_of_all_processes_since_the_last_sweep_add_up_to_a_share_of_its_cap(
) {
    let dir = tempfile::tempdir().unwrap();
    let cap = 64 << 10;
    // Versions other processes left, over the cap in all, used long ago.
    let old = |dir: &Path| {
        for i in 0..20 {
            let text = format!("{i}\n{}", "z".repeat(10_000));
            let stem = format!("{:016x}-{}", i, rev(&text));
            fs::write(dir.join(format!("{stem}{TEXT_SUFFIX}")), &text).unwrap();
            fs::write(
                dir.join(format!("{stem}{DISK_SUFFIX}")),
                format!("{DISK_MAGIC}\n"),
            )
            .unwrap();
        }
    };
    let stored = |dir: &Path| disk_files(dir).iter().map(|(_, n)| n).sum::<u64>();
    let olds = |dir: &Path| {
        disk_files(dir)
            .iter()
            .filter(|(n, _)| n.starts_with("00000000000000"))
            .count()
    };
    let write = |i: usize| {
        let t = format!("{i}\n{}", "y".repeat(300));
        let p = PathBuf::from(format!("/r/{i}.txt"));
        persistent(dir.path(), cap).record(&p, &rev(&t), doc(&t), 0..1);
    };
    old(dir.path());
    fs::write(dir.path().join(LEDGER), "0\n").unwrap();
    // Small writes from separate processes, each far under the share.
    for i in 0..5 {
        write(i);
    }
    assert_eq!(olds(dir.path()), 40, "swept too early");
    // Together they pass it: one of them sweeps, the versions used
    // longest ago first.
    for i in 5..20 {
        write(i);
    }
    assert!(olds(dir.path()) < 40);
    assert!(
        stored(dir.path()) <= cap + cap / SWEEP_SHARE as u64,
        "{}",
        stored(dir.path())
    );

    // Without a count to trust, the first write sweeps.
    for (i, ledger) in [(100, None), (101, Some("not a number"))] {
        old(dir.path());
        match ledger {
            Some(text) => fs::write(dir.path().join(LEDGER), text).unwrap(),
            None => fs::remove_file(dir.path().join(LEDGER)).unwrap(),
        }
        write(i);
        assert!(stored(dir.path()) <= cap, "{ledger:?}");
        assert_eq!(fs::read_to_string(dir.path().join(LEDGER)).unwrap(), "0\n");
    }
}

#[test]
fn a_version_whose_text_was_removed_is_gone_without_a_damage_note() {
    let dir = tempfile::tempdir().unwrap();
    let p = Path::new("/r/a.txt");
    persistent(dir.path(), 1 << 30).record(p, &rev("x\n"), doc("x\n"), 0..1);
    for (name, _) in disk_files(dir.path()) {
        if name.ends_with(TEXT_SUFFIX) {
            fs::remove_file(dir.path().join(name)).unwrap();
        }
    }
    let mut later = persistent(dir.path(), 1 << 30);
    assert!(later.versions(p).is_empty());
    assert!(later.take_damage_note(p).is_none());
}

#[test]
fn files_named_as_versions_that_the_store_did_not_write_are_never_removed() {
    let dir = tempfile::tempdir().unwrap();
    let big = "x".repeat(100_000);
    let mine = [
        ("0123456789abcdef-0BADF00D.hlv", "my notes\n"),
        ("0123456789abcdef-0BADF00D.hlt", big.as_str()),
        ("fedcba9876543210-0BADF00D.hlt", "hashline-version 2\n"),
    ];
    for (name, text) in mine {
        fs::write(dir.path().join(name), text).unwrap();
    }
    // Every write of a store far over its cap sweeps it.
    for i in 0..5 {
        let text = format!("{i}\n");
        let p = PathBuf::from(format!("/r/{i}.txt"));
        persistent(dir.path(), 1024).record(&p, &rev(&text), doc(&text), 0..1);
    }
    let cleared = clear(dir.path()).unwrap();
    assert_eq!(cleared.skipped, mine.len());
    assert!(cleared.files > 0);
    for (name, text) in mine {
        assert_eq!(fs::read_to_string(dir.path().join(name)).unwrap(), text);
    }
}

#[test]
fn clear_removes_the_store_files_alone_and_counts_them() {
    let dir = tempfile::tempdir().unwrap();
    persistent(dir.path(), 1 << 30).record(Path::new("/r/a"), &rev("x\n"), doc("x\n"), 0..1);
    persistent(dir.path(), 1 << 30).record(Path::new("/r/b"), &rev("y\n"), doc("y\n"), 0..1);
    fs::write(dir.path().join("notes.txt"), "mine").unwrap();
    // The two versions' texts and headers, and the count of bytes written.
    let bytes: u64 = fs::read_dir(dir.path())
        .unwrap()
        .flatten()
        .filter(|e| e.file_name() != "notes.txt")
        .map(|e| e.metadata().unwrap().len())
        .sum();
    assert!(dir.path().join(LEDGER).exists());
    assert_eq!(
        clear(dir.path()).unwrap(),
        Cleared {
            files: 5,
            bytes,
            skipped: 0
        }
    );
    assert_eq!(disk_files(dir.path()), [("notes.txt".to_owned(), 4)]);
    assert!(!dir.path().join(LEDGER).exists());
    assert_eq!(
        clear(&dir.path().join("missing")).unwrap(),
        Cleared::default()
    );
}
