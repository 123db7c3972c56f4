//! Where the lines of an earlier version are now. Exactly, through the
//! edits the engine recorded; otherwise only where every shortest diff
//! between the two texts agrees. A line that some shortest diff treats as
//! changed, or places elsewhere (a run of `}` or blank lines, a neighbour
//! that became a copy of it), has no position, however much a line
//! elsewhere looks like it.

use crate::document::Document;
use std::ops::Range;

/// Where each unchanged line of one version is in the next.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LineMap {
    /// Unchanged runs `(old_start, new_start, len)`, sorted by `old_start`.
    runs: Vec<(usize, usize, usize)>,
    /// Made from changes this process applied, so exact. A map read back
    /// from disk may be stale, damaged or forged: only a hint, each line it
    /// maps to be checked against the texts before use.
    exact: bool,
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
        LineMap { runs, exact: true }
    }

    /// The map between two texts that the diff rule proves: every line
    /// whose place every shortest diff agrees on (see `certain`). Made from
    /// the texts themselves, so as trustworthy as an edit's own map.
    pub fn proven(old: &Document, new: &Document) -> LineMap {
        let all: Vec<usize> = (0..old.line_count()).collect();
        let mut runs: Vec<(usize, usize, usize)> = Vec::new();
        for (i, place) in certain(old, new, &all).into_iter().enumerate() {
            let Some(j) = place else { continue };
            match runs.last_mut() {
                Some((o, n, len)) if *o + *len == i && *n + *len == j => *len += 1,
                _ => runs.push((i, j, 1)),
            }
        }
        LineMap { runs, exact: true }
    }

    /// A map read back from storage, for a new text of `new_len` lines: a
    /// hint, or `None` unless its runs are well formed (not empty, sorted
    /// and apart on both sides, within `new_len`), so that using it can
    /// never index past a text.
    pub fn hint(runs: Vec<(usize, usize, usize)>, new_len: usize) -> Option<LineMap> {
        let mut old_free = 0;
        let mut new_free = 0;
        for &(old, new, len) in &runs {
            let old_end = old.checked_add(len)?;
            let new_end = new.checked_add(len)?;
            if len == 0 || old < old_free || new < new_free || new_end > new_len {
                return None;
            }
            old_free = old_end;
            new_free = new_end;
        }
        Some(LineMap { runs, exact: false })
    }

    /// Whether the map was made here from known changes, rather than read
    /// back as a hint.
    pub fn is_exact(&self) -> bool {
        self.exact
    }

    /// Whether every old line the map names exists in an old text of
    /// `old_len` lines.
    pub fn fits(&self, old_len: usize) -> bool {
        self.runs
            .last()
            .is_none_or(|&(old, _, len)| old + len <= old_len)
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
        LineMap {
            runs,
            exact: self.exact && next.exact,
        }
    }

    /// Old line ranges carried over: the parts of each that are unchanged,
    /// at their new places. Each range starts its walk of the runs at the
    /// first that ends after its start, so sorted ranges that do not overlap
    /// (the lines a store records as seen) take one pass over both.
    pub fn ranges(&self, ranges: &[Range<usize>]) -> Vec<Range<usize>> {
        let mut out = Vec::new();
        for range in ranges {
            let first = self
                .runs
                .partition_point(|&(old, _, len)| old + len <= range.start);
            for &(old, new, len) in &self.runs[first..] {
                if old >= range.end {
                    break;
                }
                let from = range.start.max(old);
                let to = range.end.min(old + len);
                if from < to {
                    out.push(new + (from - old)..new + (to - old));
                }
            }
        }
        out
    }

    /// The runs as `(old_start, new_start, len)`, for storing.
    pub fn runs(&self) -> &[(usize, usize, usize)] {
        &self.runs
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

/// Where each of `lines` (old indexes) is in `new`, for those whose place
/// every longest common subsequence of the two texts agrees on: line `i`
/// maps to `j` only if some optimal alignment matches them, none matches
/// `i` elsewhere, and none leaves `i` unmatched.
///
/// With F the prefix and B the suffix LCS lengths and L the total, `i` can
/// match `j` in an optimal alignment iff `old[i] == new[j]` and
/// `F[i][j] + 1 + B[i+1][j+1] == L`, and can stay unmatched iff
/// `F[i][j] + B[i+1][j] == L` for some `j`. An optimal alignment that has
/// matched `i` old lines and `j` new ones has deleted at most `n - L` and
/// inserted at most `m - L` lines, so `j - i` lies between `-(n - L)` and
/// `m - L`: only that band of the tables is computed, `n` times its width
/// (the lines the two texts differ by, plus one), found first by bands of
/// doubling width (`lcs_length`). Past `CELLS_PER_LINE` cells per line of
/// the two texts (at least `MIN_CELLS`), nothing is remapped and stale refs
/// are rejected.
pub fn certain(old: &Document, new: &Document, lines: &[usize]) -> Vec<Option<usize>> {
    let n = old.line_count();
    let m = new.line_count();
    let none = || vec![None; lines.len()];
    if lines.is_empty() {
        return none();
    }
    let budget = (CELLS_PER_LINE * (n + m)).max(MIN_CELLS);
    // Lines are compared where the band needs them, a few per line: no
    // table of every distinct line, which would cost more than the band.
    let a = Lines(old);
    let b = Lines(new);
    let Some(total) = lcs_length(&a, &b, budget) else {
        return none();
    };
    let band = Band {
        below: n - total,
        above: m - total,
        m,
    };
    let forward = Rows::forward(&a, &b, &band);
    let mut certain = vec![None; lines.len()];
    let mut wanted: Vec<(usize, usize)> = lines
        .iter()
        .enumerate()
        .filter(|&(_, &i)| i < n)
        .map(|(k, &i)| (i, k))
        .collect();
    wanted.sort_unstable();
    // B row i+1 comes from row i+2, last to first; each wanted row i is
    // judged when B row i+1 is at hand, F row i being stored.
    let mut after: Vec<u32> = vec![0; band.width()];
    let mut next = after.clone();
    let at = |row: &[u32], i: usize, j: usize| -> Option<u32> {
        let (lo, hi) = band.columns(i);
        (lo..=hi).contains(&j).then(|| row[j - lo])
    };
    for i in (0..n).rev() {
        // `after` holds B row i+1.
        let (lo, hi) = band.columns(i + 1);
        if i + 1 == n {
            after[..=hi - lo].fill(0);
        }
        while let Some(&(w, k)) = wanted.last().filter(|(w, _)| *w == i) {
            wanted.pop();
            let (flo, fhi) = band.columns(i);
            let f = forward.row(i);
            let b_next = |j: usize| {
                if (lo..=hi).contains(&j) {
                    Some(after[j - lo])
                } else {
                    None
                }
            };
            let total = total as u32;
            let unmatched =
                (flo..=fhi).any(|j| b_next(j).is_some_and(|bv| f[j - flo] + bv == total));
            if unmatched {
                continue;
            }
            let mut found = None;
            for j in flo..=fhi.min(m.saturating_sub(1)) {
                if j < m
                    && a.same(w, &b, j)
                    && b_next(j + 1).is_some_and(|bv| f[j - flo] + 1 + bv == total)
                {
                    if found.is_some() {
                        found = None;
                        break;
                    }
                    found = Some(j);
                }
            }
            certain[k] = found;
        }
        if i == 0 {
            break;
        }
        // B row i from B row i+1.
        let (clo, chi) = band.columns(i);
        for j in (clo..=chi).rev() {
            let mut v = at(&after, i + 1, j).unwrap_or(0);
            if let Some(right) = (j < chi).then(|| next[j + 1 - clo]) {
                v = v.max(right);
            }
            if j < m && a.same(i, &b, j) {
                if let Some(diagonal) = at(&after, i + 1, j + 1) {
                    v = v.max(diagonal + 1);
                }
            }
            next[j - clo] = v;
        }
        std::mem::swap(&mut after, &mut next);
    }
    certain
}

/// Cells of the band a remap may compute per line of the two texts, and
/// at least: about 10 ms of work per million lines, and a quarter of a
/// second in all for small texts.
const CELLS_PER_LINE: usize = 8;
const MIN_CELLS: usize = 1 << 24;

/// The columns of each row where an optimal alignment can be: row `i`
/// (old lines matched or dropped so far) from `i - below` to `i + above`,
/// within `0..=m`.
struct Band {
    below: usize,
    above: usize,
    m: usize,
}

impl Band {
    fn columns(&self, i: usize) -> (usize, usize) {
        (i.saturating_sub(self.below), (i + self.above).min(self.m))
    }

    fn width(&self) -> usize {
        self.below + self.above + 1
    }
}

/// The lines of a text, compared one pair at a time.
struct Lines<'a>(&'a Document);

