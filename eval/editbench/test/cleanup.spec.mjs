// @ts-check
// The clean-up measure's parts: the generated texts are what they claim,
// the probes send what a model sends and judge what landed, and a refusal
// as an ambiguous echo is resent the way the session measure charges it.
import test from 'ava'
import { textKindOf } from '../corpus.mjs'
import { applyUnified, joinLines } from '../lib/diff.mjs'
import { pairTag } from '../lib/lean.mjs'
import { EXAMPLES, LEGIT_SETS, legitTexts, witnessedLines } from '../lib/legit.mjs'
import { LeanSession, Memoryless, boundarySites, changedLines, deletionsAsNeighbours, insertEach, naturalOps, requestOf } from '../lib/probes.mjs'
import { rng } from '../lib/rng.mjs'
import { ECHO_REFUSAL, withResends } from '../lib/session.mjs'

const before = ['# Notes', '', 'alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta']
const after = ['# Notes', '', 'alpha', 'beta two', 'gamma', 'inserted one', 'inserted two', 'delta', 'zeta']

test('text kinds come from the file name, and code has none', (t) => {
  t.is(textKindOf('docs/CHANGELOG.md'), 'markdown')
  t.is(textKindOf('LICENSE-MIT'), 'prose')
  t.is(textKindOf('static/style.scss'), 'css')
  t.is(textKindOf('data/table.TSV'), 'csv')
  t.is(textKindOf('.github/workflows/ci.yml'), 'yaml')
  t.is(textKindOf('Cargo.toml'), 'data')
  t.is(textKindOf('src/lib.rs'), undefined)
})

test('the generated texts are reproducible, start with the fixed examples and have every set', (t) => {
  const a = legitTexts(3, true)
  t.deepEqual(a, legitTexts(3, true))
  t.notDeepEqual(a, legitTexts(4, true))
  t.deepEqual(a.slice(0, EXAMPLES.length), EXAMPLES)
  for (const s of LEGIT_SETS) t.true(a.some((x) => x.set === s.id), s.id)
  // Every generated line starts with a number followed by a letter, as the texts that look like view prefixes do.
  for (const x of a) for (const l of x.lines) t.regex(l, /^\d+[A-Za-z]/, JSON.stringify(x))
  t.is(legitTexts(1, false).length, EXAMPLES.length + LEGIT_SETS.reduce((n, s) => n + s.count, 0))
})

test('witnessed lines carry the number and tag of a shown line and other text', (t) => {
  const lines = ['one', 'two', 'three', 'four', 'five', 'six']
  const r = rng(5)
  for (let k = 0; k < 50; k++) {
    for (const l of witnessedLines(r, lines.length, (n) => pairTag(n, lines[n - 1]), (n) => lines[n - 1])) {
      const m = /^(\d+)([a-z]{2}) (.*)$/.exec(l)
      if (!m) return t.fail(l)
      t.is(m[2], pairTag(Number(m[1]), lines[Number(m[1]) - 1]))
      t.not(m[3], lines[Number(m[1]) - 1])
    }
  }
})

test('a change sent in its first form lands exactly, in memory and in a session', (t) => {
  const ops = naturalOps(before, after)
  t.deepEqual(
    ops.map((o) => o.op),
    ['replace', 'insert_after', 'delete'],
  )
  const want = joinLines(after)
  const mem = new Memoryless('notes.md', joinLines(before))
  t.is(mem.send(requestOf(ops, (n) => mem.ref(n)), want).outcome, 'exact')
  const lean = new LeanSession('notes.md', joinLines(before))
  t.teardown(() => lean.close())
  t.is(lean.send(requestOf(ops, (n) => lean.ref(n)), want).outcome, 'exact')
})

test('a plan diff applied to its text gives the text the edit writes', (t) => {
  const lean = new LeanSession('notes.md', joinLines(before))
  t.teardown(() => lean.close())
  const plan = lean.session.plan('notes.md', { ...requestOf(naturalOps(before, after), (n) => lean.ref(n)), rev: lean.rev })
  t.is(applyUnified(joinLines(before), plan.diff), joinLines(after))
  t.throws(() => applyUnified(joinLines(['other', ...before]), plan.diff))
})

