//! An edit of one document, start to end without the file system: plan the
//! request against the text, apply it, and describe the result.

use std::borrow::Cow;
use std::fmt::Write as _;
use std::sync::{Arc, OnceLock};

use crate::before::{Before, Taken};
use crate::check::{introduced, Introduced};
use crate::document::{Document, Ending, Splice};
use crate::error::{plural, Error, ErrorCode, Result};
use crate::plan::plan;
use crate::plan::PlanContext;
use crate::problem::Problem;
use crate::relocate::Relocated;
use crate::remap::LineMap;
use crate::replace::{create, replace};
use crate::report::{hunks, success, window, Hunk, SuccessInput, Summary};
use crate::request::Request;
use crate::store::{StoredDoc, Version};
use crate::syntax::{KeptTree, Parsed, SyntaxCheck};
use crate::view::ViewStyle;

/// One document to edit, and what the edit may rely on.
pub struct EditInput<'a> {
    /// The current text.
    pub doc: &'a Document,
    /// The path as the model knows it.
    pub path: &'a str,
    /// Whether the file exists; when it does not, `doc` is empty and only
    /// requests that create a file are accepted.
    pub exists: bool,
    /// Stored versions of the file, most recent first.
    pub history: &'a [Version],
    /// Versions of other files the session showed (see `PlanContext`).
    pub others: &'a [Version],
    /// The text is one the caller holds (see `PlanContext`).
    pub caller_text: bool,
    /// Strip echoed view prefixes and boundary echoes.
    pub cleanup: bool,
    /// Refuse lines no view showed.
    pub seen_guard: bool,
    /// What to do when the edit breaks the file's parse.
    pub syntax: SyntaxCheck,
    /// The parse tree of `doc` (or why it has none), if the session kept it.
    pub old_tree: Option<KeptTree>,
    /// A note about the store for the result, whatever it is (damaged
    /// versions that were ignored).
    pub store_note: Option<&'a str>,
    /// The style the result and any rejection show lines and refs in.
    pub style: ViewStyle,
}

/// How an edit came to be what it is, as data for hosts that count
/// outcomes: what the stale-ref policy and the clean-up did
/// (`docs/format.md` §6, §7).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct EditOutcome {
    /// The refs were of an older version, and proven to name lines still
    /// in the file (stale refs recovered).
    pub remapped: bool,
    /// Content lines the clean-up changed or left out as proven copies of
    /// the engine's output (view prefixes, a view's header, a line a view
    /// cut).
    pub prefixes_removed: usize,
    /// Boundary echoes the clean-up dropped as proven copies.
    pub echoes_dropped: usize,
}

/// A new version of a document, computed and described, not yet written.
#[derive(Debug, Clone)]
pub struct Edited {
    /// The new version; `file_bytes()` gives what to write.
    pub doc: Document,
    /// The REV of the new version.
    pub rev: String,
    /// The REV of the version edited.
    pub previous_rev: String,
    /// What the model and the host are told.
    pub summary: Summary,
    /// Where each unchanged line of the old text is in the new one.
    pub map: LineMap,
    /// The stored version the refs were remapped from, if any.
    pub remapped_from: Option<String>,
    /// What the stale-ref policy and the clean-up did.
    pub outcome: EditOutcome,
    /// What the change broke that was not broken before.
    pub problems: Vec<Problem>,
    /// The new version's parse tree (or why it has none), when it was parsed.
    pub(crate) tree: Option<KeptTree>,
    /// The version the edit replaced, when the edit was given it.
    pub(crate) replaced: Option<OldVersion>,
}

/// The version an edit replaced, as the edit holds it: what the splice of
/// its buffer took out, or the whole document.
#[derive(Debug, Clone)]
pub(crate) enum OldVersion {
    Taken(Taken),
    Whole(Document),
}

