// @ts-check
// Applies batches to several files in a loop until it is killed. Step k
// gives every file the text `text(file, k)`, so any file that is no step at
// all, or files at different steps, show a change that landed in part. It
// prints `step k` before each commit and `done k` after it, so the parent
// knows which change may be under way when it kills.
//
// Usage: node batch-writer.mjs '{"root", "files", "from", "allowOutsideRoot"}'
import { createRequire } from 'node:module'
import { text } from './batch-steps.mjs'

const { root, files, from, allowOutsideRoot } = JSON.parse(process.argv[2] ?? '{}')
const { Hashline } = createRequire(import.meta.url)('../../index.js')

const hl = new Hashline({ root, allowOutsideRoot: Boolean(allowOutsideRoot) })
process.stdout.write('ready\n')
for (let step = from + 1; ; step++) {
  process.stdout.write(`step ${step}\n`)
  hl.applyBatch(files.map((/** @type {string} */ path) => ({ path, oldString: text(path, step - 1), newString: text(path, step) })))
  process.stdout.write(`done ${step}\n`)
}
