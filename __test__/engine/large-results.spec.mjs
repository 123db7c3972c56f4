import test from 'ava'
import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { bunBinary } from '../helpers.mjs'

const REPO = fileURLToPath(new URL('../..', import.meta.url))
const CHECK = fileURLToPath(new URL('../support/large-results.cjs', import.meta.url))

// Results above the size where they are handed over without a copy and
// below it, ASCII, Latin-1 and wider, in every runtime the package supports.
for (const [runtime, args] of [['Node', [process.execPath, '--expose-gc']], ['Bun', [bunBinary()]]]) {
  test(`under ${runtime} large and small views, edits and reads in ASCII, Latin-1 and wider text come back exactly as JS computes them`, (t) => {
    const [exe, ...flags] = args
    const out = spawnSync(exe, [...flags, CHECK, join(REPO, 'index.js')], { encoding: 'utf8', timeout: 120_000 })
    t.is(out.status, 0, out.stderr)
    const results = JSON.parse(out.stdout)
    const expected = { 'results outlive collections': true }
    for (const size of ['', 'small ']) {
      for (const kind of ['ascii', 'latin-1', 'non-ascii']) {
        for (const call of ['view', 'edit', 'read']) expected[`${size}${kind} ${call}`] = true
      }
    }
    t.deepEqual(results, expected)
    t.is(out.stderr, '')
  })
}
