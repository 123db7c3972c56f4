//! An edit of a notebook through its cells (`docs/format.md` §10): the
//! request's refs are placed in the cells as in any text, by the stale-ref
//! policy; line ops change lines inside one cell each (`plan` places them,
//! cleans their content and finds their conflicts), cell ops insert,
//! delete, move, retype and annotate whole cells; then the new notebook is
//! written (`write`), read back and checked as valid, and described with
//! fresh refs of its cells.

use super::cells::Notebook;
use super::stored::{self, History};
use super::view::{about, extra, header_id, looks_like_header, source_lines, Cells, MARK};
use super::write::{self, Changed, Written};
use super::{invalid, kept};
use crate::document::{Document, Splice};
use crate::edit::EditOutcome;
use crate::error::{Error, ErrorCode, Result};
use crate::plan::locate::{chain, locate, parse_refs};
use crate::plan::{plan, PlanContext, Planned};
use crate::prefix::{self, Verdict};
use crate::reference::Cited;
use crate::reject;
use crate::relocate::Relocated;
use crate::remap::LineMap;
use crate::replace::replace;
use crate::report::{current_ref, success, Hunk, SuccessInput, Summary};
use crate::request::{Action, CellType, Cites, Metadata, OpKind, Operation, Request, Side};
use crate::store::Version;
use crate::view::ViewStyle;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Arc;

/// A notebook to edit, and what the edit may rely on.
pub(crate) struct Input<'a> {
    /// The file's text, exactly.
    pub text: &'a str,
    /// The REV of the file.
    pub rev: &'a str,
    /// The path as the model knows it.
    pub path: &'a str,
    /// The versions of its cells the store keeps, most recently used
    /// first.
    pub stored: Vec<Version>,
    /// Versions of other files the session showed.
    pub others: &'a [Version],
    pub cleanup: bool,
    pub seen_guard: bool,
    pub style: ViewStyle,
}

/// A notebook edited, not yet written.
pub(crate) struct Output {
    /// The new file.
    pub text: String,
    /// The REV of the new file.
    pub rev: String,
    /// The cells before and after, as the store keeps them.
    pub old: Arc<Document>,
    pub new: Arc<Document>,
    /// Where each unchanged line of the old cells is in the new ones.
    pub map: LineMap,
    /// The kept version (by the store's REV) the refs were remapped from.
    pub remapped_from: Option<String>,
    /// What the stale-ref policy and the clean-up did.
    pub outcome: EditOutcome,
    /// The store kept versions of the cells before.
    pub had_history: bool,
    pub summary: Summary,
}

/// A refusal of the edit: the error, and the cells as they are now, as the
/// store keeps them, whose lines it shows.
pub(crate) type Refusal = (Error, Option<Arc<Document>>);

/// Plans `request` against the notebook in `input`.
pub(crate) fn edit(input: Input<'_>, request: &Request) -> std::result::Result<Output, Refusal> {
    let nb = Notebook::parse(input.text).map_err(|why| (invalid(input.path, &why), None))?;
    let cells = Cells::of(&nb, input.rev);
    let History {
        versions,
        kept: by_rev,
    } = stored::history(input.stored, &cells.doc, input.rev);
    let ctx = PlanContext {
        doc: &cells.doc,
        path: input.path,
        history: &versions,
        others: input.others,
        caller_text: false,
        cleanup: input.cleanup,
        seen_guard: input.seen_guard,
        syntax: None,
        style: input.style,
    };
    let mut edit = Edit::new(&nb, &cells, &ctx);
    let planned = match request {
        Request::Operations { operations, rev } => edit.operations(operations, rev.as_deref()),
        Request::Replace {
            old_string,
            new_string,
            replace_all,
        } => edit.fallback(old_string, new_string, *replace_all),
    };
    let refusal = |err: Error| (err, Some(kept(&cells.doc, input.rev)));
    planned.map_err(|err| refusal(edit.in_cells(err)))?;
    let mut output = edit.finish().map_err(refusal)?;
    output.remapped_from = output
        .remapped_from
        .and_then(|from| by_rev.get(&from).cloned());
    output.had_history = !versions.is_empty();
    Ok(output)
}

/// Where a new or moved cell goes: next to a cell of the file, on a side.
type Anchor = (usize, Side);

/// What a cell op puts next to a cell.
enum Placed {
    New { kind: CellType, source: String },
    Moved(usize),
}

/// A request against the cells of a notebook, as it is worked out.
struct Edit<'e, 'a> {
    nb: &'e Notebook<'a>,
    cells: &'e Cells,
    ctx: &'e PlanContext<'e>,
    /// Line ops' splices, by cell, in the cell's own line numbers.
    splices: BTreeMap<usize, Vec<Splice>>,
    /// Cells whose source a replace_cell sets.
    sources: HashMap<usize, String>,
    deleted: HashSet<usize>,
    types: HashMap<usize, CellType>,
    metadata: HashMap<usize, Vec<&'e Metadata>>,
    /// New and moved cells by the cell they go next to.
    placed: HashMap<Anchor, (usize, Placed)>,
    moved: HashSet<usize>,
    keep_outputs: bool,
    notes: Vec<String>,
    applied: usize,
    remapped_from: Option<String>,
    /// Lines the clean-up changed as proven copies, and echoes it dropped.
    prefixes_removed: usize,
    echoes_dropped: usize,
    relocated: Vec<Relocated>,
    cell_ops: bool,
}

