// @ts-check
// What every host shows the model about the read, edit and grep tools: the
// descriptions, the JSON schemas and the argument checks. The OpenCode tool,
// the MCP server, the command line and the framework tools all import them
// from here, so a model meets the same tool wherever it runs.

import { types } from "node:util"

/**
 * @typedef {import("../index.js").EditRequest} EditRequest
 * @typedef {{ type: "object", properties: Record<string, any>, required: string[] }} ObjectSchema
 */

export const OPS = /** @type {const} */ (["replace", "delete", "insert_before", "insert_after", "prepend", "append", "move", "copy", "replace_block", "delete_block", "insert_before_block", "insert_after_block"])

export const EDIT_DESCRIPTION = `Edit a file by citing the refs that read and grep show before each line, e.g. \`12ab   return total;\` has the ref \`12ab\` (line 12, tag ab). Full refs (\`12#A3F#9BC\` from \`12#A3F#9BC|  return total;\`) work too.
Give filePath and operations; the whole batch is checked against the version you read and applied at once, or nothing is written:
- {"op":"replace","ref":R,"through":R2,"content":C}: lines R..R2 (inclusive; omit through for one line) become C
- {"op":"delete","ref":R,"through":R2}
- {"op":"insert_before"|"insert_after","ref":R,"content":C}
- {"op":"prepend"|"append","content":C}: at the start or end of the file (append creates a missing file)
- {"op":"move"|"copy","ref":R,"through":R2,"after":R3} (or "before":R3): lines R..R2 as they are, put after (before) line R3, with no retyping
- {"op":"replace_block"|"delete_block"|"insert_before_block"|"insert_after_block","ref":R,"content":C}: R is the first line of a function, class, if/for/while/try, element, object or Markdown section (the outermost one starting there); the engine finds its last line
content is the new text only, lines separated by \\n, never with the ref prefixes; it is written exactly as sent. Lines that look copied from a view (a ref at their start, or a repeat of the line next to where the content goes) are removed only where the engine proves them copies; where it cannot tell, the edit is refused with AMBIGUOUS_ECHO: send it again without those lines, or with "literal": true (on an operation, or on the whole request) to write the content exactly as sent. All refs name lines of the version you read: do not adjust line numbers for earlier operations of the same batch. rev (the REV the read showed) is optional.
The result shows fresh refs for the changed lines and how the others moved: keep editing from it without reading again. A rejected edit says why and shows the current lines with fresh refs.
Without refs, oldString/newString (and replaceAll) replace one unique occurrence of oldString instead, as the classic edit tool does.`

export const READ_DESCRIPTION = `Read a text file. Each line comes with its ref: \`LINEab content\`, e.g. \`12ab   return total;\` (ref \`12ab\`), or in the full view \`LINE#HASH#ANCHOR|content\`, e.g. \`12#A3F#9BC|  return total;\`; the first line names the file, its REV (e.g. \`REV:72C4946C\`) and the lines shown. The ref and the one space (or \`|\`) after it are not part of the file.
Cite the refs in edit operations instead of retyping old lines.
Shows up to 2000 lines from offset (1-based, default 1); for a long file the last line says how to read on.`

export const GREP_DESCRIPTION = `Search the text files under the project folder for lines matching a regular expression (Rust regex syntax, as in ripgrep: no look-around or backreferences). Each matching line comes with its ref, \`LINEab content\` (or \`LINE#HASH#ANCHOR|content\` in the full view), under a header with the file's path and REV, so a hit can be edited without reading the file first.
path narrows the search to a file or folder; include keeps the files matching a glob such as *.ts, *.{js,mjs} or src/**/*.rs, and exclude leaves files or folders out. Files .gitignore lists, hidden files and binary files are skipped unless path names them; hidden: true searches hidden files too. ignoreCase, fixedStrings (the pattern as plain text) and word (whole words only) refine the match; context shows lines around each hit, with refs. Shows up to maxResults matching lines (default 100), and says how many more it found.`

/** The descriptions of the edit arguments, shared by the JSON schema and the zod schema. */
export const EDIT_FIELDS = {
  filePath: "Path of the file to edit, absolute or relative to the session folder",
  rev: "The REV the read showed, e.g. 72C4946C (optional)",
  operations: "Edits citing refs, all against the version you read",
  op: "What to do",
  ref: "Ref of the first line, as shown, e.g. 12ab or 12#A3F#9BC (not for prepend/append)",
  through: "Ref of the last line of a replace, delete, move or copy range (inclusive)",
  after: "move/copy: ref of the line to put the lines after",
  before: "move/copy: ref of the line to put the lines before",
  content: "New lines, separated by \\n, without ref prefixes (replace*, insert_*, prepend, append)",
  literal: "true: write the content exactly as sent, with no line removed as a copy from a view (on an operation, or on the request for all of them)",
  oldString: "Fallback without refs: exact text to replace",
  newString: "Fallback without refs: the replacement text",
  replaceAll: "Fallback without refs: replace every occurrence of oldString",
}

