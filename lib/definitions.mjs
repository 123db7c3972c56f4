// @ts-check
// The tools' schemas and the host's part of checking their arguments. The
// edit schema is built, when this module loads, from the engine's own
// request format (`requestFormat()`: its ops and fields, in its order) and
// the texts of `texts.mjs`, so that no host can offer an op or a field the
// engine does not decode. The OpenCode tool, the MCP server, the command line
// and the framework tools all take them from here.

import { createRequire } from "node:module"
import { types } from "node:util"
import { APPLY_FIELDS, EDIT_FIELDS, GREP_FIELDS, READ_FIELDS, editDescription } from "./texts.mjs"

/**
 * @typedef {import("../index.js").EditRequest} EditRequest
 * @typedef {import("../index.js").RequestFormat} RequestFormat
 * @typedef {{ type: "object", properties: Record<string, any>, required: string[] }} ObjectSchema
 */

const require = createRequire(import.meta.url)

/**
 * The engine's request format. Without a loadable binary (a host that
 * imports a tool must not fail to start for that), the least a schema
 * needs: every call then fails with the loader's reason anyway.
 * @returns {RequestFormat}
 */
function loadFormat() {
  try {
    return /** @type {typeof import("../index.js")} */ (require("./native.cjs")).requestFormat()
  } catch {
    return { ops: [], requestFields: [{ name: "operations", aliases: [] }], operationFields: [{ name: "op", aliases: [] }] }
  }
}

const FORMAT = loadFormat()

/** Every op the engine has, in its documented order. */
export const OPS = Object.freeze([...FORMAT.ops])

export const EDIT_DESCRIPTION = editDescription(OPS)

/**
 * The JSON type of each field of the engine's request; `operations` is
 * built from the operation fields. A field the engine adds before this table
 * knows it is offered untyped rather than hidden.
 * @type {Record<string, "string" | "boolean">}
 */
const FIELD_TYPES = {
  rev: "string",
  literal: "boolean",
  oldString: "string",
  newString: "string",
  replaceAll: "boolean",
  ref: "string",
  through: "string",
  content: "string",
  after: "string",
  before: "string",
}

/**
 * A field's JSON Schema, described by `EDIT_FIELDS`.
 * @param {string} name
 * @returns {Record<string, unknown>}
 */
function fieldSchema(name) {
  const description = EDIT_FIELDS[name] === undefined ? {} : { description: EDIT_FIELDS[name] }
  if (name === "op") return { ...description, type: "string", ...(OPS.length > 0 ? { enum: [...OPS] } : {}) }
  if (name === "operations") {
    return {
      ...description,
      type: "array",
      items: {
        type: "object",
        properties: Object.fromEntries(FORMAT.operationFields.map((f) => [f.name, fieldSchema(f.name)])),
        required: ["op"],
      },
    }
  }
  return FIELD_TYPES[name] === undefined ? description : { ...description, type: FIELD_TYPES[name] }
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
    ...Object.fromEntries(FORMAT.requestFields.map((f) => [f.name, fieldSchema(f.name)])),
  },
  required: ["filePath"],
}

/** @type {ObjectSchema} */
export const READ_SCHEMA = {
  type: "object",
  properties: {
    filePath: { description: READ_FIELDS.filePath, type: "string" },
    offset: { description: READ_FIELDS.offset, type: "integer", minimum: 1 },
    limit: { description: READ_FIELDS.limit, type: "integer", minimum: 1 },
    view: { description: READ_FIELDS.view, type: "string", enum: ["lean", "full"] },
  },
  required: ["filePath"],
}

