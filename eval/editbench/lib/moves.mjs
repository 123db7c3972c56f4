// @ts-check
// Code a change moves or copies: runs of added lines that repeat a run of
// old lines exactly. A `move` (the old run was deleted) or `copy` (it stays)
// operation would cite the old run instead of retyping it.

/** Shortest run counted as moved or copied, and the fewest non-blank lines in it. */
export const MIN_LINES = 3
const MIN_FILLED = 2

/**
 * @typedef {{ kind: 'move' | 'copy', from: number, to: number, at: number, len: number, lines: string[], inside: boolean }} Block
 *   `from`: first old line (0-based); `to`: first new line (0-based); `at`: the old line (1-based) it lands after (0: the start);
 *   `inside`: the run sits strictly inside an added run (its operation must be split around it)
 * @param {import('./formats.mjs').Change} change
 * @returns {Block[]}
 */
export function movedBlocks(change) {
  const { oldLines, newLines, hunks } = change
  /** @type {Map<string, number[]>} */
  const where = new Map()
  oldLines.forEach((l, i) => {
    if (l.trim() === '') return
    const list = where.get(l)
    if (list) list.push(i)
    else where.set(l, [i])
  })
  /** @type {Uint8Array} old lines the change deletes or replaces */
  const removed = new Uint8Array(oldLines.length)
  for (const h of hunks) for (let i = h.oldStart; i < h.oldStart + h.oldLen; i++) removed[i] = 1
  /** @type {Block[]} */
  const out = []
  for (const h of hunks) {
    const end = h.newStart + h.newLen
    let j = h.newStart
    while (j < end) {
      let best = { from: -1, len: 0 }
      for (const i of where.get(newLines[j]) ?? []) {
        let len = 0
        while (j + len < end && i + len < oldLines.length && oldLines[i + len] === newLines[j + len]) len++
        if (len > best.len) best = { from: i, len }
      }
      const lines = newLines.slice(j, j + best.len)
      if (best.len >= MIN_LINES && lines.filter((l) => l.trim() !== '').length >= MIN_FILLED) {
        let moved = 0
        for (let k = 0; k < best.len; k++) moved += removed[best.from + k]
        out.push({ kind: moved === best.len ? 'move' : 'copy', from: best.from, to: j, at: h.oldStart, len: best.len, lines, inside: j > h.newStart && j + best.len < end })
        j += best.len
      } else j++
    }
  }
  return out
}

/**
 * The operation a model would send instead of retyping the block, in this
 * project's `edit` tool: the source range by its refs, the place by a ref.
 * @param {Block} b @param {(line: number) => string} ref the ref of a 1-based old line
 */
export function moveOperation(b, ref) {
  const fields = [`"op":"${b.kind}"`, `"ref":"${ref(b.from + 1)}"`]
  if (b.len > 1) fields.push(`"through":"${ref(b.from + b.len)}"`)
  fields.push(b.at === 0 ? `"before":"${ref(1)}"` : `"after":"${ref(b.at)}"`)
  return `{${fields.join(',')}}`
}
