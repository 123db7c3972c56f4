// @ts-check
// The session measure and the lean-view candidates: the modelled tools behave
// as their rules say, the model of this project's full view agrees with the
// engine, and a session is charged what it reads and writes.
import test from 'ava'
import { binding, engineApply } from '../appliers/hashline.mjs'
import { joinLines } from '../lib/diff.mjs'
import { buildHashline, hashlineRequest, makeChange } from '../lib/formats.mjs'
import { stripLeanPrefixes, pairTag, PAIR_FIRST } from '../lib/lean.mjs'
import { inject, sitesOf } from '../lib/mistakes.mjs'
import { movedBlocks } from '../lib/moves.mjs'
import { applyRefEdit, refFormat, specMap, tagsOf, trimBoundaryEcho } from '../lib/refformats.mjs'
import { rng } from '../lib/rng.mjs'
import { Scenario, changeOf } from '../lib/scenario.mjs'
import { Session, leanEngineEdit, version } from '../lib/session.mjs'
import { tokenizer } from '../lib/tokens.mjs'
import { hashlineView } from '../lib/views.mjs'

const engineText = (/** @type {string} */ t, /** @type {any} */ r) => engineApply(t, r).text

/** A Rust-like file with repeated lines (closing braces, blank lines, identical statements). */
function sample(/** @type {number} */ fns) {
  const lines = []
  for (let i = 0; i < fns; i++) lines.push(`fn f${i}(x: u32) -> u32 {`, '    let y = x + 1;', '    let y = x + 1;', '    if y > 2 {', '        return y;', '    }', '    y', '}', '')
  return lines
}

/** A change of a few hunks to `lines`: edits, an insertion and a deletion. */
function changed(/** @type {string[]} */ lines) {
  const out = lines.slice()
  out[1] = '    let y = x * 2;'
  out.splice(13, 0, '        // checked', '        log(y);')
  out.splice(30, 1)
  out[40] = '    z'
  out.splice(47, 0, '}', '')
  return out
}

/** @param {string[]} before @param {string[]} after */
function edit(before, after) {
  const change = makeChange(joinLines(before), joinLines(after))
  const { refs } = hashlineView(binding, change.oldText)
  return { change, edit: buildHashline(change, refs, engineText) }
}

test('the modelled full view agrees with the engine on every echo and off-by-one mistake', (t) => {
  const before = sample(6)
  const after = changed(before)
  const { change, edit: e } = edit(before, after)
  const shown = version(change.oldText)
  const f = refFormat('hashline')
  let compared = 0
  for (const kind of /** @type {const} */ (['echo-prefix', 'echo-boundary', 'off-by-one'])) {
    for (const site of sitesOf(e, kind)) {
      for (const pick of [0.2, 0.8]) {
        const sent = inject(e, [{ kind, site, pick }])
        let engine
        try {
          engine = engineApply(change.oldText, hashlineRequest(sent)).text === change.newText ? 'correct' : 'silent'
        } catch {
          engine = 'rejected'
        }
        const m = applyRefEdit(f, sent, { shown, current: shown })
        const model = m.outcome === 'rejected' ? 'rejected' : m.text === change.newText ? 'correct' : 'silent'
        t.is(model, engine, `${kind} ${JSON.stringify(site)} ${pick}`)
        compared++
      }
    }
  }
  t.true(compared >= 20, `${compared} cases`)
})

test('pair tags of neighbouring lines always differ, whatever the lines hold', (t) => {
  const r = rng(11)
  for (let k = 0; k < 200; k++) {
    const lines = Array.from({ length: 40 }, () => ['}', '', '    y', 'x = 1'][r.int(4)])
    for (let n = 1; n < lines.length; n++) t.not(pairTag(n, lines[n - 1]), pairTag(n + 1, lines[n]))
  }
  t.true(PAIR_FIRST[0].includes(pairTag(2, 'a')[0]))
  t.true(PAIR_FIRST[1].includes(pairTag(3, 'a')[0]))
})

