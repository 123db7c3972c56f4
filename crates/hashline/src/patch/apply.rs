//! A patch across files: every file checked and its new version computed
//! before any is written, then each written atomically, with results in
//! the shape of an edit's.

use super::*;
use crate::cancel::Cancel;
use crate::document::{Document, Splice};
use crate::edit::{finish, Change, Edited, Old};
use crate::error::{plural, Error, ErrorCode, Result};
use crate::file::{Base, Target};
use crate::plan::locate::locate_refs;
use crate::plan::PlanContext;
use crate::prefix::{self, Shown, Verdict};
use crate::problem::Problem;
use crate::report::hunks;
use crate::session::{EditPlan, Hashline, Plan};
use crate::syntax::SyntaxCheck;
use crate::transaction::Change as FileChangeStep;
use std::collections::BTreeSet;
use std::fmt::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// How a patch is planned.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PatchOptions {
    /// The folder relative paths of the patch are in (default: the root).
    pub directory: Option<PathBuf>,
    /// Allow paths outside the root (the host asked its user).
    pub allow_outside: bool,
    /// Write the added lines exactly as sent: no clean-up.
    pub literal: bool,
}

/// What a patch does to one file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    /// A new file.
    Add,
    /// A changed file.
    Update,
    /// A removed file.
    Delete,
    /// Updated (or not) and renamed.
    Move,
}

impl FileKind {
    /// The letter `git status` and OpenCode's summary use.
    fn letter(self) -> char {
        match self {
            FileKind::Add => 'A',
            FileKind::Update | FileKind::Move => 'M',
            FileKind::Delete => 'D',
        }
    }
}

/// What a patch did, or will do, to one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileResult {
    /// What it does.
    pub kind: FileKind,
    /// The file the patch names, as the model sees it, and its real path.
    pub path: String,
    /// The real path.
    pub absolute: String,
    /// Where a moved file went.
    pub move_path: Option<String>,
    /// The real path where a moved file went.
    pub move_absolute: Option<String>,
    /// The REV written (none for a deleted file) and the one before (none
    /// for a new file).
    pub rev: Option<String>,
    /// The REV before (none for a new file).
    pub previous_rev: Option<String>,
    /// A unified diff of the file, for UIs.
    pub diff: String,
    /// Lines added.
    pub additions: usize,
    /// Lines removed.
    pub deletions: usize,
    /// The part of the output about this file: fresh refs of each change.
    pub output: String,
    /// The first sentence of `output` for a file written (see
    /// [`crate::Summary::headline`]); none for a file deleted.
    pub headline: Option<String>,
    /// What the change broke that was not broken before.
    pub problems: Vec<Problem>,
}

/// What a patch did, or will do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PatchResult {
    /// The files changed, one line each (`M src/a.ts`).
    pub summary: String,
    /// The summary, then each file's part.
    pub output: String,
    /// Each file, in the order of the patch.
    pub files: Vec<FileResult>,
}

/// A patch checked against every file it names, nothing written yet.
#[derive(Debug, Clone)]
pub struct PatchPlan {
    /// The session that made it: only that one may commit it.
    owner: u64,
    steps: Vec<Step>,
    result: PatchResult,
}

impl PatchPlan {
    /// The result the patch will have once committed.
    pub fn result(&self) -> &PatchResult {
        &self.result
    }
}

impl Plan for PatchPlan {
    type Result = PatchResult;

    fn owner(&self) -> u64 {
        self.owner
    }

    fn foreign(&self) -> Error {
        Error::invalid_request(
            "This patch was planned by another Hashline instance; only that one can commit it. Plan the patch again with this one.",
        )
    }

