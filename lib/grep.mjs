// @ts-check
// A search over the text files under a root whose hits carry refs: the engine
// tags each matching line from the file itself, and records the version, so an
// edit can cite a hit without reading the file first.
import fs from "node:fs"
import path from "node:path"

/**
 * @typedef {import("../index.js").Hashline} Hashline
 * @typedef {{ path: string, rev: string, hits: Array<{ line: number, ref: string | null, text: string, cut: boolean }> }} FileHits
 * @typedef {{ text: string, files: FileHits[], matches: number, shown: number }} GrepResult
 */

export const MAX_SHOWN = 100
// Long lines (minified code) would flood the output; the ref still names the whole line.
const MAX_LINE = 2000
const SKIPPED_FOLDERS = new Set(["node_modules"])

/**
 * @param {string} message
 * @param {string} code
 */
function failure(message, code) {
  return Object.assign(new Error(message), { code })
}

/**
 * A glob as a regular expression: `*` and `?` within one path segment, `**`
 * across segments, `{a,b}` alternatives and `[...]` classes.
 * @param {string} glob
 */
export function globToRegExp(glob) {
  let out = ""
  let depth = 0
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]
    if (c === "*") {
      if (glob[i + 1] === "*") {
        const slash = glob[i + 2] === "/"
        out += slash ? "(?:.*/)?" : ".*"
        i += slash ? 2 : 1
      } else {
        out += "[^/]*"
      }
    } else if (c === "?") out += "[^/]"
    else if (c === "{") {
      out += "(?:"
      depth++
    } else if (c === "}" && depth > 0) {
      out += ")"
      depth--
    } else if (c === "," && depth > 0) out += "|"
    else if (c === "[") {
      const end = glob.indexOf("]", i + 2)
      if (end === -1) out += "\\["
      else {
        const body = glob.slice(i + 1, end)
        out += `[${body.startsWith("!") ? `^${body.slice(1)}` : body}]`
        i = end
      }
    } else out += c.replace(/[.+^$()|\\\]]/g, "\\$&")
  }
  if (depth > 0) throw failure(`include ${JSON.stringify(glob)} has an unclosed {.`, "INVALID_REQUEST")
  return new RegExp(`^${out}$`)
}

/**
 * The search pattern; `(?i)` in front, which JavaScript does not know, means
 * ignore case as in most other regex dialects.
 * @param {string} pattern
 */
function compile(pattern) {
  const caseless = pattern.startsWith("(?i)")
  const source = caseless ? pattern.slice(4) : pattern
  try {
    return new RegExp(source, caseless ? "iu" : "u")
  } catch (err) {
    try {
      return new RegExp(source, caseless ? "i" : "")
    } catch {
      throw failure(`pattern is not a valid regular expression: ${err instanceof Error ? err.message : String(err)}`, "INVALID_REQUEST")
    }
  }
}

/**
 * @param {string} parent
 * @param {string} child
 */
function inside(parent, child) {
  const rel = path.relative(parent, child)
  return rel === "" || (!rel.startsWith("..") && !path.isAbsolute(rel))
}

/**
 * The files to search, sorted, each as an absolute path whose real location is
 * inside the root. Linked folders are not followed (no loops, no way out).
 * @param {string} root canonical
 * @param {string} start canonical, inside root
 * @param {(rel: string) => boolean} keep
 */
function listFiles(root, start, keep) {
  /** @type {string[]} */
  const files = []
  const stat = fs.statSync(start)
  if (stat.isFile()) return [start]
  /** @param {string} dir */
  const walk = (dir) => {
    let entries
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true })
    } catch {
      return
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    for (const entry of entries) {
      if (entry.name.startsWith(".") || SKIPPED_FOLDERS.has(entry.name)) continue
      const full = path.join(dir, entry.name)
      if (entry.isDirectory()) walk(full)
      else if (entry.isFile()) {
        if (keep(path.relative(root, full))) files.push(full)
      } else if (entry.isSymbolicLink()) {
        let real
        try {
          real = fs.realpathSync(full)
          if (!fs.statSync(real).isFile()) continue
        } catch {
          continue
        }
        if (inside(root, real) && keep(path.relative(root, full))) files.push(full)
      }
    }
  }
  walk(start)
  return files
}