impl Lines<'_> {
    fn len(&self) -> usize {
        self.0.line_count()
    }

    fn same(&self, i: usize, other: &Lines<'_>, j: usize) -> bool {
        self.0.line(i) == other.0.line(j)
    }
}

/// The prefix LCS lengths F of every row, inside the band.
struct Rows {
    cells: Vec<u32>,
    width: usize,
}

impl Rows {
    fn forward(a: &Lines<'_>, b: &Lines<'_>, band: &Band) -> Rows {
        let width = band.width();
        let mut cells = vec![0u32; (a.len() + 1) * width];
        for i in 1..=a.len() {
            let (lo, hi) = band.columns(i);
            let (plo, phi) = band.columns(i - 1);
            let (done, rest) = cells.split_at_mut(i * width);
            let above = &done[(i - 1) * width..];
            let row = &mut rest[..width];
            for j in lo..=hi {
                let up = (plo..=phi).contains(&j).then(|| above[j - plo]);
                let mut v = up.unwrap_or(0);
                if j > lo {
                    v = v.max(row[j - 1 - lo]);
                }
                if j > 0 && (plo..=phi).contains(&(j - 1)) && a.same(i - 1, b, j - 1) {
                    v = v.max(above[j - 1 - plo] + 1);
                }
                row[j - lo] = v;
            }
        }
        Rows { cells, width }
    }

