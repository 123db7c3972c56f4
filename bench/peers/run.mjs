// @ts-check
// The peer benchmark: hashline against the published packages of other
// hashline-style tools, on the same real source, in one process per
// runtime, with the floor, memory and growth measured in the same run; it
// prints the tables issue targets are judged by. See README.md.
//
//   npm run bench:peers --prefix bench/peers      (= node run.mjs --build-release)
//   node bench/peers/run.mjs [--quick] [--build-release | --binding path/to/index.js]
//                            [--no-bun] [--bun path] [--only "view in memory,50 lines"] [--json out.json]
//
// --build-release  build a release copy of the addon into bench/.cache/peers-release
//                  (the package's own index.js and .node untouched) and time that.
// --binding        the loader to time instead (default: the package's index.js).
// --quick          shorter budgets, a 20 MB memory file, growth up to 100 000 lines.
// --no-bun         skip the Bun process (the peers that run only under Bun).
// --only           run only the timed workloads whose label contains one of these.

import { spawnSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { fileURLToPath } from 'node:url'
import { editedLines, replacement, SOURCE, textOf, textOfBytes } from './corpus.mjs'
import { measure, rotate } from './measure.mjs'
import { refsOf } from './peers.mjs'
import { asNames, asPath, bindingOptions, buildOf, flag, floorBinary, int, load, loaderOf, mb, median, options, progress, repo, runUnderBun, table, time, timed, times, verdict, writeReport } from '../harness.mjs'

const here = path.dirname(fileURLToPath(import.meta.url))

/**
 * The environment of the Bun process. oh-my-pi 14.9.9's edit imports its
 * native addon, one copy of it under each of its packages, and opened late
 * each copy fails with "cannot allocate memory in static TLS block": its
 * thread-local storage is larger than the room glibc keeps for libraries
 * opened after startup. Preloaded, each gets its own room at startup. The
 * copies preloaded are the variant its loader picks (`modern` where the
 * CPU has AVX2); the addon itself runs unchanged.
 */
function bunEnv() {
  const env = { ...process.env }
  if (process.platform !== 'linux' || process.arch !== 'x64') return env
  let variant = process.env.PI_NATIVE_VARIANT
  if (variant !== 'modern' && variant !== 'baseline') {
    variant = /\bavx2\b/i.test(fs.readFileSync('/proc/cpuinfo', 'utf8')) ? 'modern' : 'baseline'
  }
  const scope = path.join(here, 'node_modules', '@oh-my-pi')
  const copies = (fs.existsSync(scope) ? fs.readdirSync(scope) : [])
    .map((pkg) => path.join(scope, pkg, 'node_modules', '@oh-my-pi', 'pi-natives', 'native', `pi_natives.linux-x64-${variant}.node`))
    .filter((file) => fs.existsSync(file))
  if (copies.length > 0) env.LD_PRELOAD = [...copies, ...(env.LD_PRELOAD ? [env.LD_PRELOAD] : [])].join(':')
  return env
}

/**
 * hashline's peak memory for one view or edit of a large file, each in a
 * fresh process, through bench/perf's memory driver.
 * @param {string} binding @param {string} work @param {number} bytes
 */
function memory(binding, work, bytes) {
  const native = load(binding)
  const dir = path.join(work, 'memory')
  fs.mkdirSync(dir, { recursive: true })
  const text = textOfBytes(bytes)
  const file = 'big.js'
  fs.writeFileSync(path.join(dir, file), text)
  const lines = text.slice(0, -1).split('\n').length
  const refs = refsOf(native.formatView(text, { limit: lines, view: 'full' }), /^(\d+#[0-9A-F]{3}#[0-9A-F]{3})\|/)
  const ops = editedLines(lines, 100).map((at, j) => ({ op: 'replace', ref: refs.get(at + 1), content: replacement(j) }))
  fs.writeFileSync(path.join(dir, 'ops.json'), JSON.stringify(ops))
  const size = Buffer.byteLength(text)
  const runs = []
  for (const mode of ['engine-view', 'engine-view-full', 'engine-edit']) {
    fs.writeFileSync(path.join(dir, file), text)
    const job = JSON.stringify({ binding, root: dir, file, lines, mode, ops: path.join(dir, 'ops.json'), maxFileBytes: 4 * size })
    const child = spawnSync(process.execPath, [path.join(repo, 'bench', 'perf', 'memory.mjs'), job], { encoding: 'utf8' })
    if (child.status !== 0) throw new Error(`memory run ${mode} failed: ${child.stderr}`)
    runs.push({ mode, ...JSON.parse(child.stdout.trim().split('\n').pop() ?? '{}') })
  }
  fs.rmSync(dir, { recursive: true, force: true })
  return { bytes: size, lines, runs }
}

/**
 * hashline's view and 100-replacement edit, end to end, from 1 000 to
 * 1 000 000 lines: wall and CPU time of the process per line.
 * @param {string} binding @param {string} work @param {boolean} quick
 */
async function growth(binding, work, quick) {
  const native = load(binding)
  const dir = path.join(work, 'growth')
  fs.mkdirSync(dir, { recursive: true })
  const rows = []
  for (const n of quick ? [1e3, 1e4, 1e5] : [1e3, 1e4, 1e5, 1e6]) {
    progress(`growth, ${n} lines`)
    const text = textOf(n)
    const file = path.join(dir, `g${n}.js`)
    fs.writeFileSync(file, text)
    const s = new native.Hashline({ root: dir, maxFileBytes: 1 << 30, view: 'full' })
    const view = s.read(path.basename(file), { limit: n }).text
    const refs = refsOf(view, /^(\d+#[0-9A-F]{3}#[0-9A-F]{3})\|/)
    const request = { operations: editedLines(n, 100).map((at, j) => ({ op: 'replace', ref: refs.get(at + 1), content: replacement(j) })) }
    /** @param {() => unknown} f @param {() => void} [setup] */
    const sampled = (f, setup) => ({
      setup,
      run: () => cpuSamples.push(timed(f).cpu),
    })
    /** @type {number[]} */
    let cpuSamples = []
    const budget = { budgetMs: quick ? 500 : 2000, minRounds: n >= 1e6 ? 5 : quick ? 5 : 9, maxRounds: 500 }
    const [v] = await rotate([sampled(() => s.read(path.basename(file), { limit: n }))], budget)
    const viewCpu = median(cpuSamples.slice(3))
    cpuSamples = []
    const [e] = await rotate([sampled(() => s.edit(path.basename(file), request), () => fs.writeFileSync(file, text))], budget)
    const editCpu = median(cpuSamples.slice(3))
    fs.rmSync(file)
    rows.push({ lines: n, bytes: Buffer.byteLength(text), viewMs: v.ms, viewCpu, editMs: e.ms, editCpu })
  }
  return rows
}

// ---------------------------------------------------------------- report

const spread = (/** @type {{ ms: number, min: number, max: number }} */ t) => `${time(t.ms)} (${time(t.min)}–${time(t.max)})`

/** @param {{ kind: string, where: string, lines: number, k: number }} w */
const workload = (w) =>
  `${w.kind} ${w.where === 'text' ? 'in memory' : 'end to end'}, ${int(w.lines)} lines${w.k ? `, ${w.k} replacements` : ''}`

/**
 * One row per workload and peer: medians (min–max) and the peer's time
 * over hashline's, against the 1.5× target.
 * @param {any} r
 */
function peerRows(r) {
  const rows = []
  for (const w of r.results) {
    const h = w.times.hashline
    for (const [name, t] of Object.entries(w.times)) {
      if (name === 'hashline') continue
      const ratio = /** @type {any} */ (t).ms / h.ms
      rows.push([workload(w), spread(h), name, spread(/** @type {any} */ (t)), `${times(ratio)}`, verdict(ratio >= 1.5)])
    }
    for (const [name, why] of Object.entries(w.errors)) rows.push([workload(w), h ? spread(h) : '—', name, `not run: ${why}`, '—', '—'])
  }
  return rows
}

/**
 * The worst ratio over peers for one kind of workload.
 * @param {any[]} runs @param {string} kind
 */
function worst(runs, kind) {
  let best = { ratio: Infinity, where: '' }
  for (const r of runs) {
    for (const w of r.results.filter((/** @type {any} */ x) => x.kind === kind)) {
      for (const [name, t] of Object.entries(w.times)) {
        if (name === 'hashline') continue
        const ratio = /** @type {any} */ (t).ms / w.times.hashline.ms
        if (ratio < best.ratio) best = { ratio, where: `${name}, ${workload(w)} (${r.runtime})` }
      }
    }
  }
  return best
}

/** @param {Record<string, any>} all */
function report(all) {
  const { node, bun, floor, mem, grow, meta } = all
  const out = []
  out.push(`## hashline against its peers (${meta.quick ? 'quick' : 'full'} run)`, '')
  out.push(
    `${meta.cpus}; load average ${meta.loadStart} at the start, ${meta.loadEnd} at the end. Binding: \`${meta.binding}\` (${meta.kind}). ` +
      `Inputs: the first lines of ${SOURCE}, repeated from the top past its 200 276 lines. Each time is the median of its workload's rounds (min–max in brackets); implementations run in rotation after three warm-up rounds; "ratio" is the peer's median over hashline's in the same process (above 1: hashline is faster).`,
    '',
  )
  const runs = [node, bun].filter(Boolean)
  const targets = []
  for (const kind of ['view', 'edit']) {
    const w = worst(runs, kind)
    targets.push([`${kind}: ≥ 1.5× faster than every peer at every size`, w.ratio === Infinity ? 'no peer ran' : `worst ${times(w.ratio)}: ${w.where}`, w.ratio === Infinity ? '—' : verdict(w.ratio >= 1.5)])
  }
  const view100k = node.results.find((/** @type {any} */ x) => x.kind === 'view' && x.where === 'file' && x.lines === 100_000)
  const text100k = node.results.find((/** @type {any} */ x) => x.kind === 'view' && x.where === 'text' && x.lines === 100_000)
  if (floor && !floor.error && view100k) {
    const f = floor.medianNs / 1e6
    const r = view100k.times.hashline.ms / f
    targets.push([`100 000-line view within 1.3× of the floor (${time(f)}: 2 SHA-1 per line on ${floor.threads} cores + the view text, Rust)`, `${time(view100k.times.hashline.ms)} end to end = ${times(r)} the floor; in memory (\`formatView\`) ${time(text100k.times.hashline.ms)} = ${times(text100k.times.hashline.ms / f)}`, verdict(r <= 1.3)])
  } else targets.push(['100 000-line view within 1.3× of the floor', `floor not measured${floor?.error ? `: ${floor.error}` : ''}`, '—'])
  const small = node.results.find((/** @type {any} */ x) => x.kind === 'view' && x.where === 'file' && x.lines === 50)
  if (small) targets.push(['50-line read under 15 µs (end to end, Node)', time(small.times.hashline.ms), verdict(small.times.hashline.ms < 0.015)])
  if (mem) {
    // The view of every line is reported, not judged: its text alone is larger than the file.
    for (const run of mem.runs.filter((/** @type {any} */ x) => x.mode !== 'engine-view-full')) {
      const grown = ((run.peakKb - run.beforeKb) * 1024) / mem.bytes
      targets.push([`memory ≤ 2× the file, ${run.mode === 'engine-edit' ? 'edit (100 replacements)' : 'view (default 2 000 lines)'}, ${mb(mem.bytes)} file`, `+${mb((run.peakKb - run.beforeKb) * 1024)} = ${times(grown)}`, verdict(grown <= 2)])
    }
  }
  if (grow) {
    for (const key of ['view', 'edit']) {
      const per = grow.map((/** @type {any} */ g) => (g[`${key}Cpu`] * 1e6) / g.lines)
      const steps = per.slice(1).map((/** @type {number} */ x, /** @type {number} */ i) => x / per[i])
      const w = Math.max(...steps)
      targets.push([`${key}: time per line flat from ${int(grow[0].lines)} to ${int(grow[grow.length - 1].lines)} lines (no step > 1.5×)`, `CPU ns/line ${per.map((/** @type {number} */ x) => x.toFixed(0)).join(' / ')}; worst step ${times(w)}`, verdict(w <= 1.5)])
    }
  }
  out.push('### Targets', '', table(['target', 'measured', 'status'], targets), '')
  for (const r of runs) {
    const failed = Object.entries(r.failed).map(([n, why]) => `${n}: ${why}`)
    out.push(`### ${r.runtime}`, '', `Implementations: ${r.impls.join(', ')}.${failed.length ? ` Not loaded: ${failed.join('; ')}.` : ''}`, '')
    out.push(table(['workload', 'hashline', 'peer', 'peer time', 'ratio', '≥ 1.5×'], peerRows(r)), '')
  }
  if (bun === undefined && all.bunNote) out.push(all.bunNote, '')
  if (floor && !floor.error) {
    out.push(
      `Floor (Rust, ${floor.threads} threads, ${int(floor.lines)} lines, ${mb(floor.bytes)}, view text ${mb(floor.viewBytes)}): median ${time(floor.medianNs / 1e6)} (${time(floor.minNs / 1e6)}–${time(floor.maxNs / 1e6)}) over ${floor.reps} runs.`,
      '',
    )
  }
  if (mem) {
    out.push(
      `Peak resident memory, ${mb(mem.bytes)} file of ${int(mem.lines)} lines, each run in a fresh Node process:`,
      '',
      table(
        ['run', 'RSS before', 'peak RSS', 'peak − before', '÷ file size'],
        mem.runs.map((/** @type {any} */ x) => [x.mode, mb(x.beforeKb * 1024), mb(x.peakKb * 1024), mb((x.peakKb - x.beforeKb) * 1024), times(((x.peakKb - x.beforeKb) * 1024) / mem.bytes)]),
      ),
      '',
    )
  }
  if (grow) {
    out.push(
      'Growth (hashline, Node, end to end; CPU is the process\'s, all threads):',
      '',
      table(
        ['lines', 'file', 'view', 'view ns/line', 'view CPU ns/line', 'edit (100 replacements)', 'edit ns/line', 'edit CPU ns/line'],
        grow.map((/** @type {any} */ g) => [int(g.lines), mb(g.bytes), time(g.viewMs), ((g.viewMs * 1e6) / g.lines).toFixed(0), ((g.viewCpu * 1e6) / g.lines).toFixed(0), time(g.editMs), ((g.editMs * 1e6) / g.lines).toFixed(0), ((g.editCpu * 1e6) / g.lines).toFixed(0)]),
      ),
      '',
    )
  }
  out.push(`Total time of this run: ${meta.seconds} s.`)
  return out.join('\n') + '\n'
}

async function main() {
  const opts = options(import.meta.url, {
    ...bindingOptions,
    quick: flag,
    'no-bun': flag,
    bun: {},
    json: { parse: asPath },
    only: { parse: asNames },
  })
  const started = performance.now()
  const loadStart = os.loadavg().map((x) => x.toFixed(2)).join(' ')
  opts.binding = loaderOf(opts, 'peers-release')
  const floorBin = floorBinary('peers-floor')
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'hashline-peers-'))
  try {
    const node = await measure({ binding: opts.binding, work, quick: opts.quick, only: opts.only })
    const job = JSON.stringify({ binding: opts.binding, work, quick: opts.quick, only: opts.only })
    const { result: bun, note: bunNote = '' } = opts.noBun ? {} : runUnderBun(opts.bun, [path.join(here, 'measure.mjs'), job], { cwd: here, env: bunEnv() })
    progress('the floor ...')
    const floorFile = path.join(work, 'floor-100k.js')
    fs.writeFileSync(floorFile, textOf(100_000))
    const f = spawnSync(floorBin, ['--reps', opts.quick ? '7' : '31', floorFile], { encoding: 'utf8' })
    const floor = f.status === 0 ? JSON.parse(f.stdout) : { error: f.stderr || String(f.error) }
    progress('memory ...')
    const mem = opts.only ? undefined : memory(opts.binding, work, opts.quick ? 20e6 : 100e6)
    const grow = opts.only ? undefined : await growth(opts.binding, work, opts.quick)
    const meta = {
      quick: opts.quick,
      cpus: `${os.cpus().length} × ${os.cpus()[0]?.model ?? 'unknown CPU'}`,
      loadStart,
      loadEnd: os.loadavg().map((x) => x.toFixed(2)).join(' '),
      binding: path.relative(repo, opts.binding) || opts.binding,
      kind: buildOf(opts.binding).kind,
      seconds: ((performance.now() - started) / 1000).toFixed(0),
    }
    const all = { node, bun, bunNote, floor, mem, grow, meta }
    process.stdout.write(report(all))
    if (opts.json) writeReport(opts.json, all)
  } finally {
    fs.rmSync(work, { recursive: true, force: true })
  }
  // A peer may leave servers or timers behind.
  process.exit(0)
}

main().catch((err) => {
  process.stderr.write(`${err.stack ?? err}\n`)
  process.exit(1)
})