test('a pair ref typed one line off is rejected even among identical lines, where the REV alone applies it to the wrong line', (t) => {
  const before = ['a', '}', '}', '}', '}', 'b']
  const after = ['a', '}', '}', 'X', '}', 'b']
  const { change, edit: e } = edit(before, after)
  const shown = version(change.oldText)
  for (const site of sitesOf(e, 'off-by-one')) {
    for (const pick of [0.2, 0.8]) {
      const sent = inject(e, [{ kind: 'off-by-one', site, pick }])
      t.is(applyRefEdit(refFormat('pair'), sent, { shown, current: shown }).outcome, 'rejected')
      const plain = applyRefEdit(refFormat('revonly'), sent, { shown, current: shown })
      t.true(plain.outcome === 'applied' && plain.text !== change.newText)
    }
  }
})

test('oh-my-openagent accepts a ref typed one line off when the neighbour is an identical line with letters', (t) => {
  const before = ['fn a() {', '    y += 1;', '    y += 1;', '}']
  const after = ['fn a() {', '    y += 2;', '    y += 1;', '}']
  const { change, edit: e } = edit(before, after)
  const shown = version(change.oldText)
  const sent = inject(e, [{ kind: 'off-by-one', site: { unit: 0, which: 'ref' }, pick: 0.9 }])
  const r = applyRefEdit(refFormat('omo'), sent, { shown, current: shown })
  t.true(r.outcome === 'applied' && r.text !== change.newText)
})

test('oh-my-pi latest applies a mistyped line number silently: one tag per file checks no line', (t) => {
  const before = sample(2)
  const after = changed(before)
  const { change, edit: e } = edit(before, after)
  const shown = version(change.oldText)
  const omp = { ...e, throughAlways: true }
  const sent = { ...inject(omp, [{ kind: 'off-by-one', site: { unit: 0, which: 'ref' }, pick: 0.9 }]), throughAlways: true }
  const r = applyRefEdit(refFormat('omp'), sent, { shown, current: shown })
  t.true(r.outcome === 'applied' && r.text !== change.newText)
})

test('stale refs of the lean view are carried over through the earlier edit, and refused where the lines they name changed', (t) => {
  const before = sample(4)
  const after = changed(before)
  const { change, edit: e } = edit(before, after)
  const shown = version(change.oldText)
  // An earlier edit inserted two lines at the top: every later line moved by two.
  const spec = { oldStart: 0, oldLen: 0, lines: ['// a', '// b'] }
  const current = version(joinLines([...spec.lines, ...before]))
  const r = applyRefEdit(refFormat('pair'), e, { shown, current, map: specMap(spec) })
  t.is(r.outcome === 'applied' ? r.text : '', joinLines([...spec.lines, ...after]))
  // The earlier edit rewrote a line the batch replaces: where it went cannot be proven.
  const cited = /** @type {number} */ (e.units.find((u) => u.op === 'replace' || u.op === 'delete')?.first)
  const over = { oldStart: cited - 1, oldLen: 1, lines: ['    let z = 0;'] }
  const now = before.slice()
  now[cited - 1] = over.lines[0]
  t.is(applyRefEdit(refFormat('pair'), e, { shown, current: version(joinLines(now)), map: specMap(over) }).outcome, 'rejected')
})

test('the engine lean session makes earlier edits that end in or are a blank line, and strips prefixes echoed past the end', (t) => {
  const before = sample(3)
  const after = changed(before)
  const { change: later, edit: e } = edit(before, after)
  const { refs } = hashlineView(binding, later.oldText)
  // Earlier hunks the corpus has: new lines ending in a blank line, and one blank line alone.
  for (const lines of [['// a', ''], ['']]) {
    const spec = { oldStart: before.length, oldLen: 0, lines }
    const request = hashlineRequest(buildHashline(changeOf(before, [spec]), refs, engineText))
    const got = leanEngineEdit('src/f.rs', later.oldText, e, request).text
    t.is(got, joinLines([...after, ...lines]))
  }
  // Every appended line echoed with a prefix, the ones past the end made up in the view's shape.
  const tail = ['// x', '// y', '// z']
  const { change: grown, edit: g } = edit(before, [...before, ...tail])
  const unit = sitesOf(g, 'echo-prefix')[0]
  t.is(leanEngineEdit('src/f.rs', grown.oldText, inject(g, [{ kind: 'echo-prefix', site: unit, pick: 0 }]), undefined).text, joinLines([...before, ...tail]))
})

