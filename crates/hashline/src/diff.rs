//! The line diff results show and line maps are taken from, with a bound on
//! its work. The smallest diff (Myers, from `similar`) costs up to the
//! square of the lines it compares, so it runs only on stretches of at most
//! `EXACT_LINES` lines. A longer stretch is cut at the lines that occur once
//! in each text (patience diff: the longest run of them in the same order
//! is kept as unchanged), a few levels deep, and what is still too long is
//! shown whole as removed and added: a coarser diff, still a true one, and
//! the result says so. Everything else is linear in the lines.
//!
//! `similar` has patience diff too, but it runs Myers on every stretch
//! between the unique lines, however long, and bounds its work only by a
//! deadline (wall-clock time, so the result would depend on the load of the
//! machine); hence the cutting here.

use foldhash::{HashMap, HashMapExt};
use similar::algorithms::{myers, DiffHook};
use std::convert::Infallible;
use std::ops::Range;

/// Stretches of at most this many lines (old and new together) get the
/// smallest diff: up to about a million steps each.
pub(crate) const EXACT_LINES: usize = 1024;

/// How many times a stretch is cut at its unique lines before what remains
/// is shown whole; each level costs one pass over the lines.
const LEVELS: usize = 6;

/// A changed region: old lines `old` became new lines `new`.
pub(crate) type Change = (Range<usize>, Range<usize>);

/// The changed regions between `old[old_range]` and `new[new_range]`, in
/// order and apart, with indexes into `old` and `new`; and whether some
/// region is coarser than the smallest diff would make it (then its length
/// in old and new lines is the first such region's).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct LineDiff {
    pub changes: Vec<Change>,
    pub coarse: Option<Change>,
}

/// The diff of two line slices, bounded as the module says.
pub(crate) fn diff_lines(
    old: &[&str],
    old_range: Range<usize>,
    new: &[&str],
    new_range: Range<usize>,
) -> LineDiff {
    diff_with_bound(old, old_range, new, new_range, EXACT_LINES)
}

fn diff_with_bound(
    old: &[&str],
    old_range: Range<usize>,
    new: &[&str],
    new_range: Range<usize>,
    exact: usize,
) -> LineDiff {
    let mut out = LineDiff {
        changes: Vec::new(),
        coarse: None,
    };
    let mut cutter = Cutter {
        old,
        new,
        exact,
        out: &mut out,
    };
    cutter.stretch(old_range, new_range, LEVELS, true);
    out
}

struct Cutter<'a, 'b> {
    old: &'a [&'b str],
    new: &'a [&'b str],
    exact: usize,
    out: &'a mut LineDiff,
}

impl Cutter<'_, '_> {
    fn push(&mut self, old: Range<usize>, new: Range<usize>) {
        if old.is_empty() && new.is_empty() {
            return;
        }
        match self.out.changes.last_mut() {
            Some((o, n)) if o.end == old.start && n.end == new.start => {
                o.end = old.end;
                n.end = new.end;
            }
            _ => self.out.changes.push((old, new)),
        }
    }

    /// Diffs one stretch: whole with Myers when it is short; `whole` says it
    /// is the range asked for, which Myers then sees untrimmed, so that a
    /// short diff is exactly what `similar` makes of it.
    fn stretch(&mut self, old: Range<usize>, new: Range<usize>, levels: usize, whole: bool) {
        if whole && old.len() + new.len() <= self.exact {
            return self.smallest(old, new);
        }
        let (old, new) = trim(self.old, old, self.new, new);
        if old.is_empty() || new.is_empty() {
            return self.push(old, new);
        }
        if old.len() + new.len() <= self.exact {
            return self.smallest(old, new);
        }
        let anchors = if levels > 0 {
            unique_anchors(self.old, old.clone(), self.new, new.clone())
        } else {
            Vec::new()
        };
        if anchors.is_empty() {
            if self.out.coarse.is_none() {
                self.out.coarse = Some((old.clone(), new.clone()));
            }
            return self.push(old, new);
        }
        let (mut o, mut n) = (old.start, new.start);
        for (i, j) in anchors {
            self.stretch(o..i, n..j, levels - 1, false);
            (o, n) = (i + 1, j + 1);
        }
        self.stretch(o..old.end, n..new.end, levels - 1, false);
    }

