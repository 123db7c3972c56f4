// @ts-check
// The mistakes models are known to make, injected into an ideal edit of any
// format. Each kind has its sites: the places in that format's edit where the
// slip can happen.
//   copy     a line the model re-types from the file (a str_replace old side or
//            context, patch context and removed lines, the unchanged lines of a
//            whole file, and the unchanged lines of a widened hashline range)
//   unit     one operation, call, hunk or file
//   boundary one side of a unit's range, with a line just outside it
//   ref      a line number the model types (hashline ref/through, patch header, @@ ref)
//   file     the whole change (the stale-ref scenario, run by the caller)
// A format without sites for a kind cannot make that mistake (n/a).

/**
 * @typedef {import('./formats.mjs').Edit} Edit
 * @typedef {import('./formats.mjs').Line} Line
 * @typedef {import('./rng.mjs').Rng} Rng
 * @typedef {'indent' | 'drop' | 'dup' | 'typo' | 'echo-prefix' | 'echo-boundary' | 'stale' | 'off-by-one'} Kind
 * @typedef {{ kind: Kind, site: any, pick: number }} Mistake
 */

/** @type {Array<{ id: Kind, label: string, site: 'copy' | 'unit' | 'boundary' | 'ref' | 'file' }>} */
export const KINDS = [
  { id: 'indent', label: 'indentation drift in copied text', site: 'copy' },
  { id: 'drop', label: 'a copied (context) line dropped', site: 'copy' },
  { id: 'dup', label: 'a copied (context) line duplicated', site: 'copy' },
  { id: 'typo', label: 'a typo in copied text', site: 'copy' },
  { id: 'echo-prefix', label: 'view prefixes echoed into content', site: 'unit' },
  { id: 'echo-boundary', label: 'the line before or after a range echoed', site: 'boundary' },
  { id: 'stale', label: 'stale refs after an earlier edit', site: 'file' },
  { id: 'off-by-one', label: 'off-by-one line number in a ref', site: 'ref' },
]

/**
 * Where `kind` can happen in `edit`.
 * @param {Edit} edit @param {Kind} kind
 * @returns {any[]}
 */
export function sitesOf(edit, kind) {
  if (kind === 'stale') return ['file']
  if (kind === 'indent' || kind === 'typo' || kind === 'drop' || kind === 'dup') {
    const filled = kind === 'indent' || kind === 'typo'
    /** @type {Set<string>} */
    const origins = new Set()
    for (const u of edit.units) for (const l of u.lines) if (l.copy && (!filled || l.text.trim() !== '')) origins.add(l.origin)
    return [...origins]
  }
  if (kind === 'echo-prefix') {
    if (edit.kind === 'hashline') return edit.units.flatMap((u, i) => (u.op !== 'delete' && u.lines.length > 0 ? [i] : []))
    return edit.units.map((_u, i) => i)
  }
  if (kind === 'echo-boundary') {
    if (edit.kind === 'hashline') {
      return edit.units.flatMap((u, i) =>
        u.op === 'delete' ? [] : [...(u.before !== undefined ? [{ unit: i, side: 'before' }] : []), ...(u.after !== undefined ? [{ unit: i, side: 'after' }] : [])],
      )
    }
    if (edit.kind === 'str' || edit.kind === 'refpatch') {
      return edit.units.flatMap((u, i) => [...(u.before !== undefined ? [{ unit: i, side: 'before' }] : []), ...(u.after !== undefined ? [{ unit: i, side: 'after' }] : [])])
    }
    if (edit.kind === 'patch') {
      /** @type {any[]} */
      const out = []
      edit.units.forEach((u, i) => {
        for (const [from, to] of changeBlocks(u.lines)) {
          if (from > 0 && u.lines[from - 1].side === 'both') out.push({ unit: i, side: 'before', at: from })
          if (to + 1 < u.lines.length && u.lines[to + 1].side === 'both') out.push({ unit: i, side: 'after', at: to })
        }
      })
      return out
    }
    return []
  }
  // off-by-one
  if (edit.kind === 'hashline') {
    return edit.units.flatMap((u, i) => [
      ...(u.first !== undefined ? [{ unit: i, which: 'ref' }] : []),
      // A format that always types both ends of a range (`PUT 5.=5:`) can slip on either.
      ...(u.last !== undefined && (u.last !== u.first || edit.throughAlways) && (u.op === 'replace' || u.op === 'delete') ? [{ unit: i, which: 'through' }] : []),
    ])
  }
  if (edit.kind === 'patch') return edit.units.map((_u, i) => ({ unit: i }))
  if (edit.kind === 'refpatch') return edit.units.flatMap((u, i) => (u.anchor > 0 ? [{ unit: i }] : []))
  return []
}

/** Index ranges [from, to] of the runs of changed lines of a patch hunk. */
function changeBlocks(/** @type {Line[]} */ lines) {
  /** @type {Array<[number, number]>} */
  const out = []
  for (let i = 0; i < lines.length; i++) {
    if (lines[i].side === 'both') continue
    let j = i
    while (j + 1 < lines.length && lines[j + 1].side !== 'both') j++
    out.push([i, j])
    i = j
  }
  return out
}

/**
 * Exactly one mistake of `kind` at a random site, or undefined when the format has none.
 * @param {Edit} edit @param {Kind} kind @param {Rng} r
 * @returns {Mistake[] | undefined}
 */
export function oneMistake(edit, kind, r) {
  const sites = sitesOf(edit, kind)
  if (sites.length === 0) return undefined
  return [{ kind, site: r.pick(sites), pick: r.next() }]
}

