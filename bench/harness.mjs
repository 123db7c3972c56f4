// @ts-check
// What every benchmark shares: its command line (node:util parseArgs), the
// median of its samples, timing in interleaved rounds, generated code and
// the refs a view shows of it, the build it measures (a release copy built
// beside the package, what kind of build a loader loads, the Rust floors, a
// second run under Bun), the report it writes, and its progress lines.

import { spawnSync } from 'node:child_process'
import * as fs from 'node:fs'
import { createRequire } from 'node:module'
import * as path from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'

export const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
/** Where benchmarks keep builds and generated inputs (git ignores it). */
export const cache = path.join(repo, 'bench', '.cache')
/** The package's own loader: the build the tests use. */
const packageLoader = path.join(repo, 'index.js')
const require = createRequire(import.meta.url)

// ---------------------------------------------------------------- command line

/** A path on the command line, resolved against the working folder. */
export const asPath = (/** @type {string} */ text) => path.resolve(text)
/** A list of numbers, `1,3`. */
export const asNumbers = (/** @type {string} */ text) => new Set(text.split(',').map(asNumber))
/** A list of names, `a,b`. */
export const asNames = (/** @type {string} */ text) => text.split(',')
/** @param {string} text */
export function asNumber(text) {
  const n = Number(text)
  if (text.trim() === '' || !Number.isFinite(n)) throw new TypeError(`"${text}" is not a number`)
  return n
}

/** An option without a value (`--quick`). */
export const flag = { type: /** @type {const} */ ('boolean') }
/** A whole number of at least 1 (rounds, runs). @param {string} text */
export function asCount(text) {
  const n = asNumber(text)
  if (!Number.isInteger(n) || n < 1) throw new TypeError(`"${text}" is not a whole number of at least 1`)
  return n
}

/** `--binding` and `--build-release`, which most speed benchmarks take. */
export const bindingOptions = {
  binding: { parse: asPath, default: packageLoader },
  'build-release': flag,
}

/**
 * @typedef {{ type?: 'string' | 'boolean', short?: string, parse?: (text: string) => any, default?: any }} OptionSpec
 */

/**
 * The benchmark's options from its command line. An option is a string
 * unless its `type` says boolean; `parse` turns the text into its value and
 * `default` stands when it is absent (a boolean is false then). Option names
 * are returned in camel case (`--build-release` as `buildRelease`). A wrong
 * command line stops the run with exit code 2 and names the file whose
 * header comment lists the options. With `positionals`, the other words of
 * the command line are returned as `_`.
 * @param {string} script  the benchmark's `import.meta.url`
 * @param {Record<string, OptionSpec>} spec
 * @param {{ argv?: string[], positionals?: boolean }} [how]
 * @returns {Record<string, any>}
 */
export function options(script, spec, { argv = process.argv.slice(2), positionals = false } = {}) {
  const file = path.relative(repo, fileURLToPath(script))
  try {
    const config = Object.fromEntries(Object.entries(spec).map(([name, o]) => [name, { type: o.type ?? 'string', ...(o.short ? { short: o.short } : {}) }]))
    const parsed = parseArgs({ args: argv, options: /** @type {any} */ (config), strict: true, allowPositionals: positionals })
    const values = /** @type {Record<string, unknown>} */ (parsed.values)
    /** @type {Record<string, any>} */
    const out = positionals ? { _: parsed.positionals } : {}
    for (const [name, o] of Object.entries(spec)) {
      const given = values[name]
      const key = name.replace(/-([a-z])/g, (_, c) => c.toUpperCase())
      if (given === undefined) out[key] = o.default ?? (o.type === 'boolean' ? false : undefined)
      else if (o.parse && typeof given === 'string') {
        try {
          out[key] = o.parse(given)
        } catch (e) {
          throw new TypeError(`--${name}: ${/** @type {Error} */ (e).message}`)
        }
      } else out[key] = given
    }
    return out
  } catch (e) {
    process.stderr.write(`${file}: ${/** @type {Error} */ (e).message} (see the comment at the top of ${file})\n`)
    process.exit(2)
  }
}

// ---------------------------------------------------------------- statistics

/**
 * The median of the samples: the middle one, or the mean of the two in the
 * middle.
 * @param {number[]} xs
 */
export function median(xs) {
  const s = [...xs].sort((a, b) => a - b)
  const m = s.length >> 1
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2
}

// ---------------------------------------------------------------- timing

/**
 * Times one call: wall time and CPU time of the process (all its threads),
 * both in milliseconds. On a machine shared with other work the wall time of
 * a long call grows with the load while its CPU time does not.
 * @param {() => unknown} call
 */
export function timed(call) {
  const cpuStart = process.cpuUsage()
  const start = performance.now()
  call()
  const ms = performance.now() - start
  const used = process.cpuUsage(cpuStart)
  return { ms, cpu: (used.user + used.system) / 1000 }
}

