// @ts-check
// Legitimate texts that look like view prefixes: a line number, two letters
// and a space (`3rd party`, `8am standup`, `1px solid red`), alone or in
// lines that rise as view lines do (`1st place\n3rd place`), and a
// property-style random set (a number, any letters, any text). None of them
// is an echo; a clean-up that changes one of them has written a guess.

import { rng } from './rng.mjs'

/**
 * @typedef {{ set: string, lines: string[] }} LegitText
 * @typedef {{ id: string, label: string, count: number, make: (r: import('./rng.mjs').Rng) => string[] }} LegitSet
 */

const ordinal = (/** @type {number} */ n) => {
  const tens = n % 100
  const suffix = tens >= 11 && tens <= 13 ? 'th' : ['th', 'st', 'nd', 'rd', 'th', 'th', 'th', 'th', 'th', 'th'][n % 10]
  return `${n}${suffix}`
}
/** Small numbers far more often than large ones, as in text. */
const smallNumber = (/** @type {import('./rng.mjs').Rng} */ r, /** @type {number} */ max) => 1 + Math.floor(Math.pow(r.next(), 2) * max)

const PLACES = ['party', 'place', 'floor', 'edition', 'anniversary', 'century', 'quarter', 'generation', 'round', 'attempt', 'birthday', 'grade', 'percentile', 'street', 'avenue', 'party notices', 'party licenses', 'of the month', 'release candidate', 'term', 'inning', 'prize', 'runner-up', 'time this week', 'item in the list']
const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December']
const EVENTS = ['standup', 'deploy', 'lunch', 'review', 'demo', 'sync', 'retro', 'call', 'meeting with design', 'release', 'backup', 'planning', 'office hours', '- team sync', 'x', 'y', 'cron: rotate logs']
const UNITS = ['px', 'em', 'pt', 'vh', 'vw', 'ms', 'cm', 'mm', 'ex', 'ch', 'fr', 'in', 'pc']
const CSS_REST = ['solid red', 'dashed #ccc', 'solid var(--border);', 'auto', '0 0 4px rgba(0, 0, 0, 0.2)', 'ease-in-out', '!important;', 'dotted currentColor', 'solid transparent;', '1fr 2fr', 'linear infinite']
const LETTERS = 'abcdefghijklmnopqrstuvwxyz'
const WORDS = ['the', 'value', 'of', 'list', 'items', 'total', 'next', 'see', 'below', 'and', 'x', '=', '+', '-', '|', 'TODO', 'name:', 'price', '42', '(note)', 'foo', 'bar', 'é', '→']

const letters = (/** @type {import('./rng.mjs').Rng} */ r, /** @type {number} */ k) => Array.from({ length: k }, () => LETTERS[r.int(26)]).join('')
const phrase = (/** @type {import('./rng.mjs').Rng} */ r) => Array.from({ length: 1 + r.int(6) }, () => r.pick(WORDS)).join(' ')

/** A number followed by letters and text: two letters most of the time (the lean tag's shape), sometimes one to four, upper case now and then, a space or a tab. */
function propertyLine(/** @type {import('./rng.mjs').Rng} */ r, /** @type {number} */ n) {
  const k = r.chance(0.7) ? 2 : 1 + r.int(4)
  const l = r.chance(0.1) ? letters(r, k).toUpperCase() : letters(r, k)
  return `${n}${l}${r.chance(0.9) ? ' ' : '\t'}${phrase(r)}`
}

