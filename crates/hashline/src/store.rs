//! Recent versions of each file, keyed by REV, with the lines each version
//! was shown with: what lets refs from an earlier view be remapped provably
//! and lets an edit on lines nobody saw be caught.

use crate::text::Document;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::Arc;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StoreLimits {
    pub max_versions: usize,
    pub max_bytes: usize,
    /// Larger documents are not kept at all.
    pub max_version_bytes: usize,
}

impl Default for StoreLimits {
    fn default() -> Self {
        StoreLimits {
            max_versions: 64,
            max_bytes: 128 << 20,
            max_version_bytes: 32 << 20,
        }
    }
}

/// One stored version of a file.
#[derive(Debug, Clone)]
pub struct Version {
    pub rev: String,
    pub doc: Arc<Document>,
    /// Lines (0-based, end exclusive) some view of this version displayed.
    pub seen: Vec<Range<usize>>,
}

impl Version {
    pub fn saw(&self, index: usize) -> bool {
        self.seen.iter().any(|r| r.contains(&index))
    }
}

#[derive(Debug)]
struct Entry {
    path: PathBuf,
    version: Version,
    last_used: u64,
}

#[derive(Debug, Default)]
pub struct Store {
    limits: StoreLimits,
    entries: Vec<Entry>,
    clock: u64,
}

impl Store {
    pub fn new(limits: StoreLimits) -> Self {
        Store {
            limits,
            entries: Vec::new(),
            clock: 0,
        }
    }

    /// Records that `lines` of this version of `path` were displayed (an
    /// empty range records the version alone).
    pub fn record(&mut self, path: &Path, rev: &str, doc: &Arc<Document>, lines: Range<usize>) {
        let size = doc.text().len();
        if size > self.limits.max_version_bytes || self.limits.max_versions == 0 {
            return;
        }
        self.clock += 1;
        let clock = self.clock;
        if let Some(entry) = self
            .entries
            .iter_mut()
            .find(|e| e.version.rev == rev && e.path == path)
        {
            entry.last_used = clock;
            add_range(&mut entry.version.seen, lines);
            return;
        }
        let mut seen = Vec::new();
        add_range(&mut seen, lines);
        self.entries.push(Entry {
            path: path.to_owned(),
            version: Version {
                rev: rev.to_owned(),
                doc: Arc::clone(doc),
                seen,
            },
            last_used: clock,
        });
        self.evict();
    }

    /// The stored versions of `path`, most recently used first.
    pub fn versions(&self, path: &Path) -> Vec<Version> {
        let mut found: Vec<&Entry> = self.entries.iter().filter(|e| e.path == path).collect();
        found.sort_by_key(|e| std::cmp::Reverse(e.last_used));
        found.into_iter().map(|e| e.version.clone()).collect()
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    fn evict(&mut self) {
        loop {
            let bytes: usize = self
                .entries
                .iter()
                .map(|e| e.version.doc.text().len())
                .sum();
            if self.entries.len() <= self.limits.max_versions && bytes <= self.limits.max_bytes {
                return;
            }
            let oldest = self
                .entries
                .iter()
                .enumerate()
                .min_by_key(|(_, e)| e.last_used)
                .map(|(i, _)| i);
            match oldest {
                Some(i) => {
                    self.entries.swap_remove(i);
                }
                None => return,
            }
        }
    }
}

fn add_range(ranges: &mut Vec<Range<usize>>, new: Range<usize>) {
    if new.is_empty() {
        return;
    }
    ranges.push(new);
    ranges.sort_by_key(|r| r.start);
    let mut merged: Vec<Range<usize>> = Vec::with_capacity(ranges.len());
    for r in ranges.drain(..) {
        match merged.last_mut() {
            Some(last) if r.start <= last.end => last.end = last.end.max(r.end),
            _ => merged.push(r),
        }
    }
    *ranges = merged;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(text: &str) -> Arc<Document> {
        Arc::new(Document::from_text(text))
    }

    #[test]
    fn records_versions_per_path_most_recent_first_and_merges_seen_lines() {
        let mut store = Store::new(StoreLimits::default());
        let a = Path::new("/r/a");
        store.record(a, "R1", &doc("x\n"), 0..1);
        store.record(a, "R2", &doc("y\n"), 0..1);
        store.record(Path::new("/r/b"), "R3", &doc("z\n"), 0..1);
        store.record(a, "R1", &doc("x\n"), 3..5);
        store.record(a, "R1", &doc("x\n"), 1..3);
        let versions = store.versions(a);
        assert_eq!(
            versions.iter().map(|v| v.rev.as_str()).collect::<Vec<_>>(),
            ["R1", "R2"]
        );
        assert_eq!(versions[0].seen, vec![0..5]);
        assert!(versions[0].saw(4) && !versions[0].saw(5));
    }

    #[test]
    fn evicts_least_recently_used_past_the_limits() {
        let mut store = Store::new(StoreLimits {
            max_versions: 2,
            max_bytes: 1 << 20,
            max_version_bytes: 4,
        });
        let p = Path::new("/r/a");
        store.record(p, "R1", &doc("1\n"), 0..1);
        store.record(p, "R2", &doc("2\n"), 0..1);
        store.record(p, "R1", &doc("1\n"), 0..1);
        store.record(p, "R3", &doc("3\n"), 0..1);
        store.record(p, "BIG", &doc("too large\n"), 0..1);
        let revs: Vec<String> = store.versions(p).into_iter().map(|v| v.rev).collect();
        assert_eq!(revs, ["R3", "R1"]);
    }
}
