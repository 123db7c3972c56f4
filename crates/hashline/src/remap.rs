//! Where the lines of an earlier version are now: a line diff between the
//! two texts, trusted only inside runs the diff found unchanged. A line that
//! lies in no unchanged run has no position, however much a line elsewhere
//! looks like it.

use crate::text::Document;
use similar::{capture_diff_slices_deadline, Algorithm, DiffOp};
use std::ops::Range;
use std::time::{Duration, Instant};

/// A diff that runs out of time yields fewer unchanged runs, never wrong
/// ones, so the deadline only bounds how much can be recovered.
const DIFF_DEADLINE: Duration = Duration::from_secs(2);

#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct LineMap {
    /// Unchanged runs `(old_start, new_start, len)`, sorted by `old_start`.
    runs: Vec<(usize, usize, usize)>,
}

impl LineMap {
    /// The exact map of an edit whose changes are known: each change puts
    /// new lines `new` in place of old lines `old` (both 0-based, sorted);
    /// everything between changes is unchanged.
    pub fn from_changes(
        old_len: usize,
        changes: impl IntoIterator<Item = (Range<usize>, Range<usize>)>,
    ) -> LineMap {
        let mut runs = Vec::new();
        let (mut old_at, mut new_at) = (0, 0);
        for (old, new) in changes {
            if old.start > old_at {
                runs.push((old_at, new_at, old.start - old_at));
            }
            new_at = new.end;
            old_at = old.end;
        }
        if old_len > old_at {
            runs.push((old_at, new_at, old_len - old_at));
        }
        LineMap { runs }
    }

    /// The map found by diffing two texts. Where a change could be placed
    /// as well a few lines up or down (it borders lines equal to its own,
    /// as in a run of `}` or blank lines), the lines it could slide over
    /// have no certain position and are left unmapped.
    pub fn between(old: &Document, new: &Document) -> LineMap {
        let old_lines: Vec<&str> = old.lines().collect();
        let new_lines: Vec<&str> = new.lines().collect();
        let ops = capture_diff_slices_deadline(
            Algorithm::Myers,
            &old_lines,
            &new_lines,
            Some(Instant::now() + DIFF_DEADLINE),
        );
        let mut runs = Vec::new();
        let mut unsure: Vec<usize> = Vec::new();
        for (i, op) in ops.iter().enumerate() {
            match *op {
                DiffOp::Equal {
                    old_index,
                    new_index,
                    len,
                } => runs.push((old_index, new_index, len)),
                _ => {
                    let (a, b) = (op.old_range().start, op.old_range().end);
                    let (c, d) = (op.new_range().start, op.new_range().end);
                    let before = match i.checked_sub(1).map(|j| &ops[j]) {
                        Some(DiffOp::Equal { len, .. }) => *len,
                        _ => 0,
                    };
                    let after = match ops.get(i + 1) {
                        Some(DiffOp::Equal { len, .. }) => *len,
                        _ => 0,
                    };
                    let slides_up = |k: usize| {
                        (a == b || old_lines[a - 1 - k] == old_lines[b - 1 - k])
                            && (c == d || new_lines[c - 1 - k] == new_lines[d - 1 - k])
                    };
                    let slides_down = |k: usize| {
                        (a == b || old_lines[a + k] == old_lines[b + k])
                            && (c == d || new_lines[c + k] == new_lines[d + k])
                    };
                    let up = (0..before).take_while(|&k| slides_up(k)).count();
                    let down = (0..after).take_while(|&k| slides_down(k)).count();
                    unsure.extend((a - up)..a);
                    unsure.extend(b..b + down);
                }
            }
        }
        unsure.sort_unstable();
        unsure.dedup();
        LineMap {
            runs: split_runs(runs, &unsure),
        }
    }

    /// This map followed by `next` (old -> middle -> new): a line is mapped
    /// only if it is unchanged in both steps.
    pub fn then(&self, next: &LineMap) -> LineMap {
        let mut runs = Vec::new();
        for &(old, mid, len) in &self.runs {
            let mut at = mid;
            let end = mid + len;
            while at < end {
                match next.run_of(at) {
                    Some(r) => {
                        let (start, new_start, run_len) = next.runs[r];
                        let take = (start + run_len).min(end) - at;
                        runs.push((old + (at - mid), new_start + (at - start), take));
                        at += take;
                    }
                    None => at += 1,
                }
            }
        }
        LineMap { runs }
    }

    /// The runs as `(old_start, new_start, len)`, for storing.
    pub fn runs(&self) -> &[(usize, usize, usize)] {
        &self.runs
    }

