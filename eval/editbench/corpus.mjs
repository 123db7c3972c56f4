#!/usr/bin/env node
// @ts-check
// The corpus: real before/after pairs of source files from consecutive
// published versions of registry packages (crates.io through cargo, PyPI
// sdists through pip, npm tarballs through npm).
//
//   node eval/editbench/corpus.mjs             fetch what fixtures.json names, check every file
//   node eval/editbench/corpus.mjs --discover  fetch CANDIDATES, choose files, rewrite fixtures.json
//   node eval/editbench/corpus.mjs --discover-text  choose the text files (not code), rewrite fixtures-text.json
//
// Only the fixture list is committed; the sources live under eval/.cache/editbench.

import { execFileSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { diffLines, splitLines } from './lib/diff.mjs'
import { rng } from './lib/rng.mjs'

const HERE = dirname(fileURLToPath(import.meta.url))
export const CACHE = join(HERE, '..', '.cache', 'editbench')
export const FIXTURES = join(HERE, 'fixtures.json')
export const TEXT_FIXTURES = join(HERE, 'fixtures-text.json')
const CARGO_HOME = join(CACHE, 'cargo-home')

/**
 * Version chains: each consecutive pair is one "change". Chosen as recent
 * releases a few versions apart, so that most pairs change some files but
 * few rewrite them.
 * @type {Record<'cargo' | 'pypi' | 'npm', Record<string, string[]>>}
 */
export const CANDIDATES = {
  cargo: {
    semver: ['1.0.20', '1.0.23', '1.0.26', '1.0.28'],
    anyhow: ['1.0.86', '1.0.93', '1.0.98', '1.0.104'],
    log: ['0.4.22', '0.4.26', '0.4.29', '0.4.35'],
    smallvec: ['1.13.2', '1.15.0', '1.16.0', '1.16.5'],
    either: ['1.12.0', '1.14.0', '1.16.0', '1.19.0'],
    bitflags: ['2.9.0', '2.10.0', '2.12.1', '2.13.2'],
    'regex-syntax': ['0.8.2', '0.8.5', '0.8.8', '0.8.11'],
    bytes: ['1.7.1', '1.9.0', '1.10.1', '1.12.1'],
    serde_json: ['1.0.120', '1.0.130', '1.0.140', '1.0.150'],
    syn: ['2.0.100', '2.0.106', '2.0.112', '2.0.119'],
    'proc-macro2': ['1.0.86', '1.0.93', '1.0.100', '1.0.107'],
    indexmap: ['2.7.0', '2.10.0', '2.12.0', '2.14.2'],
    memchr: ['2.7.1', '2.7.4', '2.8.0', '2.8.3'],
    itoa: ['1.0.11', '1.0.14', '1.0.16', '1.0.18'],
  },
  pypi: {
    attrs: ['24.2.0', '24.3.0', '25.1.0', '25.4.0'],
    click: ['8.1.7', '8.1.8', '8.2.1', '8.3.1'],
    packaging: ['24.1', '24.2', '25.0', '26.0'],
    requests: ['2.32.3', '2.32.5', '2.33.1', '2.34.2'],
    urllib3: ['2.2.3', '2.3.0', '2.5.0', '2.6.3'],
    jinja2: ['3.1.3', '3.1.4', '3.1.5', '3.1.6'],
    werkzeug: ['3.0.6', '3.1.3', '3.1.6', '3.1.9'],
    flask: ['3.0.3', '3.1.0', '3.1.1', '3.1.3'],
    rich: ['13.9.4', '14.0.0', '14.2.0', '14.3.4'],
    pluggy: ['1.4.0', '1.5.0', '1.6.0', '1.7.0'],
    'more-itertools': ['10.5.0', '10.7.0', '10.8.0', '11.0.2'],
    tomlkit: ['0.13.2', '0.13.3', '0.14.0', '0.15.2'],
  },
  npm: {
    semver: ['7.6.3', '7.7.1', '7.7.3', '7.8.0'],
    commander: ['12.1.0', '13.1.0', '14.0.1', '14.0.3'],
    yargs: ['17.7.2', '18.0.0', '18.1.0', '18.2.0'],
    express: ['4.21.2', '5.0.1', '5.1.0', '5.2.1'],
    minimatch: ['10.2.4', '11.0.0', '11.0.4', '11.0.9'],
    ws: ['8.18.3', '8.20.0', '8.21.3', '8.23.0'],
    acorn: ['8.14.0', '8.15.0', '8.17.0', '8.19.0'],
    debug: ['4.3.5', '4.3.7', '4.4.1', '4.4.3'],
    ajv: ['8.12.0', '8.16.0', '8.17.1', '8.20.0'],
    undici: ['8.10.0', '8.11.0', '8.12.0', '8.12.4'],
    zod: ['4.5.0', '4.6.0', '4.6.4', '4.6.7'],
    marked: ['18.0.10', '18.1.0', '18.1.3', '18.2.1'],
  },
}

/**
 * Packages fetched for the text corpus only: the packages above ship little
 * CSS and no CSV, so a few whose tarballs carry them (stylesheets, CSV
 * examples and test data) join in --discover-text.
 * @type {Record<'cargo' | 'pypi' | 'npm', Record<string, string[]>>}
 */
export const TEXT_CANDIDATES = {
  cargo: {},
  pypi: {
    csvkit: ['1.5.0', '2.0.0', '2.1.0', '2.2.0'],
    agate: ['1.12.0', '1.13.0', '1.14.1', '1.14.2'],
  },
  npm: {
    'github-markdown-css': ['5.6.1', '5.7.0', '5.8.0', '5.9.0'],
    'modern-normalize': ['1.1.0', '2.0.0', '3.0.0', '3.0.1'],
  },
}

/** Selection rules, applied in --discover. */
export const RULES = {
  perPair: 8,
  minLines: 20,
  maxLines: 3000,
  maxHunks: 40,
  /** Changed lines (old + new) over old lines: above this it is a rewrite, not an edit. */
  maxChurn: 0.5,
  maxLineChars: 1000,
  maxMeanLineChars: 120,
}

const LANGUAGES = /** @type {const} */ ({
  '.rs': 'rust',
  '.py': 'python',
  '.js': 'javascript',
  '.mjs': 'javascript',
  '.cjs': 'javascript',
  '.ts': 'typescript',
  '.mts': 'typescript',
  '.cts': 'typescript',
})

/** @param {string} path */
export function languageOf(path) {
  const m = /(\.[a-z]+)$/.exec(path)
  return m ? /** @type {Record<string, string>} */ (LANGUAGES)[m[1]] : undefined
}

/**
 * @typedef {{ ecosystem: 'cargo' | 'pypi' | 'npm', package: string, from: string, to: string, path: string,
 *   language: string, before: string, after: string }} Fixture
 * @typedef {Fixture & { id: string, beforeText: string, afterText: string }} CorpusFile
 */

/**
 * The canonical text: BOM removed, CRLF as LF, one final newline. Returns
 * undefined for what is not line-based UTF-8 text (NUL, lone CR, bad bytes).
 * @param {Buffer} bytes
 */
export function canonical(bytes) {
  let text
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes)
  } catch {
    return undefined
  }
  if (text.startsWith('\uFEFF')) text = text.slice(1)
  text = text.replace(/\r\n/g, '\n')
  if (text.includes('\r') || text.includes('\0')) return undefined
  if (text !== '' && !text.endsWith('\n')) text += '\n'
  return text
}