impl<'e, 'a> Edit<'e, 'a> {
    fn new(nb: &'e Notebook<'a>, cells: &'e Cells, ctx: &'e PlanContext<'e>) -> Self {
        Edit {
            nb,
            cells,
            ctx,
            splices: BTreeMap::new(),
            sources: HashMap::new(),
            deleted: HashSet::new(),
            types: HashMap::new(),
            metadata: HashMap::new(),
            placed: HashMap::new(),
            moved: HashSet::new(),
            keep_outputs: false,
            notes: Vec::new(),
            applied: 0,
            remapped_from: None,
            prefixes_removed: 0,
            echoes_dropped: 0,
            relocated: Vec::new(),
            cell_ops: false,
        }
    }

    /// How a cell is named in messages: its header line's number and its id
    /// (or number).
    fn name(&self, cell: usize) -> String {
        let c = &self.nb.cells[cell];
        match &c.id {
            Some(id) => format!(
                "cell {} (line {})",
                id.escape_debug(),
                self.cells.headers[cell] + 1
            ),
            None => format!("cell {} (line {})", cell + 1, self.cells.headers[cell] + 1),
        }
    }

    /// A refusal that shows lines of the cells, with the cell each cited
    /// line is in now.
    fn in_cells(&self, mut err: Error) -> Error {
        let mut lines: Vec<usize> = err.mismatches.iter().map(|m| m.line).collect();
        lines.sort_unstable();
        lines.dedup();
        let named: Vec<String> = lines
            .into_iter()
            .filter(|&l| l >= 1 && l <= self.cells.doc.line_count())
            .map(|l| match self.cells.is_header(l - 1) {
                true => format!(
                    "line {l} is the header of {}",
                    self.name(self.cells.cell_of(l - 1))
                ),
                false => format!("line {l} is in {}", self.name(self.cells.cell_of(l - 1))),
            })
            .collect();
        if !named.is_empty() {
            err.message
                .push_str(&format!("\nIn the notebook now, {}.", named.join("; ")));
        }
        err
    }

    fn refuse(&self, message: String) -> Error {
        Error::invalid_request(format!("Edit rejected, nothing written: {message}"))
            .with_path(self.ctx.path)
    }

    fn conflict(&self, message: String) -> Error {
        Error::new(
            ErrorCode::Conflict,
            format!("Edit rejected, nothing written: {message}"),
        )
        .with_path(self.ctx.path)
    }

    fn operations(&mut self, operations: &'e [Operation], rev: Option<&str>) -> Result<()> {
        self.keep_outputs = operations.iter().all(|op| op.cell.keep_outputs);
        for (i, op) in operations.iter().enumerate() {
            let number = i + 1;
            match op.kind.cites() {
                Cites::Start | Cites::End if self.nb.cells.is_empty() => return Err(self.refuse(format!(
                    "operation {number} ({}) adds lines, and this notebook has no cells, whose lines they would be. Its first cell goes in its JSON: read it with raw: true and replace the line `\"cells\": [],` by one holding the cell, e.g. ` \"cells\": [{{\"cell_type\": \"code\", \"execution_count\": null, \"id\": \"a1b2c3d4\", \"metadata\": {{}}, \"outputs\": [], \"source\": [\"x = 1\"]}}],`, sending \"raw\": true; later cells can then be inserted with insert_cell_after.",
                    op.kind
                ))),
                Cites::Start | Cites::End => return Err(self.refuse(format!(
                    "operation {number} ({}) adds at the {} of the file, and a notebook's lines are its cells': insert_after a cell's header line for the start of that cell, insert_after its last line for its end, or insert_cell_before/insert_cell_after for a new cell.",
                    op.kind,
                    if op.kind.cites() == Cites::Start { "start" } else { "end" }
                ))),
                Cites::Block => return Err(self.refuse(format!(
                    "operation {number} ({}) finds a block in the file's syntax tree, and a notebook's cells are not parsed: cite the lines (replace, delete, insert_before, insert_after), or a whole cell (replace_cell, delete_cell).",
                    op.kind
                ))),
                Cites::Lines | Cites::Cell => {}
            }
        }
        self.refuse_view_text(operations)?;
        let (cited, pairs) = parse_refs(self.ctx, operations)?;
        let located = locate(self.ctx, &cited, &pairs, rev)?;
        self.same_cells(&cited, &located.lines)?;
        let mut lines = cited.iter().zip(located.lines.iter().copied());
        let mut line_ops = Vec::new();
        let mut doubtful = Vec::new();
        for (i, op) in operations.iter().enumerate() {
            let number = i + 1;
            let first = op.reference.as_ref().and_then(|_| lines.next());
            let last = op.through.as_ref().and_then(|_| lines.next()).or(first);
            let place = op.place.as_ref().and_then(|_| lines.next()).map(|(_, l)| l);
            let (first, last) = (first.map(|(_, l)| l), last.map(|(_, l)| l));
            match op.kind.cites() {
                Cites::Cell => {
                    let line = first.unwrap_or(0);
                    let whole = matches!(
                        op.kind.action(),
                        Action::Replace | Action::Delete | Action::SetType
                    );
                    if whole && self.cells.is_header(line) {
                        let cited = &cited[cited.iter().position(|c| c.op == number).unwrap_or(0)];
                        self.whole_cell_seen(cited, op.kind, line, located.from.as_deref())?;
                    }
                    self.cell_op(number, op, line, place, &mut doubtful)?;
                    self.cell_ops = true;
                }
                _ => {
                    self.check_lines(number, op, first.unwrap_or(0), last.unwrap_or(0), place)?;
                    line_ops.push(op.clone());
                }
            }
        }
        if !doubtful.is_empty() {
            return Err(prefix::ambiguous(
                self.ctx.path,
                &doubtful,
                "send it again with \"literal\": true on the operation (or on the whole request): it is then written exactly as sent",
            ));
        }
        if line_ops.is_empty() {
            self.remapped_from = located.from;
            return Ok(());
        }
        let planned = plan(self.ctx, &line_ops, rev)?;
        self.take(planned);
        Ok(())
    }

