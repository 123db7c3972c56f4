// @ts-check
// OpenCode's `edit` tool (packages/opencode/src/tool/edit.ts), re-implemented
// from its behaviour: str_replace with a chain of nine matchers tried in
// order. Each matcher proposes candidate strings of the file; the first
// candidate that occurs in the file exactly once is replaced (the file is cut
// at the first occurrence of that candidate string, wherever the matcher found
// it); a candidate that occurs several times is skipped. Nothing is re-indented:
// the new text goes in as written.

export class OpenCodeError extends Error {
  /** @param {string} code @param {string} message */
  constructor(code, message) {
    super(message)
    this.code = code
  }
}

/** @typedef {(content: string, find: string) => Iterable<string>} Matcher */

/** Lines [from, to] of `lines` joined back, without the final newline. */
const block = (/** @type {string[]} */ lines, /** @type {number} */ from, /** @type {number} */ to) => lines.slice(from, to + 1).join('\n')

/** Edit distance by the textbook dynamic programme (two rows). */
export function levenshtein(/** @type {string} */ a, /** @type {string} */ b) {
  if (a === '' || b === '') return Math.max(a.length, b.length)
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const row = [i]
    for (let j = 1; j <= b.length; j++) row[j] = Math.min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1))
    prev = row
  }
  return prev[b.length]
}

/** The search string as lines, a final empty line (from a trailing newline) dropped. */
function searchLines(/** @type {string} */ find) {
  const lines = find.split('\n')
  if (lines[lines.length - 1] === '') lines.pop()
  return lines
}

/** @type {Matcher} 1. the text as given. */
function* simple(_content, find) {
  yield find
}

/** @type {Matcher} 2. every run of lines equal to the search lines once both are trimmed. */
function* lineTrimmed(content, find) {
  const lines = content.split('\n')
  const want = searchLines(find).map((l) => l.trim())
  for (let i = 0; i + want.length <= lines.length; i++) {
    if (want.every((w, j) => lines[i + j].trim() === w)) yield block(lines, i, i + want.length - 1)
  }
}

/**
 * @type {Matcher} 3. three or more search lines: blocks whose first and last
 * lines match the search's (trimmed), ending at the first such last line at
 * least two lines on. One such block is taken whatever its middle holds (and
 * whatever its length); among several, the one whose middle lines are most
 * alike by edit distance, if that likeness reaches 0.3.
 */
function* blockAnchor(content, find) {
  if (find.split('\n').length < 3) return
  const want = searchLines(find)
  const lines = content.split('\n')
  const first = want[0].trim()
  const last = want[want.length - 1].trim()
  /** @type {Array<[number, number]>} */
  const candidates = []
  for (let i = 0; i < lines.length; i++) {
    if (lines[i].trim() !== first) continue
    for (let j = i + 2; j < lines.length; j++) {
      if (lines[j].trim() === last) {
        candidates.push([i, j])
        break
      }
    }
  }
  if (candidates.length === 0) return
  if (candidates.length === 1) {
    yield block(lines, candidates[0][0], candidates[0][1])
    return
  }
  let best = candidates[0]
  let bestScore = -1
  for (const [i, j] of candidates) {
    const size = j - i + 1
    const middle = Math.min(want.length - 2, size - 2)
    let score = 0
    if (middle > 0) {
      for (let k = 1; k < want.length - 1 && k < size - 1; k++) {
        const a = lines[i + k].trim()
        const b = want[k].trim()
        const len = Math.max(a.length, b.length)
        if (len > 0) score += 1 - levenshtein(a, b) / len
      }
      score /= middle
    } else score = 1
    if (score > bestScore) {
      bestScore = score
      best = [i, j]
    }
  }
  if (bestScore >= 0.3) yield block(lines, best[0], best[1])
}

