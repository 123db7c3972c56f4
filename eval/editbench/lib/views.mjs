// @ts-check
// The read views whose per-line cost is compared. This project's view comes
// from the engine itself; the peers' are rendered from their documented line
// shape (see the field survey). Where a peer hashes with a function not at
// hand here (FNV-1a, xxHash32, phash2, CRC32), SHA-1 stands in: the token cost
// depends on the shape, alphabet and width of the tag, not on which bits the
// hash picked.

import { createHash } from 'node:crypto'

const sha1 = (/** @type {string} */ s) => createHash('sha1').update(s, 'utf8').digest('hex')
/** The 16 letters oh-my-openagent and oh-my-pi spell a byte with (two per tag). */
const LETTERS = 'ZPMQVRWSNKTXJBYH'
const letters2 = (/** @type {string} */ s) => {
  const h = sha1(s)
  return LETTERS[parseInt(h[0], 16)] + LETTERS[parseInt(h[1], 16)]
}

/**
 * @typedef {{ name: string, system: string, prefix(n: number, line: string, prev: string | undefined, next: string | undefined): string }} ViewFormat
 * @type {ViewFormat[]}
 */
export const PEER_VIEWS = [
  { name: 'N: ', system: 'OpenCode read (plain)', prefix: (n) => `${n}: ` },
  { name: '#HL N#HHH#AAA|', system: 'opencode-hashline (AngDrew)', prefix: (n, l, p, x) => `#HL ${n}#${sha1(l).slice(0, 3).toUpperCase()}#${sha1(`${p ?? ''}\u241E${l}\u241E${x ?? ''}`).slice(0, 3).toUpperCase()}|` },
  { name: '#HL N:hhh|', system: 'opencode-hashline (izzzzzi)', prefix: (n, l) => `#HL ${n}:${sha1(`${n}:${l}`).slice(0, 3)}|` },
  { name: 'N#LL|', system: 'oh-my-openagent', prefix: (n, l) => `${n}#${letters2(l)}|` },
  { name: 'N#LL:', system: 'oh-my-pi', prefix: (n, l) => `${n}#${letters2(l)}:` },
  { name: 'N:hh|', system: 'Opal, symb', prefix: (n, l) => `${n}:${sha1(l.trim()).slice(0, 2)}|` },
  { name: 'N:hhh|', system: 'btw', prefix: (n, l) => `${n}:${sha1(l.trim().slice(0, 80)).slice(0, 3)}|` },
  { name: 'N:hhhh|', system: 'hive', prefix: (n, l) => `${n}:${sha1(l).slice(0, 4)}|` },
]

/** The plain view OpenCode's read tool shows, and str_replace and patch users read. */
export const plainPrefix = (/** @type {number} */ n) => `${n}: `

/**
 * @param {string[]} lines
 * @param {ViewFormat} format
 */
export function renderView(lines, format) {
  let out = ''
  for (let i = 0; i < lines.length; i++) out += format.prefix(i + 1, lines[i], lines[i - 1], lines[i + 1]) + lines[i] + '\n'
  return out
}

/**
 * The refs of this project's view, by 1-based line, parsed from the engine's own output.
 * @param {{ formatView(text: string, options?: any): string }} binding
 * @param {string} text
 * @returns {{ view: string, refs: string[] }}
 */
export function hashlineView(binding, text) {
  const view = binding.formatView(text, { path: 'file', limit: 1_000_000, view: 'full' })
  /** @type {string[]} */
  const refs = []
  for (const line of view.split('\n')) {
    const m = /^(\d+)#([0-9A-F]{3})#([0-9A-F]{3})\|/.exec(line)
    if (m) refs[Number(m[1])] = `${m[1]}#${m[2]}#${m[3]}`
  }
  return { view, refs }
}

/**
 * The refs of a variant view that shows the ANCHOR only where it is needed:
 * on lines whose HASH occurs more than once in the file (the engine refuses a
 * ref without ANCHOR for any other line).
 * @param {string[]} refs
 */
export function shortRefs(refs) {
  /** @type {Map<string, number>} */
  const count = new Map()
  const hash = (/** @type {string} */ ref) => ref.split('#')[1]
  for (const ref of refs) if (ref) count.set(hash(ref), (count.get(hash(ref)) ?? 0) + 1)
  return refs.map((ref) => (!ref || (count.get(hash(ref)) ?? 0) > 1 ? ref : ref.split('#').slice(0, 2).join('#')))
}

/** A view in this project's header and line shape, with the given refs. */
export function viewWithRefs(/** @type {string} */ view, /** @type {string[]} */ refs) {
  return view.replace(/^(\d+)#[0-9A-F]{3}#[0-9A-F]{3}\|/gm, (_m, n) => `${refs[Number(n)]}|`)
}
