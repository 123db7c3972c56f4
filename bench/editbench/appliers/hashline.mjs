// @ts-check
// This project's engine, through its published JS API: `applyEdits` for text
// in hand (operations, or the `oldString` fallback), and a `Hashline` session
// on a scratch file where the store matters (refs from an earlier view).

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/**
 * @typedef {{ operations?: any[], rev?: string, oldString?: string, newString?: string, replaceAll?: boolean }} EditRequest
 * @typedef {{ text: string, output: string }} EngineResult
 */

/** The built binding of the package this benchmark sits in. */
export const binding = createRequire(import.meta.url)('../../../index.js')

/**
 * @param {string} text @param {EditRequest} request
 * @returns {EngineResult}
 */
export function engineApply(text, request) {
  const r = binding.applyEdits(text, request)
  return { text: r.text, output: r.output }
}

/**
 * Refs read from one view, an earlier edit made through the same session,
 * then a batch still citing the first view: the session's store is what can
 * carry those refs over to the current file, or refuse them.
 * @param {string} oldText
 * @param {EditRequest} earlier
 * @param {EditRequest} later
 * @returns {EngineResult}
 */
export function engineAfterEarlierEdit(oldText, earlier, later) {
  const dir = mkdtempSync(join(tmpdir(), 'editbench-'))
  try {
    writeFileSync(join(dir, 'file'), oldText)
    const session = new binding.Hashline({ root: dir, view: 'full' })
    session.read('file', { limit: 1_000_000 })
    session.edit('file', earlier)
    const r = session.edit('file', later)
    return { text: readFileSync(join(dir, 'file'), 'utf8'), output: r.output }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