/**
 * Times candidates in interleaved rounds (each round runs every candidate
 * once, after `setup` and after the candidate's own `prepare`, neither
 * timed), after one untimed warm-up round, so that load from other
 * processes falls on all of them alike. A candidate with `rounds` set stops
 * after that many. Returns, for each, the median wall and CPU time in
 * milliseconds.
 * @param {Array<{ run?: () => unknown, prepare?: () => () => unknown, rounds?: number }>} candidates
 * @param {{ rounds: number, setup?: () => void }} how
 * @returns {Array<{ ms: number, cpu: number }>}
 */
export function interleaved(candidates, { rounds, setup }) {
  /** @type {number[][]} */
  const wall = candidates.map(() => [])
  /** @type {number[][]} */
  const cpu = candidates.map(() => [])
  for (let r = -1; r < rounds; r++) {
    candidates.forEach((c, i) => {
      if (c.rounds !== undefined && r >= c.rounds) return
      setup?.()
      const call = c.prepare ? c.prepare() : /** @type {() => unknown} */ (c.run)
      const t = timed(call)
      if (r >= 0) {
        wall[i].push(t.ms)
        cpu[i].push(t.cpu)
      }
    })
  }
  return wall.map((w, i) => ({ ms: median(w), cpu: median(cpu[i]) }))
}

// ---------------------------------------------------------------- inputs

/** A code-like line, distinct for each `i` (about 48 bytes). @param {number} i */
export const codeLine = (i) => `  const value${i} = compute(${i}); // line ${i}`

/**
 * A file of `n` lines made by `line` (distinct code-like lines by default).
 * @param {number} n
 */
export function codeFile(n, line = codeLine) {
  const out = new Array(n)
  for (let i = 0; i < n; i++) out[i] = line(i)
  return out.join('\n') + '\n'
}

/**
 * The full refs (`N#HHH#AAA`) of the lines a full view shows, by 0-based line.
 * @param {string} view
 */
export function fullRefs(view) {
  /** @type {string[]} */
  const refs = []
  for (const line of view.split('\n')) {
    const m = /^(\d+)#([0-9A-F]{3})#([0-9A-F]{3})\|/.exec(line)
    if (m) refs[Number(m[1]) - 1] = `${m[1]}#${m[2]}#${m[3]}`
  }
  return refs
}

// ---------------------------------------------------------------- the build measured

/**
 * A release build of the package's addon into `bench/.cache/<name>` (the
 * package's own index.js and debug .node stay as the tests use them), or of
 * the tree at `cwd`; returns its loader.
 * @param {string} name
 * @param {{ cwd?: string, targetDir?: string }} [where]
 */
export function buildRelease(name, { cwd = repo, targetDir } = {}) {
  const out = path.join(cache, name)
  const napi = path.join(repo, 'node_modules', '.bin', process.platform === 'win32' ? 'napi.cmd' : 'napi')
  progress(`building a release copy of the addon into ${path.relative(repo, out)} ...`)
  const args = ['build', '--platform', '--release', '--cwd', cwd, '--output-dir', out, '--target-dir', targetDir ?? path.join(out, 'target')]
  const build = spawnSync(napi, args, { cwd, stdio: ['ignore', 'inherit', 'inherit'] })
  if (build.error || build.status !== 0) throw new Error(`the release build failed${build.error ? `: ${build.error.message}` : ''}`)
  return path.join(out, 'index.js')
}

/**
 * The loader a benchmark measures: a fresh release copy named `name` with
 * `--build-release`, else `--binding` (the package's index.js by default).
 * @param {Record<string, any>} opts  `binding` and `buildRelease`
 * @param {string} name
 */
export function loaderOf(opts, name) {
  return opts.buildRelease ? buildRelease(name) : opts.binding
}

/** @param {string} loader */
export const load = (loader) => require(loader)

/**
 * The names of an ELF file's sections (64-bit little-endian), or undefined
 * for anything else.
 * @param {Buffer} b
 */
function elfSections(b) {
  if (b.length < 64 || b.readUInt32BE(0) !== 0x7f454c46 || b[4] !== 2 || b[5] !== 1) return undefined
  const shoff = Number(b.readBigUInt64LE(0x28))
  const size = b.readUInt16LE(0x3a)
  const count = b.readUInt16LE(0x3c)
  const strtab = Number(b.readBigUInt64LE(shoff + b.readUInt16LE(0x3e) * size + 0x18))
  return Array.from({ length: count }, (_, i) => {
    const start = strtab + b.readUInt32LE(shoff + i * size)
    return b.toString('latin1', start, b.indexOf(0, start))
  })
}

/**
 * The addon next to a loader, and whether it was built for debugging (a
 * debug build has `.debug_info`).
 * @param {string} loader
 */
export function buildOf(loader) {
  const dir = path.dirname(loader)
  const node = fs.readdirSync(dir).find((f) => /^hashline\..*\.node$/.test(f))
  if (!node) return { file: '(from an installed package)', kind: 'unknown build' }
  const sections = elfSections(fs.readFileSync(path.join(dir, node)))
  const kind = !sections ? 'unknown build' : sections.includes('.debug_info') ? 'DEBUG build: numbers not representative' : 'release build'
  return { file: path.join(dir, node), kind }
}

