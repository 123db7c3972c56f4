// @ts-check
// Errors as plain data, the same in every host: the message, and the fields
// the binding declares for every error it throws (`ErrorFields` and
// `EntryError` in index.d.ts, from `src/error.rs`). Each field is described
// here once as JSON Schema, in tables typed by those declarations (so that
// `tsc` fails when the binding adds, drops or renames one); `errorInfo`
// copies the fields these tables name, and the MCP server's error schema is
// `ERROR_SCHEMA`.

/**
 * @typedef {import("../index.js").ErrorFields} ErrorFields
 * @typedef {import("../index.js").EntryError} EntryError
 * @typedef {import("../index.js").Problem} Problem
 * @typedef {import("../index.js").Severity} Severity
 * @typedef {import("../index.js").Mismatch} Mismatch
 * @typedef {Pick<ErrorFields, "code"> & Partial<Omit<ErrorFields, "code">> & { message: string }} ErrorInfo
 */

/** A ref as JSON Schema. */
export const REF_SCHEMA = { type: "string", description: "The line's ref as an edit cites it: 12ab in the lean view, LINE#HASH#ANCHOR in the full one." }

/** @type {{ [K in Severity]: string }} */
const SEVERITIES = { error: "the file no longer parses", warning: "worth a look; the file still works" }

/** @type {{ [K in keyof Required<Problem>]: Record<string, unknown> }} */
const PROBLEM_FIELDS = {
  line: { type: "integer", description: "1-based line of the new version." },
  column: { type: "integer", description: "1-based character column where the problem starts." },
  endColumn: { type: "integer", description: "1-based character column where it ends, exclusive." },
  severity: { type: "string", enum: Object.keys(SEVERITIES), description: Object.entries(SEVERITIES).map(([name, means]) => `${name}: ${means}`).join("; ") },
  message: { type: "string" },
  ref: REF_SCHEMA,
  language: { type: "string", description: "For a parse the edit broke, the language the file was parsed as." },
}

/** What a checker found in lines an edit wrote, as JSON Schema. */
export const PROBLEM_SCHEMA = { type: "object", properties: PROBLEM_FIELDS, required: ["line", "severity", "message", "ref"] }

/** @type {{ [K in keyof Required<Mismatch>]: Record<string, unknown> }} */
const MISMATCH_FIELDS = {
  line: { type: "integer" },
  expected: { type: "string", description: "The ref as it was sent." },
  actual: { type: ["string", "null"], description: "The line's ref now; none past the end of the file." },
}

/** The fields an error and a batch entry's error share. */
const COMMON_FIELDS = {
  code: { type: "string", description: "A stable error code, e.g. HASH_MISMATCH, NOT_FOUND, OUTSIDE_ROOT, INVALID_REQUEST." },
  path: { type: "string", description: "The file the error is about." },
  mismatches: {
    type: "array",
    description: "Cited refs that no longer match: the ref sent and the line's current ref.",
    items: { type: "object", properties: MISMATCH_FIELDS, required: ["line", "expected"] },
  },
  suggestion: { type: "string", description: "The ref or request most likely meant." },
  problems: { type: "array", description: "What the refused version would have broken (SYNTAX_ERROR).", items: PROBLEM_SCHEMA },
}

const MESSAGE = { type: "string", description: "What went wrong and how to retry, as the text content says." }

/** @type {{ [K in keyof Required<EntryError>]: Record<string, unknown> }} */
const ENTRY_FIELDS = { index: { type: "integer", description: "The entry's index in the batch." }, ...COMMON_FIELDS, message: MESSAGE }

/** @type {{ [K in keyof Required<ErrorFields>]: Record<string, unknown> }} */
const ERROR_FIELDS = {
  ...COMMON_FIELDS,
  errors: { type: "array", description: "The error of each refused entry of a batch.", items: { type: "object", properties: ENTRY_FIELDS, required: ["index", "code", "message"] } },
}

const { code: CODE, ...ERROR_DETAILS } = ERROR_FIELDS

/** An error as `errorInfo` gives it, as JSON Schema. */
export const ERROR_SCHEMA = {
  type: "object",
  description: "Why the call failed; nothing was written.",
  properties: { code: CODE, message: MESSAGE, ...ERROR_DETAILS },
  required: ["code", "message"],
}

/**
 * What a model reads of a failed call: the error's message, which the
 * engine (and the argument checks) write for the model.
 * @param {unknown} err
 */
export const errorText = (err) => (err instanceof Error ? err.message : String(err))

/**
 * The declared fields an error carries, in the order of `names`, each only
 * where it says something (not null, not an empty list).
 * @param {object} err
 * @param {string[]} names
 */
function declared(err, names) {
  /** @type {Record<string, unknown>} */
  const fields = {}
  for (const name of names) {
    const value = Object.hasOwn(err, name) ? /** @type {Record<string, unknown>} */ (err)[name] : undefined
    if (value !== undefined && value !== null && !(Array.isArray(value) && value.length === 0)) fields[name] = value
  }
  return fields
}

/**
 * An error as plain data: its code (INTERNAL for errors without one), the
 * message, and the engine's declared fields where present; a rejected
 * batch's entries each with theirs.
 * @param {unknown} err
 * @returns {ErrorInfo}
 */
export function errorInfo(err) {
  if (!(err instanceof Error)) return { code: "INTERNAL", message: String(err) }
  const { code, errors, ...fields } = declared(err, Object.keys(ERROR_FIELDS))
  /** @type {ErrorInfo} */
  const info = { code: typeof code === "string" ? code : "INTERNAL", message: err.message, ...fields }
  if (Array.isArray(errors)) {
    info.errors = errors.map((entry) => {
      const { index, code, message, ...rest } = declared(entry, Object.keys(ENTRY_FIELDS))
      return /** @type {EntryError} */ ({ index, code, message, ...rest })
    })
  }
  return info
}
