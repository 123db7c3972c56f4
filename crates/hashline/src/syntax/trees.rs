//! The parse trees of the versions a session last read or wrote, so that
//! the next edit of such a file parses only what it changed: a full parse
//! of a 100,000-line file takes a quarter of a second, a reparse after a
//! one-line edit a few milliseconds. A version read is parsed on a thread
//! of its own while the model thinks; a version written keeps the tree its
//! edit's check made.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{channel, Sender};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, OnceLock, Weak};
use std::time::Duration;

use super::check::KeptTree;
use super::language::{Unparsed, MAX_PARSED_BYTES};
use super::Language;
use crate::document::Document;

/// How many trees are kept in all: two versions of each of the files an
/// agent is editing now.
const KEPT: usize = 16;

/// How many versions of one file keep their tree: the one last written and
/// the one last edited or written before it, often the version read, which
/// the file holds again when an edit is undone or the file is restored.
const PER_FILE: usize = 2;

/// An edit waits at most this long for the background parse of the version
/// it edits, then parses it itself.
const WAIT: Duration = Duration::from_secs(5);

/// Trees by file and REV (or why a version has none: too large, too slow),
/// most recently used first, and the versions the background thread has yet
/// to parse for this session.
#[derive(Default)]
pub(crate) struct Trees {
    kept: Mutex<Vec<(PathBuf, String, KeptTree)>>,
    pending: Mutex<Vec<(PathBuf, String)>>,
    parsed: Condvar,
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|p| p.into_inner())
}

impl Trees {
    /// The tree of the version `rev` of the file at `path`, if kept, or
    /// once the background parse of that version ends: two parses of one
    /// text at once would each take longer than one.
    pub(crate) fn get(&self, path: &Path, rev: &str) -> Option<KeptTree> {
        let pending = lock(&self.pending);
        let _done = self
            .parsed
            .wait_timeout_while(pending, WAIT, |now| {
                now.iter().any(|(p, r)| p == path && r == rev)
            })
            .unwrap_or_else(|p| p.into_inner());
        // The version an edit starts from is the one worth keeping: it goes
        // to the front, ahead of the file's other version.
        let mut kept = lock(&self.kept);
        let at = kept.iter().position(|(p, r, _)| p == path && r == rev)?;
        kept[..=at].rotate_right(1);
        Some(kept[0].2.clone())
    }

    fn kept_now(&self, path: &Path, rev: &str) -> Option<KeptTree> {
        lock(&self.kept)
            .iter()
            .find(|(p, r, _)| p == path && r == rev)
            .map(|(_, _, tree)| tree.clone())
    }

    /// Keeps the tree of a version (or why it has none), in place of the
    /// oldest of the file's earlier ones past `PER_FILE`.
    pub(crate) fn put(&self, path: &Path, rev: &str, tree: KeptTree) {
        let mut kept = lock(&self.kept);
        kept.retain(|(p, r, _)| p != path || r != rev);
        kept.insert(0, (path.to_owned(), rev.to_owned(), tree));
        let mut of_file = 0;
        kept.retain(|(p, _, _)| {
            of_file += usize::from(p == path);
            p != path || of_file <= PER_FILE
        });
        kept.truncate(KEPT);
    }

    /// The background parse of a version is over, whatever its outcome.
    fn done(&self, path: &Path, rev: &str) {
        lock(&self.pending).retain(|(p, r)| p != path || r != rev);
        self.parsed.notify_all();
    }

    /// Parses a version just read, in the background, to keep its tree.
    /// Nothing is held for it: the job only points at the session's trees
    /// and at the document the store keeps, and is dropped if either is gone.
    pub(crate) fn parse_later(
        trees: &Arc<Trees>,
        path: &Path,
        rev: &str,
        doc: &Arc<Document>,
        language: Language,
    ) {
        if trees.kept_now(path, rev).is_some() {
            return;
        }
        if doc.text().len() > MAX_PARSED_BYTES {
            return trees.put(path, rev, Err(Unparsed::TooLarge));
        }
        {
            let mut pending = lock(&trees.pending);
            if pending.iter().any(|(p, r)| p == path && r == rev) {
                return;
            }
            pending.push((path.to_owned(), rev.to_owned()));
        }
        let job = Job {
            trees: Arc::downgrade(trees),
            path: path.to_owned(),
            rev: rev.to_owned(),
            doc: Arc::downgrade(doc),
            language,
        };
        if !worker().lock().is_ok_and(|queue| queue.send(job).is_ok()) {
            trees.done(path, rev);
        }
    }
}

struct Job {
    trees: Weak<Trees>,
    path: PathBuf,
    rev: String,
    doc: Weak<Document>,
    language: Language,
}

/// One thread for every session of the process: reads come one at a time
/// from a model, and a parse takes milliseconds, so one keeps up.
fn worker() -> &'static Mutex<Sender<Job>> {
    static WORKER: OnceLock<Mutex<Sender<Job>>> = OnceLock::new();
    WORKER.get_or_init(|| {
        let (send, receive) = channel::<Job>();
        let _ = std::thread::Builder::new()
            .name("hashline-parse".into())
            .spawn(move || {
                for job in receive {
                    let Some(trees) = job.trees.upgrade() else {
                        continue;
                    };
                    if let Some(doc) = job.doc.upgrade() {
                        if trees.kept_now(&job.path, &job.rev).is_none() {
                            // A grammar's panic must not leave edits waiting
                            // for a parse that will never end.
                            let parsed = catch_unwind(AssertUnwindSafe(|| {
                                job.language.parse(doc.text(), None)
                            }));
                            if let Ok(tree) = parsed {
                                trees.put(&job.path, &job.rev, tree);
                            }
                        }
                    }
                    trees.done(&job.path, &job.rev);
                }
            });
        Mutex::new(send)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_keeps_the_trees_of_the_two_versions_last_written_or_edited_and_others_keep_theirs() {
        let trees = Trees::default();
        let tree = |text: &str| Language::Rust.parse(text, None);
        let (a, b) = (Path::new("/r/a.rs"), Path::new("/r/b.rs"));
        let kept = |path, rev| trees.kept_now(path, rev).is_some();
        trees.put(b, "B1", tree("fn b() {}\n"));
        trees.put(a, "A1", tree("fn a() {}\n"));
        trees.put(a, "A2", tree("fn a2() {}\n"));
        trees.put(a, "A2", tree("fn a2() {}\n"));
        assert!(
            kept(a, "A1") && kept(a, "A2"),
            "a version put again fills one place"
        );
        // A1 is restored and edited twice: the tree it is edited from stays.
        for next in ["A3", "A4"] {
            assert!(trees.get(a, "A1").is_some());
            trees.put(a, next, tree("fn a3() {}\n"));
        }
        assert!(kept(a, "A1") && kept(a, "A4"));
        assert!(!kept(a, "A2") && !kept(a, "A3"), "older versions go");
        assert!(kept(b, "B1"));
        // Three trees so far: A1, A4, B1.
        for i in 0..KEPT - 3 {
            trees.put(
                Path::new(&format!("/r/{}.rs", i / 2)),
                &format!("R{i}"),
                tree(""),
            );
        }
        assert!(kept(b, "B1"), "{KEPT} trees fit");
        trees.put(Path::new("/r/last.rs"), "R", tree(""));
        assert!(!kept(b, "B1"), "the trees kept are bounded");
    }
}