    /// Refuses a ref whose line, in a kept version it holds in, is not
    /// proven to be in the cell it is placed in now: a stale ref is carried
    /// over only inside one cell. With ids, the cell a kept line was in is
    /// known by the id of the header above it; without, cells are known by
    /// their place alone, and a version counts only when this engine's own
    /// edits lead from it to the current cells (a diff of another writer's
    /// change is a guess for cells). A version the model read before it read
    /// the current cells, which show the line, is not doubted (§6.3).
    fn same_cells(&self, cited: &[Cited], lines: &[usize]) -> Result<()> {
        let ids = self.nb.cells.iter().all(|c| c.id.is_some());
        let current = self.ctx.history.iter().find(|v| v.rev == self.ctx.rev());
        for (c, &now) in cited.iter().zip(lines) {
            let at = c.reference.line - 1;
            let read_since = current.filter(|v| {
                at == now
                    && v.read_at != 0
                    && v.showed(now)
                    && c.reference.matches(self.ctx.doc, now)
            });
            let header_now = self
                .cells
                .doc
                .line(self.cells.headers[self.cells.cell_of(now)]);
            for version in self.ctx.history {
                if version.rev == self.ctx.rev()
                    || read_since.is_some_and(|v| version.read_at <= v.read_at)
                    || !c.reference.matches(&version.doc, at)
                {
                    continue;
                }
                let same = match ids {
                    true => {
                        looks_like_header(version.doc.line(at)) == self.cells.is_header(now)
                            && header_above(&version.doc, at).and_then(header_id)
                                == header_id(header_now)
                    }
                    false => chain(self.ctx, version).is_some(),
                };
                if same {
                    continue;
                }
                let then = match ids {
                    true => header_above(&version.doc, at)
                        .and_then(header_id)
                        .map_or("no cell".to_owned(), |id| format!("cell {id}")),
                    false => "a cell known by its place alone".to_owned(),
                };
                let text = format!(
                    "Edit rejected, nothing written: operation {} cites line {} as read in REV {}, where it was in {then}, and the cells of {} changed since{}. A ref is carried over only inside its own cell: read the notebook again and cite its lines from that read. Here is the line now (REV {})",
                    c.op,
                    c.reference.line,
                    version.rev,
                    self.ctx.path,
                    match ids {
                        true => format!(
                            ", so that it is not proven to be in {}, where the ref holds now",
                            self.name(self.cells.cell_of(now))
                        ),
                        false => ", by another writer: its cells have no ids, and which cell is which after such a change is a guess".to_owned(),
                    },
                    self.ctx.rev(),
                );
                return Err(reject::showing(
                    &self.ctx.subject(),
                    ErrorCode::HashMismatch,
                    text,
                    &[now],
                ));
            }
        }
        Ok(())
    }

