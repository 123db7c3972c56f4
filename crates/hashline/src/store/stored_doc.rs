//! A stored version's document: held whole, or, for the version an edit
//! replaced, as the version the edit made and the lines the edit took out
//! of it, made whole the first time something reads its lines. An edit of
//! a file keeps one copy of its text, not two, while the refs to the lines
//! it left alone hold on the new version.

use crate::before::Taken;
use crate::document::Document;
use std::fmt;
use std::ops::Deref;
use std::sync::{Arc, OnceLock};

/// A stored version's document; clones share it, and its whole form once
/// made.
#[derive(Clone)]
pub struct StoredDoc(Arc<Inner>);

struct Inner {
    whole: OnceLock<Arc<Document>>,
    /// The version an edit made of this one, and what it took out: the
    /// whole document before it is made.
    edited: Option<(Arc<Document>, Taken)>,
    rev: Option<String>,
    text_len: usize,
    line_count: usize,
}

impl StoredDoc {
    /// The version an edit replaced, read through `new`, the version the
    /// edit made of it by splicing its own buffer, and `taken`, what the
    /// splice took out; `rev` is its REV. Its text was its file's bytes
    /// (no BOM, only LF endings: `Document::bytes_are_canonical`), so that
    /// its canonical text is all there is of it.
    pub(crate) fn edited(new: Arc<Document>, taken: Taken, rev: &str) -> StoredDoc {
        StoredDoc(Arc::new(Inner {
            whole: OnceLock::new(),
            text_len: taken.text_len,
            line_count: taken.line_count,
            edited: Some((new, taken)),
            rev: Some(rev.to_owned()),
        }))
    }

    /// The whole document, made now if it was not.
    pub fn whole(&self) -> &Arc<Document> {
        self.0.whole.get_or_init(|| {
            let (new, taken) = self
                .0
                .edited
                .as_ref()
                .expect("a stored document is whole or edited");
            let doc = Document::from_string(taken.old_text(new));
            if let Some(rev) = &self.0.rev {
                doc.know_rev(rev);
            }
            Arc::new(doc)
        })
    }

    /// Its canonical text in order, as runs of bytes, without making it
    /// whole.
    pub(crate) fn text_runs(&self) -> Vec<&[u8]> {
        let mut runs = Vec::new();
        match (self.built(), &self.0.edited) {
            (None, Some((new, taken))) => taken.each_run(new, |run| runs.push(run)),
            _ => runs.push(self.whole().text().as_bytes()),
        }
        runs
    }

    /// Whether `doc` holds the same file (`Document::same_file`), without
    /// making it whole: a version kept as an edit's is its file's bytes, so
    /// `doc` is the same file when its bytes are too and its text is the
    /// same.
    pub(crate) fn same_file(&self, doc: &Document) -> bool {
        match (self.built(), &self.0.edited) {
            (None, Some(_)) => {
                let mut rest = doc.text().as_bytes();
                doc.bytes_are_canonical()
                    && rest.len() == self.0.text_len
                    && self.text_runs().into_iter().all(|run| {
                        let same = rest.starts_with(run);
                        rest = &rest[run.len().min(rest.len())..];
                        same
                    })
            }
            _ => self.whole().same_file(doc),
        }
    }

    /// The whole document if it is made.
    pub(crate) fn built(&self) -> Option<&Arc<Document>> {
        self.0.whole.get()
    }

    /// The length of its canonical text, without making it whole.
    pub fn text_len(&self) -> usize {
        self.0.text_len
    }

    /// Its number of lines, without making it whole.
    pub fn line_count(&self) -> usize {
        self.0.line_count
    }
}

impl From<Arc<Document>> for StoredDoc {
    fn from(doc: Arc<Document>) -> StoredDoc {
        StoredDoc(Arc::new(Inner {
            text_len: doc.text().len(),
            line_count: doc.line_count(),
            rev: None,
            edited: None,
            whole: OnceLock::from(doc),
        }))
    }
}

impl From<&Arc<Document>> for StoredDoc {
    fn from(doc: &Arc<Document>) -> StoredDoc {
        StoredDoc::from(Arc::clone(doc))
    }
}

/// Reading a line, a REV or the text makes the document whole.
impl Deref for StoredDoc {
    type Target = Document;

    fn deref(&self) -> &Document {
        self.whole()
    }
}

impl fmt::Debug for StoredDoc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StoredDoc")
            .field("text_len", &self.0.text_len)
            .field("line_count", &self.0.line_count)
            .field("whole", &self.0.whole.get().is_some())
            .finish()
    }
}