impl OldVersion {
    /// The version as a store keeps it, `new` the version the edit made
    /// and `rev` its REV; none for a version spliced whose bytes were not
    /// its canonical text, which the lines taken out cannot rebuild.
    pub(crate) fn stored(self, new: &Arc<Document>, rev: &str) -> Option<StoredDoc> {
        match self {
            OldVersion::Taken(taken) => taken
                .canonical
                .then(|| StoredDoc::edited(Arc::clone(new), taken, rev)),
            OldVersion::Whole(doc) => Some(StoredDoc::from(Arc::new(doc))),
        }
    }
}

/// What a change did, to be described with the version it made: the
/// regions it changed and what to say about them.
#[derive(Debug)]
pub(crate) struct Change {
    pub hunks: Vec<Hunk>,
    pub headline: String,
    pub notes: Vec<String>,
    pub remapped_from: Option<String>,
    pub outcome: EditOutcome,
    pub relocated: Vec<Relocated>,
    /// The style the result shows lines and refs in.
    pub style: ViewStyle,
}

impl<'a> EditInput<'a> {
    /// The input for text a caller holds: no file behind it and no stored
    /// versions, so every line may be cited. Its results show full refs,
    /// which hold on their own, since no view showed a line of it for lean
    /// ones to hold on (`docs/format.md` §6.6).
    pub fn text(doc: &'a Document, path: &'a str, cleanup: bool, syntax: SyntaxCheck) -> Self {
        EditInput {
            doc,
            path,
            exists: true,
            history: &[],
            others: &[],
            caller_text: true,
            cleanup,
            seen_guard: false,
            syntax,
            old_tree: None,
            store_note: None,
            style: ViewStyle::Full,
        }
    }
}

impl Request {
    /// Whether some operation's content has a line that may be copied from
    /// what the engine showed (a view prefix's form, a view's header, a cut
    /// line's note), which only the versions a session showed can tell from
    /// ordinary text.
    pub(crate) fn may_hold_prefixes(&self) -> bool {
        match self {
            Request::Operations { operations, .. } => operations
                .iter()
                .any(|op| !op.literal && crate::prefix::may_hold(&op.content)),
            Request::Replace { .. } => false,
        }
    }

    /// Whether the request can apply to a file that does not exist yet.
    pub fn creates(&self) -> bool {
        match self {
            // Only an op that cites no line can apply to no lines.
            Request::Operations { operations, .. } => {
                operations.iter().all(|op| !op.kind.shape().reference)
            }
            Request::Replace { old_string, .. } => old_string.is_empty(),
        }
    }
}

/// The version a change replaced: the whole document (borrowed, or given
/// up to the result), or what the change took out of it when it was
/// spliced into the document's own buffer.
#[derive(Debug)]
pub(crate) enum Old<'a> {
    Whole(&'a Document),
    Given(Document),
    Taken(Taken),
}

impl Old<'_> {
    /// The REV of the version replaced; `new` is the version the change
    /// made.
    fn rev(&self, new: &Document) -> String {
        match self {
            Old::Whole(doc) => doc.rev().to_owned(),
            Old::Given(doc) => doc.rev().to_owned(),
            Old::Taken(taken) => taken.rev(new),
        }
    }

    /// `f` of the lines of the version replaced, read through `new` where
    /// the change was spliced in place.
    fn read<R>(&self, new: &Document, f: impl FnOnce(&dyn Before) -> R) -> R {
        match self {
            Old::Whole(doc) => f(*doc),
            Old::Given(doc) => f(doc),
            Old::Taken(taken) => f(&taken.with(new)),
        }
    }
}

/// What a change makes of the document: splices of it, or a whole new
/// text.
enum NewText {
    /// Splices, with the endings of their new lines where the edit knows
    /// them (one list a splice), else the file's usual one.
    Splices(Vec<Splice>, Option<Vec<Vec<Ending>>>),
    Whole(Document),
}

/// An edit planned against a document and checked, not yet applied: every
/// use of the whole old text is behind it, so that applying it can splice
/// the document in its own buffer.
pub struct Prepared {
    /// The document planned against.
    planned: Planned,
    path: String,
    exists: bool,
    syntax: SyntaxCheck,
    new: NewText,
    change: Change,
    parsed: Option<Parsed>,
    store_note: Option<String>,
}