    /// Refuses a replace_cell or delete_cell of the cell whose header `c`
    /// cites (at line `header` now) unless, as a range replace needs, every
    /// line of the cell is as the model was shown it, in the version the ref
    /// was read in (`from`; the current cells, or the latest kept version
    /// it holds in), and the
    /// cell had no more lines there: the op covers lines the model never
    /// cited one by one. Refused, the cell's lines are shown as they are.
    fn whole_cell_seen(
        &self,
        c: &Cited,
        kind: OpKind,
        header: usize,
        from: Option<&str>,
    ) -> Result<()> {
        let at = c.reference.line - 1;
        let lines = self.cells.lines_of(self.cells.cell_of(header));
        // The current cells where the store keeps them (what the model saw of
        // them, shown or carried unchanged by this engine's edits), unless the
        // ref was read in a version another writer's change led from.
        let holds = |v: &&Version| c.reference.matches(&v.doc, at);
        let mut held = self.ctx.history.iter().filter(holds);
        let read = match from {
            Some(from) => held.clone().find(|v| v.rev == from),
            None => held.clone().next(),
        };
        let version = held
            .find(|v| v.rev == self.ctx.rev())
            .filter(|_| read.is_none_or(|r| chain(self.ctx, r).is_some()))
            .or(read);
        let show = |code: ErrorCode, why: String| {
            let focus: Vec<usize> = lines.clone().collect();
            reject::showing(
                &self.ctx.subject(),
                code,
                format!(
                    "Edit rejected, nothing written: operation {} ({}) covers every line of {}, and {why}. Here is the cell as it is now (REV {}); check it and send the op again",
                    c.op,
                    kind,
                    self.name(self.cells.cell_of(header)),
                    self.ctx.rev()
                ),
                &focus,
            )
        };
        let Some(version) = version else {
            if !self.ctx.seen_guard {
                return Ok(());
            }
            return Err(show(
                ErrorCode::UnseenLines,
                "no view showed its lines".into(),
            ));
        };
        let body = lines.start + 1..lines.end;
        let kept = at + 1..at + 1 + body.len();
        let intact = kept.end <= version.doc.line_count()
            && body
                .clone()
                .zip(kept.clone())
                .all(|(now, then)| self.ctx.doc.line(now) == version.doc.line(then))
            && (kept.end == version.doc.line_count()
                || looks_like_header(version.doc.line(kept.end)));
        if !intact {
            return Err(show(
                ErrorCode::HashMismatch,
                format!("its lines are not those REV {} showed", version.rev),
            ));
        }
        let unseen: Vec<usize> = kept.filter(|&l| !version.saw(l)).collect();
        if self.ctx.seen_guard && !unseen.is_empty() {
            return Err(show(
                ErrorCode::UnseenLines,
                "no view showed some of them".into(),
            ));
        }
        Ok(())
    }

    /// The line splices of `planned`, by cell.
    fn take(&mut self, planned: Planned) {
        self.applied += planned.applied;
        self.notes.extend(planned.notes);
        self.remapped_from = self.remapped_from.take().or(planned.from);
        self.prefixes_removed += planned.prefixes_removed;
        self.echoes_dropped += planned.echoes_dropped;
        self.relocated = planned.relocated;
        for splice in planned.splices {
            // An insert goes into the cell of the line before it: after a
            // header, that header's cell.
            let cell = self.cells.cell_of(if splice.range.is_empty() {
                splice.range.start.saturating_sub(1)
            } else {
                splice.range.start
            });
            let first = self.cells.headers[cell] + 1;
            self.splices.entry(cell).or_default().push(Splice {
                range: splice.range.start - first..splice.range.end - first,
                lines: splice.lines,
            });
        }
    }

    /// The oldString/newString fallback, in the cells' text.
    fn fallback(&mut self, old: &str, new: &str, all: bool) -> Result<()> {
        if old.is_empty() {
            return Err(self.refuse(
                "an empty oldString writes a whole file, and a notebook's cells are not one: cite refs, or send the file's JSON with `raw`.".into(),
            ));
        }
        let lines: Vec<String> = new.lines().map(str::to_owned).collect();
        self.refuse_view_lines(
            &[("newString".to_owned(), &lines[..])],
            "If such a line is meant as source, send the change as a replace operation with \"literal\": true.",
        )?;
        let replaced = replace(self.ctx.doc, old, new, all, self.ctx.style)
            .map_err(|e| e.with_path(self.ctx.path))?;
        for splice in &replaced.splices {
            let header = match splice.range.is_empty() {
                true => (splice.range.start == 0).then_some(0),
                false => splice.range.clone().find(|&l| self.cells.is_header(l)),
            };
            if let Some(h) = header {
                return Err(self.refuse(format!(
                    "oldString takes in the header line of {}; a header is not source: replace text inside one cell at a time.",
                    self.name(self.cells.cell_of(h))
                )));
            }
        }
        self.notes.extend(replaced.notes.iter().cloned());
        self.take(Planned {
            applied: replaced.matches,
            splices: replaced.splices,
            notes: Vec::new(),
            from: None,
            prefixes_removed: 0,
            echoes_dropped: 0,
            relocated: Vec::new(),
        });
        Ok(())
    }

    /// Refuses the content of operations that holds a line of the notebook
    /// view that is no source, unless the operation is literal.
    fn refuse_view_text(&self, operations: &[Operation]) -> Result<()> {
        let contents: Vec<(String, &[String])> = operations
            .iter()
            .enumerate()
            .filter(|(_, op)| !op.literal)
            .map(|(i, op)| {
                (
                    format!("operation {} ({})", i + 1, op.kind),
                    &op.content[..],
                )
            })
            .collect();
        self.refuse_view_lines(
            &contents,
            "If such a line is meant as source, add \"literal\": true to the operation.",
        )
    }

