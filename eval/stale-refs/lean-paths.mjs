// @ts-check
// A lean-ref trial through each path that may know the lines a view showed: the
// session that read the file, a later process sharing its store folder, a
// restarted engine with nothing but the file (and a REV), and `applyEdits`
// on text. Each path runs from scratch on its own copy of the file.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { applyUnified } from '../editbench/lib/diff.mjs'
import { pairTag } from '../editbench/lib/lean.mjs'
import { joinLines } from './trials.mjs'

/** @type {typeof import('../../index.d.ts')} */
const binding = createRequire(import.meta.url)('../../index.js')

/**
 * @typedef {import('./lean-trials.mjs').LeanTrial} LeanTrial
 * @typedef {import('./schemes.mjs').Op} Op
 * @typedef {import('./engine.mjs').Outcome} Outcome
 * @typedef {'session' | 'store' | 'restart' | 'apply'} Family
 * @typedef {'read' | 'current' | 'none'} RevChoice
 * @typedef {{ name: string, family: Family, rev: RevChoice, label: string }} LeanPath
 */

const FAMILY_LABELS = {
  session: 'the session that read the file',
  store: 'a later process sharing the store folder',
  restart: 'a restarted engine (no store)',
  apply: '`applyEdits` on the text (no memory)',
}
const REV_LABELS = { read: 'REV of the read', current: 'REV of the current text', none: 'no REV' }

/** @type {LeanPath[]} */
export const LEAN_PATHS = /** @type {Family[]} */ (['session', 'store', 'restart', 'apply']).flatMap((family) =>
  /** @type {RevChoice[]} */ (['read', 'current', 'none']).map((rev) => ({ name: `${family}/${rev}`, family, rev, label: `${FAMILY_LABELS[family]}, ${REV_LABELS[rev]}` })),
)

/** @type {WeakMap<readonly string[], string[]>} the lean tag of every line of a text, computed once */
const tagCache = new WeakMap()
/** The lean tags of `lines`, by 0-based index. @param {readonly string[]} lines */
function tagsOf(lines) {
  let tags = tagCache.get(lines)
  if (!tags) tagCache.set(lines, (tags = lines.map((l, i) => pairTag(i + 1, l))))
  return tags
}
/** The lean ref of line `i` (0-based) of `lines`: what the model copied from the read. */
const leanRef = (/** @type {readonly string[]} */ lines, /** @type {number} */ i) => `${i + 1}${tagsOf(lines)[i]}`

/** @param {Op} op @param {(i: number) => string} ref */
function operation(op, ref) {
  /** @type {import('../../index.d.ts').Operation} */
  const out = { op: op.op, ref: ref(op.first) }
  if (op.op !== 'insert_after' && op.last > op.first) out.through = ref(op.last)
  if (op.op !== 'delete') out.content = op.content
  return out
}

/** @param {unknown} err @returns {Outcome} */
function refused(err) {
  const e = /** @type {{ code?: string, message?: string }} */ (err)
  if (!e.code) throw err
  return { applied: false, code: e.code, message: e.message ?? '' }
}

/** @param {string} text @returns {Outcome} */
function written(text) {
  const lines = text.split('\n')
  if (text.endsWith('\n')) lines.pop()
  return { applied: true, lines, text }
}

export class LeanRunner {
  /** @param {string} dir a scratch folder of its own */
  constructor(dir) {
    this.dir = dir
    mkdirSync(dir, { recursive: true })
  }

