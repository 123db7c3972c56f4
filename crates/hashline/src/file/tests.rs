//! The file envelope's tests: loading, atomic writes, temporary files.

use super::load::read_whole;
use super::temp::*;
use super::*;
use crate::lock::DEFAULT_LOCK_TIMEOUT;

fn names_in(dir: &std::path::Path) -> Vec<OsString> {
    let mut names: Vec<_> = fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name())
        .collect();
    names.sort();
    names
}

#[test]
fn a_file_is_read_whole_whatever_size_its_metadata_gave() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("f.txt");
    for len in [0usize, 1, 4095, 4096, 70_000] {
        let bytes: Vec<u8> = (0..len).map(|i| b'a' + (i % 26) as u8).collect();
        fs::write(&path, &bytes).unwrap();
        let file = fs::File::open(&path).unwrap();
        assert_eq!(read_whole(&file, len as u64, 1 << 20).unwrap(), bytes);
        // Grown or shrunk since it was looked at.
        for stale in [0, len / 2, len + 10] {
            let file = fs::File::open(&path).unwrap();
            assert_eq!(read_whole(&file, stale as u64, 1 << 20).unwrap(), bytes);
        }
        let file = fs::File::open(&path).unwrap();
        let capped = read_whole(&file, len as u64, 100).unwrap();
        assert_eq!(capped, bytes[..len.min(101)]);
    }
    // Files the kernel makes as they are read report a size of 0.
    if cfg!(target_os = "linux") {
        let file = fs::File::open("/proc/self/status").unwrap();
        let read = read_whole(&file, 0, 1 << 20).unwrap();
        assert!(String::from_utf8(read).unwrap().contains("Pid:"));
    }
}

fn write(target: &Target, base: &Base, bytes: &[u8]) -> Result<()> {
    replace_atomically(
        target,
        base,
        bytes,
        DEFAULT_LOCK_TIMEOUT,
        &Cancel::new(),
        || Ok(()),
    )
}

#[test]
fn replace_atomically_refuses_when_the_base_changed_and_leaves_no_temporary() {
    let dir = tempfile::tempdir().unwrap();
    let root = Root::new(dir.path()).unwrap();
    let target = root.resolve("f.txt", false).unwrap();
    fs::write(dir.path().join("f.txt"), "one\n").unwrap();
    let loaded = load(&target, DEFAULT_MAX_FILE_BYTES, false).unwrap();
    fs::write(dir.path().join("f.txt"), "two\n").unwrap();
    let err = write(&target, &loaded.base, b"three\n").unwrap_err();
    assert_eq!(err.code, ErrorCode::BaseChanged);
    assert_eq!(fs::read(dir.path().join("f.txt")).unwrap(), b"two\n");
    assert_eq!(names_in(dir.path()), vec![OsString::from("f.txt")]);
}

#[test]
fn a_new_file_is_not_written_over_one_that_appeared_since_the_plan() {
    let dir = tempfile::tempdir().unwrap();
    let root = Root::new(dir.path()).unwrap();
    let target = root.resolve("f.txt", false).unwrap();
    fs::write(dir.path().join("f.txt"), "theirs\n").unwrap();
    let err = write(&target, &Base::Missing, b"mine\n").unwrap_err();
    assert_eq!(err.code, ErrorCode::BaseChanged);
    assert_eq!(fs::read(dir.path().join("f.txt")).unwrap(), b"theirs\n");
}

#[test]
fn a_failing_last_step_writes_nothing_and_removes_the_folders_it_made() {
    let dir = tempfile::tempdir().unwrap();
    let root = Root::new(dir.path()).unwrap();
    let target = root.resolve("a/b/f.txt", false).unwrap();
    let err = replace_atomically(
        &target,
        &Base::Missing,
        b"x\n",
        DEFAULT_LOCK_TIMEOUT,
        &Cancel::new(),
        || Err::<(), _>(Error::new(ErrorCode::Internal, "refused")),
    )
    .unwrap_err();
    assert_eq!(err.message, "refused");
    assert!(names_in(dir.path()).is_empty());
}

