#!/usr/bin/env node
// @ts-check
// The clean-up measure: what the engine's clean-ups (view prefixes echoed
// into content, a neighbouring line echoed at a range's edge) do to content
// that is no echo, and to echoes, per kind of text: code, prose, Markdown,
// CSS, CSV, YAML, data files, and generated texts that look like view
// prefixes. Content goes in through every way it reaches a file (an edit on
// text, an edit in a session that read the file, a whole-file write through
// the OpenCode plugin and the engine's text function). Writes CLEANUP.md
// beside this file (a --quick run writes it under eval/.cache/editbench).
//
//   node eval/editbench/cleanup.mjs           the whole corpus
//   node eval/editbench/cleanup.mjs --quick   a spread subset and a tenth of the generated texts
//   node eval/editbench/cleanup.mjs --only ID  one file of the corpus, printing each boundary echo not written as meant
//   options: --seed N (default 1), --no-write (print the report only),
//            --compare FILE (an earlier run's CLEANUP.md, whose targets the report shows beside these),
//            --compare-label TEXT (what that run was, the heading they are shown under)

import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { CACHE, TEXT_KINDS, loadCorpus, loadTextCorpus, readFixtures, readTextFixtures } from './corpus.mjs'
import { joinLines, splitLines } from './lib/diff.mjs'
import { contentString } from './lib/formats.mjs'
import { LEGIT_SETS, legitTexts, witnessedLines } from './lib/legit.mjs'
import { settleEvery } from './lib/gc.mjs'
import { KINDS, mistakesAtRate } from './lib/mistakes.mjs'
import { LeanSession, Memoryless, PluginWrites, boundarySites, changedLines, deletionsAsNeighbours, echoedWrite, hasStripText, insertEach, literalFlag, naturalOps, requestOf, stripText } from './lib/probes.mjs'
import { LEAN_CHOICE } from './lib/refformats.mjs'
import { rng } from './lib/rng.mjs'
import { Scenario } from './lib/scenario.mjs'
import { ECHO_REFUSAL, OUTPUT_WEIGHT, Session } from './lib/session.mjs'
import { ENCODINGS, tokenizer } from './lib/tokens.mjs'
import { RATES } from './lib/report.mjs'
import { asNumber, flag, options } from '../../bench/harness.mjs'

const HERE = dirname(fileURLToPath(import.meta.url))
/** Files of each corpus part in a --quick run, spread evenly. */
const QUICK_FILES = { code: 30, pairs: 40, singles: 40 }
/**
 * A full run takes every text file and every CODE_EVERY-th code fixture:
 * the code fixtures' own run (run.mjs) covers all of them, and here each
 * costs seconds (a session per format, rate and slip).
 */
const CODE_EVERY = 4
/** Generated texts placed in each host file. */
const PER_HOST = 40
/** Witnessed lines (number and tag of a shown line, other text) per host file. */
const WITNESSED_PER_HOST = 25
/** The session formats compared: OpenCode's built-in edit, this project's full view (`applyEdits`), its lean view (a session). */
const SESSION_IDS = ['opencode', 'hashline', LEAN_CHOICE]
/** Mistake rates of the session measure; 0 is the ideal edit in its first form. */
const SESSION_RATES = [0, ...RATES]

/**
 * @typedef {import('./lib/probes.mjs').Landing} Landing
 * @typedef {import('./corpus.mjs').CorpusFile} CorpusFile
 * @typedef {{ n: number, exact: number, refused: number, altered: number, codes: Record<string, number>, literalExact: number, literalTried: number, extra: Record<string, number> }} Count
 * @typedef {{ n: number, correct: number, rejected: number, silent: number, refusedOnce: number, rejections: number, resends: number, input: Record<string, number>, output: Record<string, number> }} SessionCell
 */

function parseArgs() {
  const opt = options(import.meta.url, { quick: flag, seed: { parse: asNumber, default: 1 }, 'no-write': flag, only: {}, compare: {}, 'compare-label': { default: 'An earlier run, for comparison' } })
  opt.write = !opt.noWrite
  return opt
}

/** @template T @param {T[]} list @param {number} n */
const spread = (list, n) => (n >= list.length ? list : Array.from({ length: n }, (_, i) => list[Math.floor((i * list.length) / n)]))
const emptyCount = () => /** @type {Count} */ ({ n: 0, exact: 0, refused: 0, altered: 0, codes: {}, literalExact: 0, literalTried: 0, extra: {} })

/** Counts by table, kind and path. */
class Counts {
  constructor() {
    /** @type {Map<string, Count>} */
    this.map = new Map()
    /** @type {Map<string, string[]>} */
    this.examples = new Map()
  }
  /** @param {string} table @param {string} kind @param {string} path */
  get(table, kind, path) {
    const key = `${table}\t${kind}\t${path}`
    let c = this.map.get(key)
    if (!c) this.map.set(key, (c = emptyCount()))
    return c
  }
  /**
   * @param {string} table @param {string} kind @param {string} path @param {Landing} l
   * @param {() => string} [describe] what was sent, for the examples of what went wrong
   */
  add(table, kind, path, l, describe) {
    const c = this.get(table, kind, path)
    c.n++
    c[l.outcome]++
    if (l.code) c.codes[l.code] = (c.codes[l.code] ?? 0) + 1
    // What went silently wrong is listed first, then some refusals.
    if (l.outcome !== 'exact' && describe) {
      const key = l.outcome === 'altered' ? table : `${table}\trefused`
      const list = this.examples.get(key) ?? []
      if (list.length < (l.outcome === 'altered' ? 12 : 6)) list.push(`${kind} / ${path}: ${l.outcome}${l.code ? ` (${l.code})` : ''}: ${describe()}${l.text !== undefined ? `; ${l.text.length > 200 ? l.text.slice(0, 200) + '…' : l.text}` : ''}`)
      this.examples.set(key, list)
    }
  }
}

