// @ts-check
// The asynchronous forms of the heavy calls: they settle with what the
// synchronous ones return, run off the JS thread (the event loop keeps
// turning while one waits), and stop on their AbortSignal before they
// write, leaving the files as they were. A call is held mid-way by a
// process that holds its folder's lock (the lock every write takes), so
// that nothing here depends on timing.
import test from 'ava'
import { getEventListeners } from 'node:events'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { binding, holdFolderLock, refsOf, scratch } from '../helpers.mjs'

const { Hashline } = binding

/** A folder with `a.txt`, a session on it, and the refs of its view. */
function setup(/** @type {import('ava').ExecutionContext} */ t, text = 'one\ntwo\nthree\n', lockTimeoutMs = 60_000) {
  const dir = scratch(t)
  writeFileSync(join(dir, 'a.txt'), text)
  const hl = new Hashline({ root: dir, view: 'full', lockTimeoutMs })
  const refs = /** @type {Record<number, string>} */ (refsOf(hl.read('a.txt').text))
  return { dir, hl, refs, read: () => readFileSync(join(dir, 'a.txt'), 'utf8') }
}

/**
 * Timers that fire, one after the other, until `done()` or `max` of them;
 * how many fired.
 * @param {() => boolean} done @param {number} max
 */
async function timersFired(done, max) {
  let n = 0
  while (!done() && n < max) {
    await new Promise((resolve) => setTimeout(resolve, 0))
    n++
  }
  return n
}

const locking = process.platform === 'win32' ? test.skip : test
// One at a time, so that no other test's call holds the thread pool and
// each call is under way, waiting, when it is aborted.
const lockingSerially = process.platform === 'win32' ? test.skip : test.serial

test('every heavy call has an asynchronous form that settles with what the synchronous one returns', async (t) => {
  const a = setup(t)
  const b = setup(t)
  t.deepEqual(await b.hl.readAsync('a.txt', { limit: 2 }), a.hl.read('a.txt', { limit: 2 }))
  const shown = [{ line: 2, text: 'two' }]
  t.deepEqual(await b.hl.tagAsync('a.txt', shown), a.hl.tag('a.txt', shown))
  t.deepEqual(await b.hl.searchAsync('t', { maxResults: 5 }), a.hl.search('t', { maxResults: 5 }))
  const request = { operations: [{ op: 'replace', ref: a.refs[2], content: 'TWO' }] }
  const planned = await b.hl.planAsync('a.txt', request)
  t.is(planned.output, a.hl.plan('a.txt', request).output)
  t.deepEqual(await b.hl.commitAsync(planned), a.hl.edit('a.txt', request))
  t.is(b.read(), 'one\nTWO\nthree\n')
  const again = { operations: [{ op: 'delete', ref: a.refs[3] }] }
  t.deepEqual(await b.hl.editAsync('a.txt', again), a.hl.edit('a.txt', again))
  const patch = '*** Begin Patch\n*** Update File: a.txt\n@@\n one\n-TWO\n+2\n*** End Patch\n'
  const patchPlan = await b.hl.planPatchAsync(patch)
  t.is(patchPlan.output, a.hl.planPatch(patch).output)
  /** @param {unknown} r @param {string} dir */
  const relative = (r, dir) => JSON.parse(JSON.stringify(r).replaceAll(dir, 'ROOT'))
  t.deepEqual(relative(await b.hl.commitPatchAsync(patchPlan), b.dir), relative(a.hl.commitPatch(a.hl.planPatch(patch)), a.dir))
  t.is(b.read(), 'one\n2\n')
  const written = b.hl.edit('a.txt', { operations: [{ op: 'append', content: 'x' }] }).rev
  a.hl.edit('a.txt', { operations: [{ op: 'append', content: 'x' }] })
  writeFileSync(join(a.dir, 'a.txt'), 'one\n2\nX\n')
  writeFileSync(join(b.dir, 'a.txt'), 'one\n2\nX\n')
  t.deepEqual(await b.hl.reformattedAsync('a.txt', written), a.hl.reformatted('a.txt', written))
  const refsIn = (/** @type {InstanceType<typeof Hashline>} */ hl) => /** @type {Record<number, string>} */ (refsOf(hl.read('a.txt').text))
  const refsA = refsIn(a.hl)
  const refsB = refsIn(b.hl)
  const batch = (/** @type {Record<number, string>} */ refs) => [{ path: 'a.txt', operations: [{ op: 'replace', ref: refs[1], content: 'ONE' }] }]
  const batchPlan = await b.hl.planBatchAsync(batch(refsB))
  t.is(batchPlan.output.replaceAll(b.dir, 'ROOT'), a.hl.planBatch(batch(refsA)).output.replaceAll(a.dir, 'ROOT'))
  t.deepEqual(relative(await b.hl.commitBatchAsync(batchPlan), b.dir), relative(a.hl.applyBatch(batch(refsA)), a.dir))
  t.is(b.read(), 'ONE\n2\nX\n')
  const last = (/** @type {Record<number, string>} */ refs) => [{ path: 'a.txt', operations: [{ op: 'delete', ref: refs[3] }] }]
  t.deepEqual(
    relative(await b.hl.applyBatchAsync(last(refsIn(b.hl))), b.dir),
    relative(a.hl.applyBatch(last(refsIn(a.hl))), a.dir),
  )
  t.is(b.read(), 'ONE\n2\n')
})

