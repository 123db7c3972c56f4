// @ts-check
// A trial through the real engine: a fresh `Hashline` session on a scratch
// copy of the file, a `read`, the change (written to disk, or an earlier
// edit through the same session), then the edit with the refs of the read.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { engineRef } from './schemes.mjs'
import { joinLines } from './trials.mjs'

/** @type {typeof import('../../index.d.ts')} */
const binding = createRequire(import.meta.url)('../../index.js')

/**
 * @typedef {import('./trials.mjs').Trial} Trial
 * @typedef {import('./schemes.mjs').Op} Op
 * @typedef {{ name: string, label: string, rev: boolean, anchors: boolean }} EngineVariant
 * @typedef {{ applied: true, lines: string[], text: string } | { applied: false, code: string, message: string }} Outcome
 */

/** @type {EngineVariant[]} */
export const engineVariants = [
  { name: 'engine', label: 'this engine (refs + REV)', rev: true, anchors: true },
  { name: 'engine-norev', label: 'this engine, no REV given', rev: false, anchors: true },
  { name: 'engine-hashonly', label: 'this engine, refs without ANCHOR, no REV', rev: false, anchors: false },
]

/** @param {string} viewText @returns {Map<number, string>} */
function refsOf(viewText) {
  const refs = new Map()
  for (const line of viewText.split('\n')) {
    const m = /^(\d+)#([0-9A-F]{3})#([0-9A-F]{3})\|/.exec(line)
    if (m) refs.set(Number(m[1]), `${m[1]}#${m[2]}#${m[3]}`)
  }
  return refs
}

/** @param {Op} op @param {(i: number) => string} ref */
function operation(op, ref) {
  /** @type {import('../../index.d.ts').Operation} */
  const out = { op: op.op, ref: ref(op.first) }
  if (op.op !== 'insert_after' && op.last > op.first) out.through = ref(op.last)
  if (op.op !== 'delete') out.content = op.content
  return out
}

export class EngineRunner {
  /** @param {string} dir a scratch folder of its own */
  constructor(dir) {
    this.dir = dir
    mkdirSync(dir, { recursive: true })
  }

  /** @param {Trial} trial @param {EngineVariant} variant @returns {Outcome} */
  run(trial, variant) {
    const name = trial.file.path.split('/').pop() ?? 'file'
    const path = join(this.dir, name)
    writeFileSync(path, joinLines(trial.lines, trial.finalNewline))
    const hl = new binding.Hashline({ root: this.dir, view: 'full' })
    const view = hl.read(name, { limit: trial.lines.length + 1 })
    const refs = refsOf(view.text)
    // The peers' schemes compute refs in JS: they must be the engine's.
    if (refs.size !== trial.lines.length) throw new Error(`trial ${trial.id}: the view showed ${refs.size} of ${trial.lines.length} lines`)
    for (const [line, ref] of refs) {
      if (ref !== engineRef(trial.lines, line - 1)) throw new Error(`trial ${trial.id}: the engine shows ${ref} where the benchmark computes ${engineRef(trial.lines, line - 1)}`)
    }
    const fullRef = (/** @type {number} */ i) => /** @type {string} */ (refs.get(i + 1))

    const currentText = joinLines(trial.current, trial.finalNewline)
    if (trial.earlier) {
      hl.edit(name, { operations: [operation(trial.earlier, fullRef)], rev: view.rev })
      const after = readFileSync(path, 'utf8')
      if (after !== currentText) throw new Error(`trial ${trial.id}: the earlier edit (fresh refs) gave another file than written`)
    } else {
      writeFileSync(path, currentText)
    }

    const cite = variant.anchors ? fullRef : (/** @type {number} */ i) => fullRef(i).split('#').slice(0, 2).join('#')
    /** @type {import('../../index.d.ts').EditRequest} */
    const request = { operations: [operation(trial.op, cite)] }
    if (variant.rev) request.rev = view.rev
    try {
      hl.edit(name, request)
    } catch (err) {
      const e = /** @type {{ code?: string, message?: string }} */ (err)
      if (!e.code) throw err
      return { applied: false, code: e.code, message: e.message ?? '' }
    }
    const text = readFileSync(path, 'utf8')
    const lines = text.split('\n')
    if (text.endsWith('\n')) lines.pop()
    return { applied: true, lines, text }
  }
}