async function main() {
  const opt = parseArgs()
  const started = performance.now()
  const toks = ENCODINGS.map((e) => tokenizer(e))
  const [O] = ENCODINGS

  let code = loadCorpus(readFixtures())
  const textCorpus = loadTextCorpus(readTextFixtures())
  let pairs = textCorpus.pairs
  let singles = textCorpus.singles
  const full = { code: code.length, pairs: pairs.length, singles: singles.length }
  if (!opt.quick) code = code.filter((_f, i) => i % CODE_EVERY === 0)
  if (opt.quick) {
    code = spread(code, QUICK_FILES.code)
    pairs = spread(pairs, QUICK_FILES.pairs)
    singles = spread(singles, QUICK_FILES.singles)
  }
  /** Every file with a change, by kind: real changes (code and text), and edits putting back blocks of a text file's own lines. */
  /** @type {Array<{ file: CorpusFile, kind: string, source: 'change' | 'blocks' }>} */
  const changed = [
    ...code.map((file) => ({ file, kind: 'code', source: /** @type {const} */ ('change') })),
    ...pairs.map((file) => ({ file, kind: file.language, source: /** @type {const} */ ('change') })),
    ...singles.map((s) => ({ file: blocksRemoved(s, opt.seed), kind: s.kind, source: /** @type {const} */ ('blocks') })),
  ]
  if (opt.only !== undefined) changed.splice(0, changed.length, ...changed.filter((c) => c.file.id === opt.only))
  const kinds = ['code', ...TEXT_KINDS]
  const counts = new Counts()
  /** @type {Map<string, SessionCell>} */
  const sessions = new Map()
  /** @type {Record<string, { files: number, hunks: number, lines: number, change: number, blocks: number, packages: Set<string> }>} */
  const corpus = {}
  const skipped = /** @type {string[]} */ ([])
  const writes = await PluginWrites.open()

  for (const [fi, { file, kind, source }] of changed.entries()) {
    const oldLines = splitLines(file.beforeText)
    const newLines = splitLines(file.afterText)
    const ops = naturalOps(oldLines, newLines)
    const k = (corpus[kind] ??= { files: 0, hunks: 0, lines: 0, change: 0, blocks: 0, packages: new Set() })
    k.files++
    k[source]++
    k.hunks += ops.length
    k.packages.add(`${file.ecosystem}:${file.package}`)
    const mem = new Memoryless(file.path, file.beforeText)
    const lean = new LeanSession(file.path, file.beforeText)
    const want = file.afterText
    const say = () => `${file.id} (${source})`
    try {
      // (a) the change itself, as sent by a model that makes no slip.
      const asSent = [
        ['edit, applyEdits (full refs)', mem, {}],
        ['edit, session (lean refs)', lean, {}],
      ]
      for (const [path, engine] of /** @type {Array<[string, Memoryless | LeanSession]>} */ (asSent)) {
        const l = engine.send(requestOf(ops, (n) => engine.ref(n)), want)
        counts.add('legit-change', kind, path, l, say)
        if (l.outcome === 'refused' && l.code === ECHO_REFUSAL) literalResend(counts.get('legit-change', kind, path), engine, requestOf(ops, (n) => engine.ref(n)), want)
      }
      await writes.read(file.path, file.beforeText)
      counts.add('legit-change', kind, 'write hook, after a read', await writes.write(file.path, want, want), say)
      if (hasStripText) counts.add('legit-change', kind, 'stripViewPrefixes', stripText(want, want), say)

      // (b) every op echoes the view prefixes of its lines; the whole new file written with them.
      counts.add('echo', kind, 'edit, applyEdits (full prefixes)', mem.send(requestOf(ops, (n) => mem.ref(n), { echo: 'full' }, (n) => mem.prefix(n)), want), say)
      counts.add('echo', kind, 'edit, session (lean prefixes)', lean.send(requestOf(ops, (n) => lean.ref(n), { echo: 'lean' }, (n) => lean.prefix(n)), want), say)
      if (ops.some((op) => op.op !== 'delete')) counts.add('echo', kind, 'edit, session (lean prefixes, the view header above)', lean.send(requestOf(ops, (n) => lean.ref(n), { echo: 'lean', above: lean.header }, (n) => lean.prefix(n)), want), say)
      const leanWrite = echoedWrite(oldLines, newLines, (n) => lean.prefix(n))
      const shown = await writes.read(file.path, file.beforeText)
      counts.add('echo', kind, 'write hook, after a read (lean prefixes)', await writes.write(file.path, leanWrite, want), say)
      // The REV line the plugin puts above the lines of a read, copied with them.
      const revLine = shown.split('\n').find((l) => /^REV:[0-9A-F]{8}$/.test(l))
      if (revLine !== undefined) {
        await writes.read(file.path, file.beforeText)
        counts.add('echo', kind, 'write hook, after a read (lean prefixes, the REV line above)', await writes.write(file.path, `${revLine}\n${leanWrite}`, want), say)
      }
      if (hasStripText) counts.add('echo', kind, 'stripViewPrefixes (lean prefixes)', stripText(leanWrite, want), say)
      if (hasStripText) counts.add('echo', kind, 'stripViewPrefixes (full prefixes)', stripText(echoedWrite(oldLines, newLines, (n) => mem.prefix(n)), want), say)

      // (d) the line next to a range echoed, one site at a time.
      for (const site of boundarySites(ops)) {
        const where = () => `${say()}, op ${site.op + 1} ${site.side}`
        const request = requestOf(ops, (n) => mem.ref(n), { boundary: site })
        const landing = mem.send(request, want)
        counts.add('boundary', kind, 'edit, applyEdits (full refs)', landing, where)
        counts.add('boundary', kind, 'edit, session (lean refs)', lean.send(requestOf(ops, (n) => lean.ref(n), { boundary: site }), want), where)
        if (opt.only !== undefined && landing.outcome !== 'exact') console.log(where(), landing.outcome, JSON.stringify(request.operations[site.op]), landing.text ?? landing.message ?? '')
      }

      // (e) each changed line alone, with the prefix the view showed for the line it replaces.
      for (const { line, text } of changedLines(ops, oldLines)) {
        const meant = joinLines([...oldLines.slice(0, line - 1), text, ...oldLines.slice(line)])
        const where = () => `${say()}, line ${line}`
        for (const [path, engine] of /** @type {Array<[string, Memoryless | LeanSession]>} */ ([
          ['edit, applyEdits (full prefix)', mem],
          ['edit, session (lean prefix)', lean],
        ])) {
          const request = { operations: [{ op: 'replace', ref: engine.ref(line), content: engine.prefix(line) + text }] }
          counts.add('changed', kind, path, engine.send(request, meant), where)
        }
      }

      // (f) each deletion sent as its range replaced by the two lines around it.
      for (const d of deletionsAsNeighbours(ops)) {
        const deleted = joinLines([...oldLines.slice(0, d.first - 1), ...oldLines.slice(d.last)])
        const where = () => `${say()}, lines ${d.first}-${d.last}`
        for (const [path, engine] of /** @type {Array<[string, Memoryless | LeanSession]>} */ ([
          ['edit, applyEdits (full refs)', mem],
          ['edit, session (lean refs)', lean],
        ])) {
          /** @type {Record<string, string>} */
          const op = { op: 'replace', ref: engine.ref(d.first), content: contentString(d.lines) }
          if (d.last !== d.first) op.through = engine.ref(d.last)
          counts.add('neighbours', kind, path, engine.send({ operations: [op] }, deleted), where)
        }
      }

      // (a) each line of the old text alone, inserted where its neighbours differ from it.
      const lines = oldLines.filter((l) => l.trim() !== '')
      k.lines += lines.length
      const r = rng(`${opt.seed}|lines|${file.id}`)
      const each = (/** @type {string} */ path) => (/** @type {number} */ i, /** @type {Landing} */ l) => counts.add('legit-lines', kind, path, l, () => JSON.stringify(lines[i]))
      insertEach(mem, lines, r, each('edit, applyEdits (full refs)'))
      insertEach(lean, lines, r, each('edit, session (lean refs)'))
      for (const [i, line] of lines.entries()) {
        counts.add('legit-lines', kind, 'write hook, new file', await writes.write(`new/${fi}-${i}.txt`, line + '\n', line + '\n'), () => JSON.stringify(line))
        if (hasStripText) counts.add('legit-lines', kind, 'stripViewPrefixes', stripText(line + '\n', line + '\n'), () => JSON.stringify(line))
      }
    } finally {
      lean.close()
    }

    // (c) the session of this change at each mistake rate, in each format.
    let sc
    try {
      sc = new Scenario(file, opt.seed, { natural: true })
    } catch (err) {
      skipped.push(`${file.id}: ${/** @type {Error} */ (err).message}`)
      continue
    }
    const ss = new Session(sc, toks)
    const kindIds = KINDS.map((m) => m.id).filter((id) => id !== 'stale')
    for (const rate of SESSION_RATES) {
      const stale = rate > 0 && rng(`${opt.seed}|${rate}|session|stale|${file.id}`).chance(rate) ? sc.stale : null
      const variant = stale ?? sc.ideal
      for (const id of SESSION_IDS) {
        const mistakes = rate === 0 ? [] : mistakesAtRate(ss.editFor(id, variant), /** @type {any} */ (kindIds), rate, rng(`${opt.seed}|${rate}|session|${id === 'opencode' ? 'str' : 'ref'}|${file.id}`))
        const res = ss.play(id, variant, mistakes)
        for (const key of [`${kind}\t${rate}\t${id}`, `all\t${rate}\t${id}`]) {
          const cell = sessions.get(key) ?? { n: 0, correct: 0, rejected: 0, silent: 0, refusedOnce: 0, rejections: 0, resends: 0, input: {}, output: {} }
          cell.n++
          cell[res.outcome]++
          if (res.rejections > 0 || res.resends > 0) cell.refusedOnce++
          cell.rejections += res.rejections
          cell.resends += res.resends
          for (const t of toks) {
            cell.input[t.name] = (cell.input[t.name] ?? 0) + res.input[t.name]
            cell.output[t.name] = (cell.output[t.name] ?? 0) + res.output[t.name]
          }
          sessions.set(key, cell)
        }
      }
    }
    await settleEvery(5)
    if ((fi + 1) % 50 === 0) process.stderr.write(`${fi + 1}/${changed.length} files, ${((performance.now() - started) / 1000).toFixed(0)} s\n`)
  }

  // (a) generated texts that look like prefixes, in host files of the corpus.
  const texts = legitTexts(opt.seed, opt.quick)
  const hosts = [...singles.map((s) => ({ path: s.path, text: s.text })), ...code.map((f) => ({ path: f.path, text: f.beforeText }))].filter((h) => splitLines(h.text).length >= 20)
  const hr = rng(`${opt.seed}|hosts`)
  const hostFor = rng(`${opt.seed}|host-order`).shuffle(hosts)
  const generated = /** @type {Record<string, number>} */ ({})
  for (let h = 0, t = 0; t < texts.length; h++) {
    const host = hostFor[h % hostFor.length]
    const hostLines = splitLines(host.text)
    const mem = new Memoryless(host.path, host.text)
    const lean = new LeanSession(host.path, host.text)
    try {
      const batch = texts.slice(t, t + PER_HOST)
      t += batch.length
      const witnessed = Array.from({ length: WITNESSED_PER_HOST }, () => ({ set: 'witness', lines: witnessedLines(hr, hostLines.length, (n) => lean.tags[n], (n) => hostLines[n - 1]) }))
      for (const item of [...batch, ...witnessed]) {
        generated[item.set] = (generated[item.set] ?? 0) + 1
        const content = item.lines.join('\n')
        const say = () => JSON.stringify(content)
        for (const op of /** @type {const} */ (['insert_after', 'replace'])) {
          const at = placeFor(hr, hostLines, item.lines)
          const out = op === 'insert_after' ? [...hostLines.slice(0, at), ...item.lines, ...hostLines.slice(at)] : [...hostLines.slice(0, at - 1), ...item.lines, ...hostLines.slice(at)]
          const want = joinLines(out)
          for (const [path, engine] of /** @type {Array<[string, Memoryless | LeanSession]>} */ ([
            [`${op}, applyEdits (full refs)`, mem],
            [`${op}, session (lean refs)`, lean],
          ])) {
            const request = { operations: [{ op, ref: engine.ref(at), content }] }
            const l = engine.send(request, want)
            const c = counts.get('legit-generated', item.set, path)
            counts.add('legit-generated', item.set, path, l, say)
            if (l.outcome === 'refused') {
              // The cost of a refusal: its text, and the call again with `literal: true`.
              for (const tk of toks) c.extra[tk.name] = (c.extra[tk.name] ?? 0) + tk.count(l.message ?? '') + OUTPUT_WEIGHT * tk.count(JSON.stringify({ filePath: host.path, ...request, literal: true }))
              if (l.code === ECHO_REFUSAL) literalResend(c, engine, request, want)
            }
          }
        }
        for (const [path, read] of /** @type {const} */ ([
          ['write hook, new file', false],
          ['write hook, after a read', true],
        ])) {
          const target = read ? host.path : `new/${item.set}-${t}.md`
          if (read) await writes.read(host.path, host.text)
          const l = await writes.write(target, content + '\n', content + '\n')
          counts.add('legit-generated', item.set, path, l, say)
          // A write says "exactly this" with the same flag as an edit.
          if (l.outcome === 'refused' && l.code === ECHO_REFUSAL && literalFlag) {
            const c = counts.get('legit-generated', item.set, path)
            c.literalTried++
            if (read) await writes.read(host.path, host.text)
            if ((await writes.write(target, content + '\n', content + '\n', true)).outcome === 'exact') c.literalExact++
          }
        }
        if (hasStripText) counts.add('legit-generated', item.set, 'stripViewPrefixes', stripText(content + '\n', content + '\n'), say)
      }
    } finally {
      lean.close()
    }
    await settleEvery(5)
  }
  writes.close()

  const seconds = (performance.now() - started) / 1000
  const earlier = opt.compare === undefined ? undefined : earlierTargets(readFileSync(opt.compare, 'utf8'))
  const markdown = render({ opt, seconds, full, sizes: { code: code.length, pairs: pairs.length, singles: singles.length }, kinds, corpus, counts, sessions, generated, texts: texts.length, skipped, O, earlier })
  if (opt.write) {
    const dir = opt.quick ? CACHE : HERE
    mkdirSync(dir, { recursive: true })
    writeFileSync(join(dir, 'CLEANUP.md'), markdown.text)
    console.log(`wrote ${relative(process.cwd(), join(dir, 'CLEANUP.md'))} (${seconds.toFixed(0)} s)`)
  } else console.log(markdown.text)
  console.log(markdown.verdict)
  if (!markdown.ok) process.exitCode = 2
}

