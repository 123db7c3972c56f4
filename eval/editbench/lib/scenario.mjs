// @ts-check
// One file of the corpus made ready for trials: its ideal edit in every
// format, the texts each call of a multi-call format should leave behind, and
// the stale-ref scenario (an earlier hunk applied first, the rest sent with
// refs and context from the first read).

import { codexApply } from '../appliers/codex-patch.mjs'
import { enginePatch, enginePatchAfterEarlierEdit, fromUnified, PATCH_FILE } from '../appliers/engine-patch.mjs'
import { exactReplace } from '../appliers/exact.mjs'
import { engineAfterEarlierEdit, engineApply } from '../appliers/hashline.mjs'
import { opencodeReplace } from '../appliers/opencode.mjs'
import { wholeWrite } from '../appliers/whole.mjs'
import { joinLines, splitLines, diffLines } from './diff.mjs'
import { buildHashline, buildPatch, buildRefPatch, buildStrReplace, buildWhole, hashlineRequest, patchText, refPatchText, strStrings, toolCalls, wholeText } from './formats.mjs'
import { inject } from './mistakes.mjs'
import { rng } from './rng.mjs'
import { hashlineView, shortRefs } from './views.mjs'
import { binding } from '../appliers/hashline.mjs'

/**
 * @typedef {import('./formats.mjs').Change} Change
 * @typedef {import('./formats.mjs').Edit} Edit
 * @typedef {import('./mistakes.mjs').Mistake} Mistake
 * @typedef {{ oldStart: number, oldLen: number, lines: string[] }} Spec a hunk with its new lines in hand
 * @typedef {'hashline' | 'hashline-short' | 'hashline-block' | 'str-min' | 'str-ctx2' | 'patch-ctx3' | 'patch-ref' | 'patch-ref1' | 'whole'} FormatId
 * @typedef {{ id: string, format: FormatId, applier: string, label: string }} Combo
 * @typedef {{ base: string, finalText: string, inter: string[], edits: Record<FormatId, Edit>, earlier?: Record<string, any>, earlierSpec?: Spec }} Variant
 * @typedef {{ outcome: 'correct' | 'rejected' | 'silent', rejected: number[], noted: boolean, output?: string, got?: string, flagged?: boolean, code?: string }} TrialResult
 * @typedef {Record<string, { applied: number, appliedMs: number, refused: number, refusedMs: number }>} Timing
 */

/**
 * Runs one applier call, adding its time to `timing` under `key` when given.
 * @template T
 * @param {Timing | undefined} timing @param {string} key @param {() => T} fn
 * @returns {T}
 */
function timed(timing, key, fn) {
  if (!timing) return fn()
  const t = (timing[key] ??= { applied: 0, appliedMs: 0, refused: 0, refusedMs: 0 })
  const start = performance.now()
  try {
    const out = fn()
    t.applied++
    t.appliedMs += performance.now() - start
    return out
  } catch (err) {
    t.refused++
    t.refusedMs += performance.now() - start
    throw err
  }
}

/** @type {Array<{ id: FormatId, label: string }>} */
export const FORMATS = [
  { id: 'hashline', label: 'hashline ops (LINE#HASH#ANCHOR refs)' },
  { id: 'hashline-short', label: 'hashline ops, ANCHOR only on repeated lines (variant)' },
  { id: 'hashline-block', label: 'hashline ops, a whole block cited by its first line (block ops)' },
  { id: 'str-min', label: 'str_replace, minimal unique oldString' },
  { id: 'str-ctx2', label: 'str_replace, two lines of context' },
  { id: 'patch-ctx3', label: 'unified diff, three lines of context' },
  { id: 'patch-ref', label: 'apply_patch, ref of each hunk after @@, no context' },
  { id: 'patch-ref1', label: 'apply_patch, ref of each hunk after @@, one line of context' },
  { id: 'whole', label: 'whole file' },
]

