// @ts-check
// The ideal edits are right and minimal, and mistakes land where the format copies.
import test from 'ava'
import { codexApply } from '../appliers/codex-patch.mjs'
import { exactReplace } from '../appliers/exact.mjs'
import { engineApply } from '../appliers/hashline.mjs'
import { enginePatch, fromUnified } from '../appliers/engine-patch.mjs'
import { applyHunks, diffLines, joinLines } from '../lib/diff.mjs'
import { buildHashline, buildPatch, buildRefPatch, buildStrReplace, buildWhole, hashlineRequest, makeChange, patchText, refPatchText, strStrings, toolCalls, wholeText } from '../lib/formats.mjs'
import { inject, sitesOf, typo, driftIndent } from '../lib/mistakes.mjs'
import { rng } from '../lib/rng.mjs'
import { tokenizer } from '../lib/tokens.mjs'
import { hashlineView, shortRefs } from '../lib/views.mjs'
import { binding } from '../appliers/hashline.mjs'

const text = (/** @type {string[]} */ lines) => joinLines(lines)
const engineText = (/** @type {string} */ t, /** @type {any} */ r) => engineApply(t, r).text
const patchEngine = (/** @type {string} */ t, /** @type {string} */ p) => enginePatch(t, p).text

/** @param {string} before @param {string} after */
function fixture(before, after) {
  const change = makeChange(before, after)
  return { change, refs: hashlineView(binding, before).refs }
}

test('diffLines finds a shortest edit script', (t) => {
  const r = rng(7)
  const lcs = (/** @type {string[]} */ a, /** @type {string[]} */ b) => {
    const dp = Array.from({ length: a.length + 1 }, () => new Array(b.length + 1).fill(0))
    for (let i = 1; i <= a.length; i++) for (let j = 1; j <= b.length; j++) dp[i][j] = a[i - 1] === b[j - 1] ? dp[i - 1][j - 1] + 1 : Math.max(dp[i - 1][j], dp[i][j - 1])
    return dp[a.length][b.length]
  }
  for (let n = 0; n < 500; n++) {
    const a = Array.from({ length: r.int(10) }, () => 'abc'[r.int(3)])
    const b = Array.from({ length: r.int(10) }, () => 'abc'[r.int(3)])
    const hunks = diffLines(a, b)
    t.deepEqual(applyHunks(a, b, hunks), b)
    t.is(hunks.reduce((s, h) => s + h.oldLen + h.newLen, 0), a.length + b.length - 2 * lcs(a, b))
  }
})

test('minimal str_replace grows its old side until it occurs once, and the calls rebuild the new file', (t) => {
  const before = text(['fn a() {', '    x();', '}', 'fn b() {', '    x();', '}'])
  const after = text(['fn a() {', '    x();', '}', 'fn b() {', '    y();', '}'])
  const { change } = fixture(before, after)
  const edit = buildStrReplace(change, 0)
  const { oldString } = strStrings(edit.units[0])
  t.is(oldString, 'fn b() {\n    x();\n}')
  t.is(edit.units.reduce((cur, u) => exactReplace(cur, strStrings(u)), before), after)
})

test('a str_replace that deletes whole lines takes their newline with them', (t) => {
  const before = text(['one', 'two', 'three'])
  const { change } = fixture(before, text(['one', 'three']))
  const call = buildStrReplace(change, 0).units[0]
  t.deepEqual(strStrings(call), { oldString: 'two\n', newString: '' })
})

test('a patch hunk whose old side also occurs earlier gets context until a first-match applier lands right', (t) => {
  const block = ['if ok {', '    go();', '}']
  const before = text(['a', ...block, 'b', 'c', 'd', 'e', ...block, 'f'])
  const after = text(['a', ...block, 'b', 'c', 'd', 'e', 'if ok {', '    stop();', '}', 'f'])
  const { change } = fixture(before, after)
  const edit = buildPatch(change, 1)
  t.true(edit.extended > 0)
  t.is(codexApply(before, patchText(edit, 'f')), after)
})

test('a patch hunk whose old side also occurs later gets context until it fits only its own place', (t) => {
  const block = ['if ok {', '    go();', '}']
  const before = text(['a', ...block, 'b', 'c', 'd', 'e', ...block, 'f'])
  const after = text(['a', 'if ok {', '    stop();', '}', 'b', 'c', 'd', 'e', ...block, 'f'])
  const { change } = fixture(before, after)
  const edit = buildPatch(change, 1)
  t.true(edit.extended > 0)
  t.is(enginePatch(before, fromUnified(patchText(edit, 'f'))).text, after)
  t.is(codexApply(before, patchText(edit, 'f')), after)
})

test('a patch citing @@ refs rebuilds the new file, with no context or with one line, inserts at the top and bottom included', (t) => {
  const before = text(['top', 'a', 'b', '', 'c', 'd', 'end'])
  const after = text(['new top', 'top', 'a', 'B', '', 'c', 'd', 'end', 'new end'])
  const { change, refs } = fixture(before, after)
  for (const context of [0, 1]) {
    const edit = buildRefPatch(change, refs, patchEngine, context)
    t.is(enginePatch(before, refPatchText(edit, 'file')).text, after, `context ${context}`)
    t.true(edit.units.every((u) => u.anchor > 0))
  }
  const one = buildRefPatch(change, refs, patchEngine, 1)
  t.true(one.units.some((u) => u.lines.some((l) => l.side === 'both')))
})

