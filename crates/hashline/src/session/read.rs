//! What a session shows: views of files, refs for the lines a host shows
//! itself, and content cleaned of the view prefixes a model copied into it.
//! Every line shown is recorded, so that an edit citing it passes.

use super::*;

/// How many refused contents a session remembers for a resend.
const REFUSED_CONTENTS: usize = 16;

impl Hashline {
    /// A tagged view of the first lines of the file at `path`, in the
    /// session's view style.
    pub fn read(&self, path: &str) -> Result<ReadResult> {
        self.read_with(path, &ReadOptions::default())
    }

    /// A tagged view of the lines `options` name, in its style.
    pub fn read_with(&self, path: &str, options: &ReadOptions) -> Result<ReadResult> {
        let (real, display, doc) = self.load_for_view(path, options.allow_outside)?;
        if !options.raw && crate::notebook::is_notebook(&display) {
            return self.read_notebook(&real, display, doc, options);
        }
        let doc = self.stored(&real, doc);
        let style = options.view.unwrap_or(self.options.view);
        let view = render(&doc, &display, options.offset, options.limit, style)
            .map_err(|e| e.with_path(&display))?;
        let shown = view.start_line.saturating_sub(1)..view.end_line;
        self.remember(&real, &view.rev, &doc, &[shown], Sight::Asked);
        let mut view = view;
        self.tell_recoveries(&mut view.text);
        Ok(ReadResult {
            path: display,
            view,
        })
    }

    /// The store's document of the same file as `doc`, if it keeps one,
    /// with its REV and the digests of the lines hashed before; else `doc`,
    /// keeping the digests of the lines its view hashes when the store is to
    /// keep it.
    fn stored(&self, real: &Path, doc: Document) -> Arc<Document> {
        let mut store = lock(&self.store);
        if let Some(same) = store.same_version(real, &doc) {
            // A version an edit wrote keeps its digests from its first view.
            same.keep_tags();
            return same;
        }
        if store.keeps(doc.text().len()) {
            doc.keep_tags();
        }
        Arc::new(doc)
    }

    /// Refs for lines another viewer displayed, computed from the file
    /// itself; the lines count as seen.
    pub fn tag(&self, path: &str, shown: &[ShownLine]) -> Result<Tagged> {
        self.tag_with(path, shown, &CallOptions::default())
    }

    /// `tag`, with the call's options.
    pub fn tag_with(
        &self,
        path: &str,
        shown: &[ShownLine],
        options: &CallOptions,
    ) -> Result<Tagged> {
        let (real, _, doc) = self.load_for_view(path, options.allow_outside)?;
        let doc = Arc::new(doc);
        let rev = doc.rev().to_owned();
        let n = doc.line_count();
        let mut seen = Vec::new();
        let refs = shown
            .iter()
            .map(|s| {
                let index = s.line.checked_sub(1).filter(|&i| i < n)?;
                let line = doc.line(index);
                let same = if s.truncated {
                    line.starts_with(s.text.as_str())
                } else {
                    line == s.text
                };
                same.then(|| {
                    seen.push(index..index + 1);
                    match self.options.view {
                        ViewStyle::Lean => Ref::pair_of_line(&doc, index),
                        ViewStyle::Full => Ref::of_line(&doc, index),
                    }
                    .to_string()
                })
            })
            .collect();
        self.remember(&real, &rev, &doc, &seen, Sight::Asked);
        Ok(Tagged {
            rev,
            total_lines: n,
            refs,
        })
    }

    /// Removes the view prefixes a model copied into `text`, the new
    /// content of the file at `path` (a host's `write`), where the versions
    /// this session showed, or the lines themselves, prove them copies.
    /// Content whose prefixes nothing proves copies comes back as sent. Content
    /// in between is refused with `AMBIGUOUS_ECHO`; the same content sent
    /// again for the same file is then returned as sent, since sending it
    /// again after that refusal is how a model says it means it.
    pub fn strip_view_prefixes(&self, path: &str, text: &str) -> Result<Stripped> {
        self.strip_view_prefixes_with(path, text, &CallOptions::default())
    }

    /// `strip_view_prefixes`, with the call's options.
    pub fn strip_view_prefixes_with(
        &self,
        path: &str,
        text: &str,
        options: &CallOptions,
    ) -> Result<Stripped> {
        let target = self.target(path, options.allow_outside)?;
        if !self.options.cleanup {
            return Ok(Stripped {
                text: text.to_owned(),
                stripped: 0,
                note: None,
                resent: false,
            });
        }
        let key = (target.real.clone(), Sha1::digest(text.as_bytes()).into());
        {
            let mut refused = lock(&self.refused);
            if let Some(at) = refused.iter().position(|k| *k == key) {
                refused.remove(at);
                return Ok(Stripped {
                    text: text.to_owned(),
                    stripped: 0,
                    note: None,
                    resent: true,
                });
            }
        }
        let lines: Vec<&str> = text.lines().collect();
        let (history, others) = if crate::prefix::may_hold(&lines) {
            let mut store = lock(&self.store);
            (
                store.versions(&target.real),
                store.shown_elsewhere(&target.real),
            )
        } else {
            (Vec::new(), Vec::new())
        };
        let stripped = crate::prefix::strip_text(
            text,
            &target.display,
            crate::prefix::Shown::new(&target.display, &history, &others),
            "send the same content again: sent again after this refusal, it is written exactly as sent",
        );
        match stripped {
            Ok((text, stripped, note)) => Ok(Stripped {
                text,
                stripped,
                note,
                resent: false,
            }),
            Err(err) => {
                let mut refused = lock(&self.refused);
                if refused.len() == REFUSED_CONTENTS {
                    refused.remove(0);
                }
                refused.push(key);
                Err(err)
            }
        }
    }
}