/// Appends the store's note to an error, whatever it is.
fn noted(mut err: Error, note: Option<&str>) -> Error {
    if let Some(note) = note {
        err.message.push_str("\nNote: ");
        err.message.push_str(note);
    }
    err
}

/// Plans `request` against the document, nothing written: the half of an
/// edit that may refuse it with the document's current lines. Applying
/// what it returns to that document is the other half.
pub fn prepare(input: &EditInput<'_>, request: &Request) -> Result<Prepared> {
    plan_change(input, request).map_err(|err| noted(err, input.store_note))
}

fn plan_change(input: &EditInput<'_>, request: &Request) -> Result<Prepared> {
    let doc = input.doc;
    if !input.exists && !request.creates() {
        return Err(Error::new(
            ErrorCode::NotFound,
            format!("File {} not found", input.path),
        )
        .with_path(input.path));
    }
    let mut remapped_from = None;
    let mut outcome = EditOutcome::default();
    let mut relocated = Vec::new();
    let (new, headline, notes): (NewText, String, Vec<String>) = match request {
        Request::Operations { operations, rev } => {
            let ctx = PlanContext {
                doc,
                path: input.path,
                history: input.history,
                others: input.others,
                caller_text: input.caller_text,
                cleanup: input.cleanup,
                seen_guard: input.seen_guard,
                // A text the session could not parse in time is judged
                // without its parse, not parsed again for each judgement.
                syntax: match &input.old_tree {
                    Some(Err(_)) => None,
                    kept => input
                        .syntax
                        .parse_of(input.path, None)
                        .map(|p| (p.language, kept.as_ref().and_then(|t| t.as_ref().ok()))),
                },
                style: input.style,
            };
            let planned = plan(&ctx, operations, rev.as_deref())?;
            remapped_from = planned.from.clone();
            outcome = EditOutcome {
                remapped: planned.from.is_some(),
                prefixes_removed: planned.prefixes_removed,
                echoes_dropped: planned.echoes_dropped,
            };
            relocated = planned.relocated;
            let ops = plural(planned.applied, "operation", "operations");
            let headline = if input.exists {
                format!("Applied {ops} to {}", input.path)
            } else {
                format!("Created {} with {ops}", input.path)
            };
            (
                NewText::Splices(planned.splices, None),
                headline,
                planned.notes,
            )
        }
        Request::Replace {
            old_string,
            new_string,
            replace_all,
        } if old_string.is_empty() => {
            let new = Document::from_vec(create(doc, input.path, new_string, *replace_all)?)?;
            let headline = format!(
                "{} {}",
                if input.exists { "Wrote" } else { "Created" },
                input.path
            );
            (NewText::Whole(new), headline, Vec::new())
        }
        Request::Replace {
            old_string,
            new_string,
            replace_all,
        } => {
            let replaced = replace(doc, old_string, new_string, *replace_all, input.style)
                .map_err(|e| e.with_path(input.path))?;
            let headline = format!(
                "Replaced {} in {}",
                plural(replaced.matches, "match", "matches"),
                input.path
            );
            (
                NewText::Splices(replaced.splices, Some(replaced.endings)),
                headline,
                replaced.notes,
            )
        }
    };
    let hunks = match &new {
        NewText::Splices(splices, _) => hunks(splices),
        NewText::Whole(new) => vec![Hunk {
            old: 0..0,
            new: 0..new.line_count(),
        }],
    };
    let parsed = input
        .syntax
        .old_parse(input.path, input.old_tree.clone(), doc, &hunks);
    let notes: Vec<String> = notes
        .into_iter()
        .chain(input.store_note.map(str::to_owned))
        .collect();
    Ok(Prepared {
        planned: Planned::of(doc),
        path: input.path.to_owned(),
        exists: input.exists,
        syntax: input.syntax,
        new,
        change: Change {
            hunks,
            headline,
            notes,
            remapped_from,
            outcome,
            relocated,
            style: input.style,
        },
        parsed,
        store_note: input.store_note.map(str::to_owned),
    })
}

