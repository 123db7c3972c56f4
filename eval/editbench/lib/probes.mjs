// @ts-check
// The ways content reaches a file through this project, driven as a host
// drives them, for the clean-up measure: an edit through `applyEdits` on
// text (no memory, full refs), an edit through a `Hashline` session that
// read the file in the lean view (its refs and REV), and a whole-file write
// through the OpenCode plugin's `write` hook (after the plugin tagged a read
// of the file, or for a new file) and through the engine's text function
// (`stripViewPrefixes`). Each says whether what landed is what was sent.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { binding } from '../appliers/hashline.mjs'
import { applyUnified, diffLines, joinLines, splitLines } from './diff.mjs'
import { contentString } from './formats.mjs'
import { pairTag } from './lean.mjs'
import { hashlineView } from './views.mjs'

/**
 * @typedef {{ op: string, first?: number, last?: number, lines: string[], before?: string, after?: string }} NaturalOp
 *   one hunk as a model writes it first: 1-based lines of the old text, the new lines, the neighbours of its range
 * @typedef {{ outcome: 'exact' | 'refused' | 'altered', code?: string, message?: string, text?: string, output?: string }} Landing
 *   exact: the file is what was meant; refused: nothing written, with the error's code; altered: written, and not what
 *   was meant (`text` says where)
 * @typedef {{ echo?: 'full' | 'lean', boundary?: { op: number, side: 'before' | 'after' }, above?: string }} Slip a model's slip in one
 *   request: view prefixes, a neighbour at one edge, a line of the view (its header) copied above the first content written
 */

/** Whether the binding takes the `literal` flag (the request format lists it). */
export const literalFlag = binding.requestFormat().requestFields.some((/** @type {{ name: string }} */ f) => f.name === 'literal')

/**
 * The operations a model writes for a change when it sends each hunk as
 * it is: a range replaced or deleted, lines inserted after the line above
 * them (prepended at the top), never re-expressed to dodge a clean-up.
 * @param {string[]} oldLines @param {string[]} newLines
 * @returns {NaturalOp[]}
 */
export function naturalOps(oldLines, newLines) {
  return diffLines(oldLines, newLines).map((h) => {
    const lines = newLines.slice(h.newStart, h.newStart + h.newLen)
    const a = h.oldStart
    if (h.oldLen > 0) return { op: lines.length > 0 ? 'replace' : 'delete', first: a + 1, last: a + h.oldLen, lines, before: oldLines[a - 1], after: oldLines[a + h.oldLen] }
    if (a === 0) return { op: 'prepend', lines, after: oldLines[0] }
    return { op: 'insert_after', first: a, last: a, lines, before: oldLines[a - 1], after: oldLines[a] }
  })
}

/** Where the content of an op lands, 1-based: the number its first line gets. */
const contentStart = (/** @type {NaturalOp} */ op) => (op.op === 'insert_after' ? (op.first ?? 0) + 1 : op.first ?? 1)

/**
 * The request of `ops`, refs by `ref(n)`, with a slip: view prefixes on
 * every content line (`prefix(n)` gives the one of line n, as the model
 * copies it from the view), or one boundary echo.
 * @param {NaturalOp[]} ops @param {(n: number) => string} ref @param {Slip} slip @param {(n: number) => string} prefix
 */
export function requestOf(ops, ref, slip = {}, prefix = () => '') {
  const above = slip.above === undefined ? -1 : ops.findIndex((op) => op.op !== 'delete')
  return {
    operations: ops.map((op, i) => {
      /** @type {Record<string, string>} */
      const o = { op: op.op }
      if (op.first !== undefined) o.ref = ref(op.first)
      if (op.last !== undefined && op.last !== op.first && (op.op === 'replace' || op.op === 'delete')) o.through = ref(op.last)
      if (op.op === 'delete') return o
      let lines = op.lines
      if (slip.boundary?.op === i) lines = slip.boundary.side === 'before' ? [/** @type {string} */ (op.before), ...lines] : [...lines, /** @type {string} */ (op.after)]
      if (slip.echo) lines = lines.map((l, k) => prefix(contentStart(op) + k) + l)
      if (i === above) lines = [/** @type {string} */ (slip.above), ...lines]
      o.content = contentString(lines)
      return o
    }),
  }
}

