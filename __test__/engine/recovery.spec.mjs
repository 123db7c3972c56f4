// @ts-check
// Recovery of changes of several files that a killed process left, through
// the real loader: processes running batches are killed with SIGKILL at
// random moments. A session not allowed outside its root changes nothing
// outside it, whatever the record there names, and says so; a user's edit
// made between the kill and the next session is kept, and the other files
// are all old or all new with nothing left beside them. A records folder
// that only lost its privacy is put right; one others may write in is
// refused with UNTRUSTED_JOURNAL, which says how to fix it.
import test from 'ava'
import { spawn, spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { binding, scratch } from '../helpers.mjs'
import { stepOf, text } from '../support/batch-steps.mjs'

const { Hashline } = binding
const WRITER = fileURLToPath(new URL('../support/batch-writer.mjs', import.meta.url))
const CLI = fileURLToPath(new URL('../../cli/hashline.cjs', import.meta.url))
const JOURNAL = '.hashline-journal'

/** Every file under `dir`, hidden ones included, with its content. @param {string} dir */
function snapshot(dir) {
  /** @type {Record<string, string>} */
  const files = {}
  for (const entry of fs.readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) {
      const file = path.join(entry.parentPath, entry.name)
      files[path.relative(dir, file)] = fs.readFileSync(file, 'latin1')
    }
  }
  return files
}

/**
 * The files whose content differs between two snapshots.
 * @param {Record<string, string>} before @param {Record<string, string>} after
 */
const changed = (before, after) => [...new Set([...Object.keys(before), ...Object.keys(after)])].filter((k) => before[k] !== after[k])

/** The records waiting in the root's records folder. @param {string} root */
const records = (root) => (fs.existsSync(path.join(root, JOURNAL)) ? fs.readdirSync(path.join(root, JOURNAL)).filter((n) => n.endsWith('.journal')) : [])

/** Files beside others that a change of several files left. @param {string} dir */
const leftovers = (dir) => Object.keys(snapshot(dir)).filter((n) => n.endsWith('.hashline-txn'))

/**
 * Gives each file its text at `step`, making folders as needed.
 * @param {string} root @param {string[]} files @param {number} step
 */
function reset(root, files, step) {
  for (const file of files) {
    const full = path.resolve(root, file)
    fs.mkdirSync(path.dirname(full), { recursive: true })
    fs.writeFileSync(full, text(file, step))
  }
}

/**
 * The step each file is at (NaN for one that is at none).
 * @param {string} root @param {string[]} files
 */
const steps = (root, files) =>
  files.map((file) => {
    const full = path.resolve(root, file)
    return fs.existsSync(full) ? stepOf(file, fs.readFileSync(full, 'utf8')) : Number.NaN
  })

/**
 * Runs the batch writer from `from` and kills it `delay` ms after it is
 * ready; resolves with the last step it began and the last it said done.
 * @param {{ root: string, files: string[], from: number, allowOutsideRoot?: boolean }} job
 * @param {number} delay
 * @returns {Promise<{ begun: number, done: number }>}
 */
function killWriter(job, delay) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [WRITER, JSON.stringify(job)], { stdio: ['ignore', 'pipe', 'pipe'] })
    let [begun, done] = [job.from, job.from]
    let stderr = ''
    child.stderr?.on('data', (d) => { stderr += d })
    createInterface({ input: /** @type {import('node:stream').Readable} */ (child.stdout) }).on('line', (line) => {
      const [word, n] = line.split(' ')
      if (word === 'ready') setTimeout(() => child.kill('SIGKILL'), delay)
      else if (word === 'step') begun = Number(n)
      else if (word === 'done') done = Number(n)
    })
    child.on('close', (code, signal) => {
      if (signal === 'SIGKILL') resolve({ begun, done })
      else reject(new Error(`the writer stopped on its own (${code}): ${stderr}`))
    })
  })
}

/**
 * Two files, in two folders.
 * @param {import('ava').ExecutionContext} t
 */
function twoFiles(t) {
  const root = scratch(t)
  reset(root, ['a/one.txt', 'b/two.txt'], 0)
  return root
}

const BATCH = [
  { path: 'a/one.txt', oldString: text('a/one.txt', 0), newString: text('a/one.txt', 1) },
  { path: 'b/two.txt', oldString: text('b/two.txt', 0), newString: text('b/two.txt', 1) },
]

test('a records folder that only lost its privacy, as `cp -r` leaves it, is made private again and batches go on', (t) => {
  const root = twoFiles(t)
  fs.mkdirSync(path.join(root, JOURNAL))
  fs.chmodSync(path.join(root, JOURNAL), 0o755)
  const result = new Hashline({ root }).applyBatch(BATCH)
  t.regex(result.output, /^Edited 2 files as one change/)
  t.deepEqual(steps(root, ['a/one.txt', 'b/two.txt']), [1, 1])
})