    fn changes(&self) -> Vec<FileChangeStep<'_>> {
        self.steps
            .iter()
            .map(|step| match step {
                Step::Write(edit) => edit.change(),
                Step::Remove { target, base } => FileChangeStep::Remove { target, base },
            })
            .collect()
    }

    fn result(&self) -> &PatchResult {
        &self.result
    }

    fn edits(&self) -> impl Iterator<Item = &EditPlan> {
        self.steps.iter().filter_map(|step| match step {
            Step::Write(edit) => Some(&**edit),
            Step::Remove { .. } => None,
        })
    }
}

#[derive(Debug, Clone)]
enum Step {
    /// A new version of a file, as an edit would write it.
    Write(Box<EditPlan>),
    /// A file to delete, if it is still `base`.
    Remove { target: Target, base: Base },
}

/// One file's part of a plan.
struct Planned {
    steps: Vec<Step>,
    result: FileResult,
}

impl Hashline {
    /// Checks a patch against every file it names and computes each new
    /// version; nothing is written. Any hunk that does not fit, in any
    /// file, rejects the whole patch, and every such hunk is reported.
    /// Relative paths in the patch resolve against `directory` when given
    /// (the folder the model works in), else against the root.
    ///
    /// ```
    /// use hashline::{Hashline, Options};
    ///
    /// let root = tempfile::tempdir().unwrap();
    /// std::fs::write(root.path().join("a.txt"), "one\ntwo\n").unwrap();
    /// let session = Hashline::new(Options::new(root.path())).unwrap();
    /// let patch = "*** Begin Patch\n*** Update File: a.txt\n@@\n one\n-two\n+2\n*** End Patch";
    /// let plan = session.plan_patch(patch).unwrap();
    /// session.commit_patch(&plan).unwrap();
    /// assert_eq!(std::fs::read_to_string(root.path().join("a.txt")).unwrap(), "one\n2\n");
    /// ```
    pub fn plan_patch(&self, text: &str) -> Result<PatchPlan> {
        self.plan_patch_with(text, &PatchOptions::default())
    }

    /// `plan_patch`, with the patch's options.
    pub fn plan_patch_with(&self, text: &str, options: &PatchOptions) -> Result<PatchPlan> {
        let PatchOptions {
            directory,
            allow_outside,
            literal,
        } = options;
        let (directory, allow_outside, literal) = (directory.as_deref(), *allow_outside, *literal);
        let patch = parse(text)?;
        let resolve = |name: &str| match directory {
            Some(dir) if Path::new(name).is_relative() => {
                self.target(&dir.join(name).to_string_lossy(), allow_outside)
            }
            _ => self.target(name, allow_outside),
        };
        let mut targets = Vec::with_capacity(patch.files.len());
        let mut touched: BTreeSet<PathBuf> = BTreeSet::new();
        for file in &patch.files {
            let target = resolve(&file.path)?;
            let dest = match &file.change {
                FileChange::Update {
                    move_to: Some(to), ..
                } => Some(resolve(to)?).filter(|d| d.real != target.real),
                _ => None,
            };
            for t in std::iter::once(&target).chain(&dest) {
                if !touched.insert(t.real.clone()) {
                    return Err(Error::new(
                        ErrorCode::Conflict,
                        format!(
                            "Patch rejected, nothing written: it changes {} more than once (line {} of the patch). Put all hunks of a file in one `*** Update File:` section.",
                            t.display, file.line
                        ),
                    )
                    .with_path(&t.display));
                }
            }
            targets.push((target, dest));
        }
        let mut steps = Vec::new();
        let mut files = Vec::new();
        let mut errors = Vec::new();
        for (file, (target, dest)) in patch.files.iter().zip(targets) {
            match self.plan_file(file, target, dest, literal) {
                Ok(planned) => {
                    steps.extend(planned.steps);
                    files.push(planned.result);
                }
                Err(err) => errors.push(err),
            }
        }
        if let Some(first) = errors.first() {
            if errors.len() == 1 {
                return Err(errors.remove(0));
            }
            let mut err = Error::new(
                first.code,
                errors
                    .iter()
                    .map(|e| e.message.as_str())
                    .collect::<Vec<_>>()
                    .join("\n\n"),
            );
            err.path = first.path.clone();
            return Err(err);
        }
        // Deletions last: a failed write then never leaves a file gone.
        steps.sort_by_key(|s| matches!(s, Step::Remove { .. }));
        let mut summary = String::from("Success. Updated the following files:\n");
        for f in &files {
            let _ = writeln!(
                summary,
                "{} {}",
                f.kind.letter(),
                f.move_path.as_deref().unwrap_or(&f.path)
            );
        }
        let mut output = summary.clone();
        for f in &files {
            output.push('\n');
            output.push_str(&f.output);
        }
        Ok(PatchPlan {
            owner: self.id,
            steps,
            result: PatchResult {
                summary,
                output,
                files,
            },
        })
    }