    fn smallest(&mut self, old: Range<usize>, new: Range<usize>) {
        let _ = myers::diff(self, self.old, old, self.new, new);
    }
}

/// Myers' changes, as they come.
impl DiffHook for Cutter<'_, '_> {
    type Error = Infallible;

    fn delete(&mut self, old: usize, old_len: usize, new: usize) -> Result<(), Infallible> {
        self.push(old..old + old_len, new..new);
        Ok(())
    }

    fn insert(&mut self, old: usize, new: usize, new_len: usize) -> Result<(), Infallible> {
        self.push(old..old, new..new + new_len);
        Ok(())
    }
}

/// The ranges without the lines they start and end with alike.
fn trim(
    old: &[&str],
    mut o: Range<usize>,
    new: &[&str],
    mut n: Range<usize>,
) -> (Range<usize>, Range<usize>) {
    while o.start < o.end && n.start < n.end && old[o.start] == new[n.start] {
        o.start += 1;
        n.start += 1;
    }
    while o.start < o.end && n.start < n.end && old[o.end - 1] == new[n.end - 1] {
        o.end -= 1;
        n.end -= 1;
    }
    (o, n)
}

/// The lines that occur exactly once in each range, as `(old, new)` index
/// pairs: the longest run of them in the same order in both (patience
/// sorting, `k log k` for `k` such lines).
fn unique_anchors(
    old: &[&str],
    o: Range<usize>,
    new: &[&str],
    n: Range<usize>,
) -> Vec<(usize, usize)> {
    // Per line text: occurrences in old and new, and the last index of each.
    let mut seen: HashMap<&str, (u32, u32, usize, usize)> = HashMap::with_capacity(o.len());
    for i in o {
        let e = seen.entry(old[i]).or_insert((0, 0, 0, 0));
        e.0 = e.0.saturating_add(1);
        e.2 = i;
    }
    for j in n {
        if let Some(e) = seen.get_mut(new[j]) {
            e.1 = e.1.saturating_add(1);
            e.3 = j;
        }
    }
    let mut pairs: Vec<(usize, usize)> = seen
        .into_values()
        .filter(|&(in_old, in_new, _, _)| in_old == 1 && in_new == 1)
        .map(|(_, _, i, j)| (i, j))
        .collect();
    pairs.sort_unstable();
    longest_increasing(&pairs)
}

