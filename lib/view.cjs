// @ts-check
// The view style a host renders refs in: "lean" (`12ab content`, the
// default) or "full" (`12#A3F#9BC|content`), from the host's option or
// HASHLINE_VIEW. Refs of both styles are accepted whichever is chosen.

const VIEWS = /** @type {const} */ (["lean", "full"])

/**
 * The view style named by `value`, else by HASHLINE_VIEW; undefined when
 * neither names one (the engine's default then applies).
 * @param {unknown} [value]
 * @returns {"lean" | "full" | undefined}
 */
function viewOption(value) {
  const chosen = value ?? (process.env.HASHLINE_VIEW || undefined)
  if (chosen === undefined) return undefined
  const name = typeof chosen === "string" ? chosen.trim().toLowerCase() : chosen
  if (name === "lean" || name === "full") return name
  const err = new Error(`The view must be "lean" or "full", not ${JSON.stringify(chosen)} (from ${value === undefined ? "HASHLINE_VIEW" : "the view option"}).`)
  Object.assign(err, { code: "INVALID_REQUEST" })
  throw err
}

/**
 * One tagged line in the style of its ref: lean refs are followed by a
 * space, full ones by `|`.
 * @param {string} ref
 * @param {string} text
 */
function taggedLine(ref, text) {
  return /^\d+[a-z]{2}$/.test(ref) ? `${ref} ${text}` : `${ref}|${text}`
}

module.exports = { VIEWS, viewOption, taggedLine }