    fn plan_file(
        &self,
        file: &FilePatch,
        target: Target,
        dest: Option<Target>,
        literal: bool,
    ) -> Result<Planned> {
        let path = target.display.clone();
        let absolute = target.real.display().to_string();
        match &file.change {
            FileChange::Add { lines } => {
                let loaded = self.load(&target, true)?;
                let found = loaded.found();
                let exists = loaded.base != Base::Missing;
                let old = Arc::new(loaded.doc);
                let versions = self.history(&target);
                let mut notes = Vec::new();
                let lines = self.added_lines(&target, &versions, lines, literal, &mut notes)?;
                let splices = [Splice {
                    range: 0..old.line_count(),
                    lines: lines.clone(),
                }];
                if exists && !old.is_empty() {
                    notes.push(format!(
                        "{path} existed; the patch replaced all of its {} (shown as removed).",
                        plural(old.line_count(), "line", "lines")
                    ));
                }
                let headline = format!(
                    "{} {path} with {}",
                    if exists { "Replaced" } else { "Created" },
                    plural(lines.len(), "line", "lines")
                );
                let edited = self.patched(&target, &old, &splices, headline, notes, false)?;
                let history = !versions.is_empty();
                let plan =
                    self.plan_edited(target, found, Some(old.into()), false, edited, history)?;
                let result = file_result(FileKind::Add, path, absolute, None, &plan, exists);
                Ok(Planned {
                    steps: vec![Step::Write(Box::new(plan))],
                    result,
                })
            }
            FileChange::Delete => {
                let loaded = self.load(&target, false)?;
                let old = loaded.doc;
                let n = old.line_count();
                let gone = finish(
                    Old::Whole(&old),
                    &path,
                    Document::from_vec(Vec::new())?,
                    Change {
                        hunks: vec![crate::report::Hunk {
                            old: 0..n,
                            new: 0..0,
                        }],
                        headline: String::new(),
                        notes: Vec::new(),
                        remapped_from: None,
                        outcome: Default::default(),
                        relocated: Vec::new(),
                        style: STYLE,
                    },
                    false,
                    SyntaxCheck::Off,
                    None,
                )?;
                Ok(Planned {
                    result: FileResult {
                        kind: FileKind::Delete,
                        output: format!("Deleted {path} ({}).\n", plural(n, "line", "lines")),
                        headline: None,
                        path,
                        absolute,
                        move_path: None,
                        move_absolute: None,
                        rev: None,
                        previous_rev: Some(gone.previous_rev),
                        diff: gone.summary.diff,
                        additions: 0,
                        deletions: gone.summary.deletions,
                        problems: Vec::new(),
                    },
                    steps: vec![Step::Remove {
                        target,
                        base: loaded.base,
                    }],
                })
            }
            FileChange::Update {
                hunks: list,
                move_to,
            } => {
                let loaded = self.load(&target, false)?;
                let found = loaded.found();
                let old = Arc::new(loaded.doc);
                let history = self.history(&target);
                let placed = match self.place_hunks(&target, &old, &history, list, literal) {
                    Ok(placed) => placed,
                    Err(err) => return Err(self.after_rejection(&target, &old, err)),
                };
                let what = plural(list.len(), "hunk", "hunks");
                let headline = match &dest {
                    Some(d) if list.is_empty() => format!("Moved {path} to {}", d.display),
                    Some(d) => format!("Moved {path} to {} and patched it with {what}", d.display),
                    None if move_to.is_some() && list.is_empty() => {
                        format!("Left {path} where it is (it is already there)")
                    }
                    None => format!("Patched {path} with {what}"),
                };
                let edited = self.patched(
                    &target,
                    &old,
                    &placed.splices,
                    headline,
                    placed.notes,
                    move_to.is_none(),
                )?;
                let had_history = !history.is_empty();
                match dest {
                    None => {
                        let plan = self.plan_edited(
                            target,
                            found.clone(),
                            Some(old.into()),
                            false,
                            edited,
                            had_history,
                        )?;
                        let result =
                            file_result(FileKind::Update, path, absolute, None, &plan, true);
                        Ok(Planned {
                            steps: vec![Step::Write(Box::new(plan))],
                            result,
                        })
                    }
                    Some(dest) => {
                        let there = self.load(&dest, true)?;
                        let mut edited = edited;
                        if there.base != Base::Missing {
                            let n = there.doc.line_count();
                            edited.summary.output.push_str(&match n {
                                0 => format!(
                                    "Note: {} existed (empty) and was replaced by the moved file.\n",
                                    dest.display
                                ),
                                _ => format!(
                                    "Note: {} existed and was replaced by the moved file; its {} {} shown as removed.\n",
                                    dest.display,
                                    plural(n, "line", "lines"),
                                    if n == 1 { "is" } else { "are" }
                                ),
                            });
                            // The approval must show what the move destroys:
                            // every line of the file it replaces.
                            if n > 0 {
                                let moved = &edited.doc;
                                let lines = (0..moved.line_count())
                                    .map(|i| moved.line(i).to_owned())
                                    .collect();
                                let replaced = self.patched(
                                    &dest,
                                    &there.doc,
                                    &[Splice { range: 0..n, lines }],
                                    String::new(),
                                    Vec::new(),
                                    false,
                                )?;
                                edited.summary.diff.push_str(&replaced.summary.diff);
                                edited.summary.deletions += replaced.summary.deletions;
                            }
                        }
                        let moved = Some((dest.display.clone(), dest.real.display().to_string()));
                        let plan = self.plan_edited(
                            dest,
                            there.found(),
                            Some(old.into()),
                            false,
                            edited,
                            had_history,
                        )?;
                        let result =
                            file_result(FileKind::Move, path, absolute, moved, &plan, true);
                        Ok(Planned {
                            steps: vec![
                                Step::Write(Box::new(plan)),
                                Step::Remove {
                                    target,
                                    base: loaded.base,
                                },
                            ],
                            result,
                        })
                    }
                }
            }
        }
    }

