// @ts-check
// The tools' schemas. The edit schema is built, when this module loads, from
// the engine's own request format (`requestFormat()`: its ops, and its fields
// with their types, in its order) and the texts of `texts.cjs`, so that no
// host can offer an op or a field the engine does not decode. The OpenCode tool, the MCP server and the
// framework tools all take them from here; `arguments.cjs` checks what a
// model sends against them.

import { createRequire } from "node:module"
import { APPLY_FIELDS, EDIT_FIELDS, GREP_FIELDS, READ_FIELDS, editDescription } from "./texts.cjs"

/**
 * @typedef {import("../index.js").RequestFormat} RequestFormat
 * @typedef {import("../index.js").RequestField} RequestField
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
    return { ops: [], requestFields: [{ name: "operations", aliases: [], type: "array" }], operationFields: [{ name: "op", aliases: [], type: "string" }] }
  }
}

const FORMAT = loadFormat()

/** Every op the engine has, in its documented order. */
export const OPS = Object.freeze(FORMAT.ops.map((op) => op.name))

export const EDIT_DESCRIPTION = editDescription(FORMAT.ops)

/**
 * A field's JSON Schema, of the type the engine gives it (and, for the op,
 * its values), described by `EDIT_FIELDS`; the operations are objects of
 * the operation fields, each naming its op.
 * @param {RequestField} field
 * @returns {Record<string, unknown>}
 */
function fieldSchema(field) {
  const description = EDIT_FIELDS[field.name] === undefined ? {} : { description: EDIT_FIELDS[field.name] }
  if (field.type === "array") {
    return {
      ...description,
      type: "array",
      items: {
        type: "object",
        properties: Object.fromEntries(FORMAT.operationFields.map((f) => [f.name, fieldSchema(f)])),
        required: ["op"],
      },
    }
  }
  // An object of any keys (a cell's metadata) in the form zod's own schema
  // of one takes, so that both schemas stay one.
  if (field.type === "object") return { ...description, type: "object", properties: {}, additionalProperties: {} }
  return { ...description, type: field.type, ...(field.values?.length ? { enum: [...field.values] } : {}) }
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
    ...Object.fromEntries(FORMAT.requestFields.map((f) => [f.name, fieldSchema(f)])),
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
    raw: { description: READ_FIELDS.raw, type: "boolean" },
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
 * numbers, enums, arrays of objects, objects, also of any keys) as zod, for hosts that take zod (OpenCode); optional
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
  else if (schema.type === "object") type = schema.additionalProperties ? z.looseObject(zodShape(z, schema)) : z.object(zodShape(z, schema))
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
 * The zod form of the read arguments, for hosts that take zod, built from
 * READ_SCHEMA.
 * @param {typeof import("zod").z} z
 */
export function zodReadArgs(z) {
  return zodShape(z, READ_SCHEMA)
}

/**
 * The zod form of the grep arguments, for hosts that take zod, built from
 * GREP_SCHEMA.
 * @param {typeof import("zod").z} z
 */
export function zodGrepArgs(z) {
  return zodShape(z, GREP_SCHEMA)
}
