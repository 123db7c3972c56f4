// @ts-check
// A hashline process that edits one file in a loop (its first line becomes
// "step N") until it is killed or its time is up, so a test can stop it at
// any moment of a write.
//
// Usage: node looping-editor.mjs '{"root", "path", "maxMs"}'
import { createRequire } from 'node:module'

const { root, path, maxMs } = JSON.parse(process.argv[2] ?? '{}')
const { Hashline } = createRequire(import.meta.url)('../../index.js')

const hl = new Hashline({ view: 'full', root })
const deadline = Date.now() + maxMs
process.stdout.write('ready\n')
for (let step = 0; Date.now() < deadline; step++) {
  try {
    const shown = hl.read(path, { limit: 1 }).text.split('\n')[1]
    hl.edit(path, { operations: [{ op: 'replace', ref: shown.slice(0, shown.indexOf('|')), content: `step ${step}` }] })
  } catch (err) {
    process.stderr.write(`step ${step}: ${/** @type {Error} */ (err).message}\n`)
  }
}