    /// The lines of a file a patch adds, without the output of the engine a
    /// model copied into them where the session's views of the file prove
    /// it a copy (`prefix`), as a whole file's new content; refused where
    /// they neither prove nor rule that out.
    fn added_lines(
        &self,
        target: &Target,
        history: &[crate::store::Version],
        lines: &[String],
        literal: bool,
        notes: &mut Vec<String>,
    ) -> Result<Vec<String>> {
        if !self.options().cleanup || literal || !prefix::may_hold(lines) {
            return Ok(lines.to_vec());
        }
        let shown = Shown::new(&target.display, history, &[]);
        match prefix::judge(lines, shown, Some(prefix::Place::WHOLE)) {
            Verdict::Literal => Ok(lines.to_vec()),
            Verdict::Clean(fixes) => {
                notes.push(prefix::describe("the added file", &fixes));
                Ok(prefix::clean(lines, &fixes))
            }
            Verdict::Ambiguous(doubts) => Err(prefix::ambiguous(
                &target.display,
                &[("the added file's content".to_owned(), doubts)],
                LITERAL,
            )),
        }
    }

    /// The hunks placed in the file, `@@` refs found first (remapped from
    /// the version the model read when that is provable).
    fn place_hunks(
        &self,
        target: &Target,
        doc: &Document,
        history: &[crate::store::Version],
        list: &[Hunk],
        literal: bool,
    ) -> Result<Placed> {
        let refs: Vec<Option<&str>> = list
            .iter()
            .map(|h| match &h.header {
                Some(Header::Ref(r)) => Some(r.as_str()),
                _ => None,
            })
            .collect();
        let mut notes = Vec::new();
        let anchors: Vec<Option<usize>> = if refs.iter().any(Option::is_some) {
            let ctx = PlanContext {
                doc,
                path: &target.display,
                history,
                others: &[],
                caller_text: false,
                cleanup: self.options().cleanup,
                seen_guard: self.options().seen_guard,
                syntax: None,
                style: STYLE,
            };
            // The refs are numbered as the hunks they head.
            let (lines, from) = locate_refs(&ctx, &refs, None).map_err(|mut err| {
                err.message = err.message.replace("operation ", "hunk ");
                err
            })?;
            if let Some(from) = from {
                notes.push(format!(
                    "the @@ refs were from REV {from}; the lines they name are unchanged since then and were found at their current positions."
                ));
            }
            let mut lines = lines.into_iter();
            refs.iter().map(|r| r.and_then(|_| lines.next())).collect()
        } else {
            vec![None; list.len()]
        };
        let cleanup =
            (self.options().cleanup && !literal).then(|| Shown::new(&target.display, history, &[]));
        let mut placed = place(doc, &target.display, list, &anchors, cleanup)?;
        notes.append(&mut placed.notes);
        placed.notes = notes;
        Ok(placed)
    }