  /** @param {LeanTrial} t @param {LeanPath} path @returns {Outcome} */
  run(t, path) {
    const readText = joinLines(t.lines, t.finalNewline)
    const currentText = joinLines(t.current, t.finalNewline)
    const request = { operations: [operation(t.op, (i) => leanRef(t.lines, i))] }
    const readRev = binding.rev(readText)
    const currentRev = binding.rev(currentText)
    const revOf = (/** @type {string} */ read) => (path.rev === 'read' ? { rev: read } : path.rev === 'current' ? { rev: currentRev } : {})

    if (path.family === 'apply') {
      try {
        return written(binding.applyEdits(currentText, { ...request, ...revOf(readRev) }).text)
      } catch (err) {
        return refused(err)
      }
    }

    const root = mkdtempSync(join(this.dir, 'root-'))
    const storeDir = path.family === 'store' ? mkdtempSync(join(this.dir, 'store-')) : undefined
    try {
      const name = t.file.path.split('/').pop() ?? 'file'
      const file = join(root, name)
      writeFileSync(file, readText)
      const first = new binding.Hashline({ root, view: 'lean', storeDir })
      const view = first.read(name, { offset: t.shown[0] + 1, limit: t.shown[1] - t.shown[0] + 1 })
      checkTags(t, view.text)
      if (t.earlier) {
        first.edit(name, { operations: [operation(t.earlier, (i) => leanRef(t.lines, i))], rev: view.rev })
        if (readFileSync(file, 'utf8') !== currentText) throw new Error(`trial ${t.id}: the earlier edit gave another file than the trial's`)
      } else writeFileSync(file, currentText)
      const engine = path.family === 'session' ? first : new binding.Hashline({ root, view: 'lean', storeDir })
      // The later partial read: in the restarted engine's case, the process
      // before it made it, and all that is left of it is the REV.
      const reader = path.family === 'restart' ? first : engine
      if (t.later) {
        const later = reader.read(name, { offset: t.later[0] + 1, limit: t.later[1] - t.later[0] + 1 })
        if (later.rev !== currentRev) throw new Error(`trial ${t.id}: the later read shows REV ${later.rev}, not the current text's ${currentRev}`)
      }
      // Planned, not written: the plan is what an edit writes, and its diff gives the text.
      let plan
      try {
        plan = engine.plan(name, { ...request, ...revOf(view.rev) })
      } catch (err) {
        return refused(err)
      }
      const text = applyUnified(currentText, plan.diff)
      return written(t.finalNewline ? text : text.replace(/\n$/, ''))
    } finally {
      rmSync(root, { recursive: true, force: true })
      if (storeDir) rmSync(storeDir, { recursive: true, force: true })
    }
  }
}

/**
 * The lines of the changed text (0-based) that the result of the trial's
 * earlier edit showed the model (the changed lines and their neighbours,
 * with their fresh refs), as the engine printed them; empty without one.
 * @param {LeanTrial} t @param {string} dir a scratch folder
 * @returns {Set<number>}
 */
export function earlierResultShows(t, dir) {
  if (!t.earlier) return new Set()
  const root = mkdtempSync(join(dir, 'result-'))
  try {
    const name = t.file.path.split('/').pop() ?? 'file'
    writeFileSync(join(root, name), joinLines(t.lines, t.finalNewline))
    const hl = new binding.Hashline({ root, view: 'lean' })
    const view = hl.read(name, { offset: t.shown[0] + 1, limit: t.shown[1] - t.shown[0] + 1 })
    const { output } = hl.edit(name, { operations: [operation(t.earlier, (i) => leanRef(t.lines, i))], rev: view.rev })
    const shown = new Set()
    for (const line of output.split('\n')) {
      const m = /^[ +](\d+)[a-z]{2}[ \t]/.exec(line)
      if (m) shown.add(Number(m[1]) - 1)
    }
    return shown
  } finally {
    rmSync(root, { recursive: true, force: true })
  }
}

/** The tags the engine's lean view shows must be the ones the trial computes. @param {LeanTrial} t @param {string} view */
function checkTags(t, view) {
  let count = 0
  for (const line of view.split('\n')) {
    const m = /^(\d+)([a-z]{2})[ \t]/.exec(line)
    if (!m) continue
    count++
    const i = Number(m[1]) - 1
    const tag = tagsOf(t.lines)[i]
    if (m[2] !== tag) throw new Error(`trial ${t.id}: the engine shows tag ${m[2]} on line ${i + 1} where the trial computes ${tag}`)
  }
  if (count !== t.shown[1] - t.shown[0] + 1) throw new Error(`trial ${t.id}: the view showed ${count} lines, not ${t.shown[1] - t.shown[0] + 1}`)
}
