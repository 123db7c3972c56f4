// @ts-check
// This project's apply_patch, through its published JS API: a `Hashline`
// session on a scratch file that has read the file first (as a model reads
// before patching), so `@@` refs are checked and, after an earlier edit,
// remapped as in a real session.

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { binding } from './hashline.mjs'

/** The name the patch uses for the one file it changes. */
export const PATCH_FILE = 'file'

/**
 * @param {string} text
 * @param {(session: any) => void} before what the session does after the read and before the patch
 * @param {string} patchText
 * @returns {{ text: string, output: string }}
 */
function inSession(text, before, patchText) {
  const dir = mkdtempSync(join(tmpdir(), 'editbench-patch-'))
  try {
    writeFileSync(join(dir, PATCH_FILE), text)
    const session = new binding.Hashline({ root: dir })
    session.read(PATCH_FILE, { limit: 1_000_000 })
    before(session)
    const result = session.commitPatch(session.planPatch(patchText))
    return { text: readFileSync(join(dir, PATCH_FILE), 'utf8'), output: result.output }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/** @param {string} text @param {string} patchText */
export function enginePatch(text, patchText) {
  return inSession(text, () => {}, patchText)
}

/**
 * The patch sent after an earlier edit made through the same session, still
 * citing the first read.
 * @param {string} oldText @param {any} earlier an edit request @param {string} patchText
 */
export function enginePatchAfterEarlierEdit(oldText, earlier, patchText) {
  return inSession(oldText, (session) => session.edit(PATCH_FILE, earlier), patchText)
}

/**
 * A unified diff of one file as an apply_patch update of PATCH_FILE: the
 * `@@ -a,b +c,d @@` headers are read without their line numbers.
 * @param {string} unified
 */
export function fromUnified(unified) {
  const body = unified.split('\n').filter((l, i) => !(i < 2 && (l.startsWith('--- ') || l.startsWith('+++ '))))
  return `*** Begin Patch\n*** Update File: ${PATCH_FILE}\n${body.join('\n')}${body[body.length - 1] === '' ? '' : '\n'}*** End Patch`
}
