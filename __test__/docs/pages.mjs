// @ts-check
// The documentation as the docs suites read it: the pages (README.md,
// ARCHITECTURE.md and everything under docs/), and in each its fenced
// blocks, links, headings and tables, the way GitHub renders them.
import fs from "node:fs"
import path from "node:path"
import { fileURLToPath } from "node:url"

export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..")

/**
 * Every page, as a path from the repository's root with `/` separators.
 * @returns {string[]}
 */
export function pages() {
  /** @type {string[]} */
  const found = ["README.md", "ARCHITECTURE.md"]
  /** @param {string} dir */
  const walk = (dir) => {
    for (const entry of fs.readdirSync(path.join(REPO, dir), { withFileTypes: true })) {
      const name = `${dir}/${entry.name}`
      if (entry.isDirectory()) walk(name)
      else if (entry.name.endsWith(".md")) found.push(name)
    }
  }
  walk("docs")
  return found
}

/** @param {string} page */
export const readPage = (page) => fs.readFileSync(path.join(REPO, page), "utf8")

/**
 * @typedef {{ info: string, text: string, line: number }} Block
 * A fenced block: its info string (`js`, `sh`, or empty), its text, and the
 * 1-based line of its opening fence.
 */

/**
 * The fenced blocks of a page, in order, and the page with each block's
 * lines blanked (so that what is left is prose).
 * @param {string} text
 * @returns {{ blocks: Block[], prose: string }}
 */
export function fenced(text) {
  const lines = text.split("\n")
  /** @type {Block[]} */
  const blocks = []
  /** @type {{ fence: string, info: string, line: number, body: string[] } | undefined} */
  let open
  const prose = lines.map((line, i) => {
    const fence = /^ {0,3}(`{3,}|~{3,})(.*)$/.exec(line)
    if (open) {
      if (fence && fence[1][0] === open.fence[0] && fence[1].length >= open.fence.length && fence[2].trim() === "") {
        blocks.push({ info: open.info, text: open.body.join("\n"), line: open.line })
        open = undefined
      } else {
        open.body.push(line)
      }
      return ""
    }
    if (fence) {
      open = { fence: fence[1], info: fence[2].trim(), line: i + 1, body: [] }
      return ""
    }
    return line
  })
  if (open) throw new Error(`a fenced block opened on line ${open.line} is never closed`)
  return { blocks, prose: prose.join("\n") }
}

/**
 * Inline code spans blanked out, keeping the text around them (link texts
 * may hold code; a link written inside code is no link).
 * @param {string} prose
 */
const withoutCode = (prose) => prose.replace(/(`+)[\s\S]*?\1/g, (span) => span.replace(/[^\n]/g, " "))

/**
 * The inline links of a page, outside code: `[text](target)`, the text
 * possibly wrapped over lines.
 * @param {string} text
 * @returns {Array<{ target: string, line: number }>}
 */
export function links(text) {
  const prose = withoutCode(fenced(text).prose)
  /** @type {Array<{ target: string, line: number }>} */
  const found = []
  for (const m of prose.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]*)>?(?:\s+"[^"]*")?\s*\)/g)) {
    found.push({ target: m[1], line: prose.slice(0, m.index).split("\n").length })
  }
  return found
}

/**
 * The anchor GitHub gives a heading: lower case, punctuation and symbols
 * dropped (hyphens and underscores kept), spaces as hyphens.
 * @param {string} heading
 */
export const slug = (heading) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, "")
    .replace(/ /g, "-")

/**
 * The anchors of a page's headings, a repeated one numbered as GitHub
 * numbers it (`name`, `name-1`, ...).
 * @param {string} text
 * @returns {Set<string>}
 */
export function anchors(text) {
  const found = new Set()
  for (const line of fenced(text).prose.split("\n")) {
    const heading = /^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)
    if (!heading) continue
    const base = slug(heading[1])
    let name = base
    for (let n = 1; found.has(name); n++) name = `${base}-${n}`
    found.add(name)
  }
  return found
}

/**
 * The text of a page's section: from the heading whose text is `heading`
 * to the next heading of the same or a higher level.
 * @param {string} text
 * @param {string} heading
 */
export function section(text, heading) {
  const lines = text.split("\n")
  const start = lines.findIndex((line) => /^#{1,6} /.test(line) && line.replace(/^#+ /, "") === heading)
  if (start === -1) throw new Error(`no heading "${heading}"`)
  const level = /** @type {RegExpExecArray} */ (/^#+/.exec(lines[start]))[0].length
  const end = lines.findIndex((line, i) => i > start && /^#{1,6} /.test(line) && /** @type {RegExpExecArray} */ (/^#+/.exec(line))[0].length <= level)
  return lines.slice(start + 1, end === -1 ? undefined : end).join("\n")
}

/**
 * The tables of a text, each as its rows of cells (header first, the
 * delimiter row left out). Cells are trimmed; a `|` inside code is not
 * written in these pages, so every `|` separates cells.
 * @param {string} text
 * @returns {string[][][]}
 */
export function tables(text) {
  /** @type {string[][][]} */
  const found = []
  /** @type {string[][] | undefined} */
  let rows
  for (const line of fenced(text).prose.split("\n")) {
    if (!line.startsWith("|")) {
      rows = undefined
      continue
    }
    const cells = line.replace(/^\|/, "").replace(/\|\s*$/, "").split("|").map((cell) => cell.trim())
    if (!rows) found.push((rows = []))
    if (!cells.every((cell) => /^:?-+:?$/.test(cell))) rows.push(cells)
  }
  return found
}

/**
 * The code spans of a text, without their backticks.
 * @param {string} text
 */
export const codeSpans = (text) => [...text.matchAll(/(`+)([\s\S]*?)\1/g)].map((m) => m[2].trim())