test('a records folder others may write in refuses a batch with UNTRUSTED_JOURNAL, which says how to fix it, and the command line exits with status 4', (t) => {
  const root = twoFiles(t)
  const folder = path.join(root, JOURNAL)
  fs.mkdirSync(folder)
  fs.chmodSync(folder, 0o777)
  const before = snapshot(root)
  const err = /** @type {any} */ (t.throws(() => new Hashline({ root }).applyBatch(BATCH)))
  t.is(err.code, 'UNTRUSTED_JOURNAL')
  t.true(err.message.includes(`chmod 700 ${fs.realpathSync(folder)}`), err.message)
  t.deepEqual(changed(before, snapshot(root)), [])
  t.like(binding.errorCodes().find((/** @type {{ code: string }} */ c) => c.code === 'UNTRUSTED_JOURNAL'), { class: 'refused', exitStatus: 4 })
  const cli = spawnSync(process.execPath, [CLI, 'apply', '--root', root, '--json'], { input: JSON.stringify(BATCH), encoding: 'utf8', env: { ...process.env, HASHLINE_STORE: path.join(root, '..', `${path.basename(root)}-store`) }, timeout: 30_000 })
  fs.rmSync(path.join(root, '..', `${path.basename(root)}-store`), { recursive: true, force: true })
  t.is(cli.status, 4, cli.stdout + cli.stderr)
  t.is(JSON.parse(cli.stdout).error.code, 'UNTRUSTED_JOURNAL')
  fs.chmodSync(folder, 0o700)
  new Hashline({ root }).applyBatch(BATCH)
  t.deepEqual(steps(root, ['a/one.txt', 'b/two.txt']), [1, 1])
})

test('a process allowed outside its root killed mid-batch: a session without that consent changes nothing outside and says so, and one with it puts the change right', async (t) => {
  t.timeout(240_000)
  const root = scratch(t)
  const outside = fs.realpathSync(scratch(t))
  const files = ['a/one.txt', path.join(outside, 'one.txt'), 'b/two.txt', path.join(outside, 'sub', 'two.txt')]
  let step = 0
  reset(root, files, step)
  let [kills, examined] = [0, 0]
  while (examined < 4 && kills < 80) {
    const { begun } = await killWriter({ root, files, from: step, allowOutsideRoot: true }, Math.floor(Math.random() * 40))
    kills++
    if (records(root).length > 0) {
      examined++
      const there = snapshot(outside)
      const view = new Hashline({ root, view: 'full' }).read('a/one.txt', { limit: 1 }).text
      t.deepEqual(changed(there, snapshot(outside)), [], `kill ${kills}: a session without consent changed files outside its root\n${view}`)
      t.regex(view, /Note: .*outside the root/, `kill ${kills}`)
      t.true(view.includes(outside), view)
      t.is(records(root).length, 1, `kill ${kills}: the record is kept`)
      const notes = new Hashline({ root, view: 'full', allowOutsideRoot: true }).read('a/one.txt', { limit: 1 }).text
      t.deepEqual(records(root), [], notes)
      t.regex(notes, /was (finished|undone)/)
    }
    const now = steps(root, files)
    if (!now.every((s) => s === now[0]) || ![begun - 1, begun].includes(now[0])) {
      t.fail(`kill ${kills}: the files are at steps ${now} after a kill in step ${begun}`)
      return
    }
    t.deepEqual([...leftovers(root), ...leftovers(outside)], [], `kill ${kills}`)
    step = now[0]
  }
  t.log(`${kills} kills, ${examined} of them during a change, each left by a session without consent and put right by one with it`)
  t.true(examined > 0, 'no kill fell inside a change')
})

test('batches killed at random with SIGKILL, then a user edit before the next session: the edit is kept, the other files are all old or all new, and nothing is left beside them', async (t) => {
  t.timeout(240_000)
  const root = scratch(t)
  const files = ['a/one.txt', 'a/two.txt', 'b/three.txt', 'b/deep/four.txt']
  let step = 0
  reset(root, files, step)
  let [edits, inFlight] = [0, 0]
  for (let kill = 1; kill <= 40; kill++) {
    const { begun, done } = await killWriter({ root, files, from: step }, Math.floor(Math.random() * 40))
    if (done < begun) inFlight++
    /** @type {{ file: string, bytes: string } | undefined} */
    let edit
    if (Math.random() < 0.5) {
      const file = files[Math.floor(Math.random() * files.length)]
      edit = { file, bytes: `the user's edit after kill ${kill}\n` }
      fs.writeFileSync(path.join(root, file), edit.bytes)
      edits++
    }
    const view = new Hashline({ root, view: 'full' }).read(files[0], { limit: 1 }).text
    if (edit) t.is(fs.readFileSync(path.join(root, edit.file), 'utf8'), edit.bytes, `kill ${kill}: the user's edit was lost\n${view}`)
    const rest = files.filter((f) => f !== edit?.file)
    const now = steps(root, rest)
    if (!now.every((s) => s === now[0]) || ![begun - 1, begun].includes(now[0])) {
      t.fail(`kill ${kill}: ${rest} are at steps ${now} after a kill in step ${begun}\n${view}`)
      return
    }
    t.deepEqual(leftovers(root), [], `kill ${kill}\n${view}`)
    t.false(fs.existsSync(path.join(root, JOURNAL)), `kill ${kill}\n${view}`)
    step = now[0] + 1
    reset(root, files, step)
  }
  t.log(`40 kills, ${inFlight} during a change, ${edits} followed by a user's edit`)
})