export const digest = (/** @type {string} */ text) => createHash('sha1').update(text, 'utf8').digest('hex').slice(0, 8)

/** @param {string} cmd @param {string[]} args @param {{ cwd?: string, env?: NodeJS.ProcessEnv }} [opts] */
function run(cmd, args, opts = {}) {
  return execFileSync(cmd, args, { cwd: opts.cwd, env: { ...process.env, ...opts.env }, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' })
}

/** Where the unpacked sources of one package version live. */
export function sourceRoot(/** @type {string} */ ecosystem, /** @type {string} */ name, /** @type {string} */ version) {
  if (ecosystem === 'cargo') {
    const registry = join(CARGO_HOME, 'registry', 'src')
    if (!existsSync(registry)) return join(registry, 'missing', `${name}-${version}`)
    for (const index of readdirSync(registry)) {
      const dir = join(registry, index, `${name}-${version}`)
      if (existsSync(dir)) return dir
    }
    return join(registry, 'missing', `${name}-${version}`)
  }
  return join(CACHE, 'src', ecosystem, `${name}@${version}`)
}

/** Brings one package version into the cache with its registry's own client. */
function fetchVersion(/** @type {string} */ ecosystem, /** @type {string} */ name, /** @type {string} */ version) {
  if (existsSync(sourceRoot(ecosystem, name, version))) return
  process.stderr.write(`fetching ${ecosystem} ${name} ${version}\n`)
  if (ecosystem === 'cargo') {
    // A throwaway project per version: cargo refuses two semver-compatible
    // versions of one crate in a graph, and pins may clash across crates.
    const project = join(CACHE, 'cargo-projects', `${name}-${version}`)
    mkdirSync(project, { recursive: true })
    writeFileSync(
      join(project, 'Cargo.toml'),
      `[package]\nname = "editbench-fetch"\nversion = "0.0.0"\nedition = "2021"\n\n[lib]\npath = "lib.rs"\n\n[dependencies]\n"${name}" = "=${version}"\n\n[workspace]\n`,
    )
    writeFileSync(join(project, 'lib.rs'), '')
    run('cargo', ['fetch', '--quiet'], { cwd: project, env: { CARGO_HOME } })
  } else if (ecosystem === 'pypi') {
    const dl = join(CACHE, 'pypi-dl', `${name}@${version}`)
    mkdirSync(dl, { recursive: true })
    if (readdirSync(dl).length === 0) {
      run('pip', ['download', '--quiet', '--no-deps', '--no-binary', ':all:', '-d', dl, `${name}==${version}`])
    }
    const archive = readdirSync(dl).find((f) => f.endsWith('.tar.gz'))
    if (!archive) throw new Error(`pip brought no sdist for ${name}==${version}`)
    unpack(join(dl, archive), sourceRoot(ecosystem, name, version))
  } else {
    const dl = join(CACHE, 'npm-dl')
    mkdirSync(dl, { recursive: true })
    const archive = run('npm', ['pack', `${name}@${version}`, '--pack-destination', dl, '--silent'], { cwd: dl })
      .trim()
      .split('\n')
      .pop()
    if (!archive) throw new Error(`npm pack brought nothing for ${name}@${version}`)
    unpack(join(dl, archive), sourceRoot(ecosystem, name, version))
  }
  if (!existsSync(sourceRoot(ecosystem, name, version))) throw new Error(`${ecosystem} ${name} ${version}: not found after fetching`)
}

function unpack(/** @type {string} */ archive, /** @type {string} */ dest) {
  const tmp = `${dest}.part`
  rmSync(tmp, { recursive: true, force: true })
  mkdirSync(tmp, { recursive: true })
  run('tar', ['-xzf', archive, '-C', tmp, '--strip-components=1'])
  run('mv', [tmp, dest])
}

/** Relative paths of the files under `root` in a language of the benchmark. */
function sourceFiles(/** @type {string} */ root) {
  /** @type {string[]} */
  const out = []
  const walk = (/** @type {string} */ dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.name === 'node_modules' || entry.name === 'target' || entry.name.startsWith('.')) continue
      const full = join(dir, entry.name)
      if (entry.isDirectory()) walk(full)
      else if (entry.isFile() && languageOf(entry.name) && !/\.min\.[a-z]+$/.test(entry.name)) out.push(relative(root, full))
    }
  }
  walk(root)
  return out.sort()
}

