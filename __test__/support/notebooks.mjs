// Exercises a notebook through the real loader the way the corpus test
// proves it: reads that change no byte, edits of every kind on a spread of
// its cells, each followed by its reverse where one exists, every written
// version kept for nbformat to judge.
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { binding } from '../helpers.mjs'
import { nbformatProblems } from './nbformat.mjs'

const { Hashline } = binding

/** Cells of a notebook the exercise edits, at most: spread over the notebook. */
const CELLS = 8

/**
 * The lines of a lean view: number, ref and text of each, and whether it is a
 * cell's header.
 * @param {string} view
 */
export function viewLines(view) {
  const lines = []
  for (const row of view.split('\n')) {
    const m = /^(\d+)([a-z]{2}) (.*)$/.exec(row)
    if (m) lines.push({ line: Number(m[1]), ref: `${m[1]}${m[2]}`, text: m[3], header: /^# %% \[(code|markdown|raw)\] (id=|cell \d+$)/.test(m[3]) })
  }
  return lines
}

/**
 * Whether two notebook files hold the same notebook, each source taken as
 * its text whether it is a list of lines or one string.
 * @param {Buffer} a @param {Buffer} b
 */
function sameNotebook(a, b) {
  const text = (/** @type {Buffer} */ bytes) => {
    const nb = JSON.parse(bytes.toString('utf8'))
    for (const cell of nb.cells) cell.source = [cell.source].flat().join('')
    return JSON.stringify(nb)
  }
  return text(a) === text(b)
}

/**
 * Edits a copy of `source` in `dir` again and again; returns what broke a
 * promise (`failures`), the files written (`written`, for nbformat to judge)
 * and how many edits ran.
 * @param {string} source a notebook nbformat accepts
 * @param {string} dir a scratch folder
 * @param {boolean} [layoutChanges] a changed source is written in nbformat's layout where the file has another (one string, a list on one line), so a reverse gives back the same notebook but not the same bytes
 */
export function exercise(source, dir, layoutChanges = false) {
  const original = readFileSync(source)
  const file = join(dir, 'n.ipynb')
  copyFileSync(source, file)
  const hl = new Hashline({ root: dir })
  const failures = []
  const written = []
  let edits = 0
  const bytes = () => readFileSync(file)
  const same = () => Buffer.compare(bytes(), original) === 0
  const keep = (what) => {
    const copy = join(dir, `written-${written.length}.ipynb`)
    writeFileSync(copy, bytes())
    written.push({ copy, what })
  }
  // Each edit names the REV its refs come from, as the view showed it: the
  // exercise brings the file back to versions it had, whose refs would
  // otherwise fit more than one of them.
  const edit = (what, request) => {
    edits++
    try {
      return hl.edit('n.ipynb', { rev, ...request })
    } catch (err) {
      failures.push(`${what}: ${err.code}: ${err.message.split('\n')[0]}`)
      return undefined
    }
  }
  /** Runs `forward`, keeps what it wrote, then `back` and checks that the bytes came back. */
  const roundTrip = (what, forward, back) => {
    if (!edit(what, forward())) return
    keep(what)
    const request = back()
    if (request && edit(`${what}, reversed`, request) && !same() && !(layoutChanges && sameNotebook(bytes(), original))) {
      failures.push(`${what}: its reverse did not give the bytes back`)
    }
    if (!same()) copyFileSync(source, file)
  }
  let rev = ''
  const read = () => {
    const view = hl.read('n.ipynb')
    rev = view.rev
    return viewLines(view.text)
  }

  hl.read('n.ipynb', { raw: true })
  let lines = read()
  if (!same()) failures.push('a read changed the file')
  const headers = lines.filter((l) => l.header)
  const step = Math.max(1, Math.ceil(headers.length / CELLS))
  const picked = headers.filter((_, i) => i % step === 0).map((h) => h.text)
  for (const text of picked) {
    lines = read()
    const at = () => lines.findIndex((l) => l.text === text)
    const headerOf = () => lines[at()]
    const firstLine = () => lines[at() + 1]
    const hasSource = () => firstLine() !== undefined && !firstLine().header
    if (hasSource()) {
      const { line, text: old } = firstLine()
      roundTrip(
        `${text}: a line replaced`,
        () => ({ keepOutputs: true, operations: [{ op: 'replace', ref: firstLine().ref, content: `${old} # changed` }] }),
        () => ({ keepOutputs: true, literal: true, operations: [{ op: 'replace', ref: (lines = read()).find((l) => l.line === line).ref, content: [old] }] }),
      )
      lines = read()
      roundTrip(
        `${text}: a line inserted`,
        () => ({ keepOutputs: true, operations: [{ op: 'insert_after', ref: firstLine().ref, content: 'inserted = "é 👋"' }] }),
        () => ({ keepOutputs: true, operations: [{ op: 'delete', ref: (lines = read()).find((l) => l.line === line + 1).ref }] }),
      )
    }
    lines = read()
    roundTrip(
      `${text}: a cell inserted after`,
      () => ({ operations: [{ op: 'insert_cell_after', ref: headerOf().ref, cellType: 'markdown', content: '## Inserted\n\nText é 👋' }] }),
      () => {
        lines = read()
        const next = lines.slice(at() + 1).find((l) => l.header)
        return { operations: [{ op: 'delete_cell', ref: next.ref }] }
      },
    )
    lines = read()
    roundTrip(
      `${text}: metadata set`,
      () => ({ operations: [{ op: 'set_cell_metadata', ref: headerOf().ref, metadata: { 'hashline.tags': ['é'], 'hashline.n': 1.5 } }] }),
      () => ({ operations: [{ op: 'set_cell_metadata', ref: (lines = read())[at()].ref, metadata: { 'hashline.tags': null, 'hashline.n': null } }] }),
    )
    lines = read()
    const last = lines.filter((l) => l.header).at(-1)
    const previous = lines.slice(0, at()).filter((l) => l.header).at(-1)
    if (last.text !== text) {
      roundTrip(
        `${text}: moved to the end`,
        () => ({ operations: [{ op: 'move_cell', ref: headerOf().ref, after: last.ref }] }),
        () => {
          // The moved cell is the last now; without ids its header says its new number.
          lines = read()
          const moved = lines.filter((l) => l.header).at(-1)
          const back = previous ? { after: lines.find((l) => l.text === previous.text).ref } : { before: lines.find((l) => l.header).ref }
          return { operations: [{ op: 'move_cell', ref: moved.ref, ...back }] }
        },
      )
    }
    // One way only: a changed code cell loses its outputs, a retyped one its type's members.
    lines = read()
    if (hasSource()) {
      if (edit(`${text}: changed, outputs cleared`, { operations: [{ op: 'replace', ref: firstLine().ref, content: 'value = 1' }] })) keep(`${text}: changed`)
      copyFileSync(source, file)
    }
    lines = read()
    const type = /\[(\w+)\]/.exec(text)?.[1]
    const attachments = JSON.parse(original.toString('utf8')).cells.some((c) => c.attachments)
    if (!attachments) {
      const to = type === 'code' ? 'markdown' : 'code'
      if (edit(`${text}: made ${to}`, { operations: [{ op: 'set_cell_type', ref: headerOf().ref, cellType: to }] })) keep(`${text}: made ${to}`)
      copyFileSync(source, file)
    }
  }
  return { failures, written, edits }
}

/**
 * The notebook change the end-to-end suites script through a host: in the
 * fixture `name`, the first line of the first code cell with outputs gets a
 * comment and a markdown cell goes after that cell, in one edit built from
 * the lean view the host's read gave; `check` judges the file afterwards.
 * @param {string} name a notebook of __test__/fixtures/notebooks
 * @param {string} filePath the name the host's project gives it
 */
export function notebookChange(name, filePath) {
  const text = readFileSync(new URL(`../fixtures/notebooks/${name}`, import.meta.url), 'utf8')
  const cells = JSON.parse(text).cells
  const at = cells.findIndex((c) => c.cell_type === 'code' && c.outputs.length > 0)
  const first = [cells[at].source].flat().join('').split('\n')[0]
  const note = 'The cell above was checked.'
  return {
    text,
    cell: cells[at],
    /** @param {string | undefined} view */
    edit(view) {
      const lines = viewLines(view ?? '')
      return {
        filePath,
        operations: [
          { op: 'replace', ref: lines.find((l) => l.text === first)?.ref, content: `${first}  # checked` },
          { op: 'insert_cell_after', ref: lines.filter((l) => l.header)[at]?.ref, cellType: 'markdown', content: note },
        ],
      }
    },
    /**
     * The changed cell's outputs are cleared, the new cell has an id where
     * the notebook's cells have them, and nbformat accepts the file.
     * @param {import('ava').ExecutionContext} t
     * @param {string} file
     */
    check(t, file) {
      const after = JSON.parse(readFileSync(file, 'utf8')).cells
      t.is([after[at].source].flat().join('').split('\n')[0], `${first}  # checked`)
      t.deepEqual(after[at].outputs, [])
      t.is(after[at].execution_count, null)
      const { id, ...added } = after[at + 1]
      t.deepEqual(added, { cell_type: 'markdown', metadata: {}, source: [note] })
      if ('id' in cells[at]) t.regex(id, /^[0-9a-f]{8}$/)
      else t.is(id, undefined)
      t.deepEqual(nbformatProblems([file]), [])
    },
  }
}