/**
 * The edit arguments as JSON Schema: flat (no unions, which some providers
 * refuse), content a plain string, only filePath required.
 * @type {ObjectSchema}
 */
export const EDIT_SCHEMA = {
  type: "object",
  properties: {
    filePath: { description: EDIT_FIELDS.filePath, type: "string" },
    rev: { description: EDIT_FIELDS.rev, type: "string" },
    operations: {
      description: EDIT_FIELDS.operations,
      type: "array",
      items: {
        type: "object",
        properties: {
          op: { description: EDIT_FIELDS.op, type: "string", enum: [...OPS] },
          ref: { description: EDIT_FIELDS.ref, type: "string" },
          through: { description: EDIT_FIELDS.through, type: "string" },
          content: { description: EDIT_FIELDS.content, type: "string" },
          after: { description: EDIT_FIELDS.after, type: "string" },
          before: { description: EDIT_FIELDS.before, type: "string" },
          literal: { description: EDIT_FIELDS.literal, type: "boolean" },
        },
        required: ["op"],
      },
    },
    literal: { description: EDIT_FIELDS.literal, type: "boolean" },
    oldString: { description: EDIT_FIELDS.oldString, type: "string" },
    newString: { description: EDIT_FIELDS.newString, type: "string" },
    replaceAll: { description: EDIT_FIELDS.replaceAll, type: "boolean" },
  },
  required: ["filePath"],
}

/** @type {ObjectSchema} */
export const READ_SCHEMA = {
  type: "object",
  properties: {
    filePath: { description: "Path of the file to read, absolute or relative to the session folder", type: "string" },
    offset: { description: "First line to show, 1-based (default 1)", type: "integer", minimum: 1 },
    limit: { description: "How many lines to show (default 2000)", type: "integer", minimum: 1 },
    view: { description: "lean (12ab content) or full (12#A3F#9BC|content); default: the server's", type: "string", enum: ["lean", "full"] },
  },
  required: ["filePath"],
}

/** @type {ObjectSchema} */
export const GREP_SCHEMA = {
  type: "object",
  properties: {
    pattern: { description: "Regular expression to search for (Rust regex syntax), e.g. fn\\s+total", type: "string" },
    path: { description: "File or folder to search, relative to the session folder (default: all of it)", type: "string" },
    include: { description: "Glob that files must match, e.g. *.ts, *.{js,mjs} or src/**/*.rs", type: "string" },
    exclude: { description: "Glob of files or folders to leave out, e.g. *.test.ts or vendor/", type: "string" },
    ignoreCase: { description: "Ignore case (default false)", type: "boolean" },
    fixedStrings: { description: "Take the pattern as plain text, not a regular expression (default false)", type: "boolean" },
    word: { description: "Match whole words only (default false)", type: "boolean" },
    hidden: { description: "Also search hidden files and folders (default false)", type: "boolean" },
    context: { description: "Lines to show before and after each hit, with refs (default 0)", type: "integer", minimum: 0 },
    maxResults: { description: "Matching lines to show at most (default 100)", type: "integer", minimum: 1 },
  },
  required: ["pattern"],
}

/**
 * The zod form of the edit arguments, for hosts that take zod (OpenCode),
 * built from the same descriptions as EDIT_SCHEMA.
 * @param {typeof import("zod").z} z
 */
export function zodEditArgs(z) {
  return {
    filePath: z.string().describe(EDIT_FIELDS.filePath),
    rev: z.string().optional().describe(EDIT_FIELDS.rev),
    operations: z
      .array(
        z.object({
          op: z.enum(OPS).describe(EDIT_FIELDS.op),
          ref: z.string().optional().describe(EDIT_FIELDS.ref),
          through: z.string().optional().describe(EDIT_FIELDS.through),
          content: z.string().optional().describe(EDIT_FIELDS.content),
          after: z.string().optional().describe(EDIT_FIELDS.after),
          before: z.string().optional().describe(EDIT_FIELDS.before),
          literal: z.boolean().optional().describe(EDIT_FIELDS.literal),
        }),
      )
      .optional()
      .describe(EDIT_FIELDS.operations),
    literal: z.boolean().optional().describe(EDIT_FIELDS.literal),
    oldString: z.string().optional().describe(EDIT_FIELDS.oldString),
    newString: z.string().optional().describe(EDIT_FIELDS.newString),
    replaceAll: z.boolean().optional().describe(EDIT_FIELDS.replaceAll),
  }
}

