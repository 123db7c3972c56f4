//! A file this session wrote and another tool then rewrote (a formatter the
//! host runs after every write): the new text is taken in as a child of the
//! written version, with the line map the diff rule proves, so that refs
//! from before the edit keep remapping exactly, and the model is shown the
//! lines as they are now.

use crate::cancel::Cancel;
use crate::check::introduced;
use crate::diff::diff_lines;
use crate::document::Document;
use crate::error::Result;
use crate::remap::LineMap;
use crate::report::{success, Hunk, SuccessInput};
use crate::session::{EditResult, Hashline};
use crate::store::{Parent, Sight};
use std::sync::Arc;

/// The changed regions between two texts, as the bounded line diff finds
/// them (a region too long to diff line by line is one hunk, which the
/// result then says).
fn diff_hunks(old: &Document, new: &Document) -> Vec<Hunk> {
    let a: Vec<&str> = old.lines().collect();
    let b: Vec<&str> = new.lines().collect();
    diff_lines(&a, 0..a.len(), &b, 0..b.len())
        .changes
        .into_iter()
        .map(|(old, new)| Hunk { old, new })
        .collect()
}

/// What the result of `reformatted` describes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReformatOptions {
    /// The REV the result describes the change against (default: the
    /// version written).
    pub since: Option<String>,
    /// The first sentence of the result (default: the path "changed after
    /// it was written").
    pub headline: Option<String>,
    /// Allow a path outside the root (the host asked its user).
    pub allow_outside: bool,
}

impl Hashline {
    /// Takes in what became of a file after this session wrote version
    /// `written` (a formatter ran on it). `None` when it is still that
    /// version. Otherwise the new text is stored as a child of `written`,
    /// and the result describes it against `since` (the version before the
    /// edit; `written` when not given) with fresh refs for every region
    /// that differs, under `headline`.
    pub fn reformatted(&self, path: &str, written: &str) -> Result<Option<EditResult>> {
        self.reformatted_with(path, written, &ReformatOptions::default(), &Cancel::new())
    }

    /// `reformatted`, with what the result describes and the call's options;
    /// `cancel` stops its wait for the file's lock.
    pub fn reformatted_with(
        &self,
        path: &str,
        written: &str,
        options: &ReformatOptions,
        cancel: &Cancel,
    ) -> Result<Option<EditResult>> {
        let since = options.since.as_deref();
        let headline = options.headline.as_deref();
        let target = self.target(path, options.allow_outside)?;
        let _guard = self.path_lock(&target, cancel)?;
        let doc = Arc::new(self.load(&target, false)?.doc);
        let written = written.trim().to_ascii_uppercase();
        if doc.rev() == written {
            return Ok(None);
        }
        let history = self.history(&target);
        let find = |rev: &str| history.iter().find(|v| v.rev == rev);
        let parent = find(&written);
        let before = since
            .map(|r| r.trim().to_ascii_uppercase())
            .and_then(|r| find(&r))
            .or(parent);
        let headline = headline
            .map(str::to_owned)
            .unwrap_or_else(|| format!("{} changed after it was written", target.display));
        let rev = doc.rev().to_owned();
        let (old, old_rev) = match before {
            Some(v) => (Arc::clone(v.doc.whole()), v.rev.clone()),
            // The written version is no longer kept: every line is new to
            // the model.
            None => (Arc::new(Document::from_text("")), written.clone()),
        };
        let hunks = diff_hunks(&old, &doc);
        let parsed = self
            .options()
            .syntax
            .old_parse(&target.display, None, &old, &hunks);
        let introduced = introduced(&*old, &doc, &hunks, parsed);
        let mut notes: Vec<String> = introduced.note.into_iter().collect();
        if parent.is_some() && before.is_some_and(|b| b.rev != written) {
            notes.push("refs from before the edit stay usable for lines that neither the edit nor the rewrite changed.".to_owned());
        }
        let summary = success(SuccessInput {
            path: &target.display,
            old: &*old,
            new: &doc,
            old_rev: &old_rev,
            new_rev: &rev,
            hunks: &hunks,
            headline,
            notes: &notes,
            relocated: &[],
            style: self.options.view,
        });
        let mut store = self.store();
        store.record_all(&target.real, &rev, &doc, &summary.shown, Sight::Unasked);
        if let Some(parent) = parent {
            let map = Arc::new(LineMap::proven(&parent.doc, &doc));
            let known = map.ranges(&store.seen(&target.real, &parent.rev));
            store.record_all(&target.real, &rev, &doc, &known, Sight::Carried);
            store.link(
                &target.real,
                &rev,
                Parent {
                    rev: parent.rev.clone(),
                    map,
                },
            );
        }
        Ok(Some(EditResult {
            output: summary.output,
            headline: summary.headline,
            path: target.display,
            rev,
            previous_rev: old_rev,
            diff: summary.diff,
            additions: summary.additions,
            deletions: summary.deletions,
            problems: introduced.problems,
            outcome: Default::default(),
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_proven_map_keeps_only_lines_every_shortest_diff_places() {
        let old = Document::from_text("a\nb\n}\nc\n");
        let new = Document::from_text("a\nb2\n}\n}\nc\n");
        let map = LineMap::proven(&old, &new);
        assert_eq!(map.line(0), Some(0));
        assert_eq!(map.line(1), None);
        assert_eq!(
            map.line(2),
            None,
            "which closing brace is the old one cannot be told"
        );
        assert_eq!(map.line(3), Some(4));
    }

    #[test]
    fn diff_hunks_cover_each_changed_region_once() {
        let old = Document::from_text("a\nb\nc\nd\n");
        let new = Document::from_text("a\nB\nc\nd\ne\n");
        assert_eq!(
            diff_hunks(&old, &new),
            vec![
                Hunk {
                    old: 1..2,
                    new: 1..2
                },
                Hunk {
                    old: 4..4,
                    new: 4..5
                }
            ]
        );
    }
}
