// @ts-check
// Adds refs to what OpenCode's own `read` and `grep` show. The text on screen
// stays OpenCode's; only the line labels change, and only for lines the engine
// confirms are the file's current lines.

/**
 * @typedef {import("./types.mjs").ShownLine} ShownLine
 * @typedef {import("./types.mjs").TagResult} TagResult
 * @typedef {(file: string, lines: ShownLine[]) => TagResult | Promise<TagResult>} Tagger
 * @typedef {(file: string) => Promise<string | undefined>} NotebookView the engine's view of a notebook's cells, or undefined where it has none
 */

/** A Jupyter notebook's name, which the engine reads as cells. */
const NOTEBOOK = /\.ipynb$/i

/**
 * One tagged line in the style of its ref: lean refs are followed by a
 * space, full ones by `|`.
 * @param {string} ref
 * @param {string} text
 */
function taggedLine(ref, text) {
  return /^\d+[a-z]{2}$/.test(ref) ? `${ref} ${text}` : `${ref}|${text}`
}

const TRUNCATION = /\.\.\. \(line truncated to \d+ chars\)$/
const READ_LINE = /^(\d+): (.*)$/s

/**
 * @param {string} text
 * @returns {{ text: string, truncated: boolean, suffix: string }}
 */
function splitTruncation(text) {
  const m = TRUNCATION.exec(text)
  if (!m) return { text, truncated: false, suffix: "" }
  return { text: text.slice(0, m.index), truncated: true, suffix: m[0] }
}

/**
 * Tags the output of OpenCode's `read` for a text file:
 * `12: text` becomes `12ab text` (or `12#A3F#9BC|text` in the full view), and the REV is shown once before the
 * content. A notebook's JSON gives way to the engine's view of its cells,
 * inside the same tags. Anything that is not a text view (folders, images,
 * PDFs, errors) or that cannot be matched to the file comes back unchanged.
 * @param {string} output
 * @param {Tagger} tag
 * @param {NotebookView} [notebook]
 * @returns {Promise<string>}
 */
