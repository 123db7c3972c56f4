// @ts-check
// Changes that leave two equally short diffs placing the cited line
// differently: each case has two histories that explain the same old and new
// text, with the cited line in a different place in each, so only a
// rejection is right. Found by the stale-refs benchmark.
import test from 'ava'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { binding, refsOf, scratch } from '../helpers.mjs'

const REJECTED = ['HASH_MISMATCH', 'OUT_OF_RANGE']

/**
 * Reads `before`, writes `after` behind the session's back, then edits
 * with the ref of `line` from the read.
 * @param {import('ava').ExecutionContext} t @param {string} before @param {string} after @param {number} line
 * @param {'replace' | 'delete'} op @param {'lean' | 'full'} style
 */
function staleEdit(t, before, after, line, op = 'replace', style = 'full') {
  const dir = scratch(t)
  const path = join(dir, 'f.ts')
  writeFileSync(path, before)
  const hl = new binding.Hashline({ root: dir, view: style })
  const view = hl.read('f.ts')
  writeFileSync(path, after)
  try {
    hl.edit('f.ts', { operations: [{ op, ref: /** @type {Record<number, string>} */ (refsOf(view.text))[line], content: op === 'replace' ? 'X' : undefined }], rev: view.rev })
  } catch (err) {
    return { code: /** @type {{ code: string }} */ (err).code, text: readFileSync(path, 'utf8') }
  }
  return { code: null, text: readFileSync(path, 'utf8') }
}

test('a neighbour changed into a copy of the cited line makes the ref unprovable, so the edit is rejected', (t) => {
  // "b" became "}" (the cited "}" stays line 3), or "b" was deleted and a
  // "}" added after the cited one (now line 2): same old, same new text.
  for (const view of /** @type {const} */ (['full', 'lean'])) {
    const lower = staleEdit(t, 'a\nb\n}\nc\n', 'a\n}\n}\nc\n', 3, 'replace', view)
    t.true(REJECTED.includes(String(lower.code)), `${view}: wrote ${JSON.stringify(lower.text)}`)
    t.is(lower.text, 'a\n}\n}\nc\n')
    const upper = staleEdit(t, 'a\n}\nb\nc\n', 'a\n}\n}\nc\n', 2, 'replace', view)
    t.true(REJECTED.includes(String(upper.code)), `${view}: wrote ${JSON.stringify(upper.text)}`)
    t.is(upper.text, 'a\n}\n}\nc\n')
  }
})

test('a block replaced next to a copy of the cited line makes the ref unprovable, so the edit is rejected', (t) => {
  // "P\n}" or "}\nP" became "I": either "}" of the read may be the one
  // that is gone.
  for (const [line, view] of /** @type {const} */ ([[2, 'full'], [4, 'full'], [2, 'lean'], [4, 'lean']])) {
    const got = staleEdit(t, 'a\n}\nP\n}\nb\n', 'a\n}\nI\nb\n', line, 'replace', view)
    t.true(REJECTED.includes(String(got.code)), `line ${line} (${view}): wrote ${JSON.stringify(got.text)}`)
    t.is(got.text, 'a\n}\nI\nb\n')
  }
})
