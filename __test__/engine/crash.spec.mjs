// @ts-check
// Crash safety: a process committing edits in a loop is killed with
// SIGKILL at random moments. After every kill the file must be, byte for
// byte, the last version the writer reported or the one it was writing,
// and the next edit in that folder must leave no temporary file behind.
import test from 'ava'
import { spawn } from 'node:child_process'
import { readFileSync, readdirSync, writeFileSync } from 'node:fs'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { join } from 'node:path'
import { binding, refsOf as untypedRefsOf, scratch } from '../helpers.mjs'
import { render, stepOf } from '../support/crash-steps.mjs'

const { Hashline } = binding

/** The refs of a view's lines, by 1-based line number. @param {string} text */
const refsOf = (text) => /** @type {Record<number, string>} */ (untypedRefsOf(text))

const KILLS = 200
/** Folders killed in parallel, each its own sequence of kills. */
const LANES = 2
/** The longest wait before a kill, once the writer is running. */
const MAX_DELAY_MS = 60
const WRITER = fileURLToPath(new URL('../support/crash-writer.mjs', import.meta.url))

/** @param {string} dir */
const temporaries = (dir) => readdirSync(dir).filter((n) => n.endsWith('.hashline-tmp'))

/**
 * Starts the writer, kills it `delay` ms after it is ready, and resolves
 * with the last step it reported as committed.
 * @param {string} dir @param {number} delay
 * @returns {Promise<number>}
 */
function killWriter(dir, delay) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [WRITER, JSON.stringify({ root: dir, path: 'f.txt' })], { stdio: ['ignore', 'pipe', 'pipe'] })
    let committed = Number.NaN
    let stderr = ''
    child.stderr?.on('data', (d) => { stderr += d })
    createInterface({ input: /** @type {import('node:stream').Readable} */ (child.stdout) }).on('line', (line) => {
      if (line === 'ready') setTimeout(() => child.kill('SIGKILL'), delay)
      else committed = Number(line)
    })
    child.on('close', (code, signal) => {
      if (signal === 'SIGKILL') resolve(committed)
      else reject(new Error(`the writer stopped on its own (${code}): ${stderr}`))
    })
  })
}

test(`a writer killed with SIGKILL ${KILLS} times always leaves the old or the new version, and the next edit clears temporaries`, async (t) => {
  t.timeout(300_000)
  let killedMidWrite = 0
  let temporariesFound = 0
  let commits = 0

  /** @param {number} lane */
  const runLane = async (lane) => {
    const dir = scratch(t)
    const file = join(dir, 'f.txt')
    writeFileSync(file, render(0))
    let step = 0
    for (let i = lane; i < KILLS; i += LANES) {
      const committed = await killWriter(dir, Math.floor(Math.random() * MAX_DELAY_MS))
      const last = Number.isNaN(committed) ? step : committed
      const text = readFileSync(file, 'utf8')
      const now = stepOf(text.slice(0, text.indexOf('\n')))
      if (![last, last + 1].includes(now) || text !== render(now)) {
        t.fail(`kill ${i}: the file is not version ${last} or ${last + 1} (first line ${JSON.stringify(text.slice(0, 20))}, ${text.length} bytes)`)
        return
      }
      if (now === last + 1) killedMidWrite++
      commits += now - step
      step = now

      if (temporaries(dir).length > 0) temporariesFound++
      // The next edit of the folder, by another session, continues the
      // sequence and must sweep whatever the killed write left.
      const hl = new Hashline({ view: 'full', root: dir })
      const refs = refsOf(hl.read('f.txt', { limit: 1 }).text)
      const end = hl.read('f.txt', { offset: text.split('\n').length - 1, limit: 1 })
      const through = refsOf(end.text)[end.totalLines]
      hl.edit('f.txt', { operations: [{ op: 'replace', ref: refs[1], through, content: render(step + 1) }] })
      step++
      t.deepEqual(temporaries(dir), [], `kill ${i}: no temporary file after the next edit`)
      t.is(readFileSync(file, 'utf8'), render(step))
    }
  }
  await Promise.all(Array.from({ length: LANES }, (_, lane) => runLane(lane)))
  t.log(`${commits} commits by killed writers; ${killedMidWrite} kills landed between a rename and its report; ${temporariesFound} kills left a temporary file`)
})
