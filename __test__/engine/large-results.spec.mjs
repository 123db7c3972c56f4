import test from 'ava'
import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { bunBinary } from '../helpers.mjs'

const REPO = fileURLToPath(new URL('../..', import.meta.url))
const CHECK = fileURLToPath(new URL('../support/large-results.cjs', import.meta.url))

// Results above the size where they are handed over without a copy, ASCII
// and not, in every runtime the package supports.
for (const [runtime, args] of [['Node', [process.execPath, '--expose-gc']], ['Bun', [bunBinary()]]]) {
  test(`under ${runtime} large views, edits and reads come back exactly as JS computes them`, (t) => {
    const [exe, ...flags] = args
    const out = spawnSync(exe, [...flags, CHECK, join(REPO, 'index.js')], { encoding: 'utf8', timeout: 120_000 })
    t.is(out.status, 0, out.stderr)
    const results = JSON.parse(out.stdout)
    t.deepEqual(results, {
      'ascii view': true,
      'ascii edit': true,
      'ascii read': true,
      'non-ascii view': true,
      'non-ascii edit': true,
      'non-ascii read': true,
      'results outlive collections': true,
    })
    t.is(out.stderr, '')
  })
}
