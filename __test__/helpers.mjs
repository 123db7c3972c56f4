// Shared by the ava suites: the binding through its generated loader, and
// scratch folders.
import { mkdtempSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

export const binding = createRequire(import.meta.url)('../index.js')

/** A fresh folder removed when the test ends. */
export function scratch(t) {
  const dir = mkdtempSync(join(tmpdir(), 'hashline-test-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

/** The refs of a view's lines, by 1-based line number. */
export function refsOf(viewText) {
  const refs = {}
  for (const line of viewText.split('\n')) {
    const m = /^(\d+)#([0-9A-F]{3})#([0-9A-F]{3})\|/.exec(line)
    if (m) refs[Number(m[1])] = `${m[1]}#${m[2]}#${m[3]}`
  }
  return refs
}

/** Runs `fn` and returns the error it throws (failing the test if none). */
export function thrown(t, fn) {
  try {
    fn()
  } catch (err) {
    return err
  }
  t.fail('expected an error')
  return undefined
}