/**
 * What an earlier run's report says of itself and of its targets, to show
 * beside a new run's: its first paragraph and its target lines.
 * @param {string} report
 */
function earlierTargets(report) {
  const lines = report.split('\n')
  const start = lines.indexOf('## Targets')
  const end = lines.findIndex((l, i) => i > start && l.startsWith('## '))
  return {
    run: lines.find((l) => l.startsWith('Generated by ')) ?? '',
    targets: start < 0 ? [] : lines.slice(start + 1, end < 0 ? undefined : end).filter((l) => /^- \([a-z]\)/.test(l)),
  }
}

/**
 * The model's resend after an echo refusal of legitimate content: the same
 * request with `literal: true`, which must land exactly.
 * @param {Count} c @param {{ send(request: any, want: string): Landing }} engine @param {any} request @param {string} want
 */
function literalResend(c, engine, request, want) {
  if (!literalFlag) return
  c.literalTried++
  if (engine.send({ ...request, literal: true }, want).outcome === 'exact') c.literalExact++
}

/**
 * A line (1-based) to insert after or replace where the lines around the
 * content differ from its ends, so that only the prefix rule is tried.
 * @param {import('./lib/rng.mjs').Rng} r @param {string[]} host @param {string[]} lines
 */
function placeFor(r, host, lines) {
  const same = (/** @type {string | undefined} */ a, /** @type {string} */ b) => a !== undefined && a.trim() === b.trim()
  for (let tries = 0; ; tries++) {
    const at = 1 + r.int(host.length - 1)
    if (tries > 1000 || (!same(host[at - 1], lines[0]) && !same(host[at - 2], lines[0]) && !same(host[at], lines[lines.length - 1]))) return at
  }
}