    /// Refuses content (each with what it is and its lines) that holds a
    /// line of the notebook view that is no source: a cell's header, a line
    /// of outputs or metadata, or the line that says what the notebook is.
    fn refuse_view_lines(&self, contents: &[(String, &[String])], literal: &str) -> Result<()> {
        if !self.ctx.cleanup {
            return Ok(());
        }
        let headers: HashSet<&str> = self
            .cells
            .headers
            .iter()
            .map(|&h| self.cells.doc.line(h))
            .collect();
        let mark = MARK.trim_start();
        let extras: HashSet<String> = self
            .nb
            .cells
            .iter()
            .flat_map(extra)
            .chain([about(self.nb).trim_start()[mark.len()..]
                .trim_end()
                .to_owned()])
            .map(|row| format!("{mark}{row}"))
            .collect();
        let mut found = Vec::new();
        for (what, lines) in contents {
            for (k, line) in lines.iter().enumerate() {
                let body = prefix::parse(line).map_or(line.as_str(), |p| &line[p.len..]);
                let why = if headers.contains(body) {
                    "is a cell's header line as the view shows it"
                } else if extras.contains(line.trim_start()) {
                    "is a line the view shows of the notebook, or of a cell's outputs or metadata"
                } else {
                    continue;
                };
                found.push(format!("  {what}, content line {}: {line:?} {why}", k + 1));
            }
        }
        if found.is_empty() {
            return Ok(());
        }
        Err(Error::new(
            ErrorCode::AmbiguousEcho,
            format!(
                "Edit rejected, nothing written: content holds lines of the notebook view that are no cell's source, which are never written as source:\n{}\nSend the content without them: a header line is the cell itself (cell ops change cells), outputs and metadata are not edited as lines. {literal}",
                found.join("\n")
            ),
        )
        .with_path(self.ctx.path))
    }

    /// Checks that a line op stays inside one cell's source: no header in a
    /// range it takes, and no place before the first cell.
    fn check_lines(
        &self,
        number: usize,
        op: &Operation,
        first: usize,
        last: usize,
        place: Option<usize>,
    ) -> Result<()> {
        let kind = op.kind;
        let takes = !matches!(kind.action(), Action::Insert(_));
        if takes {
            if let Some(h) = (first..=last).find(|&l| self.cells.is_header(l)) {
                let cell = self.cells.cell_of(h);
                return Err(self.refuse(format!(
                    "operation {number} ({kind}) takes in line {}, the header of {}: a header is not source. Cite lines inside one cell; to change a whole cell use {}.",
                    h + 1,
                    self.name(cell),
                    match kind.action() {
                        Action::Delete => "delete_cell",
                        Action::Move | Action::Copy => "move_cell",
                        _ => "replace_cell or set_cell_type",
                    }
                )));
            }
            if first <= last && self.cells.cell_of(first) != self.cells.cell_of(last) {
                return Err(self.refuse(format!(
                    "operation {number} ({kind}) runs from {} into {}: cite the lines of one cell at a time.",
                    self.name(self.cells.cell_of(first)),
                    self.name(self.cells.cell_of(last))
                )));
            }
        }
        let at = match (kind.action(), op.place.as_ref(), place) {
            (Action::Insert(side), _, _) => Some((first, side)),
            (_, Some(p), Some(line)) => Some((line, p.side)),
            _ => None,
        };
        if let Some((line, Side::Before)) = at {
            if self.cells.headers.first() == Some(&line) {
                return Err(self.refuse(format!(
                    "operation {number} ({kind}) puts lines before line {}, the header of the first cell, where no cell is: insert_after that header for the start of its cell, or insert_cell_before for a new cell.",
                    line + 1
                )));
            }
        }
        Ok(())
    }

    /// The cell whose header is `line`, or the refusal of an op that cites
    /// another line as a cell.
    fn cell_at(&self, number: usize, kind: OpKind, line: usize, field: &str) -> Result<usize> {
        let cell = self.cells.cell_of(line);
        if self.cells.is_header(line) {
            return Ok(cell);
        }
        Err(self.refuse(format!(
            "operation {number} ({kind}): `{field}` names line {}, a line of the source of {}; a cell op cites a cell by its header line ({}).",
            line + 1,
            self.name(cell),
            current_ref(&self.cells.doc, self.cells.headers[cell], self.ctx.style)
        )))
    }

