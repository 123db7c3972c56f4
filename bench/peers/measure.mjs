// @ts-check
// The timed part of the peer benchmark, run inside one JS runtime (Node in
// the runner's own process, Bun in a child): every implementation that
// runs in this runtime, on every workload it has a path for, checked first
// and then timed in rotation.
//
//   bun measure.mjs '<json>'  prints the results as one JSON line
//   json: { binding, work, quick, only? }

import * as fs from 'node:fs'
import * as path from 'node:path'
import { expectedEdit, textOf } from './corpus.mjs'
import { hashline, isBun, mcpHashlineEditServer, ohMyOpenagent, ohMyPiJs, ohMyPiNative, refsOf } from './peers.mjs'
import { median } from '../harness.mjs'

/** The workloads, in the order they run and are printed. */
export const WORKLOADS = [
  ...[50, 500, 5000, 100_000].flatMap((lines) => ['text', 'file'].map((where) => ({ kind: 'view', where, lines, k: 0 }))),
  ...[
    [500, 10],
    [5000, 10],
    [5000, 100],
    [100_000, 10],
    [100_000, 100],
  ].flatMap(([lines, k]) => ['text', 'file'].map((where) => ({ kind: 'edit', where, lines, k }))),
]

/**
 * Times one call of `job`, its setup untimed; a call that returns a promise
 * is awaited, one that does not is timed without a turn of the event loop.
 * @param {import('./peers.mjs').Job} job
 */
async function once(job) {
  if (job.setup) await job.setup()
  const start = performance.now()
  const out = job.run()
  if (out && typeof (/** @type {any} */ (out).then) === 'function') await out
  return performance.now() - start
}

/**
 * Times the jobs in rounds, each round running every job once, the first
 * job of a round moving along so none always runs right after another.
 * Three untimed warm-up rounds first; then as many rounds as fit in
 * `budgetMs`, within `minRounds..maxRounds`.
 * @param {import('./peers.mjs').Job[]} jobs
 * @param {{ budgetMs: number, minRounds: number, maxRounds: number }} o
 */
export async function rotate(jobs, o) {
  let roundMs = 0
  for (let w = 0; w < 3; w++) {
    roundMs = 0
    for (const job of jobs) roundMs += await once(job)
  }
  const rounds = Math.max(o.minRounds, Math.min(o.maxRounds, Math.ceil(o.budgetMs / Math.max(roundMs, 1e-3))))
  /** @type {number[][]} */
  const samples = jobs.map(() => [])
  for (let r = 0; r < rounds; r++) {
    for (let i = 0; i < jobs.length; i++) {
      const at = (i + r) % jobs.length
      samples[at].push(await once(jobs[at]))
    }
  }
  return samples.map((s) => ({ ms: median(s), min: Math.min(...s), max: Math.max(...s), rounds: s.length }))
}

/**
 * The implementations this runtime can load; one that fails to load is
 * reported, not fatal.
 * @param {string} binding
 * @param {string} dir
 */
async function implementations(binding, dir) {
  /** @type {Array<[string, () => Promise<import('./peers.mjs').Impl>]>} */
  const all = [
    ['hashline', async () => hashline(binding)],
    ['oh-my-openagent', () => ohMyOpenagent(dir)],
    ...(isBun
      ? /** @type {Array<[string, () => Promise<import('./peers.mjs').Impl>]>} */ ([
          ['oh-my-pi (JS)', () => ohMyPiJs()],
          ['oh-my-pi (Rust)', () => ohMyPiNative(dir)],
          ['mcp-hashline-edit-server', () => mcpHashlineEditServer()],
        ])
      : []),
  ]
  const impls = []
  /** @type {Record<string, string>} */
  const failed = {}
  for (const [name, load] of all) {
    try {
      impls.push(await load())
    } catch (err) {
      failed[name] = String(/** @type {any} */ (err)?.message ?? err).split('\n')[0]
    }
  }
  return { impls, failed }
}

