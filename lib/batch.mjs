// @ts-check
// Edits over several files in one request. Every entry is checked and
// planned before anything is written, so a batch with any bad entry writes
// nothing. The writes then happen one file at a time (each atomic): a write
// that fails there stops the batch, and the files before it stay written.
import fs from "node:fs"
import path from "node:path"
import { describeType, ownFields, parseEditArguments } from "./definitions.mjs"

/**
 * @typedef {import("../index.js").EditPlan} EditPlan
 * @typedef {import("../index.js").EditResult} EditResult
 * @typedef {import("../index.js").EditRequest} EditRequest
 * @typedef {{ root: string, plan(path: string, request: EditRequest): EditPlan, commit(plan: EditPlan): EditResult }} Engine
 * @typedef {{ code: string, message: string, path?: string, mismatches?: unknown, suggestion?: unknown }} ErrorInfo
 * @typedef {ErrorInfo & { index: number }} EntryError
 * @typedef {{ ok: true, written: EditResult[] }
 *   | { ok: false, stage: "check", errors: EntryError[], written: EditResult[] }
 *   | { ok: false, stage: "write", errors: EntryError[], written: EditResult[], notWritten: string[] }} BatchResult
 */

/**
 * An error as plain data: its code (INTERNAL for errors without one), the
 * message, and the engine's structured fields where present.
 * @param {unknown} err
 * @returns {ErrorInfo}
 */
export function errorInfo(err) {
  if (!(err instanceof Error)) return { code: "INTERNAL", message: String(err) }
  /** @param {string} key */
  const own = (key) => (Object.hasOwn(err, key) ? /** @type {Record<string, unknown>} */ (/** @type {unknown} */ (err))[key] : undefined)
  const [code, path, mismatches, suggestion] = [own("code"), own("path"), own("mismatches"), own("suggestion")]
  /** @type {ErrorInfo} */
  const info = { code: typeof code === "string" ? code : "INTERNAL", message: err.message }
  if (typeof path === "string") info.path = path
  if (Array.isArray(mismatches) && mismatches.length > 0) info.mismatches = mismatches
  if (suggestion !== undefined && suggestion !== null) info.suggestion = suggestion
  return info
}

/** @param {string} message */
const invalid = (message) => Object.assign(new Error(message), { code: "INVALID_REQUEST" })

/**
 * The file an entry names, through links, so that two names of one file are
 * seen as one (a missing file is known by its path).
 * @param {string} file
 */
function identity(file) {
  try {
    return fs.realpathSync(file)
  } catch {
    return file
  }
}

/**
 * @param {Engine} engine
 * @param {unknown} batch `[{ path | filePath, operations | oldString/newString, rev? }, ...]`
 * @returns {BatchResult}
 */
export function applyBatch(engine, batch) {
  if (!Array.isArray(batch) || batch.length === 0) {
    throw invalid(`The batch must be a non-empty array like [{"path":"src/a.ts","operations":[...]}], got ${Array.isArray(batch) ? "an empty array" : describeType(batch)}.`)
  }
  /** @type {EntryError[]} */
  const errors = []
  /** @type {EditPlan[]} */
  const plans = []
  /** @type {Map<string, number>} */
  const seen = new Map()
  batch.forEach((entry, index) => {
    let name = ""
    try {
      if (!entry || typeof entry !== "object" || Array.isArray(entry)) {
        throw invalid(`Each batch entry must be an object like {"path":"src/a.ts","operations":[...]}, got ${describeType(entry)}.`)
      }
      const { path: entryPath, ...rest } = ownFields(entry, `Batch entry ${index}`, invalid)
      const given = Object.hasOwn(rest, "filePath") ? rest.filePath : undefined
      if (entryPath !== undefined && given !== undefined) throw invalid("Give the file as path or as filePath, not both.")
      const args = entryPath === undefined ? rest : { ...rest, filePath: entryPath }
      const named = entryPath ?? given
      if (typeof named === "string") name = named
      const { filePath, request } = parseEditArguments(args)
      // Two entries for one file would both be planned against the same
      // version, and the second write would find the file changed.
      const key = identity(path.resolve(engine.root, filePath))
      const first = seen.get(key)
      if (first !== undefined) throw invalid(`${filePath} is the file of entry ${first} too: put all operations on one file in one entry.`)
      seen.set(key, index)
      plans.push(engine.plan(filePath, request))
    } catch (err) {
      const info = errorInfo(err)
      errors.push({ index, ...info, ...(info.path === undefined && name ? { path: name } : {}) })
    }
  })
  if (errors.length > 0) return { ok: false, stage: "check", errors, written: [] }

  /** @type {EditResult[]} */
  const written = []
  for (const [index, plan] of plans.entries()) {
    try {
      written.push(engine.commit(plan))
    } catch (err) {
      return {
        ok: false,
        stage: "write",
        errors: [{ index, ...errorInfo(err), path: plan.path }],
        written,
        notWritten: plans.slice(index + 1).map((p) => p.path),
      }
    }
  }
  return { ok: true, written }
}
