// @ts-check
// This project's engine, through its published JS API: `applyEdits` for text
// in hand (operations, or the `oldString` fallback), and a `Hashline` session
// on a scratch file where the store matters (refs from an earlier view).

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { basename, join } from 'node:path'

/**
 * @typedef {{ operations?: any[], rev?: string, oldString?: string, newString?: string, replaceAll?: boolean }} EditRequest
 * @typedef {{ text: string, output: string, flagged: boolean }} EngineResult
 */

/** The built binding of the package this benchmark sits in. */
export const binding = createRequire(import.meta.url)('../../../index.js')

/** Whether a result reports a parse the edit broke. */
const parseBroken = (/** @type {{ problems: Array<{ language?: string }> }} */ r) => r.problems.some((p) => p.language !== undefined)

/**
 * The edit of `text`; with `path`, the file's name, whose language the
 * engine parses it in (block ops, echo judgement, parse check).
 * @param {string} text @param {EditRequest} request @param {string} [path]
 * @returns {EngineResult}
 */
export function engineApply(text, request, path) {
  const r = binding.applyEdits(text, request, path === undefined ? undefined : { path })
  return { text: r.text, output: r.output, flagged: parseBroken(r) }
}

/**
 * Refs read from one view, an earlier edit made through the same session,
 * then a batch still citing the first view: the session's store is what can
 * carry those refs over to the current file, or refuse them.
 * @param {string} oldText
 * @param {EditRequest} earlier
 * @param {EditRequest} later
 * @param {string} path the file's name, for its language
 * @returns {EngineResult}
 */
export function engineAfterEarlierEdit(oldText, earlier, later, path) {
  const dir = mkdtempSync(join(tmpdir(), 'editbench-'))
  const name = basename(path)
  try {
    writeFileSync(join(dir, name), oldText)
    const session = new binding.Hashline({ root: dir, view: 'full' })
    session.read(name, { limit: 1_000_000 })
    session.edit(name, earlier)
    const r = session.edit(name, later)
    return { text: readFileSync(join(dir, name), 'utf8'), output: r.output, flagged: parseBroken(r) }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
