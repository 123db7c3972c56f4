// @ts-check
// The search benchmark: wall time of `Hashline.search` (called from Node) and
// of `hashline grep` (the command line, end to end) against ripgrep for the
// same pattern, tree and flags, in one run. Both honour .gitignore without a
// git checkout (rg --no-require-git), skip hidden and binary files, and use
// every core. Each round runs every candidate once, in turn, so that load
// from other processes falls on all of them alike; the table shows medians
// and their ratio to rg's median of the same round set.
//
//   node bench/search/run.mjs [--build-release | --binding path/to/index.js] [--runs N] [--json out.json]
//
// --build-release  first build a release copy of the addon, with a copy of
//                  the command line next to it, into bench/.cache/search-release
//                  (the package's own files untouched), and benchmark that.
// --binding        the loader to benchmark (default: the package's index.js);
//                  the command line next to it (../cli) is the one run.
// --runs           rounds per workload after one warm-up round (default 7).
//
// The large tree is this repository's node_modules plus the cargo registry
// (~/.cargo/registry, when present); the small one is crates/. Hashline shows
// every hit here (a limit of 1e9), so that neither side stops early.

import { spawnSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { asCount, asPath, bindingOptions, buildRelease, load, median, options, progress, repo, writeReport } from '../harness.mjs'

/**
 * A release copy of the addon and its loader, with the JS layer beside it so
 * that its command line loads that copy. Returns the copy's loader.
 */
function releaseWithJs() {
  const loader = buildRelease('search-release')
  const out = path.dirname(loader)
  for (const folder of ['cli', 'lib', 'mcp', 'opencode']) fs.cpSync(path.join(repo, folder), path.join(out, folder), { recursive: true })
  fs.copyFileSync(path.join(repo, 'package.json'), path.join(out, 'package.json'))
  const modules = path.join(out, 'node_modules')
  if (!fs.existsSync(modules)) fs.symlinkSync(path.join(repo, 'node_modules'), modules)
  return loader
}

/**
 * @typedef {{ ignoreCase?: boolean, word?: boolean, fixedStrings?: boolean }} Flags
 * @typedef {{ tree: string, root: string, paths: string[], pattern: string, flags: Flags }} Workload
 */

/** @param {Flags} flags */
function rgFlags(flags) {
  return [...(flags.ignoreCase ? ['-i'] : []), ...(flags.word ? ['-w'] : []), ...(flags.fixedStrings ? ['-F'] : [])]
}

/** @param {Flags} flags */
function label(/** @type {string} */ pattern, flags) {
  const f = rgFlags(flags)
  return `${f.length > 0 ? `${f.join(' ')} ` : ''}\`${pattern}\``
}

/**
 * Runs a command to completion with its output piped (not to /dev/null,
 * which rg treats as a reason to stop at the first match).
 * @param {string} command
 * @param {string[]} args
 * @param {Record<string, string>} [env]
 */
function timed(command, args, env) {
  const start = performance.now()
  const r = spawnSync(command, args, { encoding: 'utf8', maxBuffer: 1 << 30, env: env ? { ...process.env, ...env } : process.env })
  const ms = performance.now() - start
  if (r.error) throw r.error
  return { ms, status: r.status, stdout: r.stdout, stderr: r.stderr }
}

function main() {
  const opts = options(import.meta.url, { ...bindingOptions, runs: { parse: asCount, default: 7 }, json: { parse: asPath } })
  if (spawnSync('rg', ['--version']).status !== 0) {
    throw new Error('ripgrep (rg) is not on PATH; on Debian: apt-get install -y ripgrep')
  }
  const binding = opts.buildRelease ? releaseWithJs() : opts.binding
  const cli = path.join(path.dirname(binding), 'cli', 'hashline.cjs')
  const { Hashline } = load(binding)
  const store = fs.mkdtempSync(path.join(os.tmpdir(), 'hashline-bench-search-'))

  const registry = path.join(os.homedir(), '.cargo', 'registry')
  const large = [path.join(repo, 'node_modules'), ...(fs.existsSync(registry) ? [registry] : [])]
  const largeName = large.length > 1 ? 'node_modules + cargo registry' : 'node_modules'
  const small = [path.join(repo, 'crates')]
  /** @type {Workload[]} */
  const workloads = [
    { tree: largeName, root: '/', paths: large, pattern: 'MAX_SAFE_INTEGER', flags: {} },
    { tree: largeName, root: '/', paths: large, pattern: 'fn\\s+[a-z_]+_unchecked\\s*\\(', flags: {} },
    { tree: largeName, root: '/', paths: large, pattern: 'deprecated', flags: { ignoreCase: true, word: true } },
    { tree: 'crates/', root: repo, paths: small, pattern: 'Result<', flags: { fixedStrings: true } },
    { tree: 'crates/', root: repo, paths: small, pattern: 'fn\\s+\\w+\\(', flags: {} },
    { tree: 'crates/', root: repo, paths: small, pattern: 'unwrap', flags: { ignoreCase: true, word: true } },
  ]

  process.stdout.write(`# Search: hashline against ripgrep\n\n`)
  const build = opts.buildRelease ? 'a release build' : `the addon of ${path.relative(repo, binding) || binding} (build kind not checked: --build-release for a release copy)`
  process.stdout.write(`${rgVersion()}; hashline: ${build}; Node ${process.version}; `)
  process.stdout.write(`${os.cpus().length} cores, load ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}; ${opts.runs} rounds after a warm-up, medians.\n`)
  const shown = (/** @type {string} */ p) => (p.startsWith(repo) ? path.relative(repo, p) : p.replace(os.homedir(), '~'))
  process.stdout.write(`Large tree: ${large.map(shown).join(' + ')} (${sizeOf(large)}); small tree: crates/ (${sizeOf(small)}).\n\n`)

  const rows = []
  for (const w of workloads) {
    const rg = () => timed('rg', ['-n', '--no-require-git', ...rgFlags(w.flags), '--', w.pattern, ...w.paths])
    const engine = () => {
      const start = performance.now()
      const result = new Hashline({ root: w.root, view: 'full' }).search(w.pattern, { ...w.flags, path: w.paths, maxResults: 1e9 })
      return { ms: performance.now() - start, shown: result.shown, skipped: result.skipped }
    }
    const command = (/** @type {string} */ limit) => {
      const args = [cli, 'grep', '--root', w.root, '-m', limit, ...rgFlags(w.flags), '--', w.pattern, ...w.paths]
      return timed(process.execPath, args, { HASHLINE_STORE: store })
    }
    const warm = { rg: rg(), engine: engine(), cli: command('1000000000'), limited: command('100') }
    if (warm.cli.status !== 0) throw new Error(`hashline grep failed: ${warm.cli.stderr}`)
    /** @type {{ rg: number[], engine: number[], cli: number[], limited: number[] }} */
    const times = { rg: [], engine: [], cli: [], limited: [] }
    for (let i = 0; i < opts.runs; i++) {
      times.rg.push(rg().ms)
      times.engine.push(engine().ms)
      times.cli.push(command('1000000000').ms)
      times.limited.push(command('100').ms)
    }
    const rgLines = warm.rg.stdout.split('\n').filter((l) => l !== '').length
    const row = {
      tree: w.tree,
      pattern: label(w.pattern, w.flags),
      rgHits: rgLines,
      hashlineHits: warm.engine.shown,
      skipped: warm.engine.skipped,
      rg: median(times.rg),
      engine: median(times.engine),
      cli: median(times.cli),
      limited: median(times.limited),
      times,
    }
    rows.push(row)
    progress(`${row.tree} ${row.pattern}: rg ${ms(row.rg)}, engine ${ms(row.engine)}, cli ${ms(row.cli)}, cli -m 100 ${ms(row.limited)}`)
  }
  fs.rmSync(store, { recursive: true, force: true })

  process.stdout.write('| tree | pattern | hits (rg / hashline) | rg | engine from Node | ratio | `hashline grep`, all hits | ratio | `hashline grep`, default limit of 100 | ratio |\n')
  process.stdout.write('|---|---|---|---:|---:|---:|---:|---:|---:|---:|\n')
  for (const r of rows) {
    process.stdout.write(
      `| ${r.tree} | ${r.pattern} | ${r.rgHits} / ${r.hashlineHits} | ${ms(r.rg)} | ${ms(r.engine)} | ${ratio(r.engine / r.rg)} ` +
        `| ${ms(r.cli)} | ${ratio(r.cli / r.rg)} | ${ms(r.limited)} | ${ratio(r.limited / r.rg)} |\n`,
    )
  }
  const worst = Math.max(...rows.map((r) => r.engine / r.rg))
  process.stdout.write(`\nTarget: the engine within 2× of rg: ${worst <= 2 ? '**met**' : '**missed**'} (worst ${ratio(worst)}).\n`)
  const skipped = rows[0].skipped
  process.stdout.write(
    `\nHit counts differ where hashline does not search what it could not edit: in the large tree it skipped ` +
      `${skipped.binary} binary files (rg may print a hit found before a file's first NUL byte), ${skipped.notUtf8} files not valid UTF-8 ` +
      `and ${skipped.tooLarge} over 16 MiB. The engine is timed inside one Node process; rg and the command line each as a new process ` +
      `(the command line's time includes starting Node and writing the version of every file with hits to its store on disk, ` +
      `which dominates when thousands of files have hits; with the default limit it stops at 100 hits).\n`,
  )
  if (opts.json) writeReport(opts.json, `${JSON.stringify(rows, null, 2)}\n`)
}

function rgVersion() {
  return spawnSync('rg', ['--version'], { encoding: 'utf8' }).stdout.split('\n')[0]
}

/** @param {string[]} paths */
function sizeOf(paths) {
  const r = spawnSync('du', ['-sbc', ...paths], { encoding: 'utf8' })
  const total = Number(/^(\d+)\s+total$/m.exec(r.stdout ?? '')?.[1])
  return Number.isFinite(total) ? `${(total / 1e6).toFixed(total < 1e7 ? 1 : 0)} MB` : 'size unknown'
}

/** @param {number} x */
const ms = (x) => (x < 100 ? `${x.toFixed(1)} ms` : `${x.toFixed(0)} ms`)
/** @param {number} x */
const ratio = (x) => `${x.toFixed(2)}×`

main()
