// @ts-check
// The performance benchmark: the engine from JS against a plain JS
// implementation of the same view and edit, and against the floors (the
// engine's hashing alone, measured in Rust; a plain read and write of the
// file from JS). Inputs are generated with a fixed seed; every baseline's
// output is checked equal to the engine's before anything is timed; candidates
// are timed in interleaved rounds so that load from other processes falls on
// all of them alike; the table shows medians and their ratios.
//
//   node bench/perf/run.mjs [--quick] [--build-release | --binding path/to/index.js]
//                           [--no-bun] [--bun path/to/bun] [--only 1,3] [--json out.json] [--keep]
//
// --binding        the loader to benchmark (default: the package's index.js);
//                  the header says whether its addon is a release or debug build.
// --build-release  first build a release copy of the addon into
//                  bench/.cache/perf-release (the package's own index.js and
//                  .node file untouched) and benchmark that.
// --quick          fewer repetitions, a 20 MB memory file, growth up to 100k lines.
// --no-bun         skip the second run under Bun, done when a `bun` binary is
//                  found: --bun, $BUN, PATH, or the `bun` npm package's binary.
// --only           run only the numbered workloads.
// --json           also write the raw numbers.
// --keep           keep the generated files (their folder is printed).
// Internal: --results-only --workdir DIR runs the workloads and prints the raw
// numbers as JSON (the run under Bun, reusing the generated files).

import { spawnSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { fileURLToPath } from 'node:url'
import { atomicReadWriteFloor, hasOneShotHash, JsSession, readWriteFloor, refOf, restoreSynced } from './baseline.mjs'
import { generate, generateBytes, SEED } from './gen.mjs'
import { asNumbers, asPath, bindingOptions, buildOf, flag, floorBinary, int, interleaved, load, loaderOf, mb, median, options, progress, repo, runUnderBun, table, time, times, verdict, writeReport } from '../harness.mjs'

const here = path.dirname(fileURLToPath(import.meta.url))

const cli = {
  ...bindingOptions,
  quick: flag,
  'no-bun': flag,
  bun: {},
  json: { parse: asPath },
  keep: flag,
  'results-only': flag,
  workdir: { parse: asPath },
  only: { parse: asNumbers },
}

/** @param {string} text */
const linesOf = (text) => text.slice(0, -1).split('\n')

/**
 * The benchmark's batch, built exactly as the Rust side builds it
 * (`bench/floor/src/lib.rs`): `count` operations spread evenly,
 * cycling through the kinds, with content that repeats no line of the file.
 * @param {string[]} lines
 * @param {number} count
 */
function batchOps(lines, count) {
  const n = lines.length
  return Array.from({ length: count }, (_, k) => {
    const at = Math.floor(((2 * k + 1) * n) / (2 * count))
    const content = `    const edited${k} = apply(${k}); // édition ${k}\n    log(${k});\n`
    switch (k % 5) {
      case 0:
        return { op: 'replace', ref: refOf(lines, at), content }
      case 1:
        return { op: 'replace', ref: refOf(lines, at), through: refOf(lines, at + 3), content }
      case 2:
        return { op: 'delete', ref: refOf(lines, at), through: refOf(lines, at + 1) }
      case 3:
        return { op: 'insert_before', ref: refOf(lines, at), content }
      default:
        return { op: 'insert_after', ref: refOf(lines, at), content }
    }
  })
}

/**
 * @param {string} what
 * @param {string} a
 * @param {string} b
 */
function assertSame(what, a, b) {
  if (a === b) return
  const x = a.split('\n')
  const y = b.split('\n')
  const i = x.findIndex((line, k) => line !== y[k])
  throw new Error(
    `${what}: the baseline's output differs from the engine's at line ${i + 1}:\n  engine:   ${JSON.stringify(x[i])?.slice(0, 200)}\n  baseline: ${JSON.stringify(y[i])?.slice(0, 200)}`,
  )
}

function runtimeName() {
  const bun = /** @type {{ version: string } | undefined} */ (/** @type {any} */ (globalThis).Bun)
  return bun ? `Bun ${bun.version}` : `Node ${process.version}`
}

/**
 * Everything that runs inside the JS runtime under test; returns raw numbers.
 * @param {Record<string, any>} opts
 * @param {string} work
 */
function measure(opts, work) {
  const binding = load(opts.binding)
  const quick = opts.quick
  const want = (/** @type {number} */ n) => !opts.only || opts.only.has(n)
  const write = (/** @type {string} */ name, /** @type {string | Buffer} */ data) => {
    fs.writeFileSync(path.join(work, name), data)
    return name
  }
  /** @type {Record<string, any>} */
  const results = { runtime: runtimeName(), hashApis: hasOneShotHash ? ['createHash', 'hash'] : ['createHash'] }
  const began = performance.now()
  const log = (/** @type {string} */ s) => process.stderr.write(`  [${results.runtime}, ${((performance.now() - began) / 1000).toFixed(1)} s] ${s}\n`)

  const N = 100_000
  const text100k = generate(N)
  const lines100k = linesOf(text100k)

  if (want(1)) {
    log('1: view of 100 000 lines')
    const file = write('view-100k.ts', text100k)
    const engine = new binding.Hashline({ root: work, view: 'full' })
    const js = results.hashApis.map((/** @type {any} */ api) => new JsSession({ root: work, hashApi: api }))
    const expected = engine.read(file, { limit: N }).text
    for (const s of js) assertSame('view of 100 000 lines', expected, s.read(file, { limit: N }).text)
    const [engine1, ...js1] = interleaved(
      [{ run: () => engine.read(file, { limit: N }) }, ...js.map((/** @type {JsSession} */ s) => ({ run: () => s.read(file, { limit: N }), rounds: quick ? 2 : 5 }))],
      { rounds: quick ? 3 : 11 },
    )
    results.view100k = {
      lines: N,
      bytes: Buffer.byteLength(text100k),
      viewBytes: Buffer.byteLength(expected),
      engineMs: engine1.ms,
      engineCpu: engine1.cpu,
      jsMs: js1.map((x) => x.ms),
      jsCpu: js1.map((x) => x.cpu),
    }
  }

  if (want(2)) {
    results.small = []
    for (const n of [50, 500, 5000]) {
      log(`2: view of ${n} lines`)
      const file = write(`view-${n}.ts`, generate(n, SEED + n))
      const engine = new binding.Hashline({ root: work, view: 'full' })
      const js = results.hashApis.map((/** @type {any} */ api) => new JsSession({ root: work, hashApi: api }))
      const expected = engine.read(file, { limit: n }).text
      for (const s of js) assertSame(`view of ${n} lines`, expected, s.read(file, { limit: n }).text)
      const rounds = Math.round((quick ? 40_000 : 200_000) / n)
      const [engine2, ...js2] = interleaved(
        [{ run: () => engine.read(file, { limit: n }) }, ...js.map((/** @type {JsSession} */ s) => ({ run: () => s.read(file, { limit: n }) }))],
        { rounds },
      )
      results.small.push({ lines: n, engineMs: engine2.ms, jsMs: js2.map((x) => x.ms), rounds })
    }
  }

  if (want(3)) {
    log('3: batch of 100 operations on 100 000 lines')
    const file = write('batch-100k.ts', text100k)
    const full = path.join(work, file)
    const original = Buffer.from(text100k)
    const restore = () => restoreSynced(full, original)
    const request = { operations: batchOps(lines100k, 100) }
    const engine = new binding.Hashline({ root: work, view: 'full' })
    const js = new JsSession({ root: work })
    engine.read(file, { limit: N })
    js.read(file, { limit: N })
    restore()
    const e = engine.edit(file, request)
    const engineBytes = fs.readFileSync(full)
    restore()
    const j = js.edit(file, request)
    const jsBytes = fs.readFileSync(full)
    assertSame('batch result text', e.output, j.output)
    assertSame('batch diff', e.diff, j.diff)
    if (!engineBytes.equals(jsBytes)) throw new Error('batch: the baseline wrote different bytes than the engine')
    const [engine3, js3, floor3, atomic3, durable3] = interleaved(
      [
        { run: () => engine.edit(file, request) },
        { run: () => js.edit(file, request) },
        { run: () => readWriteFloor(full) },
        { run: () => atomicReadWriteFloor(full, false) },
        { run: () => atomicReadWriteFloor(full, true) },
      ],
      { rounds: quick ? 5 : 15, setup: restore },
    )
    restore()
    results.batch = {
      lines: N,
      ops: 100,
      bytes: original.length,
      engineMs: engine3.ms,
      engineCpu: engine3.cpu,
      jsMs: js3.ms,
      floorMs: floor3.ms,
      atomicMs: atomic3.ms,
      durableMs: durable3.ms,
    }
  }

  if (want(4)) {
    log('4: chain of 50 single edits with refs from the first view')
    const n = 10_000
    const text = generate(n, SEED + 4)
    const lines = linesOf(text)
    const file = write('chain-10k.ts', text)
    restoreSynced(path.join(work, file), Buffer.from(text))
    const engine = new binding.Hashline({ root: work, view: 'full' })
    const first = engine.read(file, { limit: n })
    /** @type {Record<number, string>} */
    const refs = {}
    for (const line of first.text.split('\n')) {
      const m = /^(\d+)#([0-9A-F]{3})#([0-9A-F]{3})\|/.exec(line)
      if (m) refs[Number(m[1])] = `${m[1]}#${m[2]}#${m[3]}`
    }
    const at = (/** @type {number} */ k) => 100 + k * 195
    const content = (/** @type {number} */ k) => `  chained(${k}); // é ${k}\n  more(${k});\n  done(${k});\n`
    const times = []
    let remapped = 0
    for (let k = 0; k < 50; k++) {
      const request = { operations: [{ op: 'replace', ref: refs[at(k) + 1], content: content(k) }], rev: first.rev }
      const start = performance.now()
      const result = engine.edit(file, request)
      times.push(performance.now() - start)
      if (result.output.includes(`the refs were from REV ${first.rev}`)) remapped++
    }
    const expected = [...lines]
    for (let k = 49; k >= 0; k--) expected.splice(at(k), 1, ...linesOf(content(k)))
    if (fs.readFileSync(path.join(work, file), 'utf8') !== expected.join('\n') + '\n') {
      throw new Error('chain: the file after 50 remapped edits is not what applying them in order gives')
    }
    // The same single edit with refs that are current, for comparison.
    const directFile = write('direct-10k.ts', text)
    const directFull = path.join(work, directFile)
    const fresh = new binding.Hashline({ root: work, view: 'full' })
    fresh.read(directFile, { limit: n })
    const request = { operations: [{ op: 'replace', ref: refOf(lines, at(25)), content: content(25) }] }
    const directBytes = Buffer.from(text)
    const [direct] = interleaved([{ run: () => fresh.edit(directFile, request) }], { rounds: quick ? 10 : 30, setup: () => restoreSynced(directFull, directBytes) })
    results.chain = { lines: n, edits: 50, remapped, perEditMs: median(times.slice(1)), firstMs: times[0], lastMs: times[49], directMs: direct.ms }
  }

  if (want(5)) {
    const target = quick ? 20e6 : 100e6
    log(`5: peak memory, ${Math.round(target / 1e6)} MB file`)
    const file = 'big.ts'
    const full = path.join(work, file)
    const ops = path.join(work, 'big-ops.json')
    if (!fs.existsSync(ops) || fs.statSync(full).size < target) {
      const text = generateBytes(target)
      fs.writeFileSync(full, text)
      fs.writeFileSync(ops, JSON.stringify(batchOps(linesOf(text), 100)))
    }
    const original = fs.readFileSync(full)
    let lineCount = 0
    for (let at = original.indexOf(10); at !== -1; at = original.indexOf(10, at + 1)) lineCount++
    const base = { binding: opts.binding, root: work, file, lines: lineCount, ops, maxFileBytes: 2 * original.length }
    results.memory = { bytes: original.length, lines: lineCount, runs: [] }
    // The JS baseline's memory is measured once, in the first runtime.
    const modes = ['engine-view', 'engine-view-full', 'engine-edit', ...(opts.resultsOnly ? [] : ['js-view', 'js-edit'])]
    for (const mode of modes) {
      fs.writeFileSync(full, original)
      const job = JSON.stringify({ ...base, mode })
      const child = spawnSync(process.execPath, [path.join(here, 'memory.mjs'), job], { encoding: 'utf8', maxBuffer: 1 << 20 })
      if (child.status !== 0) throw new Error(`memory run ${mode} failed: ${child.stderr}`)
      results.memory.runs.push({ mode, ...JSON.parse(child.stdout.trim().split('\n').pop() ?? '{}') })
    }
    fs.writeFileSync(full, original)
  }

  if (want(6)) {
    results.growth = []
    for (const n of quick ? [1e3, 1e4, 1e5] : [1e3, 1e4, 1e5, 1e6]) {
      log(`6: growth, ${n} lines`)
      const text = n === N ? text100k : generate(n, SEED + 6)
      const file = write(`growth-${n}.ts`, text)
      const full = path.join(work, file)
      const original = Buffer.from(text)
      const engine = new binding.Hashline({ root: work, maxFileBytes: 1 << 30 })
      engine.read(file, { limit: n })
      const request = { operations: batchOps(linesOf(text), 100) }
      const rounds = n >= 1e6 ? 3 : quick ? 3 : 7
      const [view] = interleaved([{ run: () => engine.read(file, { limit: n }) }], { rounds })
      const [batch] = interleaved([{ run: () => engine.edit(file, request) }], { rounds, setup: () => restoreSynced(full, original) })
      fs.rmSync(full)
      results.growth.push({ lines: n, bytes: original.length, viewMs: view.ms, viewCpu: view.cpu, batchMs: batch.ms, batchCpu: batch.cpu })
    }
  }
  return results
}

/**
 * The Rust side: the hashing floor and the engine called from Rust, built
 * on first use into the ignored cache folder.
 * @param {string} work
 * @param {boolean} quick
 */
function rustSide(work, quick) {
  let exe
  try {
    exe = floorBinary('perf-floor')
  } catch (e) {
    return { error: /** @type {Error} */ (e).message }
  }
  const text = generate(100_000)
  fs.writeFileSync(path.join(work, 'floor-100k.ts'), text)
  fs.writeFileSync(path.join(work, 'floor-batch-100k.ts'), text)
  const reps = String(quick ? 5 : 15)
  fs.writeFileSync(path.join(work, 'floor-50.ts'), generate(50, SEED + 50))
  const view = spawnSync(exe, ['--reps', reps, path.join(work, 'floor-100k.ts')], { encoding: 'utf8' })
  const batch = spawnSync(exe, ['--reps', reps, '--batch', path.join(work, 'floor-batch-100k.ts')], { encoding: 'utf8' })
  const small = spawnSync(exe, ['--reps', quick ? '500' : '4000', path.join(work, 'floor-50.ts')], { encoding: 'utf8' })
  if (view.status !== 0 || batch.status !== 0 || small.status !== 0) return { error: `the floor failed: ${view.stderr}${batch.stderr}${small.stderr}` }
  return { view: JSON.parse(view.stdout), batch: JSON.parse(batch.stdout), small: JSON.parse(small.stdout) }
}

/**
 * The main table rows for one runtime's results.
 * @param {Record<string, any>} r
 * @param {Record<string, any>} floor
 */
function mainRows(r, floor) {
  /** @type {string[][]} */
  const rows = []
  const api = (/** @type {number} */ i) => `JS baseline (${r.hashApis[i] === 'hash' ? 'one-shot `crypto.hash`' : '`createHash`'})`
  if (r.view100k) {
    const v = r.view100k
    const what = `view of ${int(v.lines)} lines (${mb(v.bytes)}), end to end`
    v.jsMs.forEach((/** @type {number} */ ms, /** @type {number} */ i) => {
      const ratio = ms / v.engineMs
      const cpu = v.jsCpu[i] / v.engineCpu
      rows.push(['1', what, time(v.engineMs), api(i), time(ms), `${times(ratio)} faster (CPU time: ${times(cpu)})`, i === 0 ? '≥ 40× faster' : '(same target, faster baseline)', verdict(ratio >= 40)])
    })
    if (floor.view) {
      const f = floor.view.hashNs / 1e6
      const cpu = v.engineCpu / (floor.view.hashCpuNs / 1e6)
      rows.push(['1', what, time(v.engineMs), 'hashing floor (Rust, 1 core)', time(f), `${times(v.engineMs / f)} the floor (CPU time: ${times(cpu)})`, '≤ 2× the floor', verdict(v.engineMs / f <= 2)])
    }
  }
  for (const s of r.small ?? []) {
    const ratio = s.jsMs[0] / s.engineMs
    rows.push(['2', `view of ${int(s.lines)} lines`, time(s.engineMs), api(0), time(s.jsMs[0]), `${times(ratio)} faster`, s.lines === 50 ? '≥ 5× faster' : '(report)', s.lines === 50 ? verdict(ratio >= 5) : '—'])
  }
  if (r.batch) {
    const b = r.batch
    const what = `batch of ${b.ops} operations on ${int(b.lines)} lines, end to end`
    rows.push(['3', what, time(b.engineMs), 'JS read + write floor', time(b.floorMs), `${times(b.engineMs / b.floorMs)} the floor`, '≤ 3× the floor', verdict(b.engineMs / b.floorMs <= 3)])
    rows.push(['3', what, time(b.engineMs), 'JS read + atomic write, no fsync (temp, rename)', time(b.atomicMs), `${times(b.engineMs / b.atomicMs)} that`, '(report)', '—'])
    rows.push(['3', what, time(b.engineMs), 'JS read + atomic write as the engine does it (temp, fsync, rename, fsync folder)', time(b.durableMs), `${times(b.engineMs / b.durableMs)} that`, '(report)', '—'])
    rows.push(['3', what, time(b.engineMs), `${api(0)} edit`, time(b.jsMs), `${times(b.jsMs / b.engineMs)} faster`, '(report)', '—'])
  }
  if (r.chain) {
    const c = r.chain
    rows.push(['4', `chain of ${c.edits} single edits on ${int(c.lines)} lines, refs from the first view (${c.remapped}/${c.edits - 1} remapped)`, `${time(c.perEditMs)} / edit`, 'one edit with current refs', time(c.directMs), `${times(c.perEditMs / c.directMs)} that`, '(report)', '—'])
  }
  if (r.memory) {
    const m = r.memory
    for (const run of m.runs.filter((/** @type {any} */ x) => x.mode.startsWith('engine'))) {
      const grown = ((run.peakKb - run.beforeKb) * 1024) / m.bytes
      const label = { 'engine-view': 'view (default 2000 lines)', 'engine-view-full': `view of all ${int(m.lines)} lines`, 'engine-edit': 'edit (100 operations)' }[/** @type {'engine-view'} */ (run.mode)]
      const counted = run.mode !== 'engine-view-full'
      rows.push(['5', `peak RSS, ${label}, ${mb(m.bytes)} file`, `+${mb((run.peakKb - run.beforeKb) * 1024)}`, 'file size', mb(m.bytes), `${times(grown)} the file`, counted ? '≤ 4× the file' : '(report: the output alone is larger than the file)', counted ? verdict(grown <= 4) : '—'])
    }
  }
  if (r.growth) {
    for (const key of ['view', 'batch']) {
      const per = r.growth.map((/** @type {any} */ g) => (g[`${key}Cpu`] * 1e6) / g.lines)
      const steps = per.slice(1).map((/** @type {number} */ x, /** @type {number} */ i) => x / per[i])
      const worst = Math.max(...steps)
      rows.push(['6', `${key}: CPU ns per line at ${r.growth.map((/** @type {any} */ g) => int(g.lines)).join(' / ')} lines`, per.map((/** @type {number} */ x) => x.toFixed(0)).join(' / '), 'the previous size', '', `worst step ${times(worst)}`, 'flat: no step > 1.5×', verdict(worst <= 1.5)])
    }
  }
  return rows
}

/**
 * @param {Record<string, any>} r
 * @param {Record<string, any>} floor
 */
function detailTables(r, floor) {
  const out = []
  const ms = (/** @type {number | undefined} */ ns) => (ns === undefined ? '—' : time(ns / 1e6))
  if (r.view100k && floor.view) {
    const v = r.view100k
    const f = floor.view
    out.push(
      `Where the ${int(v.lines)}-line view goes (${runtimeOf(r)}; the view text is ${mb(v.viewBytes)}; CPU is the process's, all threads):\n\n` +
        table(
          ['part', 'wall', 'CPU'],
          [
            ['engine `read`, called from JS (end to end)', time(v.engineMs), time(v.engineCpu)],
            ['engine `read`, called from Rust (no JS string)', ms(f.engineReadNs), ms(f.engineReadCpuNs)],
            ['  of which loading the file (read, NUL check, UTF-8, base digest, split)', ms(f.loadNs), ms(f.loadCpuNs)],
            ['hashing floor: 2 SHA-1 per line, 1 core', ms(f.hashNs), ms(f.hashCpuNs)],
            [`hashing floor split over ${f.threads} threads`, ms(f.hashParallelNs), ms(f.hashParallelCpuNs)],
            ['REV: one SHA-1 over the text', ms(f.revNs), ms(f.revCpuNs)],
            ['crossing into JS (from JS minus from Rust)', time(v.engineMs - f.engineReadNs / 1e6), time(v.engineCpu - f.engineReadCpuNs / 1e6)],
            ['JS baseline view (`createHash`)', time(v.jsMs[0]), time(v.jsCpu[0])],
          ],
        ),
    )
  }
  if (r.batch && floor.batch?.engineEditNs) {
    const b = r.batch
    const f = floor.batch
    out.push(
      `Where the batch goes (${runtimeOf(r)}):\n\n` +
        table(
          ['part', 'wall', 'CPU'],
          [
            ['engine `edit`, called from JS (end to end)', time(b.engineMs), time(b.engineCpu)],
            ['engine `edit`, called from Rust', ms(f.engineEditNs), ms(f.engineEditCpuNs)],
            ['  plan, apply and report on text already in memory', ms(f.planFromTextNs), ms(f.planFromTextCpuNs)],
            ['  atomic write alone (base check, temp file, fsync, rename, fsync folder)', ms(f.atomicWriteNs), ms(f.atomicWriteCpuNs)],
            ['JS read + write floor', time(b.floorMs), '—'],
            ['JS read + atomic write, no fsync', time(b.atomicMs), '—'],
            ["JS read + atomic write with the engine's fsyncs", time(b.durableMs), '—'],
          ],
        ),
    )
  }
  if (r.small) {
    const f = floor.small
    const fixed = f
      ? `\n\nThe 50-line view called from Rust takes ${ms(f.engineReadNs)} (CPU ${ms(f.engineReadCpuNs)}), of which hashing its lines ${ms(f.hashNs)} and loading the file ${ms(f.loadNs)}; the rest of the call from JS is the crossing.`
      : ''
    out.push(
      `Small views (${runtimeOf(r)}), all baselines:\n\n` +
        table(
          ['lines', 'engine', ...r.hashApis.map((/** @type {string} */ a) => `JS (${a})`), 'ratio'],
          r.small.map((/** @type {any} */ s) => [int(s.lines), time(s.engineMs), ...s.jsMs.map(time), s.jsMs.map((/** @type {number} */ x) => times(x / s.engineMs)).join(' / ')]),
        ) +
        fixed,
    )
  }
  if (r.growth) {
    out.push(
      `Growth (${runtimeOf(r)}; CPU time is the process's, all threads, and does not grow with load from other processes):\n\n` +
        table(
          ['lines', 'file', 'view', 'view ns/line', 'view CPU ns/line', 'batch (100 ops)', 'batch ns/line', 'batch CPU ns/line'],
          r.growth.map((/** @type {any} */ g) => [
            int(g.lines),
            mb(g.bytes),
            time(g.viewMs),
            ((g.viewMs * 1e6) / g.lines).toFixed(0),
            ((g.viewCpu * 1e6) / g.lines).toFixed(0),
            time(g.batchMs),
            ((g.batchMs * 1e6) / g.lines).toFixed(0),
            ((g.batchCpu * 1e6) / g.lines).toFixed(0),
          ]),
        ),
    )
  }
  if (r.memory) {
    const m = r.memory
    out.push(
      `Peak resident memory (${runtimeOf(r)}), ${mb(m.bytes)} file of ${int(m.lines)} lines, each in a fresh process:\n\n` +
        table(
          ['run', 'RSS before', 'peak RSS', 'peak − before', '÷ file size', 'peak ÷ file size'],
          m.runs.map((/** @type {any} */ x) => [
            x.mode,
            mb(x.beforeKb * 1024),
            mb(x.peakKb * 1024),
            mb((x.peakKb - x.beforeKb) * 1024),
            times(((x.peakKb - x.beforeKb) * 1024) / m.bytes),
            times((x.peakKb * 1024) / m.bytes),
          ]),
        ),
    )
  }
  if (r.chain) {
    const c = r.chain
    out.push(
      `Chain of edits (${runtimeOf(r)}): first edit ${time(c.firstMs)} (refs current), median of the ${c.edits - 1} remapped ${time(c.perEditMs)}, last ${time(c.lastMs)}; ` +
        `one edit with current refs ${time(c.directMs)}.`,
    )
  }
  return out.join('\n\n')
}

const runtimeOf = (/** @type {Record<string, any>} */ r) => r.runtime

function loadAverage() {
  return os.loadavg().map((x) => x.toFixed(2)).join(' ')
}

async function main() {
  const opts = options(import.meta.url, cli)
  if (opts.resultsOnly) {
    const work = opts.workdir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'hashline-bench-'))
    process.stdout.write(JSON.stringify(measure(opts, work)) + '\n')
    return
  }
  opts.binding = loaderOf(opts, 'perf-release')
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'hashline-bench-'))
  if (opts.keep) progress(`generated files in ${work}`)
  try {
    const started = performance.now()
    const build = buildOf(opts.binding)
    const startLoad = loadAverage()
    process.stderr.write(`hashline benchmark: ${opts.quick ? 'quick' : 'full'} run, binding ${opts.binding} (${build.kind})\n`)
    /** @type {Record<string, any>} */
    const floor = !opts.only || [1, 2, 3].some((n) => opts.only?.has(n)) ? rustSide(work, opts.quick) : {}
    const node = measure(opts, work)
    const { result: bun, note: bunNote } = opts.noBun
      ? {}
      : runUnderBun(opts.bun, [
          fileURLToPath(import.meta.url),
          '--results-only',
          '--workdir',
          work,
          '--binding',
          opts.binding,
          ...(opts.quick ? ['--quick'] : []),
          ...(opts.only ? ['--only', [...opts.only].join(',')] : []),
        ])
    const header = ['#', 'workload', 'hashline', 'compared with', 'that', 'ratio', 'target', 'result']
    const cpu = os.cpus()[0]?.model ?? 'unknown CPU'
    const lines = [
      `## hashline performance (${opts.quick ? 'quick' : 'full'} run)`,
      '',
      `${node.runtime}; ${os.cpus().length} × ${cpu}; load average ${startLoad} at the start, ${loadAverage()} at the end. ` +
        `Binding: \`${path.relative(repo, build.file) || build.file}\` (${build.kind}). Inputs: seed ${SEED.toString(16)}, generated source-like text. Medians of interleaved rounds.`,
      floor.error ? `Rust floor: not measured (${floor.error}).` : '',
      '',
      table(header, mainRows(node, floor)),
      '',
      detailTables(node, floor),
    ]
    if (bun) lines.push('', `### Under ${bun.runtime}`, '', table(header, mainRows(bun, floor)), '', detailTables(bun, floor))
    else if (bunNote) lines.push('', bunNote)
    lines.push('', `Total time of this run: ${((performance.now() - started) / 1000).toFixed(0)} s.`)
    process.stdout.write(lines.filter((l, i, all) => l !== '' || all[i - 1] !== '').join('\n') + '\n')
    if (opts.json) writeReport(opts.json, { node, bun, floor })
  } finally {
    if (!opts.keep) fs.rmSync(work, { recursive: true, force: true })
  }
}

main().catch((err) => {
  process.stderr.write(`${err.stack ?? err}\n`)
  process.exitCode = 1
})
