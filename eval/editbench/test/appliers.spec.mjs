// @ts-check
// The baseline appliers behave as the tools they stand for are documented to.
import test from 'ava'
import { codexApply, parseUnifiedDiff, seekSequence } from '../appliers/codex-patch.mjs'
import { exactReplace } from '../appliers/exact.mjs'
import { levenshtein, opencodeReplace } from '../appliers/opencode.mjs'

const code = (/** @type {string[]} */ lines) => lines.join('\n') + '\n'
/** The `code` of the error `fn` throws. @param {import('ava').ExecutionContext} t @param {() => unknown} fn */
const codeOf = (t, fn) => /** @type {any} */ (t.throws(fn))?.code

test('exact str_replace replaces a unique occurrence and refuses a missing or repeated one', (t) => {
  t.is(exactReplace('a\nb\nc\n', { oldString: 'b', newString: 'B' }), 'a\nB\nc\n')
  t.is(codeOf(t, () => exactReplace('a\nb\n', { oldString: 'x', newString: 'y' })), 'NOT_FOUND')
  t.is(codeOf(t, () => exactReplace('b\nb\n', { oldString: 'b', newString: 'y' })), 'AMBIGUOUS')
  t.is(exactReplace('a\n', { oldString: 'a', newString: '$&$&' }), '$&$&\n')
})

test('OpenCode: an exact unique match wins', (t) => {
  t.is(opencodeReplace('x = 1\ny = 2\n', { oldString: 'y = 2', newString: 'y = 3' }), 'x = 1\ny = 3\n')
})

test('OpenCode: a line-trimmed match writes the new text with the indentation the model typed', (t) => {
  const file = code(['fn f() {', '    let a = 1;', '    let b = 2;', '}'])
  const out = opencodeReplace(file, { oldString: 'let a = 1;\nlet b = 2;', newString: 'let a = 10;\nlet b = 2;' })
  t.is(out, code(['fn f() {', 'let a = 10;', 'let b = 2;', '}']))
})

test('OpenCode: one block-anchor candidate is taken whatever its middle, even when longer than oldString', (t) => {
  const file = code(['if x {', '    one();', '    two();', '    three();', '}', 'done();'])
  const out = opencodeReplace(file, { oldString: 'if x {\n    zzz();\n}', newString: 'if x {\n    four();\n}' })
  t.is(out, code(['if x {', '    four();', '}', 'done();']))
})

test('OpenCode: among several block-anchor candidates the most alike middle wins, and none below 0.3', (t) => {
  const file = code(['start', 'alpha beta', 'end', 'start', 'gamma delta', 'end'])
  t.is(opencodeReplace(file, { oldString: 'start\ngamma delte\nend', newString: 'X' }), code(['start', 'alpha beta', 'end', 'X']))
  t.is(codeOf(t, () => opencodeReplace(file, { oldString: 'start\nqqqqqqqqqqqqq\nend', newString: 'X' })), 'NOT_FOUND')
})

test('OpenCode: whitespace runs are collapsed to find a match inside a line', (t) => {
  t.is(opencodeReplace('call(a,   b);\n', { oldString: 'a, b', newString: 'c' }), 'call(c);\n')
})

test('OpenCode: indentation-flexible matching finds a block indented differently', (t) => {
  const file = code(['  if a:', '      b()', '  c()'])
  t.is(opencodeReplace(file, { oldString: 'if a:\n    b()\nc()', newString: 'pass' }), code(['pass']))
})

test('OpenCode: escape sequences typed in oldString are read as the characters', (t) => {
  t.is(opencodeReplace('say("hi")\n', { oldString: 'say(\\"hi\\")', newString: 'say("yo")' }), 'say("yo")\n')
})

test('OpenCode: replaceAll replaces every occurrence and expands $& like String.replaceAll', (t) => {
  t.is(opencodeReplace('a a\n', { oldString: 'a', newString: '[$&]', replaceAll: true }), '[a] [a]\n')
})

test('OpenCode: no match and several matches are told apart', (t) => {
  t.is(codeOf(t, () => opencodeReplace('abc\n', { oldString: 'zzz', newString: 'y' })), 'NOT_FOUND')
  t.is(codeOf(t, () => opencodeReplace('ab\nab\n', { oldString: 'ab', newString: 'y' })), 'AMBIGUOUS')
  t.is(codeOf(t, () => opencodeReplace('ab\n', { oldString: 'ab', newString: 'ab' })), 'NO_CHANGE')
})

test('levenshtein counts single-character edits', (t) => {
  t.is(levenshtein('kitten', 'sitting'), 3)
  t.is(levenshtein('', 'abc'), 3)
  t.is(levenshtein('same', 'same'), 0)
})

test('Codex-style seek tries exact, then trailing-whitespace, then trimmed, then ASCII punctuation', (t) => {
  const lines = ['a  ', '  b', 'x \u2014 y']
  t.is(seekSequence(lines, ['a  '], 0), 0)
  t.is(seekSequence(lines, ['a'], 0), 0)
  t.is(seekSequence(lines, ['b'], 0), 1)
  t.is(seekSequence(lines, ['x - y'], 0), 2)
  t.is(seekSequence(lines, ['x - y'], 0, 1), -1)
})

test('Codex-style apply ignores header line numbers and edits the first match from the previous hunk on', (t) => {
  const file = code(['x', 'dup', 'y', 'dup', 'z'])
  const patch = '--- a/f\n+++ b/f\n@@ -4,1 +4,1 @@\n-dup\n+DUP\n'
  t.is(codexApply(file, patch), code(['x', 'DUP', 'y', 'dup', 'z']))
  const two = '--- a/f\n+++ b/f\n@@ -2,1 +2,1 @@\n-dup\n+A\n@@ -4,1 +4,1 @@\n-dup\n+B\n'
  t.is(codexApply(file, two), code(['x', 'A', 'y', 'B', 'z']))
})

test('Codex-style apply writes the hunk new side as written, fuzzy context included', (t) => {
  const file = code(['  a', '  b', '  c'])
  t.is(codexApply(file, '@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n'), code(['a', 'B', 'c']))
})

test('Codex-style apply rejects a hunk whose old side is nowhere', (t) => {
  t.is(codeOf(t, () => codexApply('a\n', '@@ -1,1 +1,1 @@\n-zzz\n+y\n')), 'NOT_FOUND')
})

test('unified diff parsing reads a blank line without its space as blank context', (t) => {
  const [chunk] = parseUnifiedDiff('--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n a\n\n-b\n+c\n')
  t.deepEqual(chunk.oldLines, ['a', '', 'b'])
  t.deepEqual(chunk.newLines, ['a', '', 'c'])
})