test('an asynchronous call fails as the synchronous one does, with the engine code', async (t) => {
  const s = setup(t)
  const err = await t.throwsAsync(s.hl.editAsync('a.txt', { operations: [{ op: 'delete', ref: '2#000#000' }] }))
  t.is(/** @type {any} */ (err).code, 'HASH_MISMATCH')
  t.is(s.read(), 'one\ntwo\nthree\n')
  const missing = await t.throwsAsync(s.hl.readAsync('nope.txt'))
  t.is(/** @type {any} */ (missing).code, 'NOT_FOUND')
})

/** @typedef {(s: ReturnType<typeof setup>, signal: AbortSignal) => Promise<unknown>} Start */
/** @type {[string, Start][]} */
const writes = [
  ['commitAsync', (s, signal) => s.hl.commitAsync(s.hl.plan('a.txt', { operations: [{ op: 'delete', ref: s.refs[1] }] }), { signal })],
  ['editAsync', (s, signal) => s.hl.editAsync('a.txt', { operations: [{ op: 'delete', ref: s.refs[1] }] }, { signal })],
  ['commitPatchAsync', (s, signal) => s.hl.commitPatchAsync(s.hl.planPatch('*** Begin Patch\n*** Delete File: a.txt\n*** End Patch\n'), { signal })],
  ['commitBatchAsync', (s, signal) => s.hl.commitBatchAsync(s.hl.planBatch([{ path: 'a.txt', operations: [{ op: 'delete', ref: s.refs[1] }] }]), { signal })],
  ['applyBatchAsync', (s, signal) => s.hl.applyBatchAsync([{ path: 'a.txt', operations: [{ op: 'delete', ref: s.refs[1] }] }], { signal })],
]

for (const [name, start] of writes) {
  test(`${name} with a signal aborted already writes nothing and fails with CANCELLED`, async (t) => {
    const s = setup(t)
    const err = await t.throwsAsync(start(s, AbortSignal.abort()))
    t.like(err, { code: 'CANCELLED', name: 'AbortError' })
    t.is(s.read(), 'one\ntwo\nthree\n')
  })
}

// An edit's last look at its signal is after it took its folder's lock,
// just before the file is replaced; a patch's is before its first file.
for (const [name, start] of writes.slice(0, 2)) {
  locking(`${name} aborted while it waits for its folder's lock writes nothing`, async (t) => {
    const s = setup(t)
    const lock = await holdFolderLock(t, s.dir)
    const controller = new AbortController()
    let settled = false
    const call = start(s, controller.signal).finally(() => {
      settled = true
    })
    // Timers fire while the call waits on another thread.
    t.is(await timersFired(() => settled, 20), 20)
    controller.abort()
    await lock.release()
    const err = await t.throwsAsync(call)
    t.like(err, { code: 'CANCELLED', name: 'AbortError' })
    t.is(s.read(), 'one\ntwo\nthree\n')
    t.is(getEventListeners(controller.signal, 'abort').length, 0)
  })
}

/** @type {Start} */
const twoFiles = (s, signal) => {
  writeFileSync(join(s.dir, 'b.txt'), 'b\n')
  const batch = [
    { path: 'a.txt', operations: [{ op: 'delete', ref: s.refs[1] }] },
    { path: 'b.txt', operations: [{ op: 'append', content: 'more' }] },
  ]
  return s.hl.applyBatchAsync(batch, { signal })
}