/**
 * The zod form of the read arguments, for hosts that take zod, built from
 * READ_SCHEMA's descriptions.
 * @param {typeof import("zod").z} z
 */
export function zodReadArgs(z) {
  const p = READ_SCHEMA.properties
  return {
    filePath: z.string().describe(p.filePath.description),
    offset: z.number().int().min(1).optional().describe(p.offset.description),
    limit: z.number().int().min(1).optional().describe(p.limit.description),
    view: z.enum(["lean", "full"]).optional().describe(p.view.description),
  }
}

/**
 * The zod form of the grep arguments, for hosts that take zod, built from
 * GREP_SCHEMA's descriptions.
 * @param {typeof import("zod").z} z
 */
export function zodGrepArgs(z) {
  const p = GREP_SCHEMA.properties
  return {
    pattern: z.string().describe(p.pattern.description),
    path: z.string().optional().describe(p.path.description),
    include: z.string().optional().describe(p.include.description),
    exclude: z.string().optional().describe(p.exclude.description),
    ignoreCase: z.boolean().optional().describe(p.ignoreCase.description),
    fixedStrings: z.boolean().optional().describe(p.fixedStrings.description),
    word: z.boolean().optional().describe(p.word.description),
    hidden: z.boolean().optional().describe(p.hidden.description),
    context: z.number().int().min(0).optional().describe(p.context.description),
    maxResults: z.number().int().min(1).optional().describe(p.maxResults.description),
  }
}

/**
 * An argument error, with the code the engine uses for malformed requests so
 * that every host reports it like one.
 * @param {string} tool
 * @param {string} message
 */
function invalid(tool, message) {
  return Object.assign(new Error(`Invalid ${tool} arguments: ${message}`), { code: "INVALID_REQUEST" })
}

/** @param {unknown} value */
export function describeType(value) {
  if (value === null) return "null"
  if (Array.isArray(value)) return "an array"
  return typeof value === "object" || typeof value === "undefined" ? `an ${typeof value}` : `a ${typeof value}`
}

/**
 * The own enumerable properties of an argument, as an object without a
 * prototype: a polluted `Object.prototype` adds nothing, a getter runs once,
 * and a Proxy or a getter that throws is refused through `fail`.
 * @param {object} value
 * @param {string} what how a message names the argument
 * @param {(message: string) => Error} fail
 * @returns {Record<string, unknown>}
 */
export function ownFields(value, what, fail) {
  if (types.isProxy(value)) throw fail(`${what} is a Proxy; pass plain data (objects, arrays, strings, numbers, booleans, null).`)
  /** @type {Array<[string, unknown]>} */
  let entries
  try {
    entries = Object.entries(value)
  } catch (err) {
    throw fail(`${what} could not be read: reading it threw ${err instanceof Error ? err.message : String(err)}. Pass plain data.`)
  }
  /** @type {Record<string, unknown>} */
  const fields = Object.create(null)
  for (const [key, field] of entries) fields[key] = field
  return fields
}

/**
 * The arguments as an object of their own fields, without the fields some
 * providers send as null when unused, after checking that no unknown field
 * is present.
 * @param {string} tool
 * @param {unknown} args
 * @param {readonly string[]} known
 * @param {string} expected
 * @param {string} [keepNull] a field whose null is reported as a wrong type rather than dropped
 */
function fields(tool, args, known, expected, keepNull) {
  if (!args || typeof args !== "object" || Array.isArray(args)) {
    throw invalid(tool, `expected an object with ${expected}, got ${describeType(args)}.`)
  }
  const input = ownFields(args, "the arguments", (message) => invalid(tool, message))
  for (const key of Object.keys(input)) {
    if (input[key] === null && key !== keepNull) delete input[key]
  }
  const unknown = Object.keys(input).filter((key) => !known.includes(key))
  if (unknown.length > 0) {
    throw invalid(tool, `unknown argument${unknown.length > 1 ? "s" : ""} ${unknown.join(", ")}. The arguments are ${known.join(", ")}.`)
  }
  return input
}

/** The names the engine accepts for `operations` (its aliases included). */
const OPERATIONS_NAMES = ["operations", "ops", "edits"]

/**
 * The host's part of reading edit arguments: an object of plain data,
 * `filePath`, nulls that strict schemas send for unused fields dropped, and
 * `operations` sent as JSON text parsed. The rest is the request, passed to
 * the engine as it is: the engine owns the request format (its fields,
 * aliases and ops) and words every error about it, the same in every host.
 * @param {unknown} args
 * @returns {{ filePath: string, request: EditRequest }}
 */
