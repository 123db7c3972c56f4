// @ts-check
// A patch applier in the style of Codex's apply_patch (codex-rs/apply-patch),
// re-implemented from its documented behaviour and fed unified-diff hunks:
// line numbers in `@@` headers are ignored; each hunk's old side (context and
// removed lines) is searched from where the previous hunk ended, first with
// exact lines, then ignoring trailing whitespace, then ignoring surrounding
// whitespace, then with Unicode dashes, quotes and spaces read as ASCII; the
// first match wins and is replaced by the hunk's new side as written. A hunk
// that matches nowhere rejects the whole patch.

export class PatchError extends Error {
  /** @param {string} code @param {string} message */
  constructor(code, message) {
    super(message)
    this.code = code
  }
}

const ASCII = /** @type {Array<[RegExp, string]>} */ ([
  [/[\u2010-\u2015\u2212]/g, '-'],
  [/[\u2018-\u201B]/g, "'"],
  [/[\u201C-\u201F]/g, '"'],
  [/[\u00A0\u2002-\u200A\u202F\u205F\u3000]/g, ' '],
])
const asciiPunctuation = (/** @type {string} */ s) => ASCII.reduce((t, [re, to]) => t.replace(re, to), s.trim())

/** The four comparisons, strictest first. */
export const PASSES = /** @type {Array<(s: string) => string>} */ ([(s) => s, (s) => s.trimEnd(), (s) => s.trim(), asciiPunctuation])

/**
 * First index ≥ start where `pattern` matches `lines` under the strictest
 * comparison that finds one, or -1.
 * @param {string[]} lines @param {string[]} pattern @param {number} start @param {number} passes how many comparisons to try
 */
export function seekSequence(lines, pattern, start, passes = PASSES.length) {
  if (pattern.length === 0) return start
  if (pattern.length > lines.length) return -1
  for (const norm of PASSES.slice(0, passes)) {
    const want = pattern.map(norm)
    outer: for (let i = start; i + pattern.length <= lines.length; i++) {
      for (let j = 0; j < want.length; j++) if (norm(lines[i + j]) !== want[j]) continue outer
      return i
    }
  }
  return -1
}

/**
 * @typedef {{ context?: string, oldLines: string[], newLines: string[] }} Chunk
 * @param {string} patch a unified diff of one file
 * @returns {Chunk[]}
 */
export function parseUnifiedDiff(patch) {
  const lines = patch.split('\n')
  if (lines[lines.length - 1] === '') lines.pop()
  /** @type {Chunk[]} */
  const chunks = []
  /** @type {Chunk | undefined} */
  let chunk
  for (const line of lines) {
    if (line.startsWith('@@')) {
      const m = /^@@ -\d+(?:,\d+)? \+\d+(?:,\d+)? @@ ?(.*)$/.exec(line) ?? /^@@ ?(.*)$/.exec(line)
      const context = m?.[1]?.trim()
      chunk = { context: context || undefined, oldLines: [], newLines: [] }
      chunks.push(chunk)
    } else if (!chunk) {
      if (!line.startsWith('--- ') && !line.startsWith('+++ ') && !line.startsWith('diff ') && !line.startsWith('index ')) {
        throw new PatchError('INVALID_PATCH', `unexpected line before the first hunk: ${line}`)
      }
    } else if (line.startsWith('\\')) {
      // "\ No newline at end of file"
    } else if (line === '' || line[0] === ' ') {
      // A blank context line whose leading space was lost is still context.
      chunk.oldLines.push(line.slice(1))
      chunk.newLines.push(line.slice(1))
    } else if (line[0] === '-') chunk.oldLines.push(line.slice(1))
    else if (line[0] === '+') chunk.newLines.push(line.slice(1))
    else throw new PatchError('INVALID_PATCH', `invalid hunk line: ${line}`)
  }
  if (chunks.length === 0) throw new PatchError('INVALID_PATCH', 'no hunks')
  return chunks
}

/**
 * @param {string} content the file
 * @param {string} patch a unified diff of that file
 * @param {number} [passes] 1 for an exact-only applier
 */
export function codexApply(content, patch, passes = PASSES.length) {
  const lines = content.split('\n')
  if (lines[lines.length - 1] === '') lines.pop()
  /** @type {Array<[number, number, string[]]>} */
  const replacements = []
  let index = 0
  for (const chunk of parseUnifiedDiff(patch)) {
    if (chunk.context !== undefined) {
      const at = seekSequence(lines, [chunk.context], index, passes)
      if (at === -1) throw new PatchError('CONTEXT_NOT_FOUND', `context not found: ${chunk.context}`)
      index = at + 1
    }
    if (chunk.oldLines.length === 0) {
      replacements.push([index, 0, chunk.newLines])
      continue
    }
    let pattern = chunk.oldLines
    let replacement = chunk.newLines
    let at = seekSequence(lines, pattern, index, passes)
    if (at === -1 && pattern[pattern.length - 1] === '') {
      pattern = pattern.slice(0, -1)
      if (replacement[replacement.length - 1] === '') replacement = replacement.slice(0, -1)
      at = seekSequence(lines, pattern, index, passes)
    }
    if (at === -1) throw new PatchError('NOT_FOUND', `expected lines not found:\n${chunk.oldLines.join('\n')}`)
    replacements.push([at, pattern.length, replacement])
    index = at + pattern.length
  }
  for (const [at, len, repl] of replacements.sort((a, b) => b[0] - a[0])) lines.splice(at, len, ...repl)
  return lines.join('\n') + '\n'
}