    pub fn from_runs(runs: Vec<(usize, usize, usize)>) -> LineMap {
        LineMap { runs }
    }

    fn run_of(&self, old: usize) -> Option<usize> {
        let i = self.runs.partition_point(|&(start, _, _)| start <= old);
        let run = i.checked_sub(1)?;
        let (start, _, len) = self.runs[run];
        (old < start + len).then_some(run)
    }

    /// The new index of old line `old` (0-based), if it is unchanged.
    pub fn line(&self, old: usize) -> Option<usize> {
        let run = self.run_of(old)?;
        let (start, new_start, _) = self.runs[run];
        Some(new_start + (old - start))
    }

    /// The new indexes of old lines `first..=last`, only if all of them lie
    /// in one unchanged run, so they are still contiguous and in order.
    pub fn range(&self, first: usize, last: usize) -> Option<(usize, usize)> {
        let run = self.run_of(first)?;
        (self.run_of(last)? == run).then(|| (self.line(first).unwrap(), self.line(last).unwrap()))
    }
}

/// Runs with the lines in `holes` (old indexes, sorted) cut out of them.
fn split_runs(runs: Vec<(usize, usize, usize)>, holes: &[usize]) -> Vec<(usize, usize, usize)> {
    let mut out = Vec::with_capacity(runs.len() + holes.len());
    for (old, new, len) in runs {
        let mut start = old;
        let end = old + len;
        let first = holes.partition_point(|&h| h < old);
        for &hole in holes[first..].iter().take_while(|&&h| h < end) {
            if hole > start {
                out.push((start, new + (start - old), hole - start));
            }
            start = hole + 1;
        }
        if end > start {
            out.push((start, new + (start - old), end - start));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(old: &str, new: &str) -> LineMap {
        LineMap::between(&Document::from_text(old), &Document::from_text(new))
    }

    #[test]
    fn lines_in_unchanged_runs_follow_inserts_and_deletes() {
        let m = map("a\nb\nc\nd\n", "new\na\nb\nd\n");
        assert_eq!(m.line(0), Some(1));
        assert_eq!(m.line(1), Some(2));
        assert_eq!(m.line(2), None, "a deleted line has no position");
        assert_eq!(m.line(3), Some(3));
    }

    #[test]
    fn a_changed_line_has_no_position() {
        let m = map("a\nb\nc\n", "a\nB\nc\n");
        assert_eq!(m.line(1), None);
        assert_eq!(m.line(2), Some(2));
    }

    #[test]
    fn lines_a_change_could_slide_over_have_no_position() {
        // One `}` was added to three: which one is new cannot be told.
        let m = map("x\n}\n}\n}\ny\n", "x\n}\n}\n}\n}\ny\n");
        for old in 1..=3 {
            assert_eq!(m.line(old), None, "line {old}");
        }
        assert_eq!(m.line(0), Some(0));
        assert_eq!(m.line(4), Some(5));
        let m = map("a\n\n\nb\n", "a\n\nb\n");
        assert_eq!((m.line(1), m.line(2)), (None, None));
        assert_eq!(m.line(3), Some(2));
    }

    #[test]
    fn an_exact_map_from_known_changes_keeps_identical_lines_apart() {
        // The same edit as above, known exactly: a `}` inserted before old line 1.
        let m = LineMap::from_changes(5, [(1..1, 1..2)]);
        assert_eq!(
            (m.line(0), m.line(1), m.line(3), m.line(4)),
            (Some(0), Some(2), Some(4), Some(5))
        );
        let m = LineMap::from_changes(4, [(1..3, 1..2)]);
        assert_eq!(
            (m.line(0), m.line(1), m.line(2), m.line(3)),
            (Some(0), None, None, Some(2))
        );
    }

    #[test]
    fn maps_compose_and_drop_lines_changed_in_either_step() {
        let first = LineMap::from_changes(4, [(0..0, 0..2)]);
        let second = LineMap::from_changes(6, [(3..4, 3..3)]);
        let both = first.then(&second);
        assert_eq!(both.line(0), Some(2));
        assert_eq!(both.line(1), None);
        assert_eq!(both.line(2), Some(3));
        assert_eq!(both.line(3), Some(4));
    }

    #[test]
    fn ranges_map_only_when_contiguous_in_one_run() {
        let m = map("a\nb\nc\nd\n", "a\nb\nX\nc\nd\n");
        assert_eq!(m.range(0, 1), Some((0, 1)));
        assert_eq!(m.range(2, 3), Some((3, 4)));
        assert_eq!(m.range(1, 2), None, "a line was inserted inside the range");
    }
}