/**
 * The benchmarks' Rust floors (bench/floor), built in release mode into
 * bench/.cache/floor (cargo does nothing when they are current); returns the
 * path of binary `bin`.
 * @param {string} bin
 */
export function floorBinary(bin) {
  const target = path.join(cache, 'floor')
  progress('building the Rust floor (cargo build --release) ...')
  const manifest = path.join(repo, 'bench', 'floor', 'Cargo.toml')
  const build = spawnSync('cargo', ['build', '--release', '--quiet', '--manifest-path', manifest, '--target-dir', target], { stdio: ['ignore', 'inherit', 'inherit'] })
  if (build.error || build.status !== 0) throw new Error(`cargo build of the floor failed${build.error ? `: ${build.error.message}` : ''}`)
  return path.join(target, 'release', bin)
}

/**
 * A `bun` that runs, for a second run under Bun: `given` (--bun), $BUN,
 * PATH, or the binary of the root's `bun` devDependency.
 * @param {string | undefined} given
 */
function findBun(given) {
  const candidates = [given, process.env.BUN, 'bun', path.join(repo, 'node_modules', 'bun', 'bin', 'bun.exe')]
  for (const pkg of [`@oven/bun-${process.platform}-${process.arch === 'x64' ? 'x64' : 'aarch64'}`, `@oven/bun-${process.platform}-${process.arch === 'x64' ? 'x64-baseline' : 'aarch64'}`]) {
    try {
      candidates.push(path.join(path.dirname(require.resolve(`${pkg}/package.json`)), 'bin', 'bun'))
    } catch {
      // Not installed for this platform; try the next.
    }
  }
  for (const c of candidates) {
    if (!c) continue
    const probe = spawnSync(c, ['--version'], { encoding: 'utf8' })
    if (probe.status === 0) return { path: c, version: probe.stdout.trim() }
  }
  return undefined
}

/**
 * Runs a script under Bun (the binary `findBun` finds) that prints its
 * results as JSON on its last line of stdout; returns them, or a note saying
 * why there are none.
 * @param {string | undefined} given  --bun
 * @param {string[]} args
 * @param {import('node:child_process').SpawnSyncOptions} [how]
 * @returns {{ result?: any, note?: string }}
 */
export function runUnderBun(given, args, how = {}) {
  const found = findBun(given)
  if (!found) return { note: 'Bun: not run (no `bun` binary found; install the `bun` npm package or pass --bun).' }
  progress(`running under Bun ${found.version} ...`)
  const child = spawnSync(found.path, args, { encoding: 'utf8', maxBuffer: 64 << 20, stdio: ['ignore', 'pipe', 'inherit'], ...how })
  if (child.status === 0) return { result: JSON.parse(String(child.stdout).trim().split('\n').pop() ?? '{}') }
  return { note: `Bun ${found.version}: the run failed (exit ${child.status}); see the messages above.` }
}

// ---------------------------------------------------------------- report

/** A duration given in milliseconds, in µs below 1 ms. @param {number} ms */
export function time(ms) {
  if (ms < 1) return `${(ms * 1000).toFixed(ms < 0.1 ? 1 : 0)} µs`
  if (ms < 100) return `${ms.toFixed(ms < 10 ? 2 : 1)} ms`
  return `${ms.toFixed(0)} ms`
}
export const times = (/** @type {number} */ x) => `${x.toFixed(x < 10 ? 2 : 1)}×`
export const mb = (/** @type {number} */ bytes) => `${(bytes / 1e6).toFixed(bytes < 1e7 ? 2 : 0)} MB`
export const int = (/** @type {number} */ n) => n.toLocaleString('en-US').replace(/,/g, ' ')
export const verdict = (/** @type {boolean} */ ok) => (ok ? '**met**' : '**missed**')

/**
 * A Markdown table; with `pad`, each column as wide as its widest cell, so
 * that it reads in a terminal too.
 * @param {string[]} header
 * @param {string[][]} rows
 * @param {{ pad?: boolean, align?: string[] }} [how]  `align`: a cell of the rule line per column (`---:`)
 */
export function table(header, rows, { pad = false, align } = {}) {
  if (!pad) return [`| ${header.join(' | ')} |`, `|${header.map((_, i) => align?.[i] ?? '---').join('|')}|`, ...rows.map((r) => `| ${r.join(' | ')} |`)].join('\n')
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)))
  const line = (/** @type {string[]} */ cells) => `| ${cells.map((c, i) => c.padEnd(widths[i])).join(' | ')} |`
  return [line(header), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.map(line)].join('\n')
}

/**
 * Writes a report (text as it is, anything else as indented JSON), making
 * its folder.
 * @param {string} file
 * @param {unknown} content
 */
export function writeReport(file, content) {
  fs.mkdirSync(path.dirname(file), { recursive: true })
  fs.writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content, null, 2))
}

/** A progress line on stderr, so that stdout holds the report alone. @param {string} line */
export function progress(line) {
  process.stderr.write(`  ${line}\n`)
}