/**
 * Text that is not code, by kind: what a model also writes, and where a
 * line that merely looks like a view prefix (`3rd party`, `10px solid`,
 * `8am standup`) is ordinary content.
 * @type {Record<string, string>}
 */
const TEXT_EXTENSIONS = {
  '.md': 'markdown',
  '.markdown': 'markdown',
  '.rst': 'prose',
  '.txt': 'prose',
  '.css': 'css',
  '.scss': 'css',
  '.less': 'css',
  '.csv': 'csv',
  '.tsv': 'csv',
  '.yml': 'yaml',
  '.yaml': 'yaml',
  '.json': 'data',
  '.toml': 'data',
  '.cfg': 'data',
  '.ini': 'data',
}
/** Files without an extension that hold prose. */
const PROSE_NAMES = /^(LICEN[CS]E|COPYING|AUTHORS|NOTICE|CHANGES|HISTORY|CONTRIBUTORS|README)(-[A-Z0-9]+)?$/

/** The kinds of text the clean-up measure reports on, code first, in table order. */
export const TEXT_KINDS = ['prose', 'markdown', 'css', 'csv', 'yaml', 'data']

/** @param {string} path */
export function textKindOf(path) {
  const name = path.split('/').pop() ?? ''
  if (PROSE_NAMES.test(name)) return 'prose'
  const m = /(\.[a-z]+)$/.exec(name.toLowerCase())
  return m ? TEXT_EXTENSIONS[m[1]] : undefined
}

