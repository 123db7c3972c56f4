// @ts-check
// The cost of the telemetry record on the hot path: reads and edits through
// the binding, end to end from JS (the call, the engine, the result handed
// back, the record queued and written by its thread), by a session that
// records and one that does not (`telemetry: false`), timed in interleaved
// rounds in one run so that load from other processes falls on both alike;
// then the command line, one process per call, with and without
// `--no-telemetry` (its record is written as the process ends). The target
// is a ratio of at most 1.03 (docs/telemetry.md). Wall time and the CPU time
// of the whole process (every thread, the writer's included) are both shown.
// Then a soak, not timed: 100,000 recorded calls (reads and searches, with an
// edit every hundred) into a folder of their own, whose files must stay
// within the rotation bound (4 files of 8 MiB) and read back whole.
//
//   node bench/telemetry/run.mjs [--binding path/to/index.js] [--build-release]
//                                [--rounds N] [--quick] [--soak N] [--json out.json]
//
// --binding        the loader to benchmark (default: the package's index.js).
// --build-release  first build a release copy of the addon and benchmark that.
// --rounds         rounds of each workload (default 25; 8 with --quick).
// --soak           calls of the soak (default 100,000; 0 leaves it out).
// --json           also write the raw numbers.

import { spawnSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { asCount, asNumber, asPath, int, bindingOptions, buildOf, codeFile, flag, load, loaderOf, median, options, progress, repo, table, time, verdict, writeReport } from '../harness.mjs'

const TARGET = 1.03

/** The record's files and their most bytes each, as the engine keeps them (docs/telemetry.md). */
const FILES = 4
const MAX_FILE_BYTES = 8 << 20
/** What one append may carry past the bound (the writer's chunk). */
const CHUNK_BYTES = 64 << 10

/**
 * The soak: passes of `calls` recorded calls each, by a session of its own
 * into a folder of its own; after each pass, the record's files against the
 * bound and the records read back. A pass of 100,000 calls writes some
 * 20 MB, so the second pass rotates the files.
 * @param {typeof import('../../index.js')} binding
 * @param {string} work
 * @param {number} calls
 */
function soak(binding, work, calls) {
  const root = path.join(work, 'soak')
  const dir = path.join(work, 'soak-telemetry')
  fs.mkdirSync(root)
  fs.writeFileSync(path.join(root, 'a.ts'), codeFile(40))
  return [1, 2].map((pass) => {
    const hl = new binding.Hashline({ root, host: 'bench', model: `soak-model-${pass}`, telemetryDir: dir })
    const edit = editor(hl, 'a.ts', false, 20)
    const started = performance.now()
    for (let i = 0; i < calls; i++) {
      if (i % 100 === 99) edit()
      else if (i % 10 === 9) hl.search('compute', { maxResults: 5 })
      else hl.read('a.ts', { offset: 1 + (i % 30), limit: 10 })
      if (i % 20_000 === 19_999) progress(`soak, pass ${pass}: ${int(i + 1)} calls`)
    }
    binding.flushTelemetry()
    const files = fs.readdirSync(dir).filter((f) => /^telemetry(\.\d+)?\.jsonl$/.test(f)).sort()
    const bytes = files.reduce((sum, f) => sum + fs.statSync(path.join(dir, f)).size, 0)
    const stats = binding.telemetryStats({ dir })
    const model = stats.groups.find((g) => g.model === `soak-model-${pass}`)
    return { pass, calls, seconds: (performance.now() - started) / 1000, files, bytes, bound: FILES * MAX_FILE_BYTES, read: stats.records, thisPass: model?.calls ?? 0, skipped: stats.skipped }
  })
}

/**
 * Times async candidates in interleaved rounds (each round runs every
 * candidate's `calls` calls once, after an untimed warm-up round): per
 * candidate, the median wall and CPU time of one call, in milliseconds, and
 * the median over the rounds of its time against the first candidate's in
 * the same round (load from other processes shifts both of a round alike).
 * @param {Array<() => Promise<unknown> | unknown>} candidates
 * @param {{ rounds: number, calls: number }} how
 */
async function interleavedAsync(candidates, { rounds, calls }) {
  const wall = candidates.map(() => /** @type {number[]} */ ([]))
  const cpu = candidates.map(() => /** @type {number[]} */ ([]))
  for (let r = -1; r < rounds; r++) {
    // Alternate which goes first, so that neither always follows the other.
    const order = r % 2 === 0 ? candidates.map((_, i) => i) : candidates.map((_, i) => candidates.length - 1 - i)
    for (const i of order) {
      const cpuStart = process.cpuUsage()
      const start = performance.now()
      for (let k = 0; k < calls; k++) await candidates[i]()
      const ms = (performance.now() - start) / calls
      const used = process.cpuUsage(cpuStart)
      if (r >= 0) {
        wall[i].push(ms)
        cpu[i].push((used.user + used.system) / 1000 / calls)
      }
    }
  }
  const paired = (/** @type {number[][]} */ xs, /** @type {number} */ i) => median(xs[i].map((x, r) => x / xs[0][r]))
  return wall.map((w, i) => ({ ms: median(w), cpu: median(cpu[i]), ratio: paired(wall, i), cpuRatio: paired(cpu, i) }))
}

/**
 * An edit that replaces line 1000 of `file` again and again, each time
 * citing the ref the last result gave it, and the REV it was shown in (a
 * lean ref alone may read in an older version too).
 * @param {import('../../index.js').Hashline} hl
 * @param {string} file
 * @param {boolean} async
 */
function editor(hl, file, async, line = 1000) {
  const refOf = (/** @type {string} */ text) => {
    const m = new RegExp(`^\\+?(${line}[a-z]{2})\\s`, 'm').exec(text)
    if (!m) throw new Error(`no ref of line ${line} in:\n${text}`)
    return m[1]
  }
  const view = hl.read(file, { offset: line - 10, limit: 20 })
  let [ref, rev] = [refOf(view.text), view.rev]
  let n = 0
  return async () => {
    const request = { rev, operations: [{ op: 'replace', ref, content: `  const value${line - 1} = compute(${n++}); // changed` }] }
    const result = async ? await hl.editAsync(file, request) : hl.edit(file, request)
    ;[ref, rev] = [refOf(result.output), result.rev]
  }
}

async function main() {
  const opts = options(import.meta.url, { ...bindingOptions, rounds: { parse: asCount }, quick: flag, soak: { parse: asNumber }, json: { parse: asPath } })
  const rounds = opts.rounds ?? (opts.quick ? 8 : 25)
  const loader = loaderOf(opts, 'telemetry-release')
  const binding = load(loader)
  const { Hashline } = binding
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'hashline-bench-telemetry-'))
  const recorded = path.join(work, 'telemetry')
  /** @param {boolean} on */
  const session = (on) => {
    const root = path.join(work, on ? 'on' : 'off')
    fs.mkdirSync(root)
    fs.writeFileSync(path.join(root, 'big.ts'), codeFile(2000))
    fs.writeFileSync(path.join(root, 'small.ts'), codeFile(200))
    return new Hashline({ root, host: 'bench', model: 'bench-model', telemetry: on, telemetryDir: recorded })
  }
  const on = session(true)
  const off = session(false)
  const build = buildOf(loader)
  progress(`${build.kind}; ${rounds} rounds; the record written to ${recorded}`)

  /** @type {Array<{ name: string, calls: number, make: (hl: import('../../index.js').Hashline) => () => unknown }>} */
  const workloads = [
    { name: 'read, 2,000 lines (async)', calls: 200, make: (hl) => () => hl.readAsync('big.ts') },
    { name: 'read, 2,000 lines (sync)', calls: 200, make: (hl) => () => hl.read('big.ts') },
    { name: 'read, 200 lines (async)', calls: 500, make: (hl) => () => hl.readAsync('small.ts') },
    { name: 'edit, 2,000-line file (async)', calls: 20, make: (hl) => editor(hl, 'big.ts', true) },
    { name: 'edit, 2,000-line file (sync)', calls: 20, make: (hl) => editor(hl, 'big.ts', false) },
  ]
  /** @type {Array<{ name: string, off: { ms: number, cpu: number }, on: { ms: number, cpu: number, ratio: number, cpuRatio: number } }>} */
  const results = []
  for (const w of workloads) {
    progress(w.name)
    const [withOut, withIt] = await interleavedAsync([w.make(off), w.make(on)], { rounds, calls: w.calls })
    results.push({ name: w.name, off: withOut, on: withIt })
  }

  // The command line: a process per call, its record written as it ends.
  // It loads the package's own binary.
  const cli = path.join(repo, 'cli', 'hashline.cjs')
  const root = path.join(work, 'on')
  const run = (/** @type {string[]} */ extra) => () => {
    const r = spawnSync(process.execPath, [cli, 'read', 'small.ts', '--root', root, ...extra], { env: { ...process.env, HASHLINE_TELEMETRY_DIR: recorded, HASHLINE_STORE: path.join(work, 'store') }, encoding: 'utf8' })
    if (r.status !== 0) throw new Error(r.stderr)
  }
  progress('hashline read, a process per call')
  const [cliOff, cliOn] = await interleavedAsync([run(['--no-telemetry']), run([])], { rounds: Math.max(4, Math.round(rounds / 2)), calls: 5 })
  results.push({ name: `hashline read, 200 lines (a process; ${buildOf(path.join(repo, 'index.js')).kind})`, off: cliOff, on: cliOn })

  const soakCalls = opts.soak ?? 100_000
  if (soakCalls > 0) progress(`soak: ${int(soakCalls)} recorded calls`)
  const soaked = soakCalls > 0 ? soak(binding, work, soakCalls) : undefined

  const records = binding.telemetryStats({ dir: recorded }).records
  const rows = results.map((r) => [r.name, time(r.off.ms), time(r.on.ms), r.on.ratio.toFixed(3), r.on.cpuRatio.toFixed(3), verdict(r.on.ratio <= TARGET)])
  const report = [
    `# The telemetry record's cost on the hot path`,
    '',
    `${build.kind}, ${os.cpus().length} cores, Node ${process.version}; ${rounds} interleaved rounds; the times are medians of one call, the ratios medians over the rounds of with against without in the same round. ${int(records)} records written in the run (as many as the record keeps). Target: at most ${TARGET}× end to end.`,
    '',
    table(['workload', 'without', 'with', 'wall ratio', 'CPU ratio', `≤ ${TARGET}`], rows, { align: ['---', '---:', '---:', '---:', '---:', '---'] }),
    '',
    ...(soaked
      ? [
          `Soak, not timed: two passes of ${int(soakCalls)} recorded calls (reads, a search every ten, an edit every hundred) into one folder; the bound is ${FILES} files of ${MAX_FILE_BYTES >> 20} MiB (${int(FILES * MAX_FILE_BYTES)} bytes), plus at most one append (${CHUNK_BYTES >> 10} KiB) a file.`,
          '',
          table(
            ['pass', 'calls', 'seconds', 'bytes on disk', 'files', 'records read back (this pass)', 'lines skipped', 'within the bound'],
            soaked.map((p) => [`${p.pass}`, int(p.calls), p.seconds.toFixed(1), int(p.bytes), p.files.join(', '), `${int(p.read)} (${int(p.thisPass)})`, int(p.skipped), verdict(p.bytes <= p.bound + FILES * CHUNK_BYTES)]),
            { align: ['---:', '---:', '---:', '---:', '---', '---:', '---:', '---'] },
          ),
          '',
        ]
      : []),
  ].join('\n')
  process.stdout.write(report)
  if (opts.json) writeReport(opts.json, { build, rounds, records, results, soak: soaked })
  fs.rmSync(work, { recursive: true, force: true })
}

await main()
