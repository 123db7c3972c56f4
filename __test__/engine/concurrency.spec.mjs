// @ts-check
// Eight processes edit one file at once, each with its own session and the
// refs of one shared read. Every edit must either land exactly once or be
// rejected with an error code, and the file must end up holding exactly
// the edits that reported success: no lost update, no torn write.
import test from 'ava'
import { spawn } from 'node:child_process'
import { readFileSync, readdirSync, writeFileSync } from 'node:fs'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { join } from 'node:path'
import { binding, refsOf as untypedRefsOf, scratch } from '../helpers.mjs'

const { Hashline } = binding

/** The refs of a view's lines, by 1-based line number. @param {string} text */
const refsOf = (text) => /** @type {Record<number, string>} */ (untypedRefsOf(text))

const WORKERS = 8
const EDITS = 500
// The file changed between plan and write (another process won the lock),
// or the refs could no longer be placed provably; once a session's store
// has let go of the shared read, a ref may also validate only in a version
// it wrote but never showed. Any of these is a clean refusal.
const REJECTIONS = ['BASE_CHANGED', 'HASH_MISMATCH', 'UNSEEN_LINES']
const EDITOR = fileURLToPath(new URL('../support/concurrent-editor.mjs', import.meta.url))

/**
 * @typedef {{ worker: number, landed: number[], rejected: Record<string, number>, codes: Record<number, string> }} Report
 */

/**
 * Starts one editor; resolves its report once it has made its edits.
 * `ready` resolves when it has read the file and waits for the start.
 * @param {Record<string, unknown>} args
 */
function startEditor(args) {
  const child = spawn(process.execPath, [EDITOR, JSON.stringify(args)], { stdio: ['pipe', 'pipe', 'inherit'] })
  const lines = createInterface({ input: /** @type {import('node:stream').Readable} */ (child.stdout) })
  /** @type {(v?: unknown) => void} */
  let onReady = () => {}
  const ready = new Promise((resolve) => { onReady = resolve })
  /** @type {Promise<Report>} */
  const report = new Promise((resolve, reject) => {
    lines.on('line', (line) => {
      if (line === 'ready') onReady()
      else resolve(JSON.parse(line))
    })
    child.on('exit', (code) => { if (code !== 0) reject(new Error(`editor ${args.worker} exited with ${code}`)) })
  })
  return { ready, report, go: () => child.stdin?.end('go\n') }
}

test(`${WORKERS} processes making ${EDITS} edits each from one shared read: each edit lands exactly once or is rejected, and the file holds exactly the landed ones`, async (t) => {
  t.timeout(240_000)
  const dir = scratch(t)
  const header = (/** @type {number} */ w) => `== region ${w} ==`
  const initial = ['# shared file', ...Array.from({ length: WORKERS }, (_, w) => [header(w), `-- end ${w} --`]).flat(), '# end']
  writeFileSync(join(dir, 'shared.txt'), `${initial.join('\n')}\n`)

  const view = new Hashline({ view: 'full', root: dir }).read('shared.txt')
  const refs = refsOf(view.text)
  const editors = Array.from({ length: WORKERS }, (_, w) =>
    startEditor({ root: dir, path: 'shared.txt', worker: w, count: EDITS, ref: refs[2 + 2 * w] }))
  await Promise.all(editors.map((e) => e.ready))
  for (const e of editors) e.go()
  const reports = await Promise.all(editors.map((e) => e.report))

  const final = readFileSync(join(dir, 'shared.txt'), 'utf8')
  t.true(final.endsWith('\n'), 'the file is whole')
  const lines = final.slice(0, -1).split('\n')
  // Each insert goes right after its header, so a region lists its landed
  // edits newest first.
  const expected = ['# shared file']
  for (const r of reports.sort((a, b) => a.worker - b.worker)) {
    expected.push(header(r.worker), ...[...r.landed].reverse().map((i) => `${r.worker}:${i}`), `-- end ${r.worker} --`)
    t.is(r.landed.length + Object.values(r.rejected).reduce((a, b) => a + b, 0), EDITS, `worker ${r.worker} accounted for every edit`)
    for (const code of Object.keys(r.rejected)) t.true(REJECTIONS.includes(code), `worker ${r.worker}: rejected with ${code}`)
  }
  expected.push('# end')
  t.deepEqual(lines, expected)

  const landed = reports.reduce((n, r) => n + r.landed.length, 0)
  t.true(landed > 0, 'some edits landed')
  t.log(`landed ${landed} of ${WORKERS * EDITS}; rejected: ${JSON.stringify(reports.map((r) => r.rejected))}`)
  t.deepEqual(readdirSync(dir).filter((n) => n.endsWith('.hashline-tmp')), [], 'no temporary file is left')
})

test(`one session making ${EDITS} edits from one read: every edit lands, because the refs of the read stay usable`, (t) => {
  const dir = scratch(t)
  writeFileSync(join(dir, 'log.txt'), '# log\n== entries ==\n# end\n')
  const hl = new Hashline({ view: 'full', root: dir })
  const ref = refsOf(hl.read('log.txt').text)[2]
  /** @type {Record<string, number>} */
  const rejected = {}
  for (let i = 0; i < EDITS; i++) {
    try {
      hl.edit('log.txt', { operations: [{ op: 'insert_after', ref, content: `entry ${i}` }] })
    } catch (err) {
      const code = /** @type {{ code: string }} */ (err).code
      rejected[code] = (rejected[code] ?? 0) + 1
    }
  }
  t.deepEqual(rejected, {})
  const entries = Array.from({ length: EDITS }, (_, i) => `entry ${EDITS - 1 - i}`)
  t.is(readFileSync(join(dir, 'log.txt'), 'utf8'), ['# log', '== entries ==', ...entries, '# end', ''].join('\n'))
})
