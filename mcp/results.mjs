// @ts-check
// What the MCP tools return besides their text: `structuredContent` in the
// shape each tool's `outputSchema` declares, so that a client can take the
// path, REV, lines, hits and, on an error, its code and mismatches without
// parsing the text written for the model.
import { ERROR_SCHEMA, PROBLEM_SCHEMA, REF_SCHEMA } from "../lib/errors.mjs"

/**
 * @typedef {import("../index.js").ReadView} ReadView
 * @typedef {import("../index.js").EditResult} EditResult
 * @typedef {import("../index.js").BatchResult} BatchResult
 * @typedef {import("../index.js").SearchResult} SearchResult
 * @typedef {import("../lib/errors.mjs").ErrorInfo} ErrorInfo
 */

// Past this size the diff is left out of the structured content: the text
// carries it already, and a message holding it twice would pass what
// clients read in one message.
const DIFF_BYTES = 256 * 1024

const LINE = {
  type: "object",
  properties: {
    line: { type: "integer", description: "1-based line number." },
    ref: REF_SCHEMA,
    text: { type: "string", description: "The line as shown (a line longer than 2000 characters is cut, with a note)." },
  },
  required: ["line", "ref", "text"],
}

/**
 * An output schema: `ok`, then the result's fields when true, `error` when false.
 * @param {Record<string, unknown>} properties
 */
const schema = (properties) => ({
  type: "object",
  properties: { ok: { type: "boolean", description: "false when the call failed and `error` says why." }, ...properties, error: ERROR_SCHEMA },
  required: ["ok"],
})

const HIT_LINE = { ...LINE, properties: { ...LINE.properties, truncated: { type: "boolean" } } }

/** An edit's fields: the result of one file. */
const EDITED = {
  path: { type: "string" },
  headline: { type: "string", description: "The first sentence of the text: what was done to the file, e.g. Applied 2 operations to src/a.ts." },
  rev: { type: "string", description: "The REV of the file as written." },
  previousRev: { type: "string" },
  additions: { type: "integer" },
  deletions: { type: "integer" },
  diff: { type: "string", description: `The unified diff of the edit; left out past ${DIFF_BYTES / 1024} KiB (the text content shows it, cut to fit).` },
  problems: { type: "array", description: "Problems a checker found in the lines written, with the refs to fix them.", items: PROBLEM_SCHEMA },
}

export const OUTPUT_SCHEMAS = {
  read: schema({
    path: { type: "string" },
    rev: { type: "string", description: "The REV of the version shown: 8 hex digits." },
    totalLines: { type: "integer" },
    startLine: { type: "integer" },
    endLine: { type: "integer" },
    lines: { type: "array", items: LINE },
  }),
  edit: schema(EDITED),
  apply: schema({
    files: { type: "array", description: "Each file's result, in the order of the request; all were written as one change.", items: { type: "object", properties: EDITED, required: ["path", "rev"] } },
  }),
  grep: schema({
    hits: {
      type: "array",
      items: {
        type: "object",
        properties: {
          path: { type: "string" },
          rev: { type: "string" },
          ...HIT_LINE.properties,
          before: { type: "array", items: HIT_LINE },
          after: { type: "array", items: HIT_LINE },
        },
        required: ["path", "rev", "line", "ref", "text"],
      },
    },
    shown: { type: "integer", description: "Hits shown." },
    files: { type: "integer", description: "Files with hits shown." },
    more: { type: "integer", description: "Hits found past the limit and not shown." },
    stopped: { type: "boolean", description: "The search stopped at the limit." },
    skipped: {
      type: "object",
      description: "Files not searched, by reason.",
      properties: {
        binary: { type: "integer" },
        notUtf8: { type: "integer" },
        tooLarge: { type: "integer" },
        unreadable: { type: "integer" },
        files: { type: "array", items: { type: "object", properties: { path: { type: "string" }, reason: { type: "string" } }, required: ["path", "reason"] } },
      },
    },
  }),
}

/**
 * The lines of a view with their refs. The view shows one line per file
 * line from `startLine` to `endLine`, after its header line: `12ab content`
 * in the lean view, `12#A3F#9BC|content` in the full one. A file line holds
 * no line break, so the view's lines map one to one.
 * @param {ReadView} view
 */
function viewLines(view) {
  const shown = view.text.split("\n").slice(1, 1 + Math.max(0, view.endLine - view.startLine + 1))
  return shown.map((entry, i) => {
    const tagged = /^(\d+[a-z]{2}) /.exec(entry) ?? /^(\d+#[0-9A-F]{3}#[0-9A-F]{3})\|/.exec(entry)
    const ref = tagged ? tagged[1] : ""
    return { line: view.startLine + i, ref, text: entry.slice(tagged ? tagged[0].length : 0) }
  })
}

/** @param {ReadView} view */
export function readContent(view) {
  const { text, ...fields } = view
  return { ok: true, ...fields, lines: viewLines(view) }
}

/** @param {EditResult} result */
function edited(result) {
  const { output, diff, ...fields } = result
  return { ...fields, ...(Buffer.byteLength(diff) <= DIFF_BYTES ? { diff } : {}) }
}

/** @param {EditResult} result */
export const editContent = (result) => ({ ok: true, ...edited(result) })

/** @param {BatchResult} result */
export const applyContent = (result) => ({ ok: true, files: result.files.map(edited) })

/** @param {SearchResult} result */
export function grepContent(result) {
  const { text, ...fields } = result
  return { ok: true, ...fields }
}

/** @param {ErrorInfo} error */
export const errorContent = (error) => ({ ok: false, error })