test('an off-by-one mistake moves the line number of an @@ ref and the engine refuses it; echoed view prefixes are removed', (t) => {
  const before = text(['a', 'b', 'c'])
  const after = text(['a', 'B', 'c'])
  const { change, refs } = fixture(before, after)
  const edit = buildRefPatch(change, refs, patchEngine, 1)
  const shifted = refPatchText(inject(edit, [{ kind: 'off-by-one', site: { unit: 0 }, pick: 0.9 }]), 'file')
  t.regex(shifted, new RegExp(`^@@ ${refs[2].replace(/^2#/, '3#')}$`, 'm'))
  t.throws(() => enginePatch(before, shifted))
  const echoed = refPatchText(inject(edit, [{ kind: 'echo-prefix', site: 0, pick: 0 }]), 'file')
  t.regex(echoed, /^-2#[0-9A-F]{3}#[0-9A-F]{3}\|b$/m)
  t.is(enginePatch(before, echoed).text, after)
})

test('a hashline insert that starts with a copy of its anchor line is re-expressed so the clean-up keeps it', (t) => {
  const before = text(['fn a() {', '}', '', 'fn c() {', '}'])
  const after = text(['fn a() {', '}', '}', 'fn b() {', '', 'fn c() {', '}'])
  const { change, refs } = fixture(before, after)
  const edit = buildHashline(change, refs, engineText)
  t.is(engineApply(before, hashlineRequest(edit)).text, after)
})

test('the block format cites a replaced, deleted or followed block by its first line and has no last line to slip on', (t) => {
  const before = text(['fn a() {', '    one();', '}', '', 'fn b() {', '    two();', '}', '', 'fn c() {}'])
  const after = text(['fn a() {', '    uno();', '    dos();', '}', '', 'fn c() {}', '', 'fn d() {}'])
  const { change, refs } = fixture(before, after)
  const path = 'lib.rs'
  const edit = buildHashline(change, refs, (t, r) => engineApply(t, r, path).text, { blocks: true })
  t.true(edit.units.some((u) => u.op === 'delete_block'))
  t.is(engineApply(before, hashlineRequest(edit), path).text, after)
  const ops = hashlineRequest(edit).operations.filter((/** @type {any} */ o) => o.op.endsWith('_block'))
  t.true(ops.length > 0)
  for (const op of ops) t.is(op.through, undefined)
  t.false(sitesOf(edit, 'off-by-one').some((s) => s.which === 'through' && edit.units[s.unit].op.endsWith('_block')))
  const plain = buildHashline(change, refs, engineText)
  t.false(plain.units.some((u) => u.op.endsWith('_block')), 'without a language, no block ops')
})

test('hashline ops copy no old text, so copying mistakes have no place in them', (t) => {
  const before = text(['a', 'b', 'c', 'd'])
  const { change, refs } = fixture(before, text(['a', 'B', 'c', 'd', 'e']))
  const edit = buildHashline(change, refs, engineText)
  for (const kind of /** @type {const} */ (['indent', 'typo', 'drop', 'dup'])) t.deepEqual(sitesOf(edit, kind), [])
  t.true(sitesOf(edit, 'off-by-one').length > 0)
})

test('a typo in a copied context line shows up in both sides of a str_replace', (t) => {
  const before = text(['alpha', 'beta', 'gamma', 'delta', 'eps'])
  const { change } = fixture(before, text(['alpha', 'beta', 'GAMMA', 'delta', 'eps']))
  const edit = buildStrReplace(change, 2)
  const broken = inject(edit, [{ kind: 'typo', site: 'o1', pick: 0.3 }])
  const { oldString, newString } = strStrings(broken.units[0])
  const typed = oldString.split('\n')[1]
  t.not(typed, 'beta')
  t.is(newString.split('\n')[1], typed)
  t.is(strStrings(edit.units[0]).oldString.split('\n')[1], 'beta')
})

test('an off-by-one mistake moves only the line number of a hashline ref', (t) => {
  const before = text(['a', 'b', 'c'])
  const { change, refs } = fixture(before, text(['a', 'B', 'c']))
  const edit = buildHashline(change, refs, engineText)
  const [op] = hashlineRequest(inject(edit, [{ kind: 'off-by-one', site: { unit: 0, which: 'ref' }, pick: 0.9 }])).operations
  t.is(op.ref, refs[2].replace(/^2#/, '3#'))
})

test('typo and indentation drift always change the line', (t) => {
  const r = rng(3)
  for (const line of ['x', '    let a = b;', '\tfoo()', 'é;']) {
    for (let i = 0; i < 50; i++) {
      t.not(typo(line, r.next()), line)
      t.not(driftIndent(line, r.next()), line)
    }
  }
})

test('short refs keep the ANCHOR only where the HASH repeats in the file', (t) => {
  const refs = [undefined, '1#AAA#111', '2#BBB#222', '3#AAA#333']
  t.deepEqual(shortRefs(/** @type {any} */ (refs)).slice(1), ['1#AAA#111', '2#BBB', '3#AAA#333'])
})

test('the token split of a tool call adds up to the count of the whole text', (t) => {
  const before = text(['fn main() {', '    println!("hi");', '}'])
  const { change, refs } = fixture(before, text(['fn main() {', '    println!("hello");', '}']))
  const tok = tokenizer('o200k_base')
  for (const edit of [buildHashline(change, refs, engineText), buildStrReplace(change, 2), buildPatch(change, 3), buildRefPatch(change, refs, patchEngine, 1), buildWhole(change)]) {
    for (const call of toolCalls(edit, 'src/main.rs')) {
      const s = tok.split(call)
      t.is(s.new + s.old + s.structure, s.total)
      t.is(s.total, tok.count(call.map((p) => p[0]).join('')))
      t.true(s.new > 0)
    }
  }
  const [hl] = toolCalls(buildHashline(change, refs, engineText), 'src/main.rs')
  t.is(tok.split(hl).old, 0)
  t.is(wholeText(buildWhole(change)), change.newText)
})