#[test]
fn a_size_limit_of_u64_max_still_reads_the_whole_file() {
    let dir = tempfile::tempdir().unwrap();
    let root = Root::new(dir.path()).unwrap();
    let target = root.resolve("f.txt", false).unwrap();
    fs::write(dir.path().join("f.txt"), "one\ntwo\n").unwrap();
    let loaded = load(&target, u64::MAX, false).unwrap();
    assert_eq!(loaded.doc.line_count(), 2);
    let file = fs::File::open(dir.path().join("f.txt")).unwrap();
    assert_eq!(Base::read(&file).unwrap(), loaded.base);
}

#[test]
fn dead_temporaries_are_removed_by_the_next_write_and_live_ones_are_kept() {
    let dir = tempfile::tempdir().unwrap();
    let root = Root::new(dir.path()).unwrap();
    let target = root.resolve("f.txt", false).unwrap();
    let dead = temp_name().unwrap();
    let live = temp_name().unwrap();
    fs::write(dir.path().join(&dead), "partial").unwrap();
    fs::write(dir.path().join(&live), "in progress").unwrap();
    let held = fs::File::open(dir.path().join(&live)).unwrap();
    held.lock().unwrap();
    for lookalike in [".f.txt.abc123.hashline-tmp", ".env.hashline-tmp"] {
        fs::write(dir.path().join(lookalike), "kept").unwrap();
    }
    write(&target, &Base::Missing, b"new\n").unwrap();
    let mut expected = vec![
        OsString::from(".env.hashline-tmp"),
        OsString::from(".f.txt.abc123.hashline-tmp"),
        OsString::from("f.txt"),
        live,
    ];
    expected.sort();
    assert_eq!(names_in(dir.path()), expected);
}

#[cfg(unix)]
#[test]
fn an_empty_temporary_not_yet_locked_by_a_live_writer_is_kept_and_a_dead_writers_is_removed() {
    let dir = tempfile::tempdir().unwrap();
    let root = Root::new(dir.path()).unwrap();
    let target = root.resolve("f.txt", false).unwrap();
    let mut child = std::process::Command::new("true").spawn().unwrap();
    let gone = child.id();
    child.wait().unwrap();
    // This process is alive and may be between creating its temporary
    // file and locking it, on another thread.
    let starting = temp_name_of(std::process::id()).unwrap();
    let killed = temp_name_of(gone).unwrap();
    fs::write(dir.path().join(&starting), "").unwrap();
    fs::write(dir.path().join(&killed), "").unwrap();
    write(&target, &Base::Missing, b"new\n").unwrap();
    let mut expected = vec![OsString::from("f.txt"), starting];
    expected.sort();
    assert_eq!(names_in(dir.path()), expected);
}

#[test]
fn temporary_names_have_one_length_and_are_recognised() {
    let name = temp_name().unwrap();
    assert_eq!(name.len(), 1 + TEMP_PID + TEMP_RANDOM + TEMP_SUFFIX.len());
    assert!(temp_writer(&name).is_some());
    assert_eq!(temp_writer(&name), Some(u64::from(std::process::id())));
    assert_eq!(
        temp_writer(&temp_name_of(u32::MAX).unwrap()),
        Some(u64::from(u32::MAX))
    );
    for other in [
        ".env.hashline-tmp",
        ".hashline-tmp",
        "f.txt",
        ".ABCDEFGHIJKLMNOPQRSTUVWX.hashline-tmp",
    ] {
        assert_eq!(temp_writer(OsStr::new(other)), None, "{other}");
    }
}

#[cfg(unix)]
#[test]
fn the_mode_is_kept_with_its_special_bits() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("run.sh");
    fs::write(&path, "a\n").unwrap();
    fs::set_permissions(&path, fs::Permissions::from_mode(0o4755)).unwrap();
    let root = Root::new(dir.path()).unwrap();
    let target = root.resolve("run.sh", false).unwrap();
    let loaded = load(&target, DEFAULT_MAX_FILE_BYTES, false).unwrap();
    write(&target, &loaded.base, b"b\n").unwrap();
    assert_eq!(
        fs::metadata(&path).unwrap().permissions().mode() & 0o7777,
        0o4755
    );
}
