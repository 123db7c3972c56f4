// @ts-check
// The host's part of checking tool arguments: plain data, the fields a
// tool takes, counts and flags also as the text some models send. The
// request an edit carries is passed on as it is: the engine decodes it
// (fields, aliases, ops, operations sent as JSON text) and words every
// error about it, the same in every host. No native module is loaded here,
// so that the command line checks an edit without building any schema, and
// it is CommonJS, so that it does so without the ES module loader.
"use strict"

const { types } = require("node:util")
const { GREP_FIELDS, READ_FIELDS } = require("./texts.cjs")

/**
 * @typedef {import("../index.js").EditRequest} EditRequest
 */

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
function describeType(value) {
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
function ownFields(value, what, fail) {
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
function parseEditArguments(args) {
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
function parseApplyArguments(args) {
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
function parseReadArguments(args) {
  const input = fields("read", args, Object.keys(READ_FIELDS), "filePath", "filePath")
  const { filePath } = input
  if (typeof filePath !== "string" || filePath.trim() === "") {
    throw invalid("read", `filePath must be the path of the file to read, got ${describeType(filePath)}.`)
  }
  const offset = positive("offset", input.offset)
  const limit = positive("limit", input.limit)
  const view = input.view === undefined || input.view === null ? undefined : String(input.view)
  const raw = flag("raw", input.raw === null ? undefined : input.raw, "read")
  return { filePath, ...(offset === undefined ? {} : { offset }), ...(limit === undefined ? {} : { limit }), ...(view === undefined ? {} : { view }), ...(raw === undefined ? {} : { raw }) }
}

/**
 * A flag, also from the "true" and "false" some models send as text.
 * @param {string} name
 * @param {unknown} value
 * @param {string} [tool] the tool it is an argument of
 * @returns {boolean | undefined}
 */
function flag(name, value, tool = "grep") {
  if (value === undefined || typeof value === "boolean") return value
  if (value === "true" || value === "false") return value === "true"
  throw invalid(tool, `${name} must be true or false, got ${typeof value === "string" ? JSON.stringify(value) : describeType(value)}.`)
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
function parseGrepArguments(args) {
  const input = fields("grep", args, Object.keys(GREP_FIELDS), "pattern", "pattern")
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

/**
 * Arguments as a host's model sent them, with the file argument a host
 * names `name` (its row's `fileArgument` in lib/hosts.mjs: pi's and
 * OpenCode 2's tools take `path`) given the name the tools read,
 * `filePath`. With both names, both stay, and the check refuses the call
 * rather than guess which file was meant.
 * @param {unknown} args
 * @param {string} name
 */
function toFilePath(args, name) {
  if (name === "filePath" || !args || typeof args !== "object" || Array.isArray(args)) return args
  const { [name]: given, ...rest } = /** @type {Record<string, unknown>} */ (args)
  return given !== undefined && rest.filePath === undefined ? { ...rest, filePath: given } : args
}

module.exports = { describeType, ownFields, toFilePath, parseEditArguments, parseApplyArguments, parseReadArguments, parseGrepArguments }