/**
 * Each line a change replaces with another text, alone: the line's number
 * (1-based, in the old text) and its new text, as a model sends one changed
 * line with the prefix the view showed for the line it replaces.
 * @param {NaturalOp[]} ops @param {string[]} oldLines
 * @returns {Array<{ line: number, text: string }>}
 */
export function changedLines(ops, oldLines) {
  return ops.flatMap((op) => {
    if (op.op !== 'replace' || op.first === undefined || op.last === undefined) return []
    const first = op.first
    const kept = Math.min(op.last - first + 1, op.lines.length)
    return op.lines
      .slice(0, kept)
      .map((text, k) => ({ line: first + k, text }))
      .filter(({ line, text }) => oldLines[line - 1] !== text)
  })
}

/**
 * Each deletion of a change with a line on both sides, sent as a model
 * sometimes sends one: its range replaced by the two lines around it.
 * @param {NaturalOp[]} ops
 * @returns {Array<{ first: number, last: number, lines: string[] }>}
 */
export function deletionsAsNeighbours(ops) {
  return ops
    .filter((op) => op.op === 'delete' && op.first !== undefined && op.last !== undefined && op.before !== undefined && op.after !== undefined)
    .map((op) => ({ first: /** @type {number} */ (op.first), last: /** @type {number} */ (op.last), lines: [/** @type {string} */ (op.before), /** @type {string} */ (op.after)] }))
}

/** The boundary sites of a batch: each side of each op that writes lines and has a neighbour there. */
export function boundarySites(/** @type {NaturalOp[]} */ ops) {
  return ops.flatMap((op, i) => (op.op === 'delete' ? [] : /** @type {const} */ (['before', 'after']).filter((s) => op[s] !== undefined).map((side) => ({ op: i, side }))))
}

/** @param {unknown} err @returns {Landing} */
function refusal(err) {
  const e = /** @type {{ code?: string, message?: string }} */ (err)
  if (!e.code) throw err
  return { outcome: 'refused', code: e.code, message: e.message ?? '' }
}

/** @param {string} got @param {string} want @param {string} output @returns {Landing} */
function judge(got, want, output) {
  if (got === want) return { outcome: 'exact', output }
  const a = want.split('\n')
  const b = got.split('\n')
  let i = 0
  while (i < a.length && a[i] === b[i]) i++
  return { outcome: 'altered', output, text: `line ${i + 1}: ${JSON.stringify(b[i] ?? '(none)')} where ${JSON.stringify(a[i] ?? '(none)')} was meant` }
}

/**
 * A file held in memory and the full refs of its view: `applyEdits`, no memory.
 */
export class Memoryless {
  /** @param {string} path @param {string} text */
  constructor(path, text) {
    this.path = path
    this.text = text
    const { refs } = hashlineView(binding, text)
    this.refs = refs
  }
  /** @param {number} n */
  ref(n) {
    return this.refs[n]
  }
  /** The full view prefix of line n, as an echo copies it (a made-up one past the end). @param {number} n */
  prefix(n) {
    return `${this.refs[n] ?? `${n}#000#000`}|`
  }
  /** @param {any} request @param {string} want */
  send(request, want) {
    try {
      const r = binding.applyEdits(this.text, request, { path: this.path })
      return judge(r.text, want, r.output)
    } catch (err) {
      return refusal(err)
    }
  }
}

/**
 * A `Hashline` session in the lean view that read the whole file: edits
 * cite its lean refs and its REV. Requests are planned, not written, so one
 * read serves many of them; the plan's diff gives the text it would write.
 */