/// The longest subsequence of `pairs` (sorted by their first index) whose
/// second indexes increase.
pub(crate) fn longest_increasing(pairs: &[(usize, usize)]) -> Vec<(usize, usize)> {
    // `tails[k]`: the pair ending the best run of length k + 1 found so far.
    let mut tails: Vec<usize> = Vec::new();
    let mut previous: Vec<Option<usize>> = vec![None; pairs.len()];
    for (k, &(_, j)) in pairs.iter().enumerate() {
        let at = tails.partition_point(|&t| pairs[t].1 < j);
        previous[k] = at.checked_sub(1).map(|p| tails[p]);
        if at == tails.len() {
            tails.push(k);
        } else {
            tails[at] = k;
        }
    }
    let mut out = Vec::with_capacity(tails.len());
    let mut at = tails.last().copied();
    while let Some(k) = at {
        out.push(pairs[k]);
        at = previous[k];
    }
    out.reverse();
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Lines of the two texts by the diff: unchanged lines paired, the
    /// rest removed or added; `None` if the changes do not describe a way
    /// from `old` to `new`.
    fn replay(old: &[&str], new: &[&str], d: &LineDiff) -> Option<usize> {
        let (mut i, mut j, mut same) = (0, 0, 0);
        for (o, n) in &d.changes {
            if o.start < i || n.start < j || o.start - i != n.start - j {
                return None;
            }
            while i < o.start {
                if old[i] != new[j] {
                    return None;
                }
                (i, j, same) = (i + 1, j + 1, same + 1);
            }
            (i, j) = (o.end, n.end);
        }
        if old.len() - i != new.len() - j {
            return None;
        }
        while i < old.len() {
            if old[i] != new[j] {
                return None;
            }
            (i, j, same) = (i + 1, j + 1, same + 1);
        }
        Some(same)
    }

    fn lcs(a: &[&str], b: &[&str]) -> usize {
        let mut row = vec![0usize; b.len() + 1];
        for x in a {
            let mut diagonal = 0;
            for (k, y) in b.iter().enumerate() {
                let up = row[k + 1];
                row[k + 1] = if x == y { diagonal + 1 } else { up.max(row[k]) };
                diagonal = up;
            }
        }
        row[b.len()]
    }

    #[test]
    fn a_long_region_of_new_lines_is_one_change_and_said_to_be_coarse() {
        let old: Vec<String> = (0..3000).map(|i| format!("old {i}")).collect();
        let new: Vec<String> = (0..3000).map(|i| format!("new {i}")).collect();
        let old: Vec<&str> = old.iter().map(String::as_str).collect();
        let new: Vec<&str> = new.iter().map(String::as_str).collect();
        let d = diff_lines(&old, 0..3000, &new, 0..3000);
        assert_eq!(d.changes, vec![(0..3000, 0..3000)]);
        assert_eq!(d.coarse, Some((0..3000, 0..3000)));
    }

    #[test]
    fn unique_lines_cut_a_long_region_into_exact_ones() {
        // Every tenth line changed in 5000: the unchanged lines are unique,
        // so the diff is as small as Myers would make it.
        let old: Vec<String> = (0..5000).map(|i| format!("line {i}")).collect();
        let new: Vec<String> = (0..5000)
            .map(|i| {
                if i % 10 == 0 {
                    format!("changed {i}")
                } else {
                    format!("line {i}")
                }
            })
            .collect();
        let old: Vec<&str> = old.iter().map(String::as_str).collect();
        let new: Vec<&str> = new.iter().map(String::as_str).collect();
        let d = diff_lines(&old, 0..5000, &new, 0..5000);
        assert_eq!(d.coarse, None);
        assert_eq!(d.changes.len(), 500);
        assert_eq!(replay(&old, &new, &d), Some(4500));
    }

    proptest! {
        /// Whatever the bound, the changes lead from the old lines to the
        /// new ones; within the bound they are the smallest diff, and a
        /// diff said not to be coarse is one too.
        #[test]
        fn the_bounded_diff_is_true_and_smallest_within_its_bound(
            old in proptest::collection::vec(0u8..6, 0..60),
            new in proptest::collection::vec(0u8..6, 0..60),
            exact in 0usize..40,
        ) {
            const WORDS: [&str; 6] = ["a", "b", "}", "", "c", "d"];
            let old: Vec<&str> = old.iter().map(|&k| WORDS[k as usize]).collect();
            let new: Vec<&str> = new.iter().map(|&k| WORDS[k as usize]).collect();
            let d = diff_with_bound(&old, 0..old.len(), &new, 0..new.len(), exact);
            let same = replay(&old, &new, &d);
            prop_assert!(same.is_some(), "{:?}", d);
            if old.len() + new.len() <= exact {
                prop_assert_eq!(same, Some(lcs(&old, &new)));
                prop_assert_eq!(d.coarse, None);
            }
            let bounded = diff_with_bound(&old, 0..old.len(), &new, 0..new.len(), usize::MAX);
            prop_assert_eq!(replay(&old, &new, &bounded), Some(lcs(&old, &new)));
        }

        /// With many distinct lines the cut regions stay true for sub-ranges too.
        #[test]
        fn a_diff_of_sub_ranges_names_lines_inside_them(
            old in proptest::collection::vec(0u16..40, 0..80),
            new in proptest::collection::vec(0u16..40, 0..80),
            exact in 0usize..20,
        ) {
            let words: Vec<String> = (0..40).map(|k| format!("w{k}")).collect();
            let old: Vec<&str> = old.iter().map(|&k| words[k as usize].as_str()).collect();
            let new: Vec<&str> = new.iter().map(|&k| words[k as usize].as_str()).collect();
            let (o, n) = (old.len() / 3..old.len(), new.len() / 4..new.len());
            let d = diff_with_bound(&old, o.clone(), &new, n.clone(), exact);
            for (a, b) in &d.changes {
                prop_assert!(o.start <= a.start && a.end <= o.end);
                prop_assert!(n.start <= b.start && b.end <= n.end);
            }
            let shifted = LineDiff {
                changes: d.changes.iter().map(|(a, b)| (a.start - o.start..a.end - o.start, b.start - n.start..b.end - n.start)).collect(),
                coarse: None,
            };
            prop_assert!(replay(&old[o], &new[n], &shifted).is_some());
        }
    }
}