/// Which document an edit was planned against: its text's buffer, and
/// its REV if that was known. A REV is computed only when something asks
/// for it, and the planning of an edit of text the caller holds may not.
struct Planned {
    text: (*const u8, usize),
    rev: Option<String>,
}

// SAFETY: the pointer is compared, never read.
unsafe impl Send for Planned {}
// SAFETY: as above.
unsafe impl Sync for Planned {}

impl Planned {
    fn of(doc: &Document) -> Planned {
        Planned {
            text: (doc.text().as_ptr(), doc.text().len()),
            rev: doc.known_rev().map(str::to_owned),
        }
    }

    /// Whether `doc` is the document planned against: the same buffer
    /// (a document moves without its text), and the same REV if it was
    /// known.
    fn is(&self, doc: &Document) -> bool {
        self.text == (doc.text().as_ptr(), doc.text().len())
            && self.rev.as_deref().is_none_or(|rev| doc.rev() == rev)
    }
}

/// An edit applied and checked, before it is described.
struct Applied {
    new: Document,
    old: Old<'static>,
    checked: Checked,
}

impl Prepared {
    /// Applies the edit to `doc`, the document it was planned against,
    /// which becomes the new version.
    pub fn apply(self, doc: Document) -> Result<Edited> {
        let path = self.path.clone();
        let store_note = self.store_note.clone();
        self.applied(doc)
            .map(|a| describe_now(a.old, &path, a.new, a.checked))
            .map_err(|err| noted(err, store_note.as_deref()))
    }

    /// The edit applied and checked, its description left to be made when
    /// asked for.
    fn applied(self, mut doc: Document) -> Result<Applied> {
        let Prepared {
            planned,
            path,
            exists,
            syntax,
            new,
            change,
            parsed,
            store_note: _,
        } = self;
        // Splicing another text than the one planned against would write
        // lines where the plan did not put them.
        if !planned.is(&doc) {
            return Err(Error::new(
                ErrorCode::Internal,
                format!("An edit of {path} was applied to another text than the one it was planned against (version {}); nothing was written.", doc.rev()),
            )
            .with_path(&path));
        }
        let (new, old) = match new {
            NewText::Splices(splices, endings) => {
                let taken = Taken::of(
                    &doc,
                    change.hunks.iter().map(|h| (h.old.clone(), h.new.clone())),
                );
                doc.splice_in_place(&splices, endings.as_deref())
                    .map_err(|err| err.with_path(&path))?;
                (doc, Old::Taken(taken))
            }
            NewText::Whole(new) => (new, Old::Given(doc)),
        };
        let checked = old.read(&new, |before| {
            check(before, &path, &new, change, exists, syntax, parsed)
        })?;
        Ok(Applied { new, old, checked })
    }
}

/// A change applied and checked: it changes the text, and the parse is as
/// the syntax check requires. What describes it is made from this.
#[derive(Debug)]
pub(crate) struct Checked {
    change: Change,
    problems: Vec<Problem>,
    tree: Option<KeptTree>,
}

/// Checks `new_doc`, the version `change` made of `old`. With
/// `refuse_same`, a change that leaves the text as it was is an error;
/// `syntax` says whether a broken parse is told, refused or not looked for,
/// given the old text's parse.
fn check(
    old: &dyn Before,
    path: &str,
    new_doc: &Document,
    mut change: Change,
    refuse_same: bool,
    syntax: SyntaxCheck,
    parsed: Option<Parsed>,
) -> Result<Checked> {
    // Lines that only trade places with copies of themselves can move line
    // endings around a mixed file without changing a line: still no change.
    if refuse_same && old.same_text(new_doc) {
        return Err(Error::new(
            ErrorCode::NoChange,
            format!(
                "No changes to apply: the edit leaves the lines of {} exactly as they are.",
                path
            ),
        )
        .with_path(path));
    }
    // The splice writer keeps every written line a line (an empty last line
    // keeps its terminator), so the re-read text has the lines counted.
    debug_assert!(change
        .hunks
        .last()
        .is_none_or(|h| h.new.end <= new_doc.line_count()));
    let Introduced {
        problems,
        tree,
        note,
    } = introduced(old, new_doc, &change.hunks, parsed);
    if syntax == SyntaxCheck::Reject && problems.iter().any(|p| p.syntax.is_some()) {
        return Err(syntax_refusal(path, new_doc, problems));
    }
    change.notes.extend(note);
    Ok(Checked {
        change,
        problems,
        tree,
    })
}