/** @type {Combo[]} */
export const COMBOS = [
  { id: 'hashline/engine', format: 'hashline', applier: 'engine', label: 'hashline → engine' },
  { id: 'hashline-short/engine', format: 'hashline-short', applier: 'engine', label: 'hashline, short refs → engine' },
  { id: 'hashline-block/engine', format: 'hashline-block', applier: 'engine', label: 'hashline with block ops → engine' },
  { id: 'str-min/exact', format: 'str-min', applier: 'exact', label: 'str_replace min → exact' },
  { id: 'str-min/opencode', format: 'str-min', applier: 'opencode', label: 'str_replace min → OpenCode chain' },
  { id: 'str-min/engine', format: 'str-min', applier: 'engine-fallback', label: 'str_replace min → engine fallback' },
  { id: 'str-ctx2/exact', format: 'str-ctx2', applier: 'exact', label: 'str_replace ctx2 → exact' },
  { id: 'str-ctx2/opencode', format: 'str-ctx2', applier: 'opencode', label: 'str_replace ctx2 → OpenCode chain' },
  { id: 'str-ctx2/engine', format: 'str-ctx2', applier: 'engine-fallback', label: 'str_replace ctx2 → engine fallback' },
  { id: 'patch-ctx3/codex', format: 'patch-ctx3', applier: 'codex', label: 'patch ctx3 → Codex-style' },
  { id: 'patch-ctx3/exact', format: 'patch-ctx3', applier: 'patch-exact', label: 'patch ctx3 → exact context only' },
  { id: 'patch-ctx3/engine', format: 'patch-ctx3', applier: 'engine-patch', label: 'patch ctx3 → engine apply_patch' },
  { id: 'patch-ref/engine', format: 'patch-ref', applier: 'engine-patch', label: 'patch with @@ refs → engine apply_patch' },
  { id: 'patch-ref1/engine', format: 'patch-ref1', applier: 'engine-patch', label: 'patch with @@ refs, 1 context line → engine apply_patch' },
  { id: 'whole/write', format: 'whole', applier: 'write', label: 'whole file → write' },
]

/** @type {Record<string, (text: string, call: { oldString: string, newString: string }) => string>} */
const STR_APPLIERS = {
  exact: exactReplace,
  opencode: opencodeReplace,
  'engine-fallback': (text, call) => engineApply(text, call).text,
}

/** @param {string[]} oldLines @param {Spec[]} specs */
export function applySpecs(oldLines, specs) {
  const out = oldLines.slice()
  for (const s of [...specs].sort((a, b) => b.oldStart - a.oldStart)) out.splice(s.oldStart, s.oldLen, ...s.lines)
  return out
}

/** The change from `oldLines` to the result of `specs`, with hunks exactly those specs. */
export function changeOf(/** @type {string[]} */ oldLines, /** @type {Spec[]} */ specs) {
  const sorted = [...specs].sort((a, b) => a.oldStart - b.oldStart)
  const newLines = applySpecs(oldLines, sorted)
  let delta = 0
  const hunks = sorted.map((s) => {
    const h = { oldStart: s.oldStart, oldLen: s.oldLen, newStart: s.oldStart + delta, newLen: s.lines.length }
    delta += s.lines.length - s.oldLen
    return h
  })
  /** @type {Change} */
  const change = { oldText: joinLines(oldLines), newText: joinLines(newLines), oldLines, newLines, hunks }
  return change
}

const COMMENT = /** @type {Record<string, string>} */ ({ python: '# ', rust: '// ', javascript: '// ', typescript: '// ' })

const engineText = (/** @type {string} */ text, /** @type {any} */ request) => engineApply(text, request).text
const enginePatchText = (/** @type {string} */ text, /** @type {string} */ patch) => enginePatch(text, patch).text

/**
 * @param {{ full: string[], short: string[] }} refs
 * @param {Change} change
 * @param {string} path the file's name: block ops need its language
 * @param {boolean} natural this project's edit with every hunk in its first form (see buildHashline)
 * @returns {Record<FormatId, Edit>}
 */
