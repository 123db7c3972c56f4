// @ts-check
// Brings the source files the benchmark edits from the package registries
// (npm, PyPI, crates.io) with their ordinary clients, at the versions pinned
// in manifest.json, into eval/.cache/stale-refs/. Run once; the benchmark
// itself never touches the network.
//
//   node eval/stale-refs/setup.mjs
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { dirname, join, relative, sep } from 'node:path'
import { fileURLToPath } from 'node:url'

const here = dirname(fileURLToPath(import.meta.url))
export const cacheDir = join(here, '..', '.cache', 'stale-refs')
const sourcesFile = join(cacheDir, 'sources.json')

/**
 * @typedef {{ registry: 'npm' | 'pypi' | 'crates', package: string, version: string, lang: string, include: string[], ext: string[] }} Package
 * @typedef {Package & { root: string }} FetchedPackage
 * @typedef {{ lang: string, package: string, version: string, path: string, text: string }} SourceFile
 */

/** @returns {Package[]} */
export function manifest() {
  return JSON.parse(readFileSync(join(here, 'manifest.json'), 'utf8')).packages
}

/** @param {string} command @param {string[]} args @param {string} [cwd] */
function run(command, args, cwd) {
  return execFileSync(command, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 64 << 20 })
}

/** @param {string} archive @param {string} into */
function untar(archive, into) {
  rmSync(into, { recursive: true, force: true })
  mkdirSync(into, { recursive: true })
  run('tar', ['xzf', archive, '-C', into, '--strip-components=1'])
}

/** @param {Package} pkg @returns {string} */
function fetchNpm(pkg) {
  const dir = join(cacheDir, 'npm')
  const root = join(dir, `${pkg.package.replace('/', '+')}-${pkg.version}`)
  if (existsSync(root)) return root
  mkdirSync(dir, { recursive: true })
  const packed = JSON.parse(run('npm', ['pack', `${pkg.package}@${pkg.version}`, '--json', '--pack-destination', dir, '--silent'], dir))
  const archive = join(dir, packed[0].filename)
  untar(archive, root)
  rmSync(archive)
  return root
}

/** @param {Package} pkg @returns {string} */
function fetchPypi(pkg) {
  const dir = join(cacheDir, 'pypi')
  const root = join(dir, `${pkg.package}-${pkg.version}`)
  if (existsSync(root)) return root
  const downloads = join(dir, 'sdists')
  mkdirSync(downloads, { recursive: true })
  run('python3', ['-m', 'pip', 'download', '--no-deps', '--no-binary', ':all:', '--quiet', '-d', downloads, `${pkg.package}==${pkg.version}`])
  // sdist names normalise the project name (PEP 625), so match loosely.
  const norm = (/** @type {string} */ s) => s.toLowerCase().replace(/[-_.]+/g, '_')
  const archive = readdirSync(downloads).find((f) => f.endsWith('.tar.gz') && norm(f).startsWith(`${norm(pkg.package)}_${norm(pkg.version)}`))
  if (!archive) throw new Error(`pip downloaded no sdist for ${pkg.package}==${pkg.version}`)
  untar(join(downloads, archive), root)
  return root
}

/**
 * Crates come through cargo: a throwaway project depending on the pinned
 * versions, fetched, then located with `cargo metadata` (wherever
 * CARGO_HOME keeps its unpacked sources).
 * @param {Package[]} crates @returns {Map<string, string>}
 */
function fetchCrates(crates) {
  const roots = new Map()
  if (crates.length === 0) return roots
  const dir = join(cacheDir, 'cargo')
  mkdirSync(join(dir, 'src'), { recursive: true })
  const deps = crates.map((c) => `${JSON.stringify(c.package)} = { version = "=${c.version}", default-features = false }`)
  writeFileSync(join(dir, 'Cargo.toml'), ['[package]', 'name = "stale-refs-sources"', 'version = "0.0.0"', 'edition = "2021"', 'publish = false', '', '[dependencies]', ...deps, '', '[workspace]', ''].join('\n'))
  writeFileSync(join(dir, 'src', 'lib.rs'), '')
  const manifestPath = join(dir, 'Cargo.toml')
  run('cargo', ['fetch', '--quiet', '--manifest-path', manifestPath])
  const meta = JSON.parse(run('cargo', ['metadata', '--format-version', '1', '--offline', '--manifest-path', manifestPath]))
  for (const c of crates) {
    const found = meta.packages.find((/** @type {any} */ p) => p.name === c.package && p.version === c.version)
    if (!found) throw new Error(`cargo did not resolve ${c.package} ${c.version}`)
    roots.set(c.package, dirname(found.manifest_path))
  }
  return roots
}

/** Fetches whatever is missing and records where each package is. @returns {FetchedPackage[]} */
export function setup() {
  mkdirSync(cacheDir, { recursive: true })
  const packages = manifest()
  const crateRoots = fetchCrates(packages.filter((p) => p.registry === 'crates'))
  const fetched = packages.map((pkg) => {
    const root = pkg.registry === 'npm' ? fetchNpm(pkg) : pkg.registry === 'pypi' ? fetchPypi(pkg) : crateRoots.get(pkg.package)
    if (!root) throw new Error(`no source for ${pkg.package}`)
    return { ...pkg, root }
  })
  writeFileSync(sourcesFile, JSON.stringify({ manifest: packages, fetched }, null, 2))
  return fetched
}

/** @param {string} dir @returns {string[]} */
function walk(dir) {
  /** @type {string[]} */
  const out = []
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) out.push(...walk(path))
    else out.push(path)
  }
  return out
}

export const MIN_LINES = 20
export const MAX_LINES = 2000

/**
 * The benchmark's files, in a fixed order: LF line endings (a lone CR or a
 * NUL disqualifies a file), no BOM, 20 to 2000 lines. Fetches first if the
 * cache is missing or was made from another manifest.
 * @returns {SourceFile[]}
 */
export function loadSources() {
  const packages = manifest()
  let fetched = existsSync(sourcesFile) ? JSON.parse(readFileSync(sourcesFile, 'utf8')) : null
  if (!fetched || JSON.stringify(fetched.manifest) !== JSON.stringify(packages) || !fetched.fetched.every((/** @type {FetchedPackage} */ p) => existsSync(p.root))) {
    fetched = { fetched: setup() }
  }
  /** @type {SourceFile[]} */
  const files = []
  for (const pkg of /** @type {FetchedPackage[]} */ (fetched.fetched)) {
    for (const prefix of pkg.include) {
      const base = join(pkg.root, prefix)
      if (!existsSync(base)) throw new Error(`${pkg.package}@${pkg.version} has no ${prefix}`)
      for (const path of walk(base)) {
        if (!pkg.ext.some((e) => path.endsWith(e))) continue
        let text = readFileSync(path, 'utf8').replace(/^\uFEFF/, '').replace(/\r\n/g, '\n')
        if (text.includes('\r') || text.includes('\0') || text.includes('\uFFFD')) continue
        const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0)
        if (lines < MIN_LINES || lines > MAX_LINES) continue
        files.push({ lang: pkg.lang, package: pkg.package, version: pkg.version, path: relative(pkg.root, path).split(sep).join('/'), text })
      }
    }
  }
  return files
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const fetched = setup()
  const files = loadSources()
  for (const pkg of fetched) {
    const mine = files.filter((f) => f.package === pkg.package)
    console.log(`${pkg.registry} ${pkg.package}@${pkg.version} (${pkg.lang}): ${mine.length} files, ${mine.reduce((n, f) => n + f.text.split('\n').length, 0)} lines`)
  }
}
