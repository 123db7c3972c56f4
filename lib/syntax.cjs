// @ts-check
// What an edit that breaks a file's parse gets, from the host's option or
// HASHLINE_SYNTAX: "warn" (the engine's default) writes it and reports the
// broken lines, "reject" writes nothing, "off" does not parse. CommonJS, so
// that the command line loads it without the ES module loader.

const SYNTAX_MODES = /** @type {const} */ (["warn", "reject", "off"])

/**
 * The mode named by `value`, else by HASHLINE_SYNTAX; undefined when
 * neither names one (the engine's default then applies).
 * @param {unknown} [value]
 * @returns {"warn" | "reject" | "off" | undefined}
 */
function syntaxOption(value) {
  const chosen = value ?? (process.env.HASHLINE_SYNTAX || undefined)
  if (chosen === undefined) return undefined
  const name = typeof chosen === "string" ? chosen.trim().toLowerCase() : chosen
  if (name === "warn" || name === "reject" || name === "off") return name
  const err = new Error(`The syntax check must be "warn", "reject" or "off", not ${JSON.stringify(chosen)} (from ${value === undefined ? "HASHLINE_SYNTAX" : "the syntax option"}).`)
  Object.assign(err, { code: "INVALID_REQUEST" })
  throw err
}

module.exports = { SYNTAX_MODES, syntaxOption }