    fn patched(
        &self,
        target: &Target,
        old: &Document,
        splices: &[Splice],
        headline: String,
        notes: Vec<String>,
        refuse_same: bool,
    ) -> Result<Edited> {
        let hunks = hunks(splices);
        let syntax = self.options().syntax;
        let parsed = syntax.old_parse(&target.display, self.kept_tree(target, old), old, &hunks);
        finish(
            Old::Whole(old),
            &target.display,
            old.spliced(splices)?,
            Change {
                hunks,
                headline,
                notes,
                remapped_from: None,
                outcome: Default::default(),
                relocated: Vec::new(),
                style: STYLE,
            },
            refuse_same,
            syntax,
            parsed,
        )
        .map_err(|e| e.with_path(&target.display))
    }

    /// Writes a planned patch: every file is checked to be as planned
    /// before any is written, then each is replaced atomically.
    pub fn commit_patch(&self, plan: &PatchPlan) -> Result<PatchResult> {
        self.commit_patch_then(plan, |result| Ok(result.clone()))
    }

    /// `commit_patch`, with a last step that runs once every file is
    /// checked and before the first is written, as in `commit_then`.
    pub fn commit_patch_then<T>(
        &self,
        plan: &PatchPlan,
        last_step: impl FnOnce(&PatchResult) -> Result<T>,
    ) -> Result<T> {
        self.commit_with(plan, &Cancel::new(), last_step)
    }
}

fn file_result(
    kind: FileKind,
    path: String,
    absolute: String,
    moved: Option<(String, String)>,
    plan: &EditPlan,
    existed: bool,
) -> FileResult {
    let r = plan.result();
    let (move_path, move_absolute) = match moved {
        Some((p, a)) => (Some(p), Some(a)),
        None => (None, None),
    };
    FileResult {
        kind,
        path,
        absolute,
        move_path,
        move_absolute,
        rev: Some(r.rev.clone()),
        previous_rev: existed.then(|| r.previous_rev.clone()),
        diff: r.diff.clone(),
        additions: r.additions,
        deletions: r.deletions,
        output: r.output.clone(),
        headline: Some(r.headline.clone()),
        problems: r.problems.clone(),
    }
}