// A cancelled call stops waiting for a lock at once: it does not wait for
// the holder to let go, nor for the lock timeout (long enough here that a
// call still waiting would fail with LOCKED instead).
for (const [name, start] of [...writes, /** @type {[string, Start]} */ (['applyBatchAsync of two files', twoFiles])]) {
  lockingSerially(`${name} aborted while it waits for a lock someone keeps stops waiting and fails with CANCELLED, nothing written`, async (t) => {
    const s = setup(t, undefined, 4_000)
    const lock = await holdFolderLock(t, s.dir)
    const controller = new AbortController()
    let settled = false
    const call = start(s, controller.signal).finally(() => {
      settled = true
    })
    t.is(await timersFired(() => settled, 20), 20, 'the call waits for the lock')
    controller.abort()
    const err = await t.throwsAsync(call)
    t.like(err, { code: 'CANCELLED', name: 'AbortError' })
    t.is(s.read(), 'one\ntwo\nthree\n')
    if (name.endsWith('two files')) t.is(readFileSync(join(s.dir, 'b.txt'), 'utf8'), 'b\n')
    t.is(getEventListeners(controller.signal, 'abort').length, 0)
    await lock.release()
  })
}

// reformattedAsync writes nothing, but reads the file under the session's
// lock of it, which an edit waiting for its folder's lock keeps.
lockingSerially('reformattedAsync aborted while an edit of the file keeps its lock stops waiting and fails with CANCELLED', async (t) => {
  const s = setup(t, undefined, 4_000)
  const lock = await holdFolderLock(t, s.dir)
  let editSettled = false
  const edit = s.hl.editAsync('a.txt', { operations: [{ op: 'replace', ref: s.refs[2], content: 'TWO' }] }).finally(() => {
    editSettled = true
  })
  // The edit takes the file's lock on the thread pool, then waits for the folder's.
  t.is(await timersFired(() => editSettled, 50), 50, 'the edit waits for the folder')
  const controller = new AbortController()
  let settled = false
  const call = s.hl.reformattedAsync('a.txt', s.hl.read('a.txt').rev, { signal: controller.signal }).finally(() => {
    settled = true
  })
  t.is(await timersFired(() => settled, 20), 20, 'the call waits for the edit')
  controller.abort()
  const err = await t.throwsAsync(call)
  t.like(err, { code: 'CANCELLED', name: 'AbortError' })
  await lock.release()
  t.is((await edit).additions, 1)
  t.is(s.read(), 'one\nTWO\nthree\n')
})

locking('the event loop keeps turning while an edit waits, and the edit completes once it can', async (t) => {
  const s = setup(t)
  const lock = await holdFolderLock(t, s.dir)
  const signal = new AbortController().signal
  let settled = false
  const call = s.hl.editAsync('a.txt', { operations: [{ op: 'replace', ref: s.refs[2], content: 'TWO' }] }, { signal }).finally(() => {
    settled = true
  })
  t.is(await timersFired(() => settled, 50), 50, 'timers fire while the edit waits')
  t.false(settled)
  await lock.release()
  const result = await call
  t.is(result.additions, 1)
  t.is(s.read(), 'one\nTWO\nthree\n')
  t.is(getEventListeners(signal, 'abort').length, 0, 'the listener is removed once the call settles')
})

test('a signal that is not an AbortSignal is refused before anything runs', async (t) => {
  const s = setup(t)
  for (const signal of [{}, 'stop', { aborted: 'no', addEventListener() {}, removeEventListener() {} }]) {
    const err = await t.throwsAsync(async () => s.hl.editAsync('a.txt', { operations: [{ op: 'delete', ref: s.refs[1] }] }, /** @type {any} */ ({ signal })))
    t.is(/** @type {any} */ (err).code, 'INVALID_REQUEST')
  }
  t.is(s.read(), 'one\ntwo\nthree\n')
})

test('a plan committed asynchronously cannot be committed again, and its result stays readable', async (t) => {
  const s = setup(t)
  const plan = s.hl.plan('a.txt', { operations: [{ op: 'replace', ref: s.refs[1], content: 'ONE' }] })
  const [first, second] = await Promise.allSettled([s.hl.commitAsync(plan), s.hl.commitAsync(plan)])
  const outcomes = [first, second].map((o) => (o.status === 'fulfilled' ? 'written' : /** @type {any} */ (o.reason).code)).sort()
  t.deepEqual(outcomes, ['BASE_CHANGED', 'written'])
  t.is(s.read(), 'ONE\ntwo\nthree\n')
  t.true(plan.output.includes('ONE'))
})