    fn cell_op(
        &mut self,
        number: usize,
        op: &'e Operation,
        line: usize,
        place: Option<usize>,
        doubtful: &mut Vec<(String, Vec<prefix::Doubt>)>,
    ) -> Result<()> {
        let kind = op.kind;
        let cell = self.cell_at(number, kind, line, "ref")?;
        self.applied += 1;
        let verdict = match self.ctx.cleanup && !op.literal && kind.shape().content {
            true => prefix::judge(&op.content, self.ctx.shown(), None),
            false => Verdict::Literal,
        };
        let content = match verdict {
            Verdict::Literal => op.content.join("\n"),
            Verdict::Clean(fixes) => {
                self.notes
                    .push(prefix::describe(&format!("operation {number}"), &fixes));
                prefix::clean(&op.content, &fixes).join("\n")
            }
            Verdict::Ambiguous(doubts) => {
                doubtful.push((format!("operation {number}'s content"), doubts));
                op.content.join("\n")
            }
        };
        let twice = |edit: &Self, what: &str| {
            edit.conflict(format!(
                "operation {number} ({kind}) {what} {}, which another operation of the batch also does; send one.",
                edit.name(cell)
            ))
        };
        match kind.action() {
            Action::Replace => {
                if self.sources.get(&cell).is_some_and(|s| *s != content) {
                    return Err(twice(self, "replaces the source of"));
                }
                self.sources.insert(cell, content);
            }
            Action::Delete => {
                self.deleted.insert(cell);
            }
            Action::Insert(side) => {
                let new = Placed::New {
                    kind: op.cell.cell_type.unwrap_or(CellType::Code),
                    source: content,
                };
                self.place((cell, side), number, new)?;
            }
            Action::Move => {
                let side = op.place.as_ref().map_or(Side::After, |p| p.side);
                let target = self.cell_at(number, kind, place.unwrap_or(0), side.name())?;
                let beside = match side {
                    Side::After => target + 1 == cell,
                    Side::Before => cell + 1 == target,
                };
                if target == cell || beside {
                    self.notes.push(format!(
                        "operation {number} (move_cell) leaves {} where it is: it is {} {} already.",
                        self.name(cell),
                        side.name(),
                        self.name(target)
                    ));
                    return Ok(());
                }
                if !self.moved.insert(cell) {
                    return Err(twice(self, "moves"));
                }
                self.place((target, side), number, Placed::Moved(cell))?;
            }
            Action::SetType => {
                let new = op.cell.cell_type.unwrap_or(CellType::Code);
                if self.types.get(&cell).is_some_and(|t| *t != new) {
                    return Err(twice(self, "retypes"));
                }
                if new == CellType::Code
                    && self.nb.cells[cell].value["attachments"]
                        .as_object()
                        .is_some_and(|a| !a.is_empty())
                {
                    return Err(self.refuse(format!(
                        "operation {number} (set_cell_type) would make {} a code cell, and it has attachments, which a code cell cannot hold: they would be lost. Remove them first (they are in the JSON a read with `raw` shows), or keep the cell's type.",
                        self.name(cell)
                    )));
                }
                self.types.insert(cell, new);
            }
            Action::SetMetadata => {
                if let Some(metadata) = &op.cell.metadata {
                    self.metadata.entry(cell).or_default().push(metadata);
                }
            }
            Action::Copy => {
                return Err(self.refuse(format!(
                    "operation {number} ({kind}) is not an op of notebooks."
                )))
            }
        }
        Ok(())
    }

    /// Puts a new or moved cell next to the cell `anchor` names.
    fn place(&mut self, anchor: Anchor, number: usize, placed: Placed) -> Result<()> {
        if let Some((other, _)) = self.placed.get(&anchor) {
            return Err(self.conflict(format!(
                "operations {other} and {number} both put a cell {} {}, and their order would be a guess; send the second in another edit, or put it next to the cell the first one goes next to (before the cell after it).",
                anchor.1.name(),
                self.name(anchor.0)
            )));
        }
        self.placed.insert(anchor, (number, placed));
        Ok(())
    }

    /// Refuses ops that contradict each other: a deleted cell changed or
    /// cited as a place, a moved cell cited as a place, a cell whose source
    /// is replaced also changed line by line.
    fn check_conflicts(&self) -> Result<()> {
        for &cell in &self.deleted {
            let changed = self.splices.contains_key(&cell)
                || self.sources.contains_key(&cell)
                || self.types.contains_key(&cell)
                || self.metadata.contains_key(&cell)
                || self.moved.contains(&cell);
            if changed {
                return Err(self.conflict(format!(
                    "{} is deleted by one operation and changed or moved by another.",
                    self.name(cell)
                )));
            }
        }
        for &cell in self.sources.keys() {
            if self.splices.contains_key(&cell) {
                return Err(self.conflict(format!(
                    "the source of {} is replaced whole by one operation and changed line by line by another.",
                    self.name(cell)
                )));
            }
        }
        let mut placed: Vec<(&Anchor, &usize)> =
            self.placed.iter().map(|(a, (n, _))| (a, n)).collect();
        placed.sort_by_key(|(_, n)| **n);
        for (&(anchor, side), number) in placed {
            if self.deleted.contains(&anchor) || self.moved.contains(&anchor) {
                return Err(self.conflict(format!(
                    "operation {number} puts a cell {} {}, which another operation {}.",
                    side.name(),
                    self.name(anchor),
                    if self.deleted.contains(&anchor) {
                        "deletes"
                    } else {
                        "moves"
                    }
                )));
            }
        }
        Ok(())
    }