const squash = (/** @type {string} */ s) => s.replace(/\s+/g, ' ').trim()
const escapeRegExp = (/** @type {string} */ s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

/**
 * @type {Matcher} 4. whitespace runs collapsed: a single line equal to the
 * search, or the part of a line holding its words with any whitespace
 * between; then blocks of as many lines as the search that collapse to it.
 */
function* whitespaceNormalized(content, find) {
  const want = squash(find)
  const lines = content.split('\n')
  for (const line of lines) {
    const have = squash(line)
    if (have === want) yield line
    else if (have.includes(want)) {
      const words = find.trim().split(/\s+/)
      const m = new RegExp(words.map(escapeRegExp).join('\\s+')).exec(line)
      if (m) yield m[0]
    }
  }
  const count = find.split('\n').length
  if (count > 1) {
    for (let i = 0; i + count <= lines.length; i++) {
      const text = block(lines, i, i + count - 1)
      if (squash(text) === want) yield text
    }
  }
}

/** The text with the smallest indentation of its non-blank lines removed from each. */
function dedent(/** @type {string} */ text) {
  const lines = text.split('\n')
  const filled = lines.filter((l) => l.trim().length > 0)
  if (filled.length === 0) return text
  const min = Math.min(...filled.map((l) => /** @type {RegExpExecArray} */ (/^\s*/.exec(l))[0].length))
  return lines.map((l) => (l.trim().length === 0 ? l : l.slice(min))).join('\n')
}

/** @type {Matcher} 5. blocks of as many lines as the search, equal once both are dedented. */
function* indentationFlexible(content, find) {
  const want = dedent(find)
  const lines = content.split('\n')
  const count = find.split('\n').length
  for (let i = 0; i + count <= lines.length; i++) {
    const text = block(lines, i, i + count - 1)
    if (dedent(text) === want) yield text
  }
}

const ESCAPES = /** @type {Record<string, string>} */ ({ n: '\n', t: '\t', r: '\r', "'": "'", '"': '"', '`': '`', '\\': '\\', '\n': '\n', $: '$' })
const unescape = (/** @type {string} */ s) => s.replace(/\\(n|t|r|'|"|`|\\|\n|\$)/g, (_m, c) => ESCAPES[c])

/** @type {Matcher} 6. backslash escapes in the search read as the characters they name. */
function* escapeNormalized(content, find) {
  const want = unescape(find)
  if (content.includes(want)) yield want
  const lines = content.split('\n')
  const count = want.split('\n').length
  for (let i = 0; i + count <= lines.length; i++) {
    const text = block(lines, i, i + count - 1)
    if (unescape(text) === want) yield text
  }
}

/** @type {Matcher} 7. the search without its leading and trailing whitespace. */
function* trimmedBoundary(content, find) {
  const want = find.trim()
  if (want === find) return
  if (content.includes(want)) yield want
  const lines = content.split('\n')
  const count = find.split('\n').length
  for (let i = 0; i + count <= lines.length; i++) {
    const text = block(lines, i, i + count - 1)
    if (text.trim() === want) yield text
  }
}

/**
 * @type {Matcher} 8. three or more search lines: for each line matching the
 * first (trimmed), the block up to the first later line matching the last;
 * taken if it has as many lines as the search and at least half of its
 * non-blank middle lines match (trimmed).
 */
function* contextAware(content, find) {
  const want = find.split('\n')
  if (want.length < 3) return
  if (want[want.length - 1] === '') want.pop()
  const lines = content.split('\n')
  const first = want[0].trim()
  const last = want[want.length - 1].trim()
  for (let i = 0; i < lines.length; i++) {
    if (lines[i].trim() !== first) continue
    for (let j = i + 2; j < lines.length; j++) {
      if (lines[j].trim() !== last) continue
      if (j - i + 1 === want.length) {
        let filled = 0
        let same = 0
        for (let k = 1; k < want.length - 1; k++) {
          const a = lines[i + k].trim()
          const b = want[k].trim()
          if (a.length > 0 || b.length > 0) {
            filled++
            if (a === b) same++
          }
        }
        if (filled === 0 || same / filled >= 0.5) yield block(lines, i, j)
      }
      break
    }
  }
}

/** @type {Matcher} 9. every exact occurrence (only `replaceAll` makes use of it). */
function* multiOccurrence(content, find) {
  for (let at = content.indexOf(find); at !== -1; at = content.indexOf(find, at + find.length)) yield find
}

export const MATCHERS = [simple, lineTrimmed, blockAnchor, whitespaceNormalized, indentationFlexible, escapeNormalized, trimmedBoundary, contextAware, multiOccurrence]

/**
 * @param {string} content
 * @param {{ oldString: string, newString: string, replaceAll?: boolean }} call
 */
export function opencodeReplace(content, { oldString, newString, replaceAll = false }) {
  if (oldString === newString) throw new OpenCodeError('NO_CHANGE', 'No changes to apply: oldString and newString are identical.')
  if (oldString === '') return newString
  let seen = false
  for (const matcher of MATCHERS) {
    for (const search of matcher(content, oldString)) {
      const at = content.indexOf(search)
      if (at === -1) continue
      seen = true
      // String.prototype.replaceAll with a string replacement expands `$&` and friends, as the original does.
      if (replaceAll) return content.replaceAll(search, newString)
      if (at !== content.lastIndexOf(search)) continue
      return content.slice(0, at) + newString + content.slice(at + search.length)
    }
  }
  if (!seen) throw new OpenCodeError('NOT_FOUND', 'Could not find oldString in the file. It must match exactly, including whitespace, indentation, and line endings.')
  throw new OpenCodeError('AMBIGUOUS', 'Found multiple matches for oldString. Provide more surrounding context to make the match unique.')
}