export class LeanSession {
  /** @param {string} path the file's path in the project @param {string} text */
  constructor(path, text) {
    this.dir = mkdtempSync(join(tmpdir(), 'editbench-probe-'))
    this.path = path
    this.text = text
    mkdirSync(dirname(join(this.dir, path)), { recursive: true })
    writeFileSync(join(this.dir, path), text)
    this.session = new binding.Hashline({ root: this.dir, view: 'lean' })
    const view = this.session.read(path, { limit: 1_000_000 })
    this.rev = view.rev
    /** The view's header line (`path REV:… lines 1-n of n`), as a model copies it with the lines below it. */
    this.header = view.text.split('\n')[0]
    /** @type {string[]} */
    this.tags = []
    for (const line of view.text.split('\n')) {
      const m = /^(\d+)([a-z]{2})[ \t]/.exec(line)
      if (m) this.tags[Number(m[1])] = m[2]
    }
  }
  /** @param {number} n */
  ref(n) {
    return `${n}${this.tags[n]}`
  }
  /** The lean view prefix of line n, as an echo copies it (past the end, a tag in the view's shape). @param {number} n */
  prefix(n) {
    return `${n}${this.tags[n] ?? pairTag(n, '')} `
  }
  /** @param {any} request @param {string} want */
  send(request, want) {
    try {
      const plan = this.session.plan(this.path, { ...request, rev: this.rev })
      return judge(applyUnified(this.text, plan.diff), want, plan.output)
    } catch (err) {
      return refusal(err)
    }
  }
  close() {
    rmSync(this.dir, { recursive: true, force: true })
  }
}

/** OpenCode's read output for a whole file, as 1.18 prints it: what the plugin tags. */
function openCodeRead(/** @type {string} */ file, /** @type {string} */ text) {
  const lines = splitLines(text)
  return [`<path>${file}</path>`, '<type>file</type>', '<content>', ...lines.map((l, i) => `${i + 1}: ${l}`), '', `(End of file - total ${lines.length} lines)`, '</content>'].join('\n')
}

/**
 * The OpenCode plugin's hooks on a scratch project: a tagged read of a
 * file, and the `write` hook's treatment of a write's content.
 */
export class PluginWrites {
  static async open() {
    const root = mkdtempSync(join(tmpdir(), 'editbench-plugin-'))
    const plugin = (await import('../../../opencode/plugin.mjs')).default
    const hooks = await plugin.server(/** @type {any} */ ({ directory: root, worktree: root }))
    return new PluginWrites(root, hooks)
  }
  /** @param {string} root @param {any} hooks */
  constructor(root, hooks) {
    this.root = root
    this.hooks = hooks
    this.calls = 0
  }
  /**
   * Reads `text` as the file `path` through OpenCode's read and the plugin's
   * tagging; returns the view the model saw.
   * @param {string} path @param {string} text
   */
  async read(path, text) {
    const file = join(this.root, path)
    mkdirSync(dirname(file), { recursive: true })
    writeFileSync(file, text)
    const out = { title: path, output: openCodeRead(file, text), metadata: {} }
    await this.hooks['tool.execute.after']({ tool: 'read', sessionID: 'editbench', callID: `r${this.calls++}`, args: { filePath: file } }, out)
    return out.output
  }
  /**
   * What the `write` hook leaves of `content` for the file `path`
   * (`literal`: the way a write says "exactly this", once the plugin has one).
   * @param {string} path @param {string} content @param {string} want @param {boolean} [literal]
   * @returns {Promise<Landing>}
   */
  async write(path, content, want, literal = false) {
    const args = { filePath: join(this.root, path), content, ...(literal ? { literal: true } : {}) }
    try {
      await this.hooks['tool.execute.before']({ tool: 'write', sessionID: 'editbench', callID: `w${this.calls++}` }, { args })
    } catch (err) {
      // Whatever a hook throws, OpenCode shows the model instead of writing.
      const e = /** @type {{ code?: string, message?: string }} */ (err)
      return { outcome: 'refused', code: e.code ?? 'THROWN', message: e.message ?? String(err) }
    }
    return judge(args.content, want, '')
  }
  close() {
    rmSync(this.root, { recursive: true, force: true })
  }
}

/**
 * A new version of a file written with view prefixes, as a model that
 * copies the view writes it: a line it kept carries its own prefix (its old
 * number and tag), a changed line the prefix of the line it replaces, and a
 * line it added the number after the one before it, with the prefix the
 * view showed for that number (a line with other text).
 * @param {string[]} oldLines @param {string[]} newLines @param {(n: number) => string} prefix
 */