/** @type {LegitSet[]} */
export const LEGIT_SETS = [
  { id: 'ordinal', label: 'ordinals (`3rd party`)', count: 400, make: (r) => [`${ordinal(smallNumber(r, 120))} ${r.pick(PLACES)}`] },
  { id: 'date', label: 'dates (`25th December 2024`)', count: 300, make: (r) => [`${ordinal(1 + r.int(31))} ${r.chance(0.2) ? 'of ' : ''}${r.pick(MONTHS)} ${1990 + r.int(40)}`] },
  { id: 'time', label: 'times (`8am standup`)', count: 300, make: (r) => [`${1 + r.int(12)}${r.chance(0.5) ? 'am' : 'pm'} ${r.pick(EVENTS)}`] },
  { id: 'css', label: 'CSS values (`1px solid red`)', count: 300, make: (r) => [`${smallNumber(r, 64)}${r.pick(UNITS)} ${r.pick(CSS_REST)}`] },
  { id: 'algebra', label: 'algebra (`4bc + 9`)', count: 300, make: (r) => [`${1 + r.int(20)}${letters(r, 2)} ${r.pick(['+', '-', '=', '*', '/'])} ${r.int(100)}${r.chance(0.5) ? letters(r, 1) : ''}`] },
  {
    id: 'ordinal-lines',
    label: 'rising ordinals, several lines (`1st place\\n3rd place`)',
    count: 300,
    make: (r) => {
      const out = []
      let n = smallNumber(r, 8)
      const word = r.pick(PLACES)
      for (let k = 0, len = 2 + r.int(4); k < len; k++, n += 1 + r.int(3)) out.push(`${ordinal(n)} ${word}`)
      return out
    },
  },
  {
    id: 'schedule',
    label: 'schedules, several lines (`9pm x\\n10am y`)',
    count: 300,
    make: (r) => {
      const out = []
      let h = 1 + r.int(9)
      for (let k = 0, len = 2 + r.int(4); k < len && h <= 12; k++, h += 1 + r.int(3)) out.push(`${h}${r.chance(0.5) ? 'am' : 'pm'} ${r.pick(EVENTS)}`)
      return out.length >= 2 ? out : ['9pm x', '10am y']
    },
  },
  { id: 'property', label: 'random: a number, letters, text (one line)', count: 2000, make: (r) => [propertyLine(r, smallNumber(r, 5000))] },
  {
    id: 'property-lines',
    label: 'random: such lines, several, numbers rising',
    count: 1000,
    make: (r) => {
      const out = []
      let n = smallNumber(r, 500)
      for (let k = 0, len = 2 + r.int(5); k < len; k++, n += 1 + r.int(r.chance(0.5) ? 1 : 20)) out.push(propertyLine(r, n))
      return out
    },
  },
]

/** Fixed examples, first in every run. */
export const EXAMPLES = [
  { set: 'ordinal', lines: ['3rd party'] },
  { set: 'ordinal', lines: ['3rd party notices'] },
  { set: 'date', lines: ['25th December 2024'] },
  { set: 'time', lines: ['8am standup'] },
  { set: 'css', lines: ['1px solid red'] },
  { set: 'algebra', lines: ['4bc + 9'] },
  { set: 'ordinal-lines', lines: ['1st place', '3rd place'] },
  { set: 'ordinal-lines', lines: ['5th avenue', '7th floor'] },
  { set: 'schedule', lines: ['9pm x', '10am y'] },
]

/**
 * Every legitimate text of the run: the examples, then each set's draws
 * (a tenth of them with `quick`), reproducible from the seed.
 * @param {number} seed @param {boolean} quick
 * @returns {LegitText[]}
 */
export function legitTexts(seed, quick) {
  /** @type {LegitText[]} */
  const out = [...EXAMPLES]
  for (const s of LEGIT_SETS) {
    const r = rng(`${seed}|legit|${s.id}`)
    const count = quick ? Math.ceil(s.count / 10) : s.count
    for (let i = 0; i < count; i++) out.push({ set: s.id, lines: s.make(r) })
  }
  return out
}

/**
 * Lines that name lines of a view the model was shown, the hardest
 * legitimate case: each starts with the number of a shown line and that
 * line's own two tag letters, then other text (a single line, or a run of
 * consecutive lines). `tagAt(n)` is the lean tag of line n of the view.
 * @param {import('./rng.mjs').Rng} r @param {number} lineCount lines of the view
 * @param {(n: number) => string} tagAt @param {(n: number) => string} lineAt the text of line n
 * @returns {string[]}
 */
export function witnessedLines(r, lineCount, tagAt, lineAt) {
  const len = r.chance(0.5) ? 1 : 2 + r.int(3)
  const start = 1 + r.int(Math.max(1, lineCount - len))
  const out = []
  for (let n = start; n < start + len && n <= lineCount; n++) {
    let text = phrase(r)
    while (text === lineAt(n)) text += ' again'
    out.push(`${n}${tagAt(n)} ${text}`)
  }
  return out
}
