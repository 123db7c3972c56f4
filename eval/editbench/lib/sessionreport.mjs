// @ts-check
// The report's session sections: the session measure, the lean-view design
// and its targets, and what move/copy operations would save.

import { KINDS } from './mistakes.mjs'
import { scatterSvg } from './plot.mjs'
import { LEAN_CHOICE } from './refformats.mjs'
import { OUTPUT_WEIGHT, PAGE, SESSION_FORMATS } from './session.mjs'

/**
 * @typedef {{ n: number, correct: number, rejected: number, silent: number, rejections: number, input: Record<string, number>, output: Record<string, number> }} SessionCell
 * @typedef {{ sessions: Map<string, SessionCell>, sessionForced: Map<string, { n: number, correct: number, rejected: number, silent: number }>,
 *   sessionCost: Record<string, { reads: Record<string, number>, lines: number, calls: Record<string, number>, view: Record<string, number> }>,
 *   shapeList: import('./shapes.mjs').Shape[], shapeTokens: Record<string, Record<string, number>>, shapeRaw: { lines: number, tokens: Record<string, number> },
 *   leanFalse: { ops: number, opsStripped: number, lines: number, linesMatching: number },
 *   moves: { files: number, blocks: number, moves: number, lines: number, worth: number, worthLines: number, worthMoves: number, retyped: Record<string, number>, ops: Record<string, number>, saved: Record<string, number>, hashlineTotal: Record<string, number> },
 *   files: number, rates: number[], encodings: readonly string[], shapesEvery: number }} SessionData
 */

const pct = (/** @type {number} */ part, /** @type {number} */ whole) => (whole === 0 ? '–' : ((100 * part) / whole).toFixed(part === 0 || part === whole ? 0 : 1))
const cost = (/** @type {SessionCell} */ c, /** @type {string} */ e) => c.input[e] + OUTPUT_WEIGHT * c.output[e]
/** Session cost per edit that did not end silently wrong. */
export const perSuccess = (/** @type {SessionCell} */ c, /** @type {string} */ e) => (c.n - c.silent === 0 ? Infinity : cost(c, e) / (c.n - c.silent))
const int = (/** @type {number} */ v) => (Number.isFinite(v) ? v.toFixed(0) : '–')