/** Relative paths of the text files (not code) under `root`, the project's own dot-folders (`.github`) included. */
function textFiles(/** @type {string} */ root) {
  /** @type {string[]} */
  const out = []
  const walk = (/** @type {string} */ dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.name === 'node_modules' || entry.name === 'target' || entry.name === '.git' || entry.name.startsWith('.cargo')) continue
      const full = join(dir, entry.name)
      if (entry.isDirectory()) walk(full)
      else if (entry.isFile() && textKindOf(entry.name) && !/\.min\.[a-z]+$/.test(entry.name)) out.push(relative(root, full))
    }
  }
  walk(root)
  return out.sort()
}

/** Selection rules of the text corpus, applied in --discover-text. */
export const TEXT_RULES = {
  /** Changed files kept per version pair and kind. */
  perPairKind: 3,
  /** Files of one version kept per package and kind (for edits made of their own lines). */
  singlesPerKind: 4,
  /** The same for the kinds few packages ship (CSS, CSV), which no version pair changes much. */
  singlesPerRareKind: 20,
  minLines: 3,
  maxLines: 3000,
  maxHunks: 40,
  maxChurn: 0.5,
  maxLineChars: 1000,
}

/** @param {string} text */
function looksLikeText(text) {
  const lines = splitLines(text)
  return lines.length >= TEXT_RULES.minLines && lines.length <= TEXT_RULES.maxLines && lines.every((l) => l.length <= TEXT_RULES.maxLineChars)
}

/** @param {string} text */
function looksLikeSource(text) {
  const lines = splitLines(text)
  if (lines.length < RULES.minLines || lines.length > RULES.maxLines) return false
  let chars = 0
  for (const line of lines) {
    if (line.length > RULES.maxLineChars) return false
    chars += line.length
  }
  return chars / lines.length <= RULES.maxMeanLineChars
}

/** Chooses the changed files of every candidate pair and writes fixtures.json. */
function discover() {
  /** @type {Fixture[]} */
  const files = []
  for (const [ecosystem, packages] of Object.entries(CANDIDATES)) {
    for (const [name, versions] of Object.entries(packages)) {
      for (const v of versions) fetchVersion(ecosystem, name, v)
      for (let i = 0; i + 1 < versions.length; i++) {
        const [from, to] = [versions[i], versions[i + 1]]
        const a = sourceRoot(ecosystem, name, from)
        const b = sourceRoot(ecosystem, name, to)
        const inB = new Set(sourceFiles(b))
        /** @type {Fixture[]} */
        const chosen = []
        for (const path of sourceFiles(a)) {
          if (!inB.has(path)) continue
          const before = canonical(readFileSync(join(a, path)))
          const after = canonical(readFileSync(join(b, path)))
          if (before === undefined || after === undefined || before === after) continue
          if (!looksLikeSource(before) || !looksLikeSource(after)) continue
          const oldLines = splitLines(before)
          const hunks = diffLines(oldLines, splitLines(after))
          const churn = hunks.reduce((s, h) => s + h.oldLen + h.newLen, 0) / oldLines.length
          if (hunks.length === 0 || hunks.length > RULES.maxHunks || churn > RULES.maxChurn) continue
          chosen.push({
            ecosystem: /** @type {Fixture['ecosystem']} */ (ecosystem),
            package: name,
            from,
            to,
            path,
            language: /** @type {string} */ (languageOf(path)),
            before: digest(before),
            after: digest(after),
          })
        }
        const pick = rng(`${ecosystem}:${name}@${from}`).shuffle(chosen).slice(0, RULES.perPair)
        files.push(...pick.sort((p, q) => (p.path < q.path ? -1 : 1)))
        process.stderr.write(`${ecosystem} ${name} ${from} -> ${to}: ${chosen.length} changed, ${pick.length} kept\n`)
      }
    }
  }
  const doc = {
    about:
      'Before/after source files from consecutive published versions of registry packages. ' +
      'before/after: first 8 hex digits of SHA-1 of the canonical text (BOM removed, CRLF as LF, one final newline). ' +
      'Rebuild the sources with `node eval/editbench/corpus.mjs`; regenerate this list with `--discover`.',
    rules: RULES,
    files,
  }
  writeFileSync(FIXTURES, JSON.stringify(doc, null, 1) + '\n')
  return files
}

/**
 * Chooses the text files (not code) of every candidate package and writes
 * fixtures-text.json: per consecutive version pair and kind, a few changed
 * files (real edits of prose, Markdown, CSS, CSV, YAML and data files); per
 * package and kind, a few files of its newest version (their own lines are
 * the content of the edits made of them).
 */