/**
 * Each site of each kind errs with probability `rate`.
 * @param {Edit} edit @param {Kind[]} kinds @param {number} rate @param {Rng} r
 * @returns {Mistake[]}
 */
export function mistakesAtRate(edit, kinds, rate, r) {
  /** @type {Mistake[]} */
  const out = []
  for (const kind of kinds) for (const site of sitesOf(edit, kind)) if (r.chance(rate)) out.push({ kind, site, pick: r.next() })
  return out
}

const LEVEL = (/** @type {string} */ indent) => (indent.startsWith('\t') ? '\t' : indent.length % 4 === 0 && indent.length > 0 ? '    ' : '  ')

/** A line re-typed with its indentation off: a space or a level more or less, or tabs and spaces swapped. */
export function driftIndent(/** @type {string} */ text, /** @type {number} */ pick) {
  const indent = /** @type {RegExpExecArray} */ (/^[ \t]*/.exec(text))[0]
  const body = text.slice(indent.length)
  const level = LEVEL(indent)
  const variants = [' ' + indent, level + indent]
  if (indent.endsWith(' ')) variants.push(indent.slice(0, -1))
  if (indent.endsWith(level)) variants.push(indent.slice(0, -level.length))
  if (indent.includes('\t')) variants.push(indent.replace(/\t/g, '    '))
  else if (indent.length >= 4) variants.push(indent.replace(/ {4}/g, '\t'))
  return variants[Math.floor(pick * variants.length)] + body
}

/** A line re-typed with one slip: a character replaced, dropped, doubled, or two swapped. */
export function typo(/** @type {string} */ text, /** @type {number} */ pick) {
  const positions = [...text].flatMap((c, i) => (/\s/.test(c) ? [] : [i]))
  const chars = [...text]
  const at = positions[Math.floor(pick * positions.length)]
  const how = Math.floor((pick * 7919) % 4)
  const c = chars[at]
  if (how === 0) chars[at] = c === 'e' ? 'a' : /[a-z]/.test(c) ? 'e' : c === '0' ? '1' : /[A-Z0-9]/.test(c) ? 'x' : c === ';' ? ':' : c === ',' ? '.' : 'e'
  else if (how === 1 && positions.length > 1) chars.splice(at, 1)
  else if (how === 2 && at + 1 < chars.length && chars[at + 1] !== c) [chars[at], chars[at + 1]] = [chars[at + 1], chars[at]]
  else chars.splice(at, 0, c)
  const out = chars.join('')
  return out === text ? text + c : out
}

/**
 * The edit as the model sends it with these mistakes (a new object; the ideal is untouched).
 * @template {Edit} E
 * @param {E} edit @param {Mistake[]} mistakes
 * @returns {E}
 */
export function inject(edit, mistakes) {
  /** @type {any} */
  const out = { ...edit, units: edit.units.map((u) => ({ ...u, lines: u.lines.slice() })) }
  /** @type {Map<string, (l: Line) => Line[]>} */
  const copies = new Map()
  const chain = (/** @type {string} */ origin, /** @type {(l: Line) => Line[]} */ f) => {
    const prev = copies.get(origin)
    copies.set(origin, prev ? (l) => prev(l).flatMap(f) : f)
  }
  // Boundary echoes in patch hunks insert at recorded positions: do them last to first.
  const ordered = [...mistakes].sort((a, b) => (b.site?.at ?? 0) - (a.site?.at ?? 0))
  for (const m of ordered) {
    const s = m.site
    if (m.kind === 'indent') chain(s, (l) => [{ ...l, text: driftIndent(l.text, m.pick) }])
    else if (m.kind === 'typo') chain(s, (l) => [{ ...l, text: typo(l.text, m.pick) }])
    else if (m.kind === 'drop') chain(s, () => [])
    else if (m.kind === 'dup') chain(s, (l) => [l, l])
    else if (m.kind === 'echo-prefix') out.units[s] = { ...out.units[s], echo: true }
    else if (m.kind === 'off-by-one') {
      const shift = m.pick < 0.5 ? -1 : 1
      const u = out.units[s.unit]
      if (edit.kind === 'hashline') {
        const line = s.which === 'ref' ? u.first : u.last
        const d = line + shift < 1 ? 1 : shift
        out.units[s.unit] = { ...u, [s.which === 'ref' ? 'refShift' : 'throughShift']: d }
      } else if (edit.kind === 'refpatch') out.units[s.unit] = { ...u, refShift: u.anchor + shift < 1 ? 1 : shift }
      else out.units[s.unit] = { ...u, shift: u.oldStart + shift < 0 ? 1 : shift }
    } else if (m.kind === 'echo-boundary') {
      const u = out.units[s.unit]
      if (edit.kind === 'patch') {
        const neighbour = u.lines[s.side === 'before' ? s.at - 1 : s.at + 1]
        /** @type {Line} */
        const echo = { text: neighbour.text, origin: neighbour.origin, side: 'new', copy: true }
        u.lines.splice(s.side === 'before' ? s.at : s.at + 1, 0, echo)
      } else {
        /** @type {Line} */
        const echo = { text: s.side === 'before' ? u.before : u.after, origin: 'echo', side: 'new', copy: true }
        if (s.side === 'before') u.lines.unshift(echo)
        else u.lines.push(echo)
      }
    }
  }
  if (copies.size > 0) {
    for (const u of out.units) u.lines = u.lines.flatMap((/** @type {Line} */ l) => (l.copy && copies.has(l.origin) ? /** @type {any} */ (copies.get(l.origin))(l) : [l]))
  }
  return out
}
