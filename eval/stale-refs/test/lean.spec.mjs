// @ts-check
// The lean-ref trials: the crafted collisions collide, the ground truth says
// what each kind promises, the later read keeps clear of the cited lines, and
// a trial run through the session that read the file lands as meant.
import test from 'ava'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pairTag } from '../../editbench/lib/lean.mjs'
import { craftSameTag, CRAFTED, LeanTrialMaker } from '../lean-trials.mjs'
import { LEAN_PATHS, LeanRunner } from '../lean-paths.mjs'
import { joinLines, Rng, TrialMaker } from '../trials.mjs'

/** Small source files with repeated lines, enough for every kind of trial. */
function files() {
  return Array.from({ length: 8 }, (_, f) => {
    const lines = []
    for (let i = 0; i < 12; i++) lines.push(`function f${f}_${i}(x) {`, `  const y = x + ${i}`, '  return y', '}', '')
    return { lang: 'JavaScript', package: 'sample', version: '1.0.0', path: `src/f${f}.js`, text: lines.join('\n') + '\n' }
  })
}

test('a crafted line differs from the line it imitates and has its tag at that number', (t) => {
  const r = new Rng(1, 1)
  for (const [n, text] of /** @type {Array<[number, string]>} */ ([[1, 'fn main() {'], [12, '}'], [7, ''], [300, '    return total;']])) {
    const crafted = craftSameTag(r, n, text)
    t.not(crafted.trim(), text.trim())
    t.is(pairTag(n, crafted), pairTag(n, text))
  }
})

test('crafted trials put lines with the cited tags at the cited numbers, and say whether the cited lines survive', (t) => {
  const maker = new LeanTrialMaker(new TrialMaker(files(), 3))
  for (let id = 0; id < 60; id++) {
    const kind = CRAFTED[id % CRAFTED.length]
    const trial = maker.make(id, kind)
    const cited = trial.op.op === 'insert_after' ? [trial.op.first] : [trial.op.first, trial.op.last]
    for (const i of cited) {
      t.is(pairTag(i + 1, trial.current[i]), pairTag(i + 1, trial.lines[i]), `${kind} ${id}`)
      t.not(trial.current[i], trial.lines[i], `${kind} ${id}`)
    }
    t.is(trial.expected.reject, kind !== 'crafted-insert', `${kind} ${id}`)
    t.is(trial.earlier !== null, kind === 'crafted-earlier')
  }
})

test('the read shows every cited line and the later read none of them', (t) => {
  const maker = new LeanTrialMaker(new TrialMaker(files(), 5))
  for (let id = 0; id < 200; id++) {
    const trial = maker.make(id, /** @type {any} */ (['insert-above', 'delete-above', 'earlier-edit', 'outside', ...CRAFTED][id % 7]))
    t.true(trial.shown[0] <= trial.op.first && trial.op.last <= trial.shown[1], `${id}`)
    if (!trial.later) continue
    for (const i of [trial.op.first, trial.op.last]) t.false(trial.later[0] <= i && i <= trial.later[1], `${id}`)
    t.true(0 <= trial.later[0] && trial.later[1] < trial.current.length, `${id}`)
  }
})

test('a trial with lines inserted above the cited ones lands where they moved, in the session that read them', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'lean-spec-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const runner = new LeanRunner(dir)
  const maker = new LeanTrialMaker(new TrialMaker(files(), 7))
  const session = /** @type {import('../lean-paths.mjs').LeanPath} */ (LEAN_PATHS.find((p) => p.name === 'session/read'))
  let applied = 0
  for (let id = 0; id < 70; id += 7) {
    const trial = maker.make(id, 'insert-above')
    const o = runner.run(trial, session)
    if (!o.applied) continue
    applied++
    t.is(o.text, joinLines(/** @type {string[]} */ (/** @type {any} */ (trial.expected).lines), trial.finalNewline))
  }
  t.true(applied > 0)
})