    /// The new notebook, read back and described.
    fn finish(mut self) -> Result<Output> {
        self.check_conflicts()?;
        let nb = self.nb;
        let mut built = Built {
            written: Vec::new(),
            sources: Vec::new(),
            cleared: Vec::new(),
            ids: nb.cells.iter().filter_map(|c| c.id.clone()).collect(),
        };
        for cell in 0..nb.cells.len() {
            if let Some((_, placed)) = self.placed.get(&(cell, Side::Before)) {
                self.put(placed, &mut built)?;
            }
            if !self.deleted.contains(&cell) && !self.moved.contains(&cell) {
                self.keep(cell, &mut built)?;
            }
            if let Some((_, placed)) = self.placed.get(&(cell, Side::After)) {
                self.put(placed, &mut built)?;
            }
        }
        let Built {
            written,
            sources,
            cleared,
            ..
        } = built;
        let text = write::notebook(nb, &written).map_err(|why| {
            self.refuse(format!(
                "{why}. Edit its JSON instead: read the file with `raw: true` and send the edit with \"raw\": true."
            ))
        })?;
        if text == nb.text {
            return Err(Error::new(
                ErrorCode::NoChange,
                format!(
                    "No changes to apply: the operations leave the cells of {} exactly as they are.",
                    self.ctx.path
                ),
            )
            .with_path(self.ctx.path));
        }
        let new_nb = Notebook::parse(&text).map_err(|why| {
            self.refuse(format!(
                "the notebook would no longer be valid: {why}. The file is unchanged."
            ))
        })?;
        let rev = Document::from_string(text.clone()).rev().to_owned();
        let new_cells = Cells::of(&new_nb, &rev);
        for &cell in &cleared {
            self.notes.push(format!(
                "the outputs and execution count of {} were cleared, since its source changed (add \"keepOutputs\": true to keep them).",
                self.name(cell)
            ));
        }
        let mut retyped: Vec<(usize, CellType)> =
            self.types.iter().map(|(c, k)| (*c, *k)).collect();
        retyped.sort_by_key(|(c, _)| *c);
        for (cell, kind) in retyped {
            let old = &nb.cells[cell].value;
            if old["cell_type"] == "code"
                && old["outputs"].as_array().is_some_and(|o| !o.is_empty())
                && kind != CellType::Code
            {
                self.notes.push(format!(
                    "{} is a {} cell now, and its outputs went with its type.",
                    self.name(cell),
                    kind.name()
                ));
            }
        }
        let mut annotated: Vec<usize> = self.metadata.keys().copied().collect();
        annotated.sort_unstable();
        for cell in annotated {
            if let Some(at) = written
                .iter()
                .position(|w| matches!(w, Written::Kept(c, _) if *c == cell))
            {
                let shown: Vec<String> = extra(&new_nb.cells[at])
                    .into_iter()
                    .filter(|r| r.starts_with("metadata "))
                    .collect();
                self.notes.push(format!(
                    "the metadata of {} is now {}.",
                    self.name(cell),
                    shown
                        .first()
                        .map_or("empty".to_owned(), |m| m["metadata ".len()..].to_owned())
                ));
            }
        }
        let origins = self.origins(&sources, &new_cells);
        let hunks = hunks(
            &origins,
            self.cells.doc.line_count(),
            new_cells.doc.line_count(),
        );
        let map = LineMap::from_changes(
            self.cells.doc.line_count(),
            hunks.iter().map(|h| (h.old.clone(), h.new.clone())),
        );
        let ops = crate::error::plural(self.applied, "operation", "operations");
        let relocated = if self.cell_ops {
            Vec::new()
        } else {
            std::mem::take(&mut self.relocated)
        };
        let summary = success(SuccessInput {
            path: self.ctx.path,
            old: &self.cells.doc,
            new: &new_cells.doc,
            old_rev: self.ctx.rev(),
            new_rev: &rev,
            hunks: &hunks,
            headline: format!("Applied {ops} to {}", self.ctx.path),
            notes: &self.notes,
            relocated: &relocated,
            style: self.ctx.style,
        });
        Ok(Output {
            old: kept(&self.cells.doc, self.ctx.rev()),
            new: kept(&new_cells.doc, &rev),
            text,
            rev,
            map,
            outcome: EditOutcome {
                remapped: self.remapped_from.is_some(),
                prefixes_removed: self.prefixes_removed,
                echoes_dropped: self.echoes_dropped,
            },
            remapped_from: self.remapped_from,
            had_history: false,
            summary,
        })
    }

    /// A new or moved cell, where it goes.
    fn put(&self, placed: &Placed, built: &mut Built<'e>) -> Result<()> {
        match placed {
            Placed::New { kind, source } => {
                let id = self.nb.version.has_ids().then(|| fresh_id(&mut built.ids));
                built.sources.push(Source::New);
                built.written.push(Written::New {
                    kind: *kind,
                    id,
                    source: source.clone(),
                });
                Ok(())
            }
            Placed::Moved(cell) => self.keep(*cell, built),
        }
    }

    /// Cell `cell` of the file, as the request changes it.
    fn keep(&self, cell: usize, built: &mut Built<'e>) -> Result<()> {
        let old = &self.nb.cells[cell];
        let source = match (self.sources.get(&cell), self.splices.get(&cell)) {
            (Some(source), _) => Some(source.clone()),
            (None, Some(splices)) => Some(spliced(&old.source, splices)?),
            (None, None) => None,
        }
        .filter(|s| *s != old.source);
        let kind = self
            .types
            .get(&cell)
            .copied()
            .filter(|t| t.name() != old.kind);
        let clear_outputs = old.kind == "code"
            && kind.is_none()
            && source.is_some()
            && !self.keep_outputs
            && (old.value["outputs"]
                .as_array()
                .is_some_and(|o| !o.is_empty())
                || !old.value["execution_count"].is_null());
        if clear_outputs {
            built.cleared.push(cell);
        }
        built.sources.push(match &source {
            Some(_) if self.sources.contains_key(&cell) => Source::New,
            Some(_) => Source::Spliced(cell),
            None => Source::Old(cell),
        });
        built.written.push(Written::Kept(
            cell,
            Changed {
                source,
                kind,
                clear_outputs,
                metadata: self.metadata.get(&cell).cloned().unwrap_or_default(),
            },
        ));
        Ok(())
    }