function idealEdits(refs, change, path, natural) {
  // The engine as the trials call it: with the file's name, so its parse judges echoes too.
  const engine = (/** @type {string} */ text, /** @type {any} */ request) => engineApply(text, request, path).text
  return {
    hashline: buildHashline(change, refs.full, engine, { natural }),
    'hashline-short': buildHashline(change, refs.short, engine),
    'hashline-block': buildHashline(change, refs.full, engine, { blocks: true }),
    'str-min': buildStrReplace(change, 0),
    'str-ctx2': buildStrReplace(change, 2),
    'patch-ctx3': buildPatch(change, 3),
    'patch-ref': buildRefPatch(change, refs.full, enginePatchText, 0),
    'patch-ref1': buildRefPatch(change, refs.full, enginePatchText, 1),
    whole: buildWhole(change),
  }
}

/** Texts after each prefix of the specs, as calls one per spec should leave them. */
function intermediates(/** @type {string[]} */ oldLines, /** @type {Spec[]} */ first, /** @type {Spec[]} */ specs) {
  return specs.map((_s, i) => joinLines(applySpecs(oldLines, [...first, ...specs.slice(0, i + 1)])))
}

export class Scenario {
  /**
   * @param {import('../corpus.mjs').CorpusFile} file @param {number} seed
   * @param {{ natural?: boolean }} [options] `natural`: this project's edit sends every hunk in its first
   *   form, never re-expressed to dodge a clean-up (the clean-up measure sends what a model would)
   */
  constructor(file, seed, options = {}) {
    this.file = file
    this.seed = seed
    this.natural = options.natural ?? false
    this.path = file.path
    this.oldLines = splitLines(file.beforeText)
    const newLines = splitLines(file.afterText)
    this.specs = diffLines(this.oldLines, newLines).map((h) => ({ oldStart: h.oldStart, oldLen: h.oldLen, lines: newLines.slice(h.newStart, h.newStart + h.newLen) }))
    this.change = changeOf(this.oldLines, this.specs)
    const { view, refs } = hashlineView(binding, file.beforeText)
    this.view = view
    this.refs = { full: refs, short: shortRefs(refs) }
    /** @type {Variant} */
    this.ideal = {
      base: file.beforeText,
      finalText: file.afterText,
      inter: intermediates(this.oldLines, [], this.specs),
      edits: idealEdits(this.refs, this.change, this.path, this.natural),
    }
    /** @type {Variant | null | undefined} */
    this._stale = undefined
  }

  /**
   * The stale-ref scenario: with two or more hunks, one of them (at random) is
   * made first; with one, an unrelated comment line at least four lines away.
   * Null when a one-hunk file has no such place.
   */
  get stale() {
    if (this._stale !== undefined) return this._stale
    const r = rng(`${this.seed}|stale|${this.file.id}`)
    /** @type {Spec} */
    let earlier
    /** @type {Spec[]} */
    let rest
    if (this.specs.length >= 2) {
      const i = r.int(this.specs.length)
      earlier = this.specs[i]
      rest = this.specs.filter((_s, j) => j !== i)
    } else {
      const n = this.oldLines.length
      const free = []
      for (let p = 0; p <= n; p++) if (this.specs.every((s) => p <= s.oldStart - 4 || p >= s.oldStart + s.oldLen + 4)) free.push(p)
      if (free.length === 0) return (this._stale = null)
      const p = r.pick(free)
      const indent = /** @type {RegExpExecArray} */ (/^[ \t]*/.exec(this.oldLines[p] ?? this.oldLines[p - 1] ?? ''))[0]
      earlier = { oldStart: p, oldLen: 0, lines: [`${indent}${COMMENT[this.file.language] ?? '// '}editbench: an unrelated earlier edit`] }
      rest = this.specs
    }
    const change = changeOf(this.oldLines, rest)
    const earlierChange = changeOf(this.oldLines, [earlier])
    this._stale = {
      base: joinLines(applySpecs(this.oldLines, [earlier])),
      finalText: joinLines(applySpecs(this.oldLines, [earlier, ...rest])),
      inter: intermediates(this.oldLines, [earlier], rest),
      edits: idealEdits(this.refs, change, this.path, this.natural),
      earlier: {
        hashline: hashlineRequest(buildHashline(earlierChange, this.refs.full, engineText, { natural: this.natural })),
        'hashline-short': hashlineRequest(buildHashline(earlierChange, this.refs.short, engineText)),
        'hashline-block': hashlineRequest(buildHashline(earlierChange, this.refs.full, engineText)),
      },
      earlierSpec: earlier,
    }
    return this._stale
  }