function discoverText() {
  /** @type {TextPair[]} */
  const pairs = []
  /** @type {TextSingle[]} */
  const singles = []
  for (const ecosystem of /** @type {const} */ (['cargo', 'pypi', 'npm'])) {
    for (const [name, versions] of Object.entries({ ...CANDIDATES[ecosystem], ...TEXT_CANDIDATES[ecosystem] })) {
      for (const v of versions) fetchVersion(ecosystem, name, v)
      const eco = ecosystem
      for (let i = 0; i + 1 < versions.length; i++) {
        const [from, to] = [versions[i], versions[i + 1]]
        const a = sourceRoot(ecosystem, name, from)
        const b = sourceRoot(ecosystem, name, to)
        const inB = new Set(textFiles(b))
        /** @type {Record<string, TextPair[]>} */
        const byKind = {}
        for (const path of textFiles(a)) {
          if (!inB.has(path)) continue
          const before = canonical(readFileSync(join(a, path)))
          const after = canonical(readFileSync(join(b, path)))
          if (before === undefined || after === undefined || before === after) continue
          if (!looksLikeText(before) || !looksLikeText(after)) continue
          const oldLines = splitLines(before)
          const hunks = diffLines(oldLines, splitLines(after))
          const churn = hunks.reduce((s, h) => s + h.oldLen + h.newLen, 0) / oldLines.length
          if (hunks.length === 0 || hunks.length > TEXT_RULES.maxHunks || churn > TEXT_RULES.maxChurn) continue
          const kind = /** @type {string} */ (textKindOf(path))
          ;(byKind[kind] ??= []).push({ ecosystem: eco, package: name, from, to, path, kind, before: digest(before), after: digest(after) })
        }
        for (const [kind, list] of Object.entries(byKind)) {
          pairs.push(...rng(`text:${ecosystem}:${name}@${from}:${kind}`).shuffle(list).slice(0, TEXT_RULES.perPairKind).sort((p, q) => (p.path < q.path ? -1 : 1)))
        }
      }
      const newest = versions[versions.length - 1]
      const root = sourceRoot(ecosystem, name, newest)
      /** @type {Record<string, TextSingle[]>} */
      const byKind = {}
      for (const path of textFiles(root)) {
        const text = canonical(readFileSync(join(root, path)))
        if (text === undefined || !looksLikeText(text)) continue
        const kind = /** @type {string} */ (textKindOf(path))
        ;(byKind[kind] ??= []).push({ ecosystem: eco, package: name, version: newest, path, kind, digest: digest(text) })
      }
      for (const [kind, list] of Object.entries(byKind)) {
        const keep = kind === 'css' || kind === 'csv' ? TEXT_RULES.singlesPerRareKind : TEXT_RULES.singlesPerKind
        singles.push(...rng(`text:${ecosystem}:${name}@${newest}:${kind}`).shuffle(list).slice(0, keep).sort((p, q) => (p.path < q.path ? -1 : 1)))
      }
      process.stderr.write(`${ecosystem} ${name}: text ${pairs.length} changed, ${singles.length} single so far\n`)
    }
  }
  const doc = {
    about:
      'Text files that are not code (prose, Markdown, CSS, CSV, YAML, data) from the same registry packages as fixtures.json. ' +
      'pairs: changed files between consecutive versions (before/after as in fixtures.json); singles: files of the newest version (digest of the canonical text). ' +
      'Rebuild the sources with `node eval/editbench/corpus.mjs`; regenerate this list with `--discover-text`.',
    rules: TEXT_RULES,
    pairs,
    singles,
  }
  writeFileSync(TEXT_FIXTURES, JSON.stringify(doc, null, 1) + '\n')
  return doc
}

/**
 * @typedef {{ ecosystem: Fixture['ecosystem'], package: string, from: string, to: string, path: string, kind: string, before: string, after: string }} TextPair
 * @typedef {{ ecosystem: Fixture['ecosystem'], package: string, version: string, path: string, kind: string, digest: string }} TextSingle
 * @typedef {TextSingle & { id: string, text: string }} SingleFile
 */

/** @returns {{ pairs: TextPair[], singles: TextSingle[] }} */
export function readTextFixtures() {
  const doc = JSON.parse(readFileSync(TEXT_FIXTURES, 'utf8'))
  return { pairs: doc.pairs, singles: doc.singles }
}

