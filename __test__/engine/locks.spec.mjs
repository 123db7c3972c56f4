// @ts-check
// No hang on locks: a hashline process stopped with SIGSTOP in the middle of
// a write must not block the other edits of its folder. While it holds the
// folder's lock, another edit there waits a bounded time and fails with
// LOCKED, naming the process; while it holds only its temporary file, other
// edits go through and leave that file alone.
import test from 'ava'
import { spawn, spawnSync } from 'node:child_process'
import { existsSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs'
import { createInterface } from 'node:readline'
import { setTimeout as sleep } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'
import { join } from 'node:path'
import { binding, scratch } from '../helpers.mjs'

const { Hashline } = binding

const EDITOR = fileURLToPath(new URL('../support/looping-editor.mjs', import.meta.url))
const INDEX = fileURLToPath(new URL('../../index.js', import.meta.url))
const MAX_STOPS = 600
const WANTED = 3

/** @param {string} dir */
const temporaries = (dir) => readdirSync(dir).filter((n) => n.endsWith('.hashline-tmp'))

/**
 * The processes holding a flock on the inode of `path`, from /proc/locks.
 * @param {string} path
 */
function flockHolders(path) {
  const ino = statSync(path).ino
  return readFileSync('/proc/locks', 'utf8')
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .filter((f) => f[1] === 'FLOCK' && f[5]?.endsWith(`:${ino}`))
    .map((f) => Number(f[4]))
}

/** Whether process `pid` is stopped. @param {number} pid */
function stopped(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  return stat.slice(stat.lastIndexOf(')') + 2).startsWith('T')
}

/**
 * An edit in a separate process, so that an engine that waits forever fails
 * this test instead of stalling the suite.
 * @param {string} root @param {Record<string, unknown>} options
 * @returns {{ ok?: boolean, code?: string, message?: string }}
 */
function editInChild(root, options) {
  const script = `
    const { Hashline } = require(${JSON.stringify(INDEX)})
    try {
      new Hashline({ view: 'full', root: ${JSON.stringify(root)}, ...${JSON.stringify(options)} })
        .edit('other.txt', { operations: [{ op: 'append', content: 'from the child' }] })
      console.log('{"ok":true}')
    } catch (e) { console.log(JSON.stringify({ code: e.code, message: e.message })) }`
  const out = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', timeout: 60_000 })
  if (out.signal) return { code: `no answer (killed by ${out.signal})` }
  return JSON.parse(out.stdout)
}

test('a hashline process stopped mid-write blocks no other edit of its folder for longer than the lock timeout', async (t) => {
  t.timeout(280_000)
  const dir = scratch(t)
  const rows = Array.from({ length: 20_000 }, (_, i) => `row ${i} ${'r'.repeat(40)}`)
  writeFileSync(join(dir, 'f.txt'), `step -\n${rows.join('\n')}\n`)
  writeFileSync(join(dir, 'other.txt'), 'other\n')
  const child = spawn(process.execPath, [EDITOR, JSON.stringify({ root: dir, path: 'f.txt', maxMs: 250_000 })], { stdio: ['ignore', 'pipe', 'inherit'] })
  t.teardown(() => child.kill('SIGKILL'))
  const pid = /** @type {number} */ (child.pid)
  await new Promise((resolve) => createInterface({ input: /** @type {import('node:stream').Readable} */ (child.stdout) }).once('line', resolve))

  const hl = new Hashline({ view: 'full', root: dir })
  let holdingLock = 0
  let holdingTemporary = 0
  let stops = 0
  for (; stops < MAX_STOPS && (holdingLock < WANTED || holdingTemporary < WANTED); stops++) {
    await sleep(Math.random() * 15)
    child.kill('SIGSTOP')
    while (!stopped(pid)) await sleep(1)
    const holds = flockHolders(dir).includes(pid)
    const temps = temporaries(dir)
    if (holds && holdingLock < WANTED) {
      holdingLock++
      const before = readFileSync(join(dir, 'other.txt'), 'utf8')
      const out = editInChild(dir, { lockTimeoutMs: 200 })
      t.is(out.code, 'LOCKED', JSON.stringify(out))
      t.regex(out.message ?? '', new RegExp(`process ${pid}\\b`), 'the message names the process holding the lock')
      t.is(readFileSync(join(dir, 'other.txt'), 'utf8'), before, 'a LOCKED edit wrote nothing')
    } else if (!holds && temps.length > 0 && holdingTemporary < WANTED) {
      holdingTemporary++
      hl.edit('other.txt', { operations: [{ op: 'append', content: 'while stopped' }] })
      for (const name of temps) t.true(existsSync(join(dir, name)), `the stopped writer's ${name} was left alone`)
    }
    child.kill('SIGCONT')
  }
  t.log(`${stops} stops: ${holdingLock} while the folder was locked, ${holdingTemporary} while only a temporary file was held`)
  t.is(holdingLock, WANTED, 'the writer was stopped holding the folder lock')
  t.is(holdingTemporary, WANTED, 'the writer was stopped holding only its temporary file')
  child.kill('SIGKILL')
  await new Promise((resolve) => child.once('exit', resolve))
  // The killed writer's leftovers go with the next edit of the folder.
  const text = readFileSync(join(dir, 'f.txt'), 'utf8')
  t.true(text.endsWith(`${rows.join('\n')}\n`) && /^step \S+\n/.test(text), 'the file is whole')
  hl.edit('other.txt', { operations: [{ op: 'append', content: 'after' }] })
  t.deepEqual(temporaries(dir), [])
})

test('lockTimeoutMs must be a whole number of milliseconds', (t) => {
  const dir = scratch(t)
  for (const value of [-1, 1.5, Number.NaN, '100']) {
    const err = /** @type {{ code?: string }} */ (t.throws(() => new Hashline({ view: 'full', root: dir, lockTimeoutMs: /** @type {any} */ (value) })))
    t.is(err?.code, 'INVALID_REQUEST', String(value))
  }
  t.notThrows(() => new Hashline({ view: 'full', root: dir, lockTimeoutMs: 0 }))
})