impl Checked {
    /// The result the model and the host are told: fresh refs around every
    /// change, the removed lines, shift hints, the diff.
    fn summary(
        &self,
        path: &str,
        old: &dyn Before,
        old_rev: &str,
        new: &Document,
        new_rev: &str,
    ) -> Summary {
        let change = &self.change;
        let mut summary = success(SuccessInput {
            path,
            old,
            new,
            old_rev,
            new_rev,
            hunks: &change.hunks,
            headline: change.headline.clone(),
            notes: &change.notes,
            relocated: &change.relocated,
            style: change.style,
        });
        tell_broken_parse(&mut summary, new, &self.problems, change.style);
        summary
    }
}

/// The description of a checked change, made now: its REVs, the result,
/// where the unchanged lines went.
fn describe_now(old: Old<'_>, path: &str, new_doc: Document, checked: Checked) -> Edited {
    let previous_rev = old.rev(&new_doc);
    let new_rev = new_doc.rev().to_owned();
    let (summary, old_lines) = old.read(&new_doc, |before| {
        (
            checked.summary(path, before, &previous_rev, &new_doc, &new_rev),
            before.line_count(),
        )
    });
    let Checked {
        change,
        problems,
        tree,
    } = checked;
    let replaced = match old {
        Old::Taken(taken) => Some(OldVersion::Taken(taken)),
        Old::Given(doc) => Some(OldVersion::Whole(doc)),
        Old::Whole(_) => None,
    };
    let map = LineMap::from_changes(
        old_lines,
        change.hunks.iter().map(|h| (h.old.clone(), h.new.clone())),
    );
    Edited {
        doc: new_doc,
        rev: new_rev,
        previous_rev,
        summary,
        problems,
        map,
        remapped_from: change.remapped_from,
        outcome: change.outcome,
        tree,
        replaced,
    }
}

/// Describes `new_doc`, the version `change` made: its REV, the result
/// with fresh refs, where the unchanged lines went, and the problems it
/// brought. With `refuse_same`, a change that leaves the text as it was is
/// an error; `syntax` says whether a broken parse is told, refused or not
/// looked for, given the old text's parse.
pub(crate) fn finish(
    old: Old<'_>,
    path: &str,
    new_doc: Document,
    change: Change,
    refuse_same: bool,
    syntax: SyntaxCheck,
    parsed: Option<Parsed>,
) -> Result<Edited> {
    let checked = old.read(&new_doc, |before| {
        check(before, path, &new_doc, change, refuse_same, syntax, parsed)
    })?;
    Ok(describe_now(old, path, new_doc, checked))
}

/// The lines of the parse an edit broke, with refs, after the result.
fn tell_broken_parse(
    summary: &mut Summary,
    new: &Document,
    problems: &[Problem],
    style: ViewStyle,
) {
    let broken: Vec<&Problem> = problems.iter().filter(|p| p.syntax.is_some()).collect();
    let Some(language) = broken.first().and_then(|p| p.syntax) else {
        return;
    };
    let mut lines: Vec<usize> = broken.iter().map(|p| p.line).collect();
    lines.sort_unstable();
    lines.dedup();
    let (window, shown) = window(new, &lines, 1, style);
    let _ = writeln!(
        summary.output,
        "Syntax: the file parsed as {} before this edit and no longer does; fix it with another edit:",
        language.name()
    );
    summary.output.push_str(&window);
    for p in broken {
        let _ = writeln!(summary.output, "  line {}: {}", p.line + 1, p.message);
    }
    summary.shown.extend(shown);
}