export function echoedWrite(oldLines, newLines, prefix) {
  const out = []
  let last = 0
  let i = 0
  let j = 0
  const keep = (/** @type {number} */ upto) => {
    while (j < upto) {
      out.push(prefix(i + 1) + newLines[j])
      last = i + 1
      i++
      j++
    }
  }
  for (const h of diffLines(oldLines, newLines)) {
    keep(h.newStart)
    for (let k = 0; k < h.newLen; k++) {
      if (k < h.oldLen) {
        last = h.oldStart + k + 1
        out.push(prefix(last) + newLines[h.newStart + k])
      } else out.push(prefix(++last) + newLines[h.newStart + k])
    }
    i = h.oldStart + h.oldLen
    j = h.newStart + h.newLen
  }
  keep(newLines.length)
  return joinLines(out)
}

/** Whether the binding still offers its text function for whole-file writes. */
export const hasStripText = typeof binding.stripViewPrefixes === 'function'

/** The engine's text function for whole-file writes. @param {string} content @param {string} want @returns {Landing} */
export function stripText(content, want) {
  try {
    return judge(binding.stripViewPrefixes(content).text, want, '')
  } catch (err) {
    return refusal(err)
  }
}

/**
 * Each line of `lines` inserted on its own (one op each, batched) after a
 * line of `host` whose neighbours differ from it, so that only a clean-up
 * of the line itself can change it. A refused batch is split until each
 * refused line is found. Calls `tally(index, landing)` once per line.
 * @param {{ ref(n: number): string, send(request: any, want: string): Landing, text: string }} engine on `host`
 * @param {string[]} lines @param {import('./rng.mjs').Rng} r @param {(i: number, l: Landing) => void} tally
 */
export function insertEach(engine, lines, r, tally) {
  const host = splitLines(engine.text)
  const n = host.length
  const same = (/** @type {string | undefined} */ a, /** @type {string} */ b) => a !== undefined && a.trim() === b.trim()
  /** @type {Array<{ i: number, at: number }>} */
  let pending = []
  /** @type {Set<number>} */
  let used = new Set()
  const flush = () => {
    if (pending.length > 0) sendPlaced(engine, host, pending, lines, tally)
    pending = []
    used = new Set()
  }
  lines.forEach((line, i) => {
    for (let tries = 0; tries < 20; tries++) {
      const at = 1 + r.int(n)
      if (used.has(at) || same(host[at - 1], line) || same(host[at], line)) continue
      used.add(at)
      pending.push({ i, at })
      break
    }
    if (pending.length >= Math.max(1, Math.floor(n / 3))) flush()
  })
  flush()
}

/**
 * @param {{ ref(n: number): string, send(request: any, want: string): Landing }} engine
 * @param {string[]} host @param {Array<{ i: number, at: number }>} placed @param {string[]} lines @param {(i: number, l: Landing) => void} tally
 */
function sendPlaced(engine, host, placed, lines, tally) {
  const sorted = [...placed].sort((a, b) => a.at - b.at)
  const want = []
  let k = 0
  for (let at = 1; at <= host.length; at++) {
    want.push(host[at - 1])
    while (k < sorted.length && sorted[k].at === at) want.push(lines[sorted[k++].i])
  }
  const request = { operations: sorted.map((p) => ({ op: 'insert_after', ref: engine.ref(p.at), content: lines[p.i] })) }
  const got = engine.send(request, joinLines(want))
  if (got.outcome === 'exact') {
    for (const p of sorted) tally(p.i, got)
    return
  }
  if (sorted.length === 1) {
    tally(sorted[0].i, got)
    return
  }
  const mid = sorted.length >> 1
  sendPlaced(engine, host, sorted.slice(0, mid), lines, tally)
  sendPlaced(engine, host, sorted.slice(mid), lines, tally)
}

/** Keeps a landing's text only as long as a report needs it. */
export const brief = (/** @type {Landing} */ l) => ({ outcome: l.outcome, code: l.code })