    /// For each line of the new cells, the line of the old cells it is
    /// unchanged from, if any: a header whose text stayed, a source line no
    /// op touched.
    fn origins(&self, sources: &[Source], new_cells: &Cells) -> Vec<Option<usize>> {
        let mut origins = Vec::with_capacity(new_cells.doc.line_count());
        for (i, source) in sources.iter().enumerate() {
            let lines = new_cells.lines_of(i);
            let header_text = new_cells.doc.line(lines.start);
            match source {
                Source::New => origins.extend(lines.map(|_| None)),
                Source::Old(cell) | Source::Spliced(cell) => {
                    let old_header = self.cells.headers[*cell];
                    origins.push(
                        (self.cells.doc.line(old_header) == header_text).then_some(old_header),
                    );
                    let first = old_header + 1;
                    match source {
                        Source::Old(_) => {
                            origins.extend((0..lines.len() - 1).map(|k| Some(first + k)))
                        }
                        _ => {
                            let splices = &self.splices[cell];
                            let old_len = self.cells.lines_of(*cell).len() - 1;
                            origins.extend(
                                spliced_origins(splices, old_len)
                                    .into_iter()
                                    .map(|o| o.map(|k| first + k)),
                            );
                        }
                    }
                }
            }
            debug_assert_eq!(origins.len(), new_cells.lines_of(i).end);
        }
        origins
    }
}

/// The nearest line at or above `line` of kept cells that reads as a
/// header: the header of the cell `line` is in, unless a source line reads
/// as one.
fn header_above(doc: &Document, line: usize) -> Option<&str> {
    (0..=line)
        .rev()
        .map(|l| doc.line(l))
        .find(|l| looks_like_header(l))
}

/// Where the source of a cell in the new notebook comes from.
enum Source {
    /// The old cell's, unchanged.
    Old(usize),
    /// The old cell's, with the line ops' splices.
    Spliced(usize),
    /// New text.
    New,
}

/// The new notebook's cells as they are worked out.
struct Built<'r> {
    written: Vec<Written<'r>>,
    sources: Vec<Source>,
    /// The cells whose outputs are cleared.
    cleared: Vec<usize>,
    /// Every id a cell has.
    ids: HashSet<String>,
}

/// A source with line splices (in its own line numbers) applied, as a file
/// of that text would have them; a source that was empty gets the lines
/// with no line break after the last, as Jupyter keeps sources.
fn spliced(source: &str, splices: &[Splice]) -> Result<String> {
    let doc = source_lines(source);
    if doc.line_count() == 0 {
        return Ok(splices
            .iter()
            .flat_map(|s| s.lines.iter().map(String::as_str))
            .collect::<Vec<_>>()
            .join("\n"));
    }
    let new = doc.spliced(splices)?;
    Ok(new.into_file_text())
}

/// For each line of a source after `splices`, the line of the source
/// before (of `old_len` lines) it is unchanged from.
fn spliced_origins(splices: &[Splice], old_len: usize) -> Vec<Option<usize>> {
    let mut origins = Vec::new();
    let mut at = 0;
    for s in splices {
        origins.extend((at..s.range.start).map(Some));
        origins.extend(s.lines.iter().map(|_| None));
        at = s.range.end;
    }
    origins.extend((at..old_len).map(Some));
    origins
}

/// The changed regions between the old and the new cells: the lines of
/// the longest run of origins in order are unchanged, all else changed (a
/// moved cell's lines, or those of the cells it passed, whichever are
/// fewer, count as removed and added).
fn hunks(origins: &[Option<usize>], old_len: usize, new_len: usize) -> Vec<Hunk> {
    let kept = longest_rising(origins);
    let mut hunks = Vec::new();
    let (mut old_at, mut new_at) = (0, 0);
    for (new, old) in kept.into_iter().chain([(new_len, old_len)]) {
        if new > new_at || old > old_at {
            hunks.push(Hunk {
                old: old_at..old,
                new: new_at..new,
            });
        }
        old_at = old + 1;
        new_at = new + 1;
    }
    hunks
}

/// The longest subsequence of `origins` whose old lines rise, as pairs
/// (new line, old line).
fn longest_rising(origins: &[Option<usize>]) -> Vec<(usize, usize)> {
    let items: Vec<(usize, usize)> = origins
        .iter()
        .enumerate()
        .filter_map(|(new, old)| Some((new, (*old)?)))
        .collect();
    crate::diff::longest_increasing(&items)
}

/// A fresh cell id, as nbformat makes them (8 lowercase hex digits of a
/// random UUID), unique in the notebook.
fn fresh_id(ids: &mut HashSet<String>) -> String {
    loop {
        let mut random = [0u8; 4];
        let _ = getrandom::fill(&mut random);
        let id = hex::encode(random);
        if ids.insert(id.clone()) {
            return id;
        }
    }
}