/// The refusal of an edit that breaks the parse: the broken lines as the
/// edit would have written them, without refs, since they were not written.
fn syntax_refusal(path: &str, new: &Document, problems: Vec<Problem>) -> Error {
    let problems: Vec<Problem> = problems
        .into_iter()
        .filter(|p| p.syntax.is_some())
        .collect();
    let language = problems[0].syntax.map_or("", |l| l.name());
    let mut message = format!(
        "Edit refused, nothing written: {path} parsed as {language} before this edit and would not after it. The lines as the edit would have written them:\n"
    );
    for p in &problems {
        let _ = writeln!(
            message,
            "  line {}: {}\n    {}",
            p.line + 1,
            p.message,
            new.line(p.line)
        );
    }
    message.push_str("The file is unchanged and your refs to it still hold: send the edit again with the syntax fixed.");
    let mut err = Error::new(ErrorCode::SyntaxError, message).with_path(path);
    err.problems = problems;
    err
}

/// Applies a request to a text with no file and no store: the pure form
/// hosts use for content they hold themselves.
///
/// ```
/// use hashline::{apply_to_text, Request, Value};
///
/// let request = Request::from_value(&Value::Object(vec![
///     ("oldString".into(), Value::String("b".into())),
///     ("newString".into(), Value::String("B".into())),
/// ]))
/// .unwrap();
/// let (text, edited) = apply_to_text("a\nb\n", &request, true).unwrap();
/// assert_eq!(text, "a\nB\n");
/// assert_eq!(edited.summary.additions, 1);
/// ```
pub fn apply_to_text(text: &str, request: &Request, cleanup: bool) -> Result<(String, Edited)> {
    let edited = edit_text(
        Document::from_text(text),
        "text",
        request,
        cleanup,
        SyntaxCheck::Off,
    )?;
    // The bytes carry a BOM as its UTF-8 encoding, which the string keeps as U+FEFF.
    let out = String::from_utf8(edited.doc.to_bytes())
        .map_err(|_| Error::new(ErrorCode::NotUtf8, "The edit produced invalid UTF-8."))?;
    Ok((out, edited))
}

/// An edit of text the caller holds, taken and given back by value: the
/// new text, and what describes the edit, each made only when it is asked
/// for. A host that only passes the text through pays for none of the
/// REVs, the result or the diff.
#[derive(Debug)]
pub struct TextEdit {
    doc: Arc<Document>,
    old: Old<'static>,
    path: String,
    checked: Checked,
    previous_rev: OnceLock<String>,
    summary: OnceLock<Summary>,
}

impl TextEdit {
    /// The new version.
    pub fn document(&self) -> &Arc<Document> {
        &self.doc
    }

    /// The new text, a BOM as U+FEFF.
    pub fn text(&self) -> Cow<'_, str> {
        match self.doc.file_bytes() {
            Cow::Borrowed(_) => Cow::Borrowed(self.doc.text()),
            // The bytes are lines of strings and their endings, and a BOM
            // as its UTF-8 encoding.
            Cow::Owned(bytes) => {
                Cow::Owned(String::from_utf8(bytes).expect("a document's bytes are UTF-8"))
            }
        }
    }

    /// The first sentence of the result, naming what was done.
    pub fn headline(&self) -> &str {
        &self.checked.change.headline
    }

    /// The REV of the new text.
    pub fn rev(&self) -> &str {
        self.doc.rev()
    }

    /// The REV of the text edited.
    pub fn previous_rev(&self) -> &str {
        self.previous_rev.get_or_init(|| self.old.rev(&self.doc))
    }

    /// What the model and the host are told.
    pub fn summary(&self) -> &Summary {
        self.summary.get_or_init(|| {
            let (old_rev, new_rev) = (self.previous_rev(), self.rev());
            self.old.read(&self.doc, |before| {
                self.checked
                    .summary(&self.path, before, old_rev, &self.doc, new_rev)
            })
        })
    }

    /// What the change broke that was not broken before.
    pub fn problems(&self) -> &[Problem] {
        &self.checked.problems
    }
}

