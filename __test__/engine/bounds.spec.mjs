// @ts-check
// Calls whose work used to grow with the square of their input return
// promptly through the binding, and a result that a bound made coarser says
// so. These check behaviour only; how the time grows is measured by
// bench/bounds/run.mjs, not here.
import test from 'ava'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { binding, refsOf, scratch } from '../helpers.mjs'

const { Hashline } = binding

/** @param {import('ava').ExecutionContext} t @param {string} name @param {string} text */
function session(t, name, text) {
  const dir = scratch(t)
  writeFileSync(join(dir, name), text)
  return new Hashline({ root: dir, view: 'full' })
}

const lines = (/** @type {number} */ n, /** @type {(i: number) => string} */ line) => Array.from({ length: n }, (_, i) => line(i))

test('a whole range replaced by as many new lines gives a true diff, said to be coarse', (t) => {
  const n = 20_000
  const hl = session(t, 'a.txt', `${lines(n, (i) => `old ${i}`).join('\n')}\n`)
  const refs = /** @type {Record<number, string>} */ (refsOf(hl.read('a.txt', { limit: n }).text))
  const plan = hl.plan('a.txt', { operations: [{ op: 'replace', ref: refs[1], through: refs[n], content: lines(n, (i) => `new ${i}`) }] })
  t.is(plan.additions, n)
  t.is(plan.deletions, n)
  t.regex(plan.output, new RegExp(`Note: the change of old lines 1-${n} into new lines 1-${n} is shown as removed and added whole`))
  const diff = /** @type {string} */ (plan.diff).split('\n')
  t.is(diff.filter((l) => l.startsWith('-old ')).length, n)
  t.is(diff.filter((l) => l.startsWith('+new ')).length, n)
})

test('thousands of adjacent one-line replaces plan as one region, said to be coarse', (t) => {
  const n = 30_000
  const hl = session(t, 'a.txt', `${lines(2 * n, (i) => `line ${i}`).join('\n')}\n`)
  const refs = /** @type {Record<number, string>} */ (refsOf(hl.read('a.txt', { limit: 2 * n }).text))
  const operations = lines(n, (k) => `edited ${k}`).map((content, k) => ({ op: 'replace', ref: refs[k + 1], content }))
  const plan = hl.plan('a.txt', { operations })
  t.is(plan.additions, n)
  t.regex(plan.output, /is shown as removed and added whole/)
})

test('an edit of an HTML file of 100,000 nested elements is planned, its syntax check skipped and said so', (t) => {
  const n = 100_000
  const hl = session(t, 'a.html', '<div>\n'.repeat(n) + '</div>\n'.repeat(n))
  const refs = /** @type {Record<number, string>} */ (refsOf(hl.read('a.html', { limit: 3 }).text))
  const plan = hl.plan('a.html', { operations: [{ op: 'insert_after', ref: refs[2], content: '<p>x</p>' }] })
  t.regex(plan.output, /Note: the HTML syntax check was skipped: parsing the file took more than \d+ ms of processor time/)
})
