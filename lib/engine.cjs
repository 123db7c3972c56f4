// @ts-check
// The one way every host opens an engine: the host's options, the view and
// the syntax check taken from HASHLINE_VIEW and HASHLINE_SYNTAX where the
// host sets neither, then `new Hashline(...)`. The binding is the one judge
// of the options' values; its refusal reaches the host as it is, naming the
// variable a wrong value came from. CommonJS, so that the command line loads
// it without the ES module loader.
"use strict"

/** The options a variable of the environment may give, and the variable. */
const FROM_ENV = /** @type {const} */ ([
  ["view", "HASHLINE_VIEW"],
  ["syntax", "HASHLINE_SYNTAX"],
])

/**
 * The options as the engine takes them: the host's own fields (null and
 * undefined left out), then the environment's view and syntax check where
 * the host gives none. An empty variable counts as unset.
 * @param {import("../index.js").HashlineOptions} [options]
 * @param {Record<string, string | undefined>} [env]
 * @returns {{ options: import("../index.js").HashlineOptions, fromEnv: string[] }}
 */
function engineOptions(options = {}, env = process.env) {
  /** @type {Record<string, unknown>} */
  const chosen = {}
  for (const [key, value] of Object.entries(options)) if (value !== undefined && value !== null) chosen[key] = value
  /** @type {string[]} */
  const fromEnv = []
  for (const [name, variable] of FROM_ENV) {
    if (chosen[name] === undefined && env[variable]) {
      chosen[name] = env[variable]
      fromEnv.push(name)
    }
  }
  return { options: /** @type {import("../index.js").HashlineOptions} */ (chosen), fromEnv }
}

/**
 * A new engine for the host's options (see `engineOptions`). Throws the
 * loader's NATIVE_MODULE_MISSING when no binary fits, and the binding's
 * INVALID_REQUEST for an option it does not take.
 * @param {import("../index.js").HashlineOptions} [options]
 * @param {Record<string, string | undefined>} [env]
 * @returns {import("../index.js").Hashline}
 */
function openEngine(options = {}, env = process.env) {
  const { options: chosen, fromEnv } = engineOptions(options, env)
  const { Hashline } = /** @type {typeof import("../index.js")} */ (require("./native.cjs"))
  try {
    return new Hashline(chosen)
  } catch (err) {
    const e = /** @type {{ code?: unknown, message?: unknown }} */ (err)
    if (e?.code === "INVALID_REQUEST" && typeof e.message === "string") {
      const message = e.message
      const variable = FROM_ENV.find(([name]) => fromEnv.includes(name) && message.includes(`options.${name}`))?.[1]
      // The user set the variable, not an option: say which one to fix.
      if (variable) e.message = `${message.replace(/\.$/, "")} (from ${variable}).`
    }
    throw err
  }
}

module.exports = { engineOptions, openEngine }