/**
 * The text corpus: the changed pairs as corpus files (their `language` is
 * their kind) and the single files, fetched when missing and checked
 * against their digests like the code fixtures.
 * @param {{ pairs: TextPair[], singles: TextSingle[] }} fixtures
 * @returns {{ pairs: CorpusFile[], singles: SingleFile[] }}
 */
export function loadTextCorpus(fixtures) {
  const pairs = loadCorpus(fixtures.pairs.map((p) => ({ ...p, language: p.kind })))
  const versions = new Set(fixtures.singles.map((f) => `${f.ecosystem}\t${f.package}\t${f.version}`))
  for (const key of versions) {
    const [ecosystem, name, version] = key.split('\t')
    fetchVersion(ecosystem, name, version)
  }
  /** @type {string[]} */
  const problems = []
  /** @type {SingleFile[]} */
  const singles = []
  for (const f of fixtures.singles) {
    const full = join(sourceRoot(f.ecosystem, f.package, f.version), f.path)
    const text = existsSync(full) && statSync(full).isFile() ? canonical(readFileSync(full)) : undefined
    const id = `${f.ecosystem}/${f.package}@${f.version}/${f.path}`
    if (text === undefined) problems.push(`${id}: missing`)
    else if (digest(text) !== f.digest) problems.push(`${id}: content differs from the fixture`)
    else singles.push({ ...f, id, text })
  }
  if (problems.length > 0) throw new Error(`text corpus: ${problems.length} fixture(s) unusable:\n${problems.slice(0, 20).join('\n')}`)
  return { pairs, singles }
}

/** @returns {Fixture[]} */
export function readFixtures() {
  return JSON.parse(readFileSync(FIXTURES, 'utf8')).files
}

/**
 * Fetches every version the fixtures name (a no-op once cached) and loads
 * the pairs, failing loudly on any file that is missing or differs.
 * @param {Fixture[]} fixtures
 * @returns {CorpusFile[]}
 */
export function loadCorpus(fixtures) {
  const versions = new Set(fixtures.flatMap((f) => [`${f.ecosystem}\t${f.package}\t${f.from}`, `${f.ecosystem}\t${f.package}\t${f.to}`]))
  for (const key of versions) {
    const [ecosystem, name, version] = key.split('\t')
    fetchVersion(ecosystem, name, version)
  }
  /** @type {string[]} */
  const problems = []
  /** @type {CorpusFile[]} */
  const out = []
  for (const f of fixtures) {
    const read = (/** @type {string} */ version) => {
      const full = join(sourceRoot(f.ecosystem, f.package, version), f.path)
      return existsSync(full) && statSync(full).isFile() ? canonical(readFileSync(full)) : undefined
    }
    const beforeText = read(f.from)
    const afterText = read(f.to)
    const id = `${f.ecosystem}/${f.package}@${f.from}..${f.to}/${f.path}`
    if (beforeText === undefined || afterText === undefined) problems.push(`${id}: missing`)
    else if (digest(beforeText) !== f.before || digest(afterText) !== f.after) problems.push(`${id}: content differs from the fixture`)
    else out.push({ ...f, id, beforeText, afterText })
  }
  if (problems.length > 0) throw new Error(`corpus: ${problems.length} fixture(s) unusable:\n${problems.slice(0, 20).join('\n')}`)
  return out
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (process.argv.includes('--discover-text')) discoverText()
  if (existsSync(TEXT_FIXTURES)) {
    const text = loadTextCorpus(readTextFixtures())
    /** @type {Record<string, number[]>} */
    const byKind = {}
    for (const f of text.pairs) (byKind[f.language] ??= [0, 0])[0]++
    for (const f of text.singles) (byKind[f.kind] ??= [0, 0])[1]++
    console.log(`text corpus: ${text.pairs.length} changed files, ${text.singles.length} single files; by kind [changed, single]: ${JSON.stringify(byKind)}`)
  }
  const files = process.argv.includes('--discover') ? discover() : readFixtures()
  const corpus = loadCorpus(files)
  let hunks = 0
  /** @type {Record<string, number>} */
  const byLanguage = {}
  for (const f of corpus) {
    hunks += diffLines(splitLines(f.beforeText), splitLines(f.afterText)).length
    byLanguage[f.language] = (byLanguage[f.language] ?? 0) + 1
  }
  console.log(`corpus: ${corpus.length} changed files, ${hunks} hunks; ${JSON.stringify(byLanguage)}`)
}