/** @type {ObjectSchema} */
export const GREP_SCHEMA = {
  type: "object",
  properties: {
    pattern: { description: GREP_FIELDS.pattern, type: "string" },
    path: { description: GREP_FIELDS.path, type: "string" },
    include: { description: GREP_FIELDS.include, type: "string" },
    exclude: { description: GREP_FIELDS.exclude, type: "string" },
    ignoreCase: { description: GREP_FIELDS.ignoreCase, type: "boolean" },
    fixedStrings: { description: GREP_FIELDS.fixedStrings, type: "boolean" },
    word: { description: GREP_FIELDS.word, type: "boolean" },
    hidden: { description: GREP_FIELDS.hidden, type: "boolean" },
    context: { description: GREP_FIELDS.context, type: "integer", minimum: 0 },
    maxResults: { description: GREP_FIELDS.maxResults, type: "integer", minimum: 1 },
  },
  required: ["pattern"],
}

/**
 * The apply tool's arguments: edit requests, each with its filePath.
 * @type {ObjectSchema}
 */
export const APPLY_SCHEMA = {
  type: "object",
  properties: {
    files: { description: APPLY_FIELDS.files, type: "array", items: EDIT_SCHEMA },
  },
  required: ["files"],
}

/**
 * A JSON Schema of the kind these tools use (strings, booleans, whole
 * numbers, enums, arrays of objects) as zod, for hosts that take zod (OpenCode); optional
 * unless required.
 * @param {typeof import("zod").z} z
 * @param {Record<string, any>} schema
 * @param {boolean} required
 * @returns {import("zod").ZodType}
 */
function toZod(z, schema, required) {
  /** @type {import("zod").ZodType} */
  let type
  if (schema.enum) type = z.enum(schema.enum)
  else if (schema.type === "string") type = z.string()
  else if (schema.type === "boolean") type = z.boolean()
  else if (schema.type === "integer") type = schema.minimum === undefined ? z.number().int() : z.number().int().min(schema.minimum)
  else if (schema.type === "array") type = z.array(toZod(z, schema.items, true))
  else if (schema.type === "object") type = z.object(zodShape(z, schema))
  else type = z.unknown()
  if (!required) type = type.optional()
  return schema.description === undefined ? type : type.describe(schema.description)
}

/**
 * @param {typeof import("zod").z} z
 * @param {Record<string, any>} schema an object schema
 * @returns {Record<string, import("zod").ZodType>}
 */
export function zodShape(z, schema) {
  return Object.fromEntries(Object.entries(schema.properties).map(([name, field]) => [name, toZod(z, field, schema.required.includes(name))]))
}

/**
 * The zod form of the edit arguments, for hosts that take zod (OpenCode),
 * built from EDIT_SCHEMA.
 * @param {typeof import("zod").z} z
 */
export function zodEditArgs(z) {
  return zodShape(z, EDIT_SCHEMA)
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

/**
 * The host's part of reading edit arguments: an object of plain data,
 * `filePath`, and nulls that strict schemas send for unused fields dropped.
 * The rest is the request, passed to the engine as it is: the engine owns
 * the request format (its fields, aliases, ops, and operations sent as JSON
 * text) and words every error about it, the same in every host.
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
  return { filePath, request: /** @type {EditRequest} */ (request) }
}

/**
 * Checks apply arguments: `files`, a list of edit requests as the edit tool
 * takes them, each with its filePath; the result goes to
 * `Hashline.applyBatch` as it is, and the engine words every error about an
 * entry.
 * @param {unknown} args
 * @returns {import("../index.js").BatchEntry[]}
 */
export function parseApplyArguments(args) {
  const input = fields("apply", args, ["files"], "files", "files")
  const { files } = input
  if (!Array.isArray(files) || files.length === 0) {
    throw invalid("apply", `files must be a list of edits, each {"filePath":P,"operations":[...]}, got ${Array.isArray(files) ? "an empty array" : describeType(files)}.`)
  }
  return files.map((entry, i) => {
    if (!entry || typeof entry !== "object" || Array.isArray(entry)) {
      throw invalid("apply", `files[${i}] must be an object with filePath and operations, got ${describeType(entry)}.`)
    }
    const { filePath, request } = parseEditArguments(entry)
    return /** @type {import("../index.js").BatchEntry} */ ({ filePath, ...request })
  })
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
