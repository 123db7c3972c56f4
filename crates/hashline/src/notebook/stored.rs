//! The versions of a notebook's cells the store keeps. A version is shown,
//! cited and remapped under the REV of the notebook's file, but the store
//! names what it keeps by the REV of the text it keeps (so that a version
//! read back from disk proves its text): it keeps the cells with one more
//! line, the trailer, naming the file's REV. Read back, each version is the
//! cells again under that REV; a trailer is as untrusted as the rest of
//! the store, and a version whose trailer names the current file's REV
//! counts only if its cells are the current cells.

use super::view::with_rev;
use crate::document::Document;
use crate::store::{Parent, Version};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// What the trailer line starts with, the file's REV after it.
const TRAILER: &str = "\u{241e} notebook REV ";

/// The name the store keeps a notebook's cells under: the file's path and a
/// name below it, which no file can have while the notebook is a file.
pub(crate) fn key(real: &Path) -> PathBuf {
    real.join(":cells")
}

/// The text the store keeps of `cells`, the cells of the file whose REV
/// is `rev`.
pub(crate) fn kept(cells: &Document, rev: &str) -> Arc<Document> {
    Arc::new(Document::from_string(format!(
        "{}{TRAILER}{rev}\n",
        cells.text()
    )))
}

/// The file's REV and the cells a kept text holds, if it has a trailer.
fn unpack(kept: &Document) -> Option<(String, Document)> {
    let text = kept.text();
    let body = text.strip_suffix('\n')?;
    let at = body.rfind('\n').map_or(0, |i| i + 1);
    let rev = body[at..].strip_prefix(TRAILER)?;
    if rev.len() != 8
        || !rev
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'A'..=b'F').contains(&b))
    {
        return None;
    }
    let cells = Document::from_string(text[..at].to_owned());
    with_rev(&cells, rev);
    Some((rev.to_owned(), cells))
}

/// The kept versions of a notebook's cells as a plan reads them, each under
/// its file's REV, and the store's name for each of those REVs.
pub(crate) struct History {
    pub versions: Vec<Version>,
    /// The REV of the kept text, by the file's REV.
    pub kept: HashMap<String, String>,
}

/// `stored`, the versions the store keeps under `key`, most recently used
/// first, read as cells; `current` is the cells of the file now, whose REV
/// is `rev`.
pub(crate) fn history(stored: Vec<Version>, current: &Document, rev: &str) -> History {
    let mut unpacked: Vec<(Version, String, Document)> = Vec::new();
    for version in stored {
        if let Some((file_rev, cells)) = unpack(&version.doc) {
            unpacked.push((version, file_rev, cells));
        }
    }
    // Two kept texts that name one file's REV with different cells: one of
    // them lies, and which cannot be told, unless it is the current file's.
    let claims = |file_rev: &str| {
        unpacked
            .iter()
            .filter(|(_, f, _)| f == file_rev)
            .map(|(_, _, c)| c.text())
            .collect::<Vec<_>>()
    };
    let trusted: Vec<bool> = unpacked
        .iter()
        .map(|(_, file_rev, cells)| {
            if file_rev == rev {
                cells.text() == current.text()
            } else {
                claims(file_rev).iter().all(|t| *t == cells.text())
            }
        })
        .collect();
    let mut kept = HashMap::new();
    let mut file_revs = HashMap::new();
    for ((version, file_rev, _), trusted) in unpacked.iter().zip(&trusted) {
        if *trusted {
            kept.entry(file_rev.clone())
                .or_insert_with(|| version.rev.clone());
            file_revs.insert(version.rev.clone(), file_rev.clone());
        }
    }
    let mut versions = Vec::new();
    for ((version, file_rev, cells), trusted) in unpacked.into_iter().zip(trusted) {
        if !trusted || kept.get(&file_rev) != Some(&version.rev) {
            continue;
        }
        let lines = cells.line_count();
        let within = |ranges: &[std::ops::Range<usize>]| {
            ranges
                .iter()
                .filter(|r| r.start < lines)
                .map(|r| r.start..r.end.min(lines))
                .collect()
        };
        versions.push(Version {
            rev: file_rev,
            seen: within(&version.seen),
            carried: within(&version.carried),
            read_at: version.read_at,
            parent: version.parent.as_ref().and_then(|p| {
                Some(Parent {
                    rev: file_revs.get(&p.rev)?.clone(),
                    map: Arc::clone(&p.map),
                })
            }),
            doc: Arc::new(cells).into(),
        });
    }
    History { versions, kept }
}