export function parseEditArguments(args) {
  if (!args || typeof args !== "object" || Array.isArray(args)) {
    throw invalid("edit", `expected an object with filePath and operations, got ${describeType(args)}.`)
  }
  const input = ownFields(args, "the arguments", (message) => invalid("edit", message))
  for (const key of Object.keys(input)) {
    if (input[key] === null && key !== "filePath") delete input[key]
  }
  const { filePath, ...request } = input
  if (typeof filePath !== "string" || filePath.trim() === "") {
    const given = filePath === undefined && Object.keys(request).length > 0 ? ` (the arguments given are ${Object.keys(request).join(", ")})` : ""
    throw invalid("edit", `filePath must be the path of the file to edit, got ${describeType(filePath)}${given}.`)
  }
  for (const name of OPERATIONS_NAMES) {
    const operations = request[name]
    // Some models send the array as JSON text; it is unambiguous, so take it.
    if (typeof operations === "string" && operations.trim().startsWith("[")) {
      try {
        request[name] = JSON.parse(operations)
      } catch {
        throw invalid("edit", `${name} must be an array of objects; the text given is not valid JSON.`)
      }
    }
  }
  return { filePath, request: /** @type {EditRequest} */ (request) }
}

/**
 * A whole number of at least `min`, also from the digits some models send as text.
 * @param {string} name
 * @param {unknown} value
 * @param {string} [tool]
 * @param {number} [min]
 * @returns {number | undefined}
 */
function positive(name, value, tool = "read", min = 1) {
  if (value === undefined) return undefined
  const n = typeof value === "string" && /^\s*\d+\s*$/.test(value) ? Number(value) : value
  if (typeof n !== "number" || !Number.isInteger(n) || n < min) {
    throw invalid(tool, `${name} must be a whole number of at least ${min}, got ${typeof value === "string" ? JSON.stringify(value) : describeType(value)}.`)
  }
  return n
}

/**
 * @param {unknown} args
 * @returns {{ filePath: string, offset?: number, limit?: number }}
 */
export function parseReadArguments(args) {
  const input = fields("read", args, Object.keys(READ_SCHEMA.properties), "filePath", "filePath")
  const { filePath } = input
  if (typeof filePath !== "string" || filePath.trim() === "") {
    throw invalid("read", `filePath must be the path of the file to read, got ${describeType(filePath)}.`)
  }
  const offset = positive("offset", input.offset)
  const limit = positive("limit", input.limit)
  const view = input.view === undefined || input.view === null ? undefined : String(input.view)
  return { filePath, ...(offset === undefined ? {} : { offset }), ...(limit === undefined ? {} : { limit }), ...(view === undefined ? {} : { view }) }
}

/**
 * A flag, also from the "true" and "false" some models send as text.
 * @param {string} name
 * @param {unknown} value
 * @returns {boolean | undefined}
 */
function flag(name, value) {
  if (value === undefined || typeof value === "boolean") return value
  if (value === "true" || value === "false") return value === "true"
  throw invalid("grep", `${name} must be true or false, got ${typeof value === "string" ? JSON.stringify(value) : describeType(value)}.`)
}

/**
 * @param {string} name
 * @param {unknown} value
 * @returns {string | undefined}
 */
function glob(name, value) {
  if (value === undefined) return undefined
  if (typeof value !== "string") throw invalid("grep", `${name} must be a glob string, got ${describeType(value)}.`)
  return value.trim() === "" ? undefined : value.trim()
}

/**
 * Checks grep arguments; the result's `options` go to `Hashline.search` as they are.
 * @param {unknown} args
 * @returns {{ pattern: string, options: import("../index.js").SearchOptions }}
 */
export function parseGrepArguments(args) {
  const input = fields("grep", args, Object.keys(GREP_SCHEMA.properties), "pattern", "pattern")
  const { pattern, path } = input
  if (typeof pattern !== "string" || pattern === "") {
    throw invalid("grep", `pattern must be a regular expression, got ${typeof pattern === "string" ? "an empty string" : describeType(pattern)}.`)
  }
  if (path !== undefined && typeof path !== "string") throw invalid("grep", `path must be a string, got ${describeType(path)}.`)
  /** @type {Record<string, unknown>} */
  const options = {
    path: path === undefined || path.trim() === "" ? undefined : path,
    include: glob("include", input.include),
    exclude: glob("exclude", input.exclude),
    ignoreCase: flag("ignoreCase", input.ignoreCase),
    fixedStrings: flag("fixedStrings", input.fixedStrings),
    word: flag("word", input.word),
    hidden: flag("hidden", input.hidden),
    context: positive("context", input.context, "grep", 0),
    maxResults: positive("maxResults", input.maxResults, "grep", 1),
  }
  return { pattern, options: Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined)) }
}