export async function tagReadOutput(output, tag, notebook) {
  const lines = output.split("\n")
  const pathMatch = /^<path>(.*)<\/path>$/.exec(lines[0] ?? "")
  if (!pathMatch || lines[1] !== "<type>file</type>" || lines[2] !== "<content>") return output
  const file = pathMatch[1]
  const cells = notebook && NOTEBOOK.test(file) ? await notebook(file) : undefined
  if (cells !== undefined) {
    // What OpenCode adds after the content (instructions it loaded) stays.
    const close = lines.indexOf("</content>", 3)
    return [...lines.slice(0, 3), cells.replace(/\n$/, ""), ...(close === -1 ? ["</content>"] : lines.slice(close))].join("\n")
  }

  /** @type {Array<{ index: number, line: number, shown: string, suffix: string }>} */
  const rows = []
  let expected = -1
  for (let i = 3; i < lines.length; i++) {
    const m = READ_LINE.exec(lines[i])
    if (!m) break
    const line = Number(m[1])
    if (expected !== -1 && line !== expected) break
    expected = line + 1
    const parts = splitTruncation(m[2])
    rows.push({ index: i, line, shown: parts.text, suffix: parts.suffix })
  }
  const end = 3 + rows.length
  // The view is complete only when it is followed by OpenCode's footer; a
  // half-recognised view is left alone rather than half-tagged.
  if (lines[end] !== "" || !/^\((End of file|Showing lines|Output capped)/.test(lines[end + 1] ?? "")) return output

  /** @type {ShownLine[]} */
  const shown = rows.map((row, i) => {
    // A byte order mark is not part of line 1 for the engine.
    const text = row.line === 1 && i === 0 ? row.shown.replace(/^\uFEFF/, "") : row.shown
    return row.suffix ? { line: row.line, text, truncated: true } : { line: row.line, text }
  })
  const result = await tag(file, shown)
  if (rows.length > 0 && result.refs.every((ref) => !ref)) return output

  const out = lines.slice()
  rows.forEach((row, i) => {
    const ref = result.refs[i]
    if (ref) out[row.index] = taggedLine(ref, `${shown[i].text}${row.suffix}`)
  })
  out.splice(2, 0, `REV:${result.rev}`)
  return out.join("\n")
}

const GREP_HIT = /^  Line (\d+): (.*)$/s
// grep cuts a hit's text (terminator included) at 2000 UTF-16 units, minus a
// dangling high surrogate, and appends "...".
const GREP_CUT = 2000

/**
 * @param {string} raw
 * @returns {{ text: string, suffix: string }}
 */
function splitGrepText(raw) {
  if (raw.endsWith("...")) {
    const kept = raw.length - 3
    if (kept === GREP_CUT || kept === GREP_CUT - 1) return { text: raw.slice(0, kept), suffix: "..." }
  }
  // The hit carries its line ending; the "\n" already split the output.
  return { text: raw.replace(/\r$/, ""), suffix: "" }
}

/**
 * Tags the output of OpenCode's `grep`: each `  Line 12: text` under a file
 * becomes `  12ab text` (or `  12#A3F#9BC|text`), so a search hit can be edited directly. Hits
 * whose text no longer matches the file keep their plain form.
 * @param {string} output
 * @param {Tagger} tag
 * @returns {Promise<string>}
 */
export async function tagGrepOutput(output, tag) {
  if (!/^Found \d+ match/.test(output)) return output
  const lines = output.split("\n")
  /** @type {Map<string, Array<{ index: number, line: number, text: string, suffix: string }>>} */
  const byFile = new Map()
  /** @type {string | undefined} */
  let current
  for (let i = 1; i < lines.length; i++) {
    const text = lines[i]
    const hit = GREP_HIT.exec(text)
    if (hit && current) {
      const parts = splitGrepText(hit[2])
      byFile.get(current)?.push({ index: i, line: Number(hit[1]), text: parts.text, suffix: parts.suffix })
      continue
    }
    // Each hit keeps its own line ending, so blank lines separate hits of one file.
    if (text === "") continue
    if (text.endsWith(":") && !text.startsWith(" ")) {
      current = text.slice(0, -1)
      if (!byFile.has(current)) byFile.set(current, [])
      continue
    }
    current = undefined
  }

  const out = lines.slice()
  for (const [file, hits] of byFile) {
    if (hits.length === 0) continue
    /** @type {TagResult} */
    let result
    try {
      result = await tag(
        file,
        hits.map((h) => (h.suffix ? { line: h.line, text: h.text, truncated: true } : { line: h.line, text: h.text })),
      )
    } catch {
      // A hit in a file the engine cannot serve (binary, too large, gone)
      // keeps its plain form.
      continue
    }
    hits.forEach((h, i) => {
      const ref = result.refs[i]
      if (ref) out[h.index] = `  ${taggedLine(ref, `${h.text}${h.suffix}`)}`
    })
  }
  return out.join("\n")
}

const PAGE_HEADER = /^Read file (.+), lines (\d+)-(\d+)$/

/**
 * Tags the output of OpenCode 2's `read` for a text file:
 * `Read file PATH, lines A-B` and then `12: text` per line. Each line becomes
 * `12ab text` (or `12#A3F#9BC|text`), and the REV is shown on its own line
 * after the header. A notebook's JSON gives way to the engine's view of its
 * cells. Anything else (folders, images, errors, a view whose lines do not
 * follow the header) comes back unchanged, and so do lines the engine does
 * not confirm as the file's current lines.
 * @param {string} output
 * @param {Tagger} tag
 * @param {NotebookView} [notebook]
 * @returns {Promise<string>}
 */
export async function tagReadPageOutput(output, tag, notebook) {
  const lines = output.split("\n")
  const header = PAGE_HEADER.exec(lines[0] ?? "")
  if (!header) return output
  const cells = notebook && NOTEBOOK.test(header[1]) ? await notebook(header[1]) : undefined
  if (cells !== undefined) return cells.replace(/\n$/, "")
  const [first, last] = [Number(header[2]), Number(header[3])]
  /** @type {ShownLine[]} */
  const shown = []
  for (let line = first; line <= last; line++) {
    const m = READ_LINE.exec(lines[1 + line - first] ?? "")
    if (!m || Number(m[1]) !== line) return output
    // A byte order mark is not part of line 1 for the engine.
    shown.push({ line, text: line === 1 ? m[2].replace(/^\uFEFF/, "") : m[2] })
  }
  const result = await tag(header[1], shown)
  if (result.refs.every((ref) => !ref)) return output
  const out = lines.slice()
  shown.forEach((row, i) => {
    const ref = result.refs[i]
    if (ref) out[1 + i] = taggedLine(ref, row.text)
  })
  out.splice(1, 0, `REV:${result.rev}`)
  return out.join("\n")
}