/**
 * Checks what a job produced before it is timed: a view shows a ref for
 * every line, an edit leaves exactly the expected text.
 * @param {import('./peers.mjs').Impl} impl
 * @param {{ kind: string, lines: number, k: number }} w
 * @param {import('./peers.mjs').Job} job
 * @param {string} text
 */
async function check(impl, w, job, text) {
  if (job.setup) await job.setup()
  const out = await job.run()
  if (w.kind === 'view') {
    const refs = refsOf(String(out), impl.viewLine)
    if (refs.size < w.lines || !refs.has(w.lines)) throw new Error(`its view shows refs for ${refs.size} of ${w.lines} lines`)
    return
  }
  const produced = job.produced ? job.produced() : String(out)
  if (produced !== expectedEdit(text, w.k)) {
    const want = expectedEdit(text, w.k).split('\n')
    const got = produced.split('\n')
    const i = want.findIndex((l, at) => l !== got[at])
    throw new Error(`its edit left different text, first at line ${i + 1}: ${JSON.stringify(got[i]?.slice(0, 80))}`)
  }
}

/**
 * @param {{ binding: string, work: string, quick?: boolean, only?: string[], log?: (s: string) => void }} o
 */
export async function measure(o) {
  const runtime = isBun ? `Bun ${/** @type {any} */ (globalThis).Bun.version}` : `Node ${process.version}`
  const log = o.log ?? ((/** @type {string} */ s) => process.stderr.write(`  [${runtime}] ${s}\n`))
  const dir = path.join(o.work, isBun ? 'bun' : 'node')
  fs.mkdirSync(dir, { recursive: true })
  const { impls, failed } = await implementations(o.binding, dir)
  const budget = o.quick ? { budgetMs: 500, minRounds: 5, maxRounds: 2000 } : { budgetMs: 3000, minRounds: 15, maxRounds: 20000 }
  const results = []
  for (const w of WORKLOADS) {
    const label = `${w.kind} ${w.where === 'text' ? 'in memory' : 'end to end'}, ${w.lines} lines${w.k ? `, ${w.k} replacements` : ''}`
    if (o.only && !o.only.some((s) => label.includes(s))) continue
    log(label)
    const text = textOf(w.lines)
    /** @type {Record<string, string>} */
    const errors = {}
    const runnable = []
    for (const [index, impl] of impls.entries()) {
      const file = path.join(dir, `${w.kind}-${w.lines}-${w.k}-${index}.ts`)
      fs.writeFileSync(file, text)
      const job =
        w.kind === 'view'
          ? w.where === 'text'
            ? impl.viewText?.(text, w.lines)
            : impl.viewFile?.(file, w.lines)
          : w.where === 'text'
            ? impl.editText?.(text, w.k)
            : impl.editFile?.(file, text, w.k)
      if (!job) continue
      try {
        const ready = await job
        await check(impl, w, ready, text)
        runnable.push({ impl, job: ready })
      } catch (err) {
        errors[impl.name] = String(/** @type {any} */ (err)?.message ?? err).split('\n')[0].slice(0, 200)
      }
    }
    const timed = await rotate(
      runnable.map((r) => r.job),
      budget,
    )
    results.push({
      ...w,
      bytes: Buffer.byteLength(text),
      times: Object.fromEntries(runnable.map((r, i) => [r.impl.name, timed[i]])),
      errors,
    })
  }
  return { runtime, impls: impls.map((i) => i.name), failed, results }
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(new URL(import.meta.url).pathname) && process.argv[2]) {
  const o = JSON.parse(process.argv[2])
  measure(o)
    .then((r) => {
      process.stdout.write(JSON.stringify(r) + '\n')
      // A peer may leave servers or timers behind.
      process.exit(0)
    })
    .catch((err) => {
      process.stderr.write(`${err.stack ?? err}\n`)
      process.exit(1)
    })
}
