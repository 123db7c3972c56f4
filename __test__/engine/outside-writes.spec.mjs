// @ts-check
// No outside write is lost: another program rewrites a file in a loop while
// the engine commits edits to it. Before each commit the test keeps a hard
// link to the file as it is, so the version a commit replaces can be read
// afterwards: every commit that landed must have replaced exactly the bytes
// it was planned on. A completed outside write that a commit overwrote
// would show up in that link as bytes the plan never saw.
import test from 'ava'
import { spawn } from 'node:child_process'
import { linkSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { join } from 'node:path'
import { binding, refsOf as untypedRefsOf, scratch } from '../helpers.mjs'

const { Hashline, rev } = binding

/** The refs of a view's lines, by 1-based line number. @param {string} text */
const refsOf = (text) => /** @type {Record<number, string>} */ (untypedRefsOf(text))

const TRIALS = 1000
// Rounds whose read or plan met the file mid-write try no commit, and how
// many do depends on how the two processes are scheduled: on a loaded
// machine most of them. So the rounds are bounded by the writer's life, not
// by their number.
const WRITER_MS = 240_000
const ROUNDS_MS = WRITER_MS - 20_000
const WRITER = fileURLToPath(new URL('../support/outside-writer.mjs', import.meta.url))

test(`an outside writer racing ${TRIALS} commits loses no write: every landed commit replaced the bytes it was planned on`, async (t) => {
  t.timeout(300_000)
  const parent = scratch(t)
  const dir = join(parent, 'work')
  const kept = join(parent, 'kept')
  mkdirSync(dir)
  mkdirSync(kept)
  const file = join(dir, 'f.txt')
  writeFileSync(file, 'start\nrow\n')

  const writer = spawn(process.execPath, [WRITER, JSON.stringify({ file, maxMs: WRITER_MS })], { stdio: ['pipe', 'pipe', 'inherit'] })
  t.teardown(() => writer.kill('SIGKILL'))
  const lines = createInterface({ input: /** @type {import('node:stream').Readable} */ (writer.stdout) })
  /** @type {string[]} */
  const said = []
  // 'close', not 'exit': the last line it prints may still be in the pipe when it exits.
  const exited = new Promise((resolve) => writer.on('close', resolve))
  await new Promise((resolve) => lines.on('line', (line) => { said.push(line); if (line === 'ready') resolve(undefined) }))

  const hl = new Hashline({ view: 'full', root: dir })
  /** @type {Array<{ trial: number, base: string }>} */
  const landed = []
  /** @type {Record<string, number>} */
  const refused = {}
  /** @type {number[]} */
  const refusedYetWritten = []
  let trials = 0
  const until = Date.now() + ROUNDS_MS
  for (let round = 0; trials < TRIALS && Date.now() < until; round++) {
    /** @type {any} */
    let plan
    try {
      const ref = refsOf(hl.read('f.txt', { limit: 1 }).text)[1]
      if (!ref) continue
      plan = hl.plan('f.txt', { operations: [{ op: 'replace', ref, content: `engine ${round}` }] })
    } catch {
      continue
    }
    const trial = trials++
    linkSync(file, join(kept, String(trial)))
    try {
      hl.commit(plan)
      landed.push({ trial, base: plan.previousRev })
    } catch (err) {
      const code = /** @type {{ code?: string }} */ (err).code ?? 'NO_CODE'
      refused[code] = (refused[code] ?? 0) + 1
      if (readFileSync(file, 'utf8').startsWith(`engine ${round}\n`)) refusedYetWritten.push(trial)
    }
  }
  writer.stdin?.end('stop\n')
  await exited
  const writes = Number(said.at(-1))

  const lost = landed.filter(({ trial, base }) => rev(readFileSync(join(kept, String(trial)), 'utf8')) !== base)
  t.log(`${trials} commits raced ${writes} outside writes: ${landed.length} landed, refused ${JSON.stringify(refused)}; ${lost.length} outside writes lost`)
  t.true(trials >= TRIALS, `at least ${TRIALS} commits were tried`)
  t.true(landed.length > 0 && writes > 0, 'both sides wrote')
  t.deepEqual(Object.keys(refused).filter((code) => code !== 'BASE_CHANGED'), [], 'a commit is refused only because the file changed')
  t.deepEqual(lost.map((l) => l.trial), [], 'no landed commit replaced bytes it was not planned on')
  t.deepEqual(refusedYetWritten, [], 'a refused commit left its content nowhere in the file')
})