/** @param {SessionData} d */
export function renderSessions(d) {
  const [O, C] = d.encodings
  const L = /** @type {string[]} */ ([])
  const cell = (/** @type {number} */ rate, /** @type {string} */ cond, /** @type {string} */ id) => /** @type {SessionCell} */ (d.sessions.get(`${rate}\t${cond}\t${id}`))
  const viewPerLine = (/** @type {string} */ id, /** @type {string} */ e) => d.sessionCost[id].view[e] / d.sessionCost[id].lines
  const label = (/** @type {string} */ id) => /** @type {{ label: string }} */ (SESSION_FORMATS.find((f) => f.id === id)).label
  const focus = [0.005, 0.02].filter((r) => d.rates.includes(r))

  L.push('## Session measure')
  L.push('')
  L.push(
    `For each fixture, the session that makes its change in each format: read the file (views of at most ${PAGE} lines, the pages holding the lines the change touches), send the edit with the mistakes drawn for it (every site of every kind errs with the given probability, as above), read each result, and for each rejected call read the error, read the pages again and send the call again. *Input* is what the model reads (views, results, errors), *output* what it writes (tool-call arguments). *Cost* = input + ${OUTPUT_WEIGHT} × output; *per success* divides the cost of all sessions by the sessions that did not end silently wrong. Results and errors are each tool's own texts: this engine's real output for its full and lean views (\`${LEAN_CHOICE}\`); the modelled formats print what their tools print (README, "Session measure").`,
  )
  L.push('')
  L.push(`| format | view ${O} / ${C} per line | output per edit (${O}) | ${d.rates.map((r) => `cost/success ${r * 100}%`).join(' | ')} | ${d.rates.map((r) => `silent ${r * 100}%`).join(' | ')} |`)
  L.push(`|---|---:|---:|${d.rates.map(() => '---:').join('|')}|${d.rates.map(() => '---:').join('|')}|`)
  /** @type {import('./plot.mjs').Series[]} */
  const series = []
  for (const f of SESSION_FORMATS) {
    const cells = d.rates.map((r) => cell(r, 'mixed', f.id))
    const out = d.sessionCost[f.id].calls[O] / d.files
    L.push(
      `| ${f.id === LEAN_CHOICE ? '**' + f.label + '**' : f.label} | ${viewPerLine(f.id, O).toFixed(2)} / ${viewPerLine(f.id, C).toFixed(2)} | ${out.toFixed(0)} | ${cells.map((c) => int(perSuccess(c, O))).join(' | ')} | ${cells.map((c) => pct(c.silent, c.n)).join(' | ')} |`,
    )
    series.push({ label: f.id, points: cells.flatMap((c, i) => (Number.isFinite(perSuccess(c, O)) ? [{ x: perSuccess(c, O), y: (100 * c.silent) / c.n, tag: `${d.rates[i] * 100}%` }] : [])) })
  }
  L.push('')
  L.push('![session cost against silent corruption](session.svg)')
  L.push('')
  L.push(`One point per format and rate (0.5% to 5%, joined); ${O}, cost per successful edit on a log scale.`)
  L.push('')
  L.push(`Split at ${focus.map((r) => `${r * 100}%`).join(' and ')} (per successful edit; *silent w/o echo-boundary*: the same sessions with boundary echoes left out, the kind another issue owns):`)
  L.push('')
  L.push(`| format | rate | input ${O} | output ${O} | cost ${O} | cost ${C} | rejections per file | silent | silent w/o echo-boundary |`)
  L.push('|---|---:|---:|---:|---:|---:|---:|---:|---:|')
  for (const f of SESSION_FORMATS) {
    for (const r of focus) {
      const c = cell(r, 'mixed', f.id)
      const nb = cell(r, 'mixed-nb', f.id)
      const ok = c.n - c.silent
      L.push(`| ${f.id} | ${r * 100}% | ${int(c.input[O] / ok)} | ${int(c.output[O] / ok)} | ${int(perSuccess(c, O))} | ${int(perSuccess(c, C))} | ${(c.rejections / c.n).toFixed(2)} | ${pct(c.silent, c.n)}% | ${pct(nb.silent, nb.n)}% |`)
    }
  }
  L.push('')
  L.push('One mistake of a kind per file, in the session formats: % applied correctly / rejected / **silently wrong** (n/a: no site).')
  L.push('')
  L.push(`| format | ${KINDS.map((k) => k.id).join(' | ')} |`)
  L.push(`|---|${KINDS.map(() => '---').join('|')}|`)
  for (const f of SESSION_FORMATS) {
    L.push(
      `| ${f.id} | ${KINDS.map((k) => {
        const c = d.sessionForced.get(`${k.id}\t${f.id}`)
        return !c || c.n === 0 ? 'n/a' : `${pct(c.correct, c.n)} / ${pct(c.rejected, c.n)} / **${pct(c.silent, c.n)}**`
      }).join(' | ')} |`,
    )
  }
  L.push('')
  L.push(`The \`hashline\` and \`${LEAN_CHOICE}\` rows are the engine itself (a session in its full and lean view); every other ref format is modelled (\`lib/refformats.mjs\`). The modelled rules reproduce the engine where they overlap: a test plays the full view through both and compares.`)
  L.push('')

  // ------------------------------------------------------------ lean view
  L.push('## Lean view: the design, from measurements')
  L.push('')
  L.push(`**Line shapes.** Tokens a view adds per line over the raw file, whole lines measured (the prefix's last character merges with the line's first token), on every ${d.shapesEvery}th file (${d.shapeRaw.lines} lines). The tag is a hash of the line spelled in the alphabet. \`N\` is the line number, \`x\` a tag letter, ⇥ a tab, ␠ a space. The 20 cheapest shapes with at least 8 bits of tag, and the reference shapes:`)
  L.push('')
  L.push(`| shape | alphabet | bits | ${O} | ${C} |`)
  L.push('|---|---|---:|---:|---:|')
  const shapeRows = d.shapeList.map((s) => {
    const t = d.shapeTokens[`${s.name}\t${s.alphabet}`]
    return { s, o: (t[O] - d.shapeRaw.tokens[O]) / d.shapeRaw.lines, c: (t[C] - d.shapeRaw.tokens[C]) / d.shapeRaw.lines }
  })
  const best = shapeRows.filter((r) => r.s.bits >= 8).sort((a, b) => Math.max(a.o, a.c) - Math.max(b.o, b.c)).slice(0, 20)
  const refs = shapeRows.filter((r) => r.s.bits === 0 || (r.s.width === 3 && r.s.alphabet === 'hex (upper)' && r.s.lead === '#' && r.s.tail === '|'))
  for (const r of [...best, ...refs]) L.push(`| \`${r.s.name}\` | ${r.s.alphabet} | ${r.s.bits.toFixed(1)} | ${r.o.toFixed(2)} | ${r.c.toFixed(2)} |`)
  L.push('')
  const lf = d.leanFalse
  L.push(
    `**The echo clean-up for the lean prefix.** Rule: strip when every non-empty content line starts with a lean prefix (\`^(>>> |[+ ])?\\d+[a-z]{2}[ \\t]\`, its first tag letter of its number's parity) or a full one, and the line numbers of those prefixes rise strictly from line to line. On content that is no echo: ${lf.opsStripped} of ${lf.ops} ideal operations would be touched; ${lf.linesMatching} of ${lf.lines} file lines (${pct(lf.linesMatching, lf.lines)}%) start like a lean prefix on their own, so a multi-line content block of real code meets the rule essentially never.`,
  )
  L.push('')
  const leanO = viewPerLine(LEAN_CHOICE, O)
  const leanC = viewPerLine(LEAN_CHOICE, C)
  const kindsSilent = KINDS.filter((k) => k.id !== 'echo-boundary' && (d.sessionForced.get(`${k.id}\t${LEAN_CHOICE}`)?.silent ?? 0) > 0).map((k) => k.id)
  const ratesSilent = d.rates.filter((r) => cell(r, 'mixed-nb', LEAN_CHOICE).silent > 0)
  const belowBuiltin = focus.every((r) => perSuccess(cell(r, 'mixed', LEAN_CHOICE), O) < perSuccess(cell(r, 'mixed', 'opencode'), O) && perSuccess(cell(r, 'mixed', LEAN_CHOICE), C) < perSuccess(cell(r, 'mixed', 'opencode'), C))
  /** @type {string[]} */
  const beaten = []
  /** @type {string[]} */
  const notBeaten = []
  for (const f of SESSION_FORMATS) {
    if (f.id === LEAN_CHOICE) continue
    const ok = d.rates.every((r) => {
      const a = cell(r, 'mixed', LEAN_CHOICE)
      const b = cell(r, 'mixed', f.id)
      // Only a format that corrupts no more files than the lean view has to be beaten on cost.
      return b.silent / b.n > a.silent / a.n || perSuccess(a, O) < perSuccess(b, O)
    })
    ;(ok ? beaten : notBeaten).push(f.id)
  }
  L.push(`**Targets for the chosen lean view (\`${LEAN_CHOICE}\`: ${label(LEAN_CHOICE)}).**`)
  L.push('')
  L.push(`- At most 4.3 tokens per line of view in both encodings: **${leanO <= 4.3 && leanC <= 4.3 ? 'met' : 'not met'}** (${leanO.toFixed(2)} ${O}, ${leanC.toFixed(2)} ${C}; the full view ${viewPerLine('hashline', O).toFixed(2)}, OpenCode's ${viewPerLine('opencode', O).toFixed(2)}).`)
  L.push(`- 0 silently wrong for every mistake kind but boundary echoes, one at a time and at every rate: **${kindsSilent.length === 0 && ratesSilent.length === 0 ? 'met' : `not met (${[...kindsSilent, ...ratesSilent.map((r) => `${r * 100}%`)].join(', ')})`}**.`)
  L.push(`- Session cost per successful edit below OpenCode's built-in at ${focus.map((r) => `${r * 100}%`).join(' and ')} (both encodings): **${belowBuiltin ? 'met' : 'not met'}** (${focus.map((r) => `${r * 100}%: ${int(perSuccess(cell(r, 'mixed', LEAN_CHOICE), O))} vs ${int(perSuccess(cell(r, 'mixed', 'opencode'), O))}`).join('; ')}).`)
  L.push(`- Below every other format at equal or lower silent corruption, at every rate: **${notBeaten.length === 0 ? 'met' : `not met against ${notBeaten.join(', ')}`}**.`)
  L.push('')

  // ------------------------------------------------------------ move / copy
  const m = d.moves
  L.push('## `move` and `copy`')
  L.push('')
  L.push(
    `Runs of at least 3 added lines (2 of them non-blank) that repeat a run of old lines exactly: ${m.blocks} in ${m.files} of ${d.files} files (${m.lines} lines; ${m.moves} moves, whose old lines the change deletes, and ${m.blocks - m.moves} copies, whose old lines stay). Retyping them all costs ${m.retyped[O]} ${O} output tokens (${m.retyped[C]} ${C}); citing them all in \`move\`/\`copy\` operations with lean refs (and splitting the operation a block sat inside) would cost ${m.ops[O]} (${m.ops[C]}). A model cites a block only where that is shorter: ${m.worth} blocks (${m.worthLines} lines, ${m.worthMoves} of them moves), saving ${m.saved[O]} ${O} tokens (${m.saved[C]} ${C}), ${pct(m.saved[O], m.hashlineTotal[O])}% of all output of this project's edits over the corpus and ${(m.saved[O] / Math.max(1, m.files)).toFixed(0)} per file that has such a block. Short blocks do not pay: an operation with two refs and a place costs about as much as three short lines.`,
  )
  L.push('')

  const sessionSvg = scatterSvg({
    title: 'Session cost against silent corruption (mixed mistakes, 0.5–5% per site)',
    xLabel: `${O} session cost per successful edit (input + ${OUTPUT_WEIGHT} × output), log scale`,
    yLabel: 'silently wrong files, %',
    series,
  })
  const ok = leanO <= 4.3 && leanC <= 4.3 && kindsSilent.length === 0 && ratesSilent.length === 0 && belowBuiltin && notBeaten.length === 0
  return { markdown: L.join('\n'), sessionSvg, ok, verdict: `lean view (${LEAN_CHOICE}) targets ${ok ? 'met' : 'NOT met'}` }
}
