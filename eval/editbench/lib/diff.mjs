// @ts-check
// Line diff (Myers, O(ND)) and the text helpers every format shares.

/**
 * A change between two versions: old lines [oldStart, oldStart + oldLen)
 * become new lines [newStart, newStart + newLen) (0-based).
 * @typedef {{ oldStart: number, oldLen: number, newStart: number, newLen: number }} Hunk
 */

/** Lines of a text that ends with a newline (the final empty piece dropped). */
export function splitLines(/** @type {string} */ text) {
  if (text === '') return []
  const lines = text.split('\n')
  if (lines[lines.length - 1] === '') lines.pop()
  return lines
}

/** @param {string[]} lines */
export function joinLines(lines) {
  return lines.length === 0 ? '' : lines.join('\n') + '\n'
}

/**
 * Matched line pairs of a shortest edit script between `a` and `b`.
 * @param {Int32Array} a
 * @param {Int32Array} b
 * @returns {Array<[number, number]>}
 */
function myersMatches(a, b) {
  const n = a.length
  const m = b.length
  if (n === 0 || m === 0) return []
  const max = n + m
  const off = max + 1
  const v = new Int32Array(2 * max + 3)
  /** @type {Int32Array[]} */
  const trace = []
  let found = false
  for (let d = 0; d <= max && !found; d++) {
    // Only the diagonals step d reads from are kept: memory grows as D², not D·(N+M).
    trace.push(v.slice(off - d - 1, off + d + 2))
    for (let k = -d; k <= d; k += 2) {
      let x = k === -d || (k !== d && v[off + k - 1] < v[off + k + 1]) ? v[off + k + 1] : v[off + k - 1] + 1
      let y = x - k
      while (x < n && y < m && a[x] === b[y]) {
        x++
        y++
      }
      v[off + k] = x
      if (x >= n && y >= m) {
        found = true
        break
      }
    }
  }
  /** @type {Array<[number, number]>} */
  const matches = []
  let x = n
  let y = m
  for (let d = trace.length - 1; d >= 0; d--) {
    const t = trace[d]
    const at = (/** @type {number} */ k) => t[k + d + 1]
    const k = x - y
    const prevK = k === -d || (k !== d && at(k - 1) < at(k + 1)) ? k + 1 : k - 1
    const prevX = d === 0 ? 0 : at(prevK)
    const prevY = d === 0 ? 0 : prevX - prevK
    while (x > prevX && y > prevY) {
      x--
      y--
      matches.push([x, y])
    }
    x = prevX
    y = prevY
  }
  return matches.reverse()
}

/**
 * The hunks turning `oldLines` into `newLines`, with no context, in order.
 * @param {string[]} oldLines
 * @param {string[]} newLines
 * @returns {Hunk[]}
 */
export function diffLines(oldLines, newLines) {
  const ids = new Map()
  const id = (/** @type {string} */ s) => {
    let v = ids.get(s)
    if (v === undefined) {
      v = ids.size
      ids.set(s, v)
    }
    return v
  }
  const a = Int32Array.from(oldLines, id)
  const b = Int32Array.from(newLines, id)
  let pre = 0
  while (pre < a.length && pre < b.length && a[pre] === b[pre]) pre++
  let suf = 0
  while (suf < a.length - pre && suf < b.length - pre && a[a.length - 1 - suf] === b[b.length - 1 - suf]) suf++
  const mid = myersMatches(a.subarray(pre, a.length - suf), b.subarray(pre, b.length - suf))
  /** @type {Array<[number, number]>} */
  const matches = []
  for (let i = 0; i < pre; i++) matches.push([i, i])
  for (const [x, y] of mid) matches.push([x + pre, y + pre])
  for (let i = suf; i > 0; i--) matches.push([a.length - i, b.length - i])
  matches.push([a.length, b.length])
  /** @type {Hunk[]} */
  const hunks = []
  let i = 0
  let j = 0
  for (const [x, y] of matches) {
    if (x > i || y > j) hunks.push({ oldStart: i, oldLen: x - i, newStart: j, newLen: y - j })
    i = x + 1
    j = y + 1
  }
  return hunks
}

/**
 * Applies hunks (of `diffLines(oldLines, newLines)`, any subset) to `oldLines`.
 * @param {string[]} oldLines
 * @param {string[]} newLines
 * @param {Hunk[]} hunks
 */
export function applyHunks(oldLines, newLines, hunks) {
  const out = oldLines.slice()
  for (const h of [...hunks].sort((p, q) => q.oldStart - p.oldStart)) {
    out.splice(h.oldStart, h.oldLen, ...newLines.slice(h.newStart, h.newStart + h.newLen))
  }
  return out
}

/** Applies a unified diff (as the engine's plans carry it) to the text it was made from. */
export function applyUnified(/** @type {string} */ text, /** @type {string} */ diff) {
  const old = splitLines(text)
  /** @type {string[]} */
  const out = []
  let at = 0
  const lines = diff.split('\n')
  for (let i = 0; i < lines.length; i++) {
    const h = /^@@ -(\d+)(?:,(\d+))? \+\d+(?:,\d+)? @@/.exec(lines[i])
    if (!h) continue
    const start = Number(h[1]) - (h[2] === '0' ? 0 : 1)
    while (at < start) out.push(old[at++])
    for (i++; i < lines.length && !lines[i].startsWith('@@'); i++) {
      const l = lines[i]
      if (l.startsWith('\\')) continue
      if (l.startsWith(' ')) {
        if (old[at] !== l.slice(1)) throw new Error(`diff context does not match line ${at + 1}`)
        out.push(old[at++])
      } else if (l.startsWith('-')) {
        if (old[at] !== l.slice(1)) throw new Error(`diff removal does not match line ${at + 1}`)
        at++
      } else if (l.startsWith('+')) out.push(l.slice(1))
      else if (l === '' && i === lines.length - 1) break
      else throw new Error(`unexpected diff line ${JSON.stringify(l)}`)
    }
    i--
  }
  while (at < old.length) out.push(old[at++])
  return joinLines(out)
}