/**
 * The file's lines in the engine's canonical form (no BOM, any line ending),
 * or undefined for a file that is not text the engine would show.
 * @param {string} file
 * @param {number} maxBytes
 */
function textLines(file, maxBytes) {
  let bytes
  try {
    if (fs.statSync(file).size > maxBytes) return undefined
    bytes = fs.readFileSync(file)
  } catch {
    return undefined
  }
  if (bytes.includes(0)) return undefined
  let text
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes)
  } catch {
    return undefined
  }
  const lines = text.replace(/^\uFEFF/, "").split(/\r\n|\r|\n/)
  if (lines[lines.length - 1] === "") lines.pop()
  return lines
}

/** @param {string} p */
const posix = (p) => p.split(path.sep).join("/")

/**
 * Searches the files under `path` (default: the whole root) for lines
 * matching `pattern`, and tags the hits with refs through `engine`.
 * @param {Hashline} engine
 * @param {{ pattern: string, path?: string, include?: string, maxFileBytes?: number }} args
 * @returns {GrepResult}
 */
export function grep(engine, args) {
  const root = engine.root
  const regex = compile(args.pattern)
  const target = path.resolve(root, args.path ?? ".")
  const shownTarget = args.path ?? "."
  /** @param {string} location */
  const outside = (location) =>
    failure(`${shownTarget} resolves to ${location}, outside the project root ${root}; it may not be searched here.`, "OUTSIDE_ROOT")
  let start
  try {
    start = fs.realpathSync(target)
  } catch {
    throw inside(root, target) ? failure(`${shownTarget} does not exist.`, "NOT_FOUND") : outside(target)
  }
  // The real location decides: a link inside the root may lead out of it,
  // and an absolute path may name the root through a link to it.
  if (!inside(root, start)) throw outside(start)

  const include = args.include ? globToRegExp(args.include) : undefined
  const byPath = Boolean(args.include && args.include.includes("/"))
  /** @param {string} rel */
  const keep = (rel) => !include || include.test(byPath ? posix(rel) : path.basename(rel))
  const maxBytes = args.maxFileBytes ?? 16 * 1024 * 1024

  /** @type {FileHits[]} */
  const files = []
  let matches = 0
  let shown = 0
  for (const file of listFiles(root, start, keep)) {
    const lines = textLines(file, maxBytes)
    if (!lines) continue
    /** @type {Array<{ line: number, text: string, cut: boolean }>} */
    const found = []
    lines.forEach((text, i) => {
      if (!regex.test(text)) return
      matches++
      if (shown >= MAX_SHOWN) return
      shown++
      const cut = text.length > MAX_LINE
      found.push({ line: i + 1, text: cut ? text.slice(0, MAX_LINE) : text, cut })
    })
    if (found.length === 0) continue
    let tagged
    try {
      tagged = engine.tag(file, found.map((f) => (f.cut ? { line: f.line, text: f.text, truncated: true } : { line: f.line, text: f.text })))
    } catch {
      // A file the engine will not serve (it changed kind, or vanished) has no refs to offer.
      shown -= found.length
      matches -= found.length
      continue
    }
    files.push({
      path: posix(path.relative(root, file)),
      rev: tagged.rev,
      hits: found.map((f, i) => ({ line: f.line, ref: tagged.refs[i] ?? null, text: f.text, cut: f.cut })),
    })
  }
  return { text: render(files, matches, shown), files, matches, shown }
}

/**
 * @param {FileHits[]} files
 * @param {number} matches
 * @param {number} shown
 */
function render(files, matches, shown) {
  if (matches === 0) return "No matches found.\n"
  const out = [`Found ${matches} matching line${matches === 1 ? "" : "s"}${shown < matches ? `, showing the first ${shown}` : ""}.`]
  for (const file of files) {
    out.push("", `${file.path} REV:${file.rev}`)
    for (const hit of file.hits) {
      const text = hit.cut ? `${hit.text}...` : hit.text
      // A line that changed while it was searched gets no ref: a plain
      // number cannot be cited by mistake.
      out.push(hit.ref ? `  ${hit.ref}|${text}` : `  ${hit.line}: ${text}`)
    }
  }
  if (shown < matches) out.push("", "Narrow the pattern, path or include to see the other matches.")
  return `${out.join("\n")}\n`
}