/**
 * A text file with one to three blocks of its own lines taken out: the edit
 * that puts them back writes real lines of that kind of text.
 * @param {import('./corpus.mjs').SingleFile} s @param {number} seed @returns {CorpusFile}
 */
function blocksRemoved(s, seed) {
  const r = rng(`${seed}|blocks|${s.id}`)
  const lines = splitLines(s.text)
  const keep = lines.map(() => true)
  const blocks = 1 + r.int(3)
  for (let b = 0; b < blocks; b++) {
    const len = 1 + r.int(Math.min(6, Math.max(1, Math.floor(lines.length / 4))))
    const at = r.int(Math.max(1, lines.length - len))
    for (let i = at; i < at + len && i < lines.length; i++) keep[i] = false
  }
  if (keep.every((k) => !k)) keep[0] = true
  const before = joinLines(lines.filter((_, i) => keep[i]))
  return { ecosystem: s.ecosystem, package: s.package, from: s.version, to: s.version, path: s.path, language: s.kind, before: '', after: '', id: `${s.id}#blocks`, beforeText: before, afterText: s.text }
}

const pct = (/** @type {number} */ part, /** @type {number} */ whole) => (whole === 0 ? '–' : `${((100 * part) / whole).toFixed(part === 0 || part === whole ? 0 : 2)}%`)