    fn row(&self, i: usize) -> &[u32] {
        &self.cells[i * self.width..(i + 1) * self.width]
    }
}

/// The LCS length of `a` and `b`, from bands of doubling width `h` (beside
/// the `|n - m|` diagonals the longer text needs anyway), once one holds an
/// alignment that drops no more than `h` lines of the shorter text (then
/// no better one lies outside it); `None` when the band would pass `budget`
/// cells.
fn lcs_length(a: &Lines<'_>, b: &Lines<'_>, budget: usize) -> Option<usize> {
    let (n, m) = (a.len(), b.len());
    let longer = n.abs_diff(m);
    let mut h = 1;
    loop {
        let band = if n <= m {
            Band {
                below: h,
                above: h + longer,
                m,
            }
        } else {
            Band {
                below: h + longer,
                above: h,
                m,
            }
        };
        if (n + 1).saturating_mul(band.width()) > budget {
            return None;
        }
        let mut above = vec![0u32; band.width()];
        let mut row = above.clone();
        for i in 1..=n {
            let (lo, hi) = band.columns(i);
            let (plo, phi) = band.columns(i - 1);
            for j in lo..=hi {
                let mut v = if (plo..=phi).contains(&j) {
                    above[j - plo]
                } else {
                    0
                };
                if j > lo {
                    v = v.max(row[j - 1 - lo]);
                }
                if j > 0 && (plo..=phi).contains(&(j - 1)) && a.same(i - 1, b, j - 1) {
                    v = v.max(above[j - 1 - plo] + 1);
                }
                row[j - lo] = v;
            }
            std::mem::swap(&mut above, &mut row);
        }
        let (lo, hi) = band.columns(n);
        let total = if (lo..=hi).contains(&m) {
            above[m - lo] as usize
        } else {
            0
        };
        if n.min(m) - total <= h {
            return Some(total);
        }
        h *= 2;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn certain_of(old: &str, new: &str, lines: &[usize]) -> Vec<Option<usize>> {
        certain(&Document::from_text(old), &Document::from_text(new), lines)
    }

    #[test]
    fn lines_in_unchanged_runs_follow_inserts_and_deletes() {
        assert_eq!(
            certain_of("a\nb\nc\nd\n", "new\na\nb\nd\n", &[0, 1, 2, 3]),
            vec![Some(1), Some(2), None, Some(3)]
        );
    }

    #[test]
    fn a_changed_line_has_no_position() {
        assert_eq!(
            certain_of("a\nb\nc\n", "a\nB\nc\n", &[1, 2]),
            vec![None, Some(2)]
        );
    }

    #[test]
    fn lines_a_change_could_slide_over_have_no_position() {
        // One `}` was added to three: which one is new cannot be told.
        assert_eq!(
            certain_of("x\n}\n}\n}\ny\n", "x\n}\n}\n}\n}\ny\n", &[0, 1, 2, 3, 4]),
            vec![Some(0), None, None, None, Some(5)]
        );
        assert_eq!(
            certain_of("a\n\n\nb\n", "a\n\nb\n", &[1, 2, 3]),
            vec![None, None, Some(2)]
        );
    }

    #[test]
    fn a_neighbour_that_became_a_copy_of_the_line_makes_it_uncertain() {
        // `b` became `}`, or `b` went and a `}` came after: both are shortest.
        assert_eq!(
            certain_of("a\nb\n}\nc\n", "a\n}\n}\nc\n", &[0, 2, 3]),
            vec![Some(0), None, Some(3)]
        );
    }

    #[test]
    fn a_block_replaced_next_to_a_copy_of_the_line_makes_it_uncertain() {
        let got = certain_of("a\n}\nP\n}\nb\n", "a\nI\n}\nb\n", &[1, 3]);
        assert_eq!(got, vec![None, None]);
    }

    #[test]
    fn large_inputs_agree_with_small_ones_across_word_boundaries() {
        let old: String = (0..300).map(|i| format!("line {i}\n")).collect();
        let mut new_lines: Vec<String> = (0..300).map(|i| format!("line {i}\n")).collect();
        new_lines.insert(70, "inserted\n".into());
        new_lines.remove(200);
        let new: String = new_lines.concat();
        let got = certain_of(&old, &new, &[0, 63, 64, 69, 70, 150, 198, 199, 200, 299]);
        assert_eq!(
            got,
            vec![
                Some(0),
                Some(63),
                Some(64),
                Some(69),
                Some(71),
                Some(151),
                Some(199),
                None,
                Some(200),
                Some(299)
            ]
        );
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
    fn ranges_carry_over_only_their_unchanged_parts() {
        let m = LineMap::from_changes(10, [(2..4, 2..3)]);
        let seen = [Range { start: 0, end: 10 }, Range { start: 2, end: 4 }];
        assert_eq!(m.ranges(&seen[..1]), vec![0..2, 3..9]);
        assert!(m.ranges(&seen[1..]).is_empty());
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

    /// The same rule on plain O(n*m) tables, to check the banded rows.
    fn certain_by_tables(old: &[&str], new: &[&str]) -> Vec<Option<usize>> {
        let (n, m) = (old.len(), new.len());
        let mut f = vec![vec![0usize; m + 1]; n + 1];
        for i in 0..n {
            for j in 0..m {
                f[i + 1][j + 1] = if old[i] == new[j] {
                    f[i][j] + 1
                } else {
                    f[i][j + 1].max(f[i + 1][j])
                };
            }
        }
        let mut b = vec![vec![0usize; m + 1]; n + 1];
        for i in (0..n).rev() {
            for j in (0..m).rev() {
                b[i][j] = if old[i] == new[j] {
                    b[i + 1][j + 1] + 1
                } else {
                    b[i + 1][j].max(b[i][j + 1])
                };
            }
        }
        let total = f[n][m];
        (0..n)
            .map(|i| {
                if (0..=m).any(|j| f[i][j] + b[i + 1][j] == total) {
                    return None;
                }
                let hits: Vec<usize> = (0..m)
                    .filter(|&j| old[i] == new[j] && f[i][j] + 1 + b[i + 1][j + 1] == total)
                    .collect();
                (hits.len() == 1).then(|| hits[0])
            })
            .collect()
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(500))]
        #[test]
        fn banded_rows_agree_with_plain_tables(
            old in proptest::collection::vec(proptest::sample::select(vec!["}", "", "a", "b"]), 0..90),
            new in proptest::collection::vec(proptest::sample::select(vec!["}", "", "a", "b"]), 0..90),
            picks in proptest::collection::vec(0usize..100, 0..6),
        ) {
            let text = |lines: &[&str]| lines.iter().map(|l| format!("{l}\n")).collect::<String>();
            let all: Vec<usize> = (0..old.len()).collect();
            let tables = certain_by_tables(&old, &new);
            proptest::prop_assert_eq!(certain_of(&text(&old), &text(&new), &all), tables.clone());
            // Any lines asked for, in any order, repeated or past the end.
            let got = certain_of(&text(&old), &text(&new), &picks);
            let want: Vec<Option<usize>> = picks.iter().map(|&i| tables.get(i).copied().flatten()).collect();
            proptest::prop_assert_eq!(got, want);
        }
    }

    #[test]
    fn a_small_change_to_a_long_text_is_remapped_however_long_the_text() {
        let lines = 300_000;
        let old: String = (0..lines).map(|i| format!("line {i}\n")).collect();
        let new = format!("added\n{old}").replacen("line 7\n", "line seven\n", 1);
        let got = certain_of(&old, &new, &[0, 6, 7, 8, lines - 1]);
        assert_eq!(got, vec![Some(1), Some(7), None, Some(9), Some(lines)]);
    }

    #[test]
    fn texts_that_differ_in_too_many_lines_for_the_bound_remap_nothing() {
        // Old lines kept after `lines` new ones: a band `lines + 1` wide
        // over `lines + 1` rows, within the 2^24 cells a short text may use
        // at 3,000 lines and past them at 5,000.
        for (lines, remapped) in [(3_000, true), (5_000, false)] {
            let old: String = (0..lines).map(|i| format!("a{i}\n")).collect();
            let new: String = (0..lines).map(|i| format!("b{i}\n")).collect();
            let got = certain_of(&old, &format!("{new}{old}"), &[0, lines - 1]);
            let want = if remapped {
                vec![Some(lines), Some(2 * lines - 1)]
            } else {
                vec![None, None]
            };
            assert_eq!(got, want, "{lines}");
        }
    }

    #[test]
    fn a_map_read_back_is_a_hint_only_if_well_formed() {
        let hint = LineMap::hint(vec![(0, 1, 2), (3, 3, 2)], 5).unwrap();
        assert!(!hint.is_exact());
        assert_eq!(
            (hint.line(1), hint.line(2), hint.line(4)),
            (Some(2), None, Some(4))
        );
        assert!(hint.fits(5) && !hint.fits(4));
        for runs in [
            vec![(0, 1, 5)],            // past the end of the new text
            vec![(3, 3, 1), (0, 0, 1)], // unsorted
            vec![(0, 0, 2), (1, 2, 1)], // overlapping old lines
            vec![(0, 1, 1), (2, 1, 1)], // overlapping new lines
            vec![(0, 0, 0)],            // empty
            vec![(usize::MAX, 0, 2)],   // overflowing
        ] {
            assert_eq!(LineMap::hint(runs.clone(), 5), None, "{runs:?}");
        }
        let exact = LineMap::from_changes(3, [(1..2, 1..1)]);
        assert!(exact.is_exact());
        assert!(!exact.then(&hint).is_exact() && !hint.then(&exact).is_exact());
    }

    #[test]
    fn ranges_map_only_when_contiguous_in_one_run() {
        let m = LineMap::from_changes(4, [(2..2, 2..3)]);
        assert_eq!(m.range(0, 1), Some((0, 1)));
        assert_eq!(m.range(2, 3), Some((3, 4)));
        assert_eq!(m.range(1, 2), None, "a line was inserted inside the range");
    }
}