test('echoed lean prefixes are stripped, ordinals and code are left alone', (t) => {
  const tags = tagsOf(refFormat('pair'), version(joinLines(['a', 'b', 'c'])))
  t.deepEqual(stripLeanPrefixes([`1${tags[1]} x`, '', `2${tags[2]}\t  y`, `+3${tags[3]} z`]), ['x', '', '  y', 'z'])
  t.is(stripLeanPrefixes(['1st place', '2nd place', '3rd place']), null)
  t.is(stripLeanPrefixes([`2${tags[2]} x`, `1${tags[1]} y`]), null)
  t.is(stripLeanPrefixes(['let x = 1;', '12ab y']), null)
  t.deepEqual(stripLeanPrefixes(['1#A3F#9BC|a', '2#0E1#44D|b']), ['a', 'b'])
})

test('the engine clean-up port drops an echoed neighbour and keeps a bracket the content needs', (t) => {
  t.deepEqual(trimBoundaryEcho(['fn a() {', '  new();', '}'], 'fn a() {', ['  old();'], '}'), ['  new();'])
  t.deepEqual(trimBoundaryEcho(['  if (x) {', '    y();', '}'], undefined, ['  z();'], '}'), ['  if (x) {', '    y();', '}'])
  t.deepEqual(trimBoundaryEcho(['', 'x'], '', ['y'], undefined), ['', 'x'])
})

test('a session pays its read and results, and each rejection the error, a re-read and the call again', (t) => {
  const before = joinLines(sample(3))
  const after = joinLines(changed(sample(3)))
  const file = /** @type {any} */ ({ id: 'test/f.rs', path: 'src/f.rs', language: 'rust', ecosystem: 'cargo', package: 'x', beforeText: before, afterText: after })
  const sc = new Scenario(file, 1)
  const tok = tokenizer('o200k_base')
  const ss = new Session(sc, [tok])
  const c = ss.cost('pair')
  const clean = ss.play('pair', sc.ideal, [])
  t.is(clean.outcome, 'correct')
  t.is(clean.input.o200k_base, c.read.o200k_base + c.ok.o200k_base[0])
  t.is(clean.output.o200k_base, c.calls.o200k_base[0])
  const bad = ss.play('pair', sc.ideal, [{ kind: 'off-by-one', site: { unit: 0, which: 'ref' }, pick: 0.9 }])
  t.is(bad.outcome, 'rejected')
  t.is(bad.output.o200k_base, 2 * c.calls.o200k_base[0])
  t.true(bad.input.o200k_base > clean.input.o200k_base + c.read.o200k_base)
  for (const id of ['opencode', 'omo', 'omp-v2', 'omp', 'angdrew', 'hashline', 'short', 'b64', 'revonly', 'pair-tab']) t.is(ss.play(id, sc.ideal, []).outcome, 'correct', id)
})

test('moved and copied runs are found and told apart', (t) => {
  const block = ['fn moved() {', '    work();', '}']
  const stays = ['x1', 'x2', 'x3', 'x4', 'x5']
  const before = ['a', ...block, ...stays, 'keep1', 'keep2', 'keep3']
  const after = ['a', ...stays, ...block, 'keep1', 'keep2', 'keep3', 'keep1', 'keep2', 'keep3']
  const blocks = movedBlocks(makeChange(joinLines(before), joinLines(after)))
  t.deepEqual(
    blocks.map((b) => [b.kind, b.len]),
    [
      ['move', 3],
      ['copy', 3],
    ],
  )
})