/**
 * @param {{ opt: { quick: boolean, seed: number, compareLabel: string }, seconds: number, full: Record<string, number>, sizes: Record<string, number>, kinds: string[],
 *   corpus: Record<string, { files: number, hunks: number, lines: number, change: number, blocks: number, packages: Set<string> }>,
 *   counts: Counts, sessions: Map<string, SessionCell>, generated: Record<string, number>, texts: number, skipped: string[], O: string,
 *   earlier?: { run: string, targets: string[] } }} d
 */
function render(d) {
  const L = /** @type {string[]} */ ([])
  const { counts, O } = d
  const command = `node eval/editbench/cleanup.mjs${d.opt.quick ? ' --quick' : ''}${d.opt.seed !== 1 ? ` --seed ${d.opt.seed}` : ''}`
  /** @param {string} table @param {string} kind @param {string} path */
  const c = (table, kind, path) => counts.get(table, kind, path)
  /** @param {string} table */
  const paths = (table) => [...new Set([...counts.map.keys()].filter((k) => k.startsWith(table + '\t')).map((k) => k.split('\t')[2]))]
  /** @param {string} table */
  const total = (table) => {
    const t = emptyCount()
    for (const [k, v] of counts.map) {
      if (!k.startsWith(table + '\t')) continue
      t.n += v.n
      t.exact += v.exact
      t.refused += v.refused
      t.altered += v.altered
    }
    return t
  }
  const triple = (/** @type {Count} */ x) => (x.n === 0 ? '–' : `${pct(x.exact, x.n)} / ${pct(x.refused, x.n)} / **${pct(x.altered, x.n)}**`)
  const codes = (/** @type {Count} */ x) => Object.entries(x.codes).map(([k, v]) => `${k} ${v}`).join(', ')

  L.push('# Clean-up measure: report', '')
  L.push(
    `Generated by \`${command}\` in ${Math.round(d.seconds)} s. The engine here ${literalFlag ? 'takes' : 'does not take'} the \`literal\` request flag. Corpus: ${d.sizes.code} of ${d.full.code} code fixtures, ${d.sizes.pairs} of ${d.full.pairs} changed text files, ${d.sizes.singles} of ${d.full.singles} single text files, ${d.texts} generated texts plus ${d.generated.witness ?? 0} witnessed lines.`,
    '',
    'Content is sent as a model sends it, through each way it reaches a file: an edit on text (`applyEdits`, full refs, no memory), an edit in a `Hashline` session that read the whole file in the lean view (its refs and REV; planned, not written), a whole-file write through the OpenCode plugin\'s `write` hook (after the plugin tagged a read of the file, or for a new file), and the engine\'s text function `stripViewPrefixes`. Each cell: % written exactly as meant / refused (nothing written) / **altered** (written, and not what was meant). See README.md, "Clean-up measure".',
    '',
  )

  const legitAltered = total('legit-change').altered + total('legit-lines').altered + total('legit-generated').altered
  const legitN = total('legit-change').n + total('legit-lines').n + total('legit-generated').n
  const echoLanded = total('echo').altered
  const boundarySilent = total('boundary').altered
  const changedLean = paths('changed').filter((p) => p.includes('lean')).map((p) => d.kinds.reduce((a, k) => ({ n: a.n + c('changed', k, p).n, refused: a.refused + c('changed', k, p).refused, altered: a.altered + c('changed', k, p).altered }), { n: 0, refused: 0, altered: 0 }))[0] ?? { n: 0, refused: 0, altered: 0 }
  const changedFull = paths('changed').filter((p) => p.includes('full')).map((p) => d.kinds.reduce((a, k) => ({ n: a.n + c('changed', k, p).n, refused: a.refused + c('changed', k, p).refused, altered: a.altered + c('changed', k, p).altered }), { n: 0, refused: 0, altered: 0 }))[0] ?? { n: 0, refused: 0, altered: 0 }
  const neighboursWritten = total('neighbours').exact + total('neighbours').altered
  const costRows = costChecks(d)
  // The target is on the lean view, every host's default; the full view reads at about 8 tokens a line and is shown for reference.
  // At the mistake rates; rate 0 (no mistake) is shown, not a target.
  const costFails = costRows.filter((r) => r.id === LEAN_CHOICE && r.rate > 0 && !r.ok)
  const ok = legitAltered === 0 && echoLanded === 0 && boundarySilent === 0 && costFails.length === 0 && changedLean.altered + changedFull.altered === 0 && neighboursWritten === 0
  const verdict = [
    `(a) legitimate content altered: ${legitAltered} of ${legitN} sent (target 0): ${legitAltered === 0 ? 'met' : 'NOT MET'}`,
    `(b) echoes that landed in the file: ${echoLanded} of ${total('echo').n} (target 0): ${echoLanded === 0 ? 'met' : 'NOT MET'}`,
    `(c) session cost of the lean view below OpenCode's built-in edit at every mistake rate (0.5–5%) for every kind: ${costFails.length === 0 ? 'met' : `NOT MET (${costFails.map((r) => `${r.kind} at ${r.rate * 100}%`).join(', ')})`}`,
    `(d) boundary echoes silently wrong: ${boundarySilent} of ${total('boundary').n} (target 0): ${boundarySilent === 0 ? 'met' : 'NOT MET'}`,
    `(e) changed lines sent with a copied prefix: lean refused ${changedLean.refused} of ${changedLean.n}, full refused ${changedFull.refused} of ${changedFull.n}; altered ${changedLean.altered + changedFull.altered} (target 0): ${changedLean.altered + changedFull.altered === 0 ? 'met' : 'NOT MET'}`,
    `(f) deletions sent as their two neighbours written at all: ${neighboursWritten} of ${total('neighbours').n} (target 0, each refused): ${neighboursWritten === 0 ? 'met' : 'NOT MET'}`,
  ]
  L.push('## Targets', '')
  for (const v of verdict) L.push(`- ${v}`)
  L.push('- The lean-ref collision trial is `eval/stale-refs/lean.mjs` (its report: `eval/stale-refs/LEAN.md`).', '')
  if (d.earlier) {
    L.push(`### ${d.opt.compareLabel}`, '', `Its report: ${d.earlier.run.replace(/^Generated by/, 'generated by').split('. ')[0]}.`, '')
    for (const t of d.earlier.targets) L.push(t)
    L.push('')
  }

  L.push('## Corpus', '')
  L.push('| kind | files | of them real changes | own blocks put back | hunks | lines (each sent alone) | packages |')
  L.push('|---|---:|---:|---:|---:|---:|---|')
  for (const k of d.kinds) {
    const x = d.corpus[k]
    if (!x) {
      L.push(`| ${k} | 0 | 0 | 0 | 0 | 0 | – |`)
      continue
    }
    L.push(`| ${k} | ${x.files} | ${x.change} | ${x.blocks} | ${x.hunks} | ${x.lines} | ${[...x.packages].sort().join(', ')} |`)
  }
  L.push('', `Generated texts (\`lib/legit.mjs\`): ${[...LEGIT_SETS.map((s) => `${s.id} ${d.generated[s.id] ?? 0}`), `witness ${d.generated.witness ?? 0}`].join(', ')}. *witness*: lines starting with the number and the two tag letters of a line the session was shown, then other text (the hardest legitimate case: a prefix that names a shown line).`, '')
  if (d.skipped.length > 0) L.push(`Session measure skipped ${d.skipped.length} file(s): ${d.skipped.slice(0, 5).join('; ')}.`, '')

  /** @param {string} table @param {string[]} rows */
  const kindTable = (table, rows) => {
    const ps = paths(table)
    L.push(`| kind | sent | ${ps.join(' | ')} |`)
    L.push(`|---|---:|${ps.map(() => '---').join('|')}|`)
    for (const k of rows) {
      const n = Math.max(...ps.map((p) => c(table, k, p).n))
      if (n === 0) continue
      L.push(`| ${k} | ${n} | ${ps.map((p) => triple(c(table, k, p))).join(' | ')} |`)
    }
    L.push('')
    const refusalCodes = ps.flatMap((p) => rows.map((k) => [p, k, codes(c(table, k, p))])).filter(([, , s]) => s !== '')
    if (refusalCodes.length > 0) L.push(`Refusals by code: ${refusalCodes.map(([p, k, s]) => `${k} / ${p}: ${s}`).join('; ')}.`, '')
    const ex = [...(counts.examples.get(table) ?? []), ...(counts.examples.get(`${table}\trefused`) ?? [])]
    if (ex.length > 0) {
      L.push('<details><summary>First cases not written as meant</summary>', '')
      for (const e of ex) L.push(`- ${e}`)
      L.push('', '</details>', '')
    }
  }

  L.push('## (a) Legitimate content altered', '')
  L.push('### The changes, sent as a model writes them', '')
  L.push('Each file\'s change in one request, every hunk in its first form (a range replaced or deleted, lines inserted after the line above them), never re-expressed to dodge a clean-up; the write paths get the whole new file.', '')
  kindTable('legit-change', d.kinds)
  L.push('### Each line alone', '')
  L.push('Every non-blank line of each old file, inserted on its own (one op per line, batched; a refused batch is split until each refused line is found) after a line of the same file whose neighbours differ from it; the write paths get the line as a whole file.', '')
  kindTable('legit-lines', d.kinds)
  L.push('### Texts that look like view prefixes', '')
  L.push('Each generated text inserted after a line, and replacing a line, of a host file from the corpus (where the lines around it differ from its ends), and written as a whole file. A refused edit costs its error text and the call again with `literal: true`; the last column gives that cost per edit sent (o200k_base, output tokens weighted ' + OUTPUT_WEIGHT + '×).', '')
  {
    const table = 'legit-generated'
    const ps = paths(table)
    const rows = [...LEGIT_SETS.map((s) => s.id), 'witness']
    L.push(`| set | sent | ${ps.join(' | ')} | refusal cost per edit |`)
    L.push(`|---|---:|${ps.map(() => '---').join('|')}|---:|`)
    for (const k of rows) {
      const n = Math.max(0, ...ps.map((p) => c(table, k, p).n))
      if (n === 0) continue
      const edits = ps.filter((p) => p.includes(',')).map((p) => c(table, k, p))
      const extra = edits.reduce((a, x) => a + (x.extra[O] ?? 0), 0)
      const sent = edits.reduce((a, x) => a + x.n, 0)
      L.push(`| ${k} | ${n} | ${ps.map((p) => triple(c(table, k, p))).join(' | ')} | ${sent === 0 ? '–' : (extra / sent).toFixed(1)} |`)
    }
    L.push('')
    const ex = [...(counts.examples.get(table) ?? []), ...(counts.examples.get(`${table}\trefused`) ?? [])]
    if (ex.length > 0) {
      L.push('<details><summary>First cases not written as meant</summary>', '')
      for (const e of ex) L.push(`- ${e}`)
      L.push('', '</details>', '')
    }
    const lit = ps.map((p) => rows.reduce((a, k) => ({ t: a.t + c(table, k, p).literalTried, e: a.e + c(table, k, p).literalExact }), { t: 0, e: 0 }))
    if (lit.some((x) => x.t > 0)) L.push(`Resent with \`literal: true\` after an ${ECHO_REFUSAL} refusal: ${ps.map((p, i) => `${p}: ${lit[i].e} of ${lit[i].t} written exactly`).join('; ')}.`, '')
  }

  L.push('## (b) Echoes that landed in the file', '')
  L.push('Every op of each change carries the view prefix of its lines (`12#A3F#9BC|` after a full read, `12ab ` after a lean one: the prefix of the line at the number each content line takes). The whole new file is written as a model that copies the view writes it: kept lines with their own prefix (old number and tag), changed lines with the prefix of the line they replace, added lines with the next number and the prefix the view showed for it. *exact* here means the echo was taken out and the file is as meant; *altered* means an echo (or content) landed.', '')
  kindTable('echo', d.kinds)

  L.push('## (c) Refusals and session cost', '')
  L.push(
    `The session measure of README.md ("Session measure") over each kind's changes, sent in their first form (rate 0: no mistake; then every site of every kind errs with the given probability). A refusal as \`${ECHO_REFUSAL}\` costs its error text and the call again, without a read: without the echoes if the model made any, else with \`literal: true\`; any other refusal costs the error, a read of the pages and the call again. Cost per success = (input + ${OUTPUT_WEIGHT} × output) / sessions not silently wrong, ${O}. Each cell: cost per success, then % of sessions refused at least once / silently wrong.`,
    '',
  )
  L.push(`| kind | format | ${SESSION_RATES.map((r) => `${r * 100}%`).join(' | ')} |`)
  L.push(`|---|---|${SESSION_RATES.map(() => '---').join('|')}|`)
  for (const k of ['all', ...d.kinds]) {
    for (const id of SESSION_IDS) {
      const cells = SESSION_RATES.map((r) => d.sessions.get(`${k}\t${r}\t${id}`))
      if (cells.every((x) => !x)) continue
      L.push(`| ${k} | ${id === LEAN_CHOICE ? 'lean (engine session)' : id === 'hashline' ? 'full (applyEdits)' : 'OpenCode edit'} | ${cells.map((x) => (x ? `${costOf(x, O).toFixed(0)}, ${pct(x.refusedOnce, x.n)} / ${pct(x.silent, x.n)}` : '–')).join(' | ')} |`)
    }
  }
  L.push('')
  const echoResends = [...d.sessions].filter(([k]) => k.startsWith('all\t')).reduce((a, [, x]) => a + x.resends, 0)
  L.push(`Resends after an ${ECHO_REFUSAL} refusal over all sessions and rates: ${echoResends}.`, '')
  L.push('Cost per success of the lean view (every host\'s default) against OpenCode\'s built-in edit, per kind and rate; the full view for reference:', '')
  L.push('| kind | rate | lean | OpenCode | lean below OpenCode | full |')
  L.push('|---|---:|---:|---:|---|---:|')
  for (const r of costRows.filter((x) => x.id === LEAN_CHOICE)) {
    const full = costRows.find((x) => x.kind === r.kind && x.rate === r.rate && x.id === 'hashline')
    L.push(`| ${r.kind} | ${r.rate * 100}% | ${r.ours.toFixed(0)} | ${r.theirs.toFixed(0)} | ${r.ok ? 'yes' : '**no**'} | ${full ? full.ours.toFixed(0) : '–'} |`)
  }
  L.push('')

  for (const [table, title, text] of [
    ['boundary', '(d) Boundary echoes', 'Each change again, once per side of each op that writes lines, with the line just outside the range written again as its first (or last) content line. *exact*: the echo was dropped and the file is as meant; *refused*: nothing written; *altered*: silently wrong.'],
    ['changed', '(e) Changed lines with a copied prefix', 'Each line a change replaces with other text, sent alone (one `replace` of that line) with the view prefix of the line it replaces copied before its new text: `12#A3F#9BC|` after a full read, `12ab ` after a lean one. *exact*: the prefix was taken out and the line is as meant; *refused*: nothing written; *altered*: the prefix (or anything else) landed.'],
    ['neighbours', '(f) Deletions sent as their two neighbours', 'Each deletion of a change that has a line on both sides, sent alone as its range replaced by those two lines. Whether that means "delete the range" or "write both lines again" cannot be told, so the target is a refusal every time: *exact* here means the range was deleted (a guess that happened to be right), *altered* that something else was written.'],
  ]) {
    L.push(`## ${title}`, '', text, '')
    kindTable(table, d.kinds)
  }

  L.push('## Rerun', '')
  L.push('```sh', 'node eval/editbench/corpus.mjs              # once: fetch the sources (code and text fixtures)', 'node eval/editbench/cleanup.mjs --quick      # a spread subset, a few minutes', 'node eval/editbench/cleanup.mjs              # everything', 'node eval/stale-refs/lean.mjs --quick        # the lean-ref collision trial, 2,000 trials', 'node eval/stale-refs/lean.mjs                # 20,000 trials', '```', '')
  return { text: L.join('\n'), verdict: verdict.join('\n'), ok }
}

const costOf = (/** @type {SessionCell} */ x, /** @type {string} */ e) => (x.n - x.silent === 0 ? Infinity : (x.input[e] + OUTPUT_WEIGHT * x.output[e]) / (x.n - x.silent))

/** Per kind, rate and this project's format: its cost per success against OpenCode's. @param {{ kinds: string[], sessions: Map<string, SessionCell>, O: string }} d */
function costChecks(d) {
  /** @type {Array<{ kind: string, rate: number, id: string, ours: number, theirs: number, ok: boolean }>} */
  const out = []
  for (const kind of ['all', ...d.kinds]) {
    for (const rate of SESSION_RATES) {
      const theirs = d.sessions.get(`${kind}\t${rate}\topencode`)
      if (!theirs) continue
      for (const id of SESSION_IDS.filter((x) => x !== 'opencode')) {
        const ours = d.sessions.get(`${kind}\t${rate}\t${id}`)
        if (!ours) continue
        const a = costOf(ours, d.O)
        const b = costOf(theirs, d.O)
        out.push({ kind, rate, id, ours: a, theirs: b, ok: a < b })
      }
    }
  }
  return out
}

await main()