test('slips go where a model makes them: prefixes on every content line, a neighbour at one edge', (t) => {
  const ops = naturalOps(before, after)
  const echoed = requestOf(ops, (n) => `R${n}`, { echo: 'lean' }, (n) => `${n}xx `)
  t.deepEqual(echoed.operations[0], { op: 'replace', ref: 'R4', content: '4xx beta two' })
  t.deepEqual(echoed.operations[1], { op: 'insert_after', ref: 'R5', content: '6xx inserted one\n7xx inserted two' })
  t.deepEqual(boundarySites(ops), [
    { op: 0, side: 'before' },
    { op: 0, side: 'after' },
    { op: 1, side: 'before' },
    { op: 1, side: 'after' },
  ])
  const echo = requestOf(ops, (n) => `R${n}`, { boundary: { op: 1, side: 'after' } })
  t.is(echo.operations[1].content, 'inserted one\ninserted two\ndelta')
})

test('each line sent alone is judged once, and a line the engine changes is found in its batch', (t) => {
  const host = Array.from({ length: 30 }, (_, i) => `line ${i}`)
  const mem = new Memoryless('host.txt', joinLines(host))
  const lines = ['plain text', 'another plain line', '3rd party', 'more text', 'and more']
  /** @type {Map<number, string>} */
  const seen = new Map()
  insertEach(mem, lines, rng(2), (i, l) => {
    t.false(seen.has(i))
    seen.set(i, l.outcome)
  })
  t.is(seen.size, lines.length)
  for (const i of [0, 1, 3, 4]) t.is(seen.get(i), 'exact')
  // Whatever the engine does with `3rd party`, it is judged on its own line.
  t.true(['exact', 'refused', 'altered'].includes(/** @type {string} */ (seen.get(2))))
})

test('an echo refusal is resent without the echoes, then marked literal; other refusals are not resent', (t) => {
  const prefix = /** @type {any} */ ({ kind: 'echo-prefix', site: 0, pick: 0 })
  const typo = /** @type {any} */ ({ kind: 'typo', site: 'o1', pick: 0 })
  /** @type {Array<{ kinds: string[], literal: boolean }>} */
  const sent = []
  const refuseTwice = withResends([prefix, typo], (a) => {
    sent.push({ kinds: a.mistakes.map((m) => m.kind), literal: a.literal })
    return sent.length < 3 ? { outcome: 'rejected', code: ECHO_REFUSAL, output: 'refused' } : { outcome: 'correct' }
  })
  t.deepEqual(sent, [
    { kinds: ['echo-prefix', 'typo'], literal: false },
    { kinds: ['typo'], literal: false },
    { kinds: ['typo'], literal: true },
  ])
  t.deepEqual(refuseTwice.resent, [
    { error: 'refused', literal: false },
    { error: 'refused', literal: true },
  ])
  t.is(refuseTwice.last.outcome, 'correct')
  const other = withResends([prefix], () => ({ outcome: 'rejected', code: 'HASH_MISMATCH', output: 'x' }))
  t.deepEqual(other.resent, [])
})

test('changed lines are the lines a change replaces with other text; deletions with lines on both sides are sent as those lines', (t) => {
  const ops = naturalOps(before, after)
  t.deepEqual(changedLines(ops, before), [{ line: 4, text: 'beta two' }])
  t.deepEqual(deletionsAsNeighbours(ops), [{ first: 7, last: 7, lines: ['delta', 'zeta'] }])
  const lean = new LeanSession('notes.md', joinLines(before))
  t.teardown(() => lean.close())
  t.regex(lean.header, /^notes\.md REV:[0-9A-F]{8} lines 1-8 of 8$/)
  const headed = requestOf(ops, (n) => lean.ref(n), { above: lean.header })
  t.is(headed.operations[0].content, `${lean.header}\nbeta two`)
})