/// [`apply_to_text`] by value, for the text of a file named `path`: its name
/// picks the language the parse check (`syntax`) and the echo clean-up parse
/// it in, and block operations find their blocks in. The edit is spliced
/// into the text's own buffer.
pub fn apply_to_string(
    text: String,
    path: &str,
    request: &Request,
    cleanup: bool,
    syntax: SyntaxCheck,
) -> Result<TextEdit> {
    let doc = Document::from_string(text);
    let input = EditInput::text(&doc, path, cleanup, syntax);
    let Applied { new, old, checked } = prepare(&input, request)?.applied(doc)?;
    Ok(TextEdit {
        doc: Arc::new(new),
        old,
        path: path.to_owned(),
        checked,
        previous_rev: OnceLock::new(),
        summary: OnceLock::new(),
    })
}

/// An edit of a document the caller gives up: spliced in its own buffer.
fn edit_text(
    doc: Document,
    path: &str,
    request: &Request,
    cleanup: bool,
    syntax: SyntaxCheck,
) -> Result<Edited> {
    let input = EditInput::text(&doc, path, cleanup, syntax);
    let mut edited = prepare(&input, request)?.apply(doc)?;
    // No store keeps the text replaced.
    edited.replaced = None;
    Ok(edited)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::request::{OpKind, Operation};
    use crate::Ref;

    #[test]
    fn an_edit_applied_to_another_text_than_the_one_planned_against_is_refused() {
        let doc = Document::from_text("a\nb\n");
        let input = EditInput::text(&doc, "f.txt", false, SyntaxCheck::Off);
        let request = Request::Replace {
            old_string: "b".into(),
            new_string: "B".into(),
            replace_all: false,
        };
        // Another text, and a copy of the same one: which text a copy is
        // cannot be told without its REV, which planning did not need.
        for other in [Document::from_text("a\nx\nb\n"), doc.clone()] {
            let err = prepare(&input, &request).unwrap().apply(other).unwrap_err();
            assert_eq!(err.code, ErrorCode::Internal);
        }
        let prepared = prepare(&input, &request).unwrap();
        drop(input);
        let edited = prepared.apply(doc).unwrap();
        assert_eq!(edited.doc.text(), "a\nB\n");
    }

    #[test]
    fn writing_into_a_file_that_holds_only_a_bom_keeps_the_bom() {
        let request = |new: &str| Request::Replace {
            old_string: String::new(),
            new_string: new.into(),
            replace_all: false,
        };
        let (out, _) = apply_to_text("\u{FEFF}", &request("x\r\ny"), false).unwrap();
        assert_eq!(out, "\u{FEFF}x\r\ny");
        let (out, _) = apply_to_text("\u{FEFF}", &request("\u{FEFF}x"), false).unwrap();
        assert_eq!(out, "\u{FEFF}x");
        let (out, _) = apply_to_text("", &request("x"), false).unwrap();
        assert_eq!(out, "x");
    }

    #[test]
    fn a_batch_that_only_moves_line_endings_between_equal_lines_changes_nothing() {
        let text = "x\nx\r\n";
        let doc = Document::from_text(text);
        let r = |i| Ref::of_line(&doc, i).to_string();
        let request = Request::Operations {
            operations: vec![
                Operation::new(OpKind::Delete, Some(&r(0)), None, ""),
                Operation::new(OpKind::InsertAfter, Some(&r(1)), None, "x"),
            ],
            rev: None,
        };
        let err = apply_to_text(text, &request, false).unwrap_err();
        assert_eq!(err.code, ErrorCode::NoChange);
    }

    #[test]
    fn content_made_only_of_both_neighbours_is_refused_and_written_whole_when_literal() {
        let text = "a\nb\nc\n";
        let doc = Document::from_text(text);
        let op = Operation::new(
            OpKind::Replace,
            Some(&Ref::of_line(&doc, 1).to_string()),
            None,
            "a\nc",
        );
        let request = |op: Operation| Request::Operations {
            operations: vec![op],
            rev: None,
        };
        let err = apply_to_text(text, &request(op.clone()), true).unwrap_err();
        assert_eq!(err.code, ErrorCode::AmbiguousEcho);
        assert!(err
            .message
            .contains("first content line \"a\" is the same as line 1"));
        assert!(err
            .message
            .contains("last content line \"c\" is the same as line 3"));
        let (out, _) = apply_to_text(text, &request(op.literal()), true).unwrap();
        assert_eq!(out, "a\na\nc\nc\n");
    }

    #[test]
    fn a_repeated_blank_line_is_refused_whatever_the_batch_around_it_and_written_when_literal() {
        let text = "# c\n\n\nclass A:\n    pass\n\n\nclass B:\n    pass\n";
        let doc = Document::from_text(text);
        let r = |i| Ref::of_line(&doc, i).to_string();
        let request = |literal: bool| {
            let echo = Operation::new(OpKind::InsertAfter, Some(&r(2)), None, "\n@final");
            Request::Operations {
                operations: vec![
                    Operation::new(OpKind::InsertBefore, Some(&r(2)), None, "import typing"),
                    if literal { echo.literal() } else { echo },
                ],
                rev: None,
            }
        };
        let err = apply_to_text(text, &request(false), true).unwrap_err();
        assert_eq!(err.code, ErrorCode::AmbiguousEcho);
        assert!(err
            .message
            .contains("its first content line (a blank line)"));
        let (out, _) = apply_to_text(text, &request(true), true).unwrap();
        assert_eq!(
            out,
            "# c\n\nimport typing\n\n\n@final\nclass A:\n    pass\n\n\nclass B:\n    pass\n"
        );
    }

    #[test]
    fn a_blank_line_repeated_before_a_line_another_op_rewrites_is_judged_by_the_rewritten_line() {
        let text = "def a():\n    x = 1\n\n    y = 2\n\n\ndef b():\n    pass\n";
        let doc = Document::from_text(text);
        let r = |i| Ref::of_line(&doc, i).to_string();
        let request = |literal: bool| {
            let first = Operation::new(OpKind::Replace, Some(&r(1)), None, "    x = 10\n\n");
            Request::Operations {
                operations: vec![
                    if literal { first.literal() } else { first },
                    Operation::new(OpKind::Replace, Some(&r(3)), None, "    y = 20"),
                ],
                rev: None,
            }
        };
        let err = apply_to_text(text, &request(false), true).unwrap_err();
        assert_eq!(err.code, ErrorCode::AmbiguousEcho);
        assert!(
            err.message.contains(
                "operation 1 (replace): its last content line (a blank line) is the same as line 3"
            ),
            "{}",
            err.message
        );
        let (out, _) = apply_to_text(text, &request(true), true).unwrap();
        assert_eq!(
            out,
            "def a():\n    x = 10\n\n\n    y = 20\n\n\ndef b():\n    pass\n"
        );
    }

    #[test]
    fn prepend_and_append_on_an_empty_or_missing_file_apply_in_the_only_order() {
        for text in ["", "\u{FEFF}"] {
            for order in [
                [OpKind::Append, OpKind::Prepend],
                [OpKind::Prepend, OpKind::Append],
            ] {
                let request = Request::Operations {
                    operations: order
                        .iter()
                        .map(|&kind| {
                            let content = if kind == OpKind::Prepend {
                                "first"
                            } else {
                                "last"
                            };
                            Operation::new(kind, None, None, content)
                        })
                        .collect(),
                    rev: None,
                };
                let (out, _) = apply_to_text(text, &request, true).unwrap();
                assert_eq!(out.trim_start_matches('\u{FEFF}'), "first\nlast\n");
            }
        }
        // Two prepends still have no order.
        let request = Request::Operations {
            operations: vec![
                Operation::new(OpKind::Prepend, None, None, "x"),
                Operation::new(OpKind::Prepend, None, None, "y"),
            ],
            rev: None,
        };
        assert_eq!(
            apply_to_text("", &request, true).unwrap_err().code,
            ErrorCode::Conflict
        );
    }
}
