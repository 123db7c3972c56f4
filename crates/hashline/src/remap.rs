//! Where the lines of an earlier version are now: a line diff between the
//! two texts, trusted only inside runs the diff found unchanged. A line that
//! lies in no unchanged run has no position, however much a line elsewhere
//! looks like it.

use crate::text::Document;
use similar::{capture_diff_slices_deadline, Algorithm, DiffOp};
use std::time::{Duration, Instant};

/// A diff that runs out of time yields fewer unchanged runs, never wrong
/// ones, so the deadline only bounds how much can be recovered.
const DIFF_DEADLINE: Duration = Duration::from_secs(2);

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LineMap {
    /// Unchanged runs `(old_start, new_start, len)`, sorted by `old_start`.
    runs: Vec<(usize, usize, usize)>,
}

impl LineMap {
    pub fn between(old: &Document, new: &Document) -> LineMap {
        let old_lines: Vec<&str> = old.lines().collect();
        let new_lines: Vec<&str> = new.lines().collect();
        let ops = capture_diff_slices_deadline(
            Algorithm::Myers,
            &old_lines,
            &new_lines,
            Some(Instant::now() + DIFF_DEADLINE),
        );
        let runs = ops
            .into_iter()
            .filter_map(|op| match op {
                DiffOp::Equal {
                    old_index,
                    new_index,
                    len,
                } => Some((old_index, new_index, len)),
                _ => None,
            })
            .collect();
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
    fn ranges_map_only_when_contiguous_in_one_run() {
        let m = map("a\nb\nc\nd\n", "a\nb\nX\nc\nd\n");
        assert_eq!(m.range(0, 1), Some((0, 1)));
        assert_eq!(m.range(2, 3), Some((3, 4)));
        assert_eq!(m.range(1, 2), None, "a line was inserted inside the range");
    }
}
