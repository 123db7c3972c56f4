// @ts-check
// Commits edits to one file in a loop until it is killed. Every step
// rewrites the whole file as version k+1 of `render` (see crash-steps.mjs),
// so a torn write would show as a file that is no version at all. After
// each commit it prints the step number, so the parent knows the last
// version that certainly reached the disk.
//
// Usage: node crash-writer.mjs '{"root", "path"}'
import { createRequire } from 'node:module'
import { render, stepOf } from './crash-steps.mjs'

const { root, path } = JSON.parse(process.argv[2] ?? '{}')
const { Hashline } = createRequire(import.meta.url)('../../index.js')

const hl = new Hashline({ view: 'full', root })
/** The ref of line `line` (1-based), from a one-line view. @param {number} line */
const refOf = (line) => {
  const view = hl.read(path, { offset: line, limit: 1 })
  const shown = view.text.split('\n')[1]
  return { ref: shown.slice(0, shown.indexOf('|')), total: view.totalLines, text: shown.slice(shown.indexOf('|') + 1) }
}
process.stdout.write('ready\n')
for (;;) {
  const first = refOf(1)
  const last = refOf(first.total)
  const step = stepOf(first.text) + 1
  hl.edit(path, { operations: [{ op: 'replace', ref: first.ref, through: last.ref, content: render(step) }] })
  process.stdout.write(`${step}\n`)
}