  /**
   * Sends the edit of `combo` (with mistakes injected) and judges the file:
   * correct, rejected (nothing written) or silently wrong. `noted`: the
   * engine's output carried a clean-up note (about some op, maybe another).
   * A rejected call of a multi-call format is retried correctly, so later
   * calls start from the right text.
   * @param {Combo} combo @param {Variant} variant @param {Mistake[]} mistakes
   * @param {Timing} [timing] where to add the time of each applier call
   * @param {{ literal?: boolean }} [options] `literal`: this project's request carries `literal: true` (write the content exactly)
   * @returns {TrialResult}
   */
  trial(combo, variant, mistakes, timing, options = {}) {
    const ideal = variant.edits[combo.format]
    const edit = mistakes.length > 0 ? inject(ideal, mistakes) : ideal
    const stale = variant.earlier !== undefined
    /** @type {(got: string) => TrialResult} */
    const judge = (got) => ({ outcome: got === variant.finalText ? 'correct' : 'silent', rejected: [], noted: false, got })
    if (edit.kind === 'hashline') {
      /** @type {Record<string, any>} */
      const request = hashlineRequest(edit)
      if (options.literal) request.literal = true
      try {
        const r = stale
          ? engineAfterEarlierEdit(this.file.beforeText, options.literal ? { ...variant.earlier?.[combo.format], literal: true } : variant.earlier?.[combo.format], request, this.path)
          : timed(timing, combo.id, () => engineApply(variant.base, request, this.path))
        return { ...judge(r.text), noted: /\nNote:/.test(r.output), output: r.output, flagged: r.flagged }
      } catch (err) {
        return { outcome: 'rejected', rejected: [0], noted: false, output: String(/** @type {any} */ (err).message), code: /** @type {any} */ (err).code }
      }
    }
    if (edit.kind === 'str') {
      const apply = STR_APPLIERS[combo.applier]
      let cur = variant.base
      /** @type {number[]} */
      const rejected = []
      for (let i = 0; i < edit.units.length; i++) {
        let got
        try {
          const call = strStrings(edit.units[i])
          const text = cur
          got = timed(timing, combo.id, () => apply(text, call))
        } catch {
          rejected.push(i)
          cur = variant.inter[i]
          continue
        }
        if (got !== variant.inter[i]) return { outcome: 'silent', rejected, noted: false, got }
        cur = got
      }
      return { outcome: rejected.length > 0 ? 'rejected' : 'correct', rejected, noted: false }
    }
    if (edit.kind === 'refpatch') {
      const patch = refPatchText(edit, PATCH_FILE)
      try {
        const r = stale
          ? enginePatchAfterEarlierEdit(this.file.beforeText, variant.earlier?.hashline, patch)
          : timed(timing, combo.id, () => enginePatch(variant.base, patch))
        return { ...judge(r.text), output: r.output }
      } catch (err) {
        return { outcome: 'rejected', rejected: [0], noted: false, output: String(/** @type {any} */ (err).message) }
      }
    }
    if (edit.kind === 'patch') {
      try {
        const patch = patchText(edit, this.path)
        if (combo.applier === 'engine-patch') return judge(timed(timing, combo.id, () => enginePatch(variant.base, fromUnified(patch)).text))
        return judge(timed(timing, combo.id, () => codexApply(variant.base, patch, combo.applier === 'patch-exact' ? 1 : undefined)))
      } catch {
        return { outcome: 'rejected', rejected: [0], noted: false }
      }
    }
    return judge(wholeWrite(variant.base, wholeText(edit)))
  }

  /** Tagged tool calls of the ideal edit of a format, for token counts. */
  calls(/** @type {Variant} */ variant, /** @type {FormatId} */ format) {
    return toolCalls(variant.edits[format], this.path)
  }
}
