// @ts-check
// Errors as plain data, the same in every host: the engine's code and
// structured fields, and, for a rejected batch, the error of each entry.

/**
 * @typedef {{ code: string, message: string, path?: string, mismatches?: unknown, suggestion?: unknown }} EntryInfo
 * @typedef {EntryInfo & { index?: number, errors?: Array<EntryInfo & { index: number }> }} ErrorInfo
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
  const [code, path, mismatches, suggestion, errors] = [own("code"), own("path"), own("mismatches"), own("suggestion"), own("errors")]
  /** @type {ErrorInfo} */
  const info = { code: typeof code === "string" ? code : "INTERNAL", message: err.message }
  if (typeof path === "string") info.path = path
  if (Array.isArray(mismatches) && mismatches.length > 0) info.mismatches = mismatches
  if (suggestion !== undefined && suggestion !== null) info.suggestion = suggestion
  if (Array.isArray(errors) && errors.length > 0) {
    info.errors = errors.map((/** @type {Record<string, unknown>} */ e) => {
      /** @type {EntryInfo & { index: number }} */
      const entry = { index: Number(e.index), code: String(e.code), message: String(e.message) }
      if (typeof e.path === "string") entry.path = e.path
      if (Array.isArray(e.mismatches) && e.mismatches.length > 0) entry.mismatches = e.mismatches
      if (e.suggestion !== undefined && e.suggestion !== null) entry.suggestion = e.suggestion
      return entry
    })
  }
  return info
}
