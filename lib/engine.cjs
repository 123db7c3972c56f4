// @ts-check
// The one way every host opens an engine: the host's options, then the
// environment's where the host gives none (the view, the syntax check, the
// store folder and its size), then the host's own defaults, then
// `new Hashline(...)`. The binding is the one judge of the options' values;
// its refusal reaches the host as it is, naming the variable a wrong value
// came from. CommonJS, so that the command line loads it without the ES
// module loader.
"use strict"

const path = require("node:path")

/**
 * @typedef {import("../index.js").HashlineOptions} HashlineOptions
 * @typedef {Omit<HashlineOptions, "storeMaxBytes"> & { storeMaxBytes?: number | string }} EngineOptions
 *   the options as a host gives them: a store size may be the text a user
 *   typed (`500M`)
 */

/**
 * A wrong option, coded as the binding codes the options it refuses.
 * @param {string} message
 */
const invalid = (message) => Object.assign(new Error(message), { code: "INVALID_REQUEST" })

/**
 * A size in bytes as a user types it, with an optional K, M or G (powers of
 * 1024).
 * @param {string} value
 * @param {string} where how a message names where it came from
 */
function bytes(value, where) {
  const m = /^(\d+)([KMG]?)$/i.exec(value.trim())
  const n = m ? Number(m[1]) * 1024 ** " KMG".indexOf((m[2] || " ").toUpperCase()) : NaN
  if (!Number.isSafeInteger(n)) throw invalid(`${where} takes a number of bytes such as 500M, got ${JSON.stringify(value)}.`)
  return n
}

/**
 * The options a variable of the environment may give: the option, the
 * variable, and how the variable's text becomes the option's value.
 * @type {ReadonlyArray<[keyof HashlineOptions, string, (text: string) => unknown]>}
 */
const FROM_ENV = [
  ["view", "HASHLINE_VIEW", (text) => text],
  ["syntax", "HASHLINE_SYNTAX", (text) => text],
  // A folder named relative to where the process started.
  ["storeDir", "HASHLINE_STORE", (text) => path.resolve(text)],
  ["storeMaxBytes", "HASHLINE_STORE_MAX_BYTES", (text) => bytes(text, "HASHLINE_STORE_MAX_BYTES")],
]

/**
 * The options as the engine takes them: the host's own fields (null and
 * undefined left out), then the environment's where the host gives none
 * (an empty variable counts as unset), then `defaults`. Throws
 * INVALID_REQUEST for a store size that is no number of bytes.
 * @param {EngineOptions} [options]
 * @param {Record<string, string | undefined>} [env]
 * @param {HashlineOptions} [defaults] the host's own, below the environment's
 * @returns {{ options: HashlineOptions, fromEnv: string[] }}
 */
function engineOptions(options = {}, env = process.env, defaults = {}) {
  /** @type {Record<string, unknown>} */
  const chosen = {}
  for (const [key, value] of Object.entries(options)) if (value !== undefined && value !== null) chosen[key] = value
  if (typeof chosen.storeMaxBytes === "string") chosen.storeMaxBytes = bytes(chosen.storeMaxBytes, "options.storeMaxBytes")
  /** @type {string[]} */
  const fromEnv = []
  for (const [name, variable, parse] of FROM_ENV) {
    const text = env[variable]
    if (chosen[name] === undefined && text) {
      chosen[name] = parse(text)
      fromEnv.push(name)
    }
  }
  for (const [key, value] of Object.entries(defaults)) if (chosen[key] === undefined && value !== undefined) chosen[key] = value
  return { options: /** @type {HashlineOptions} */ (chosen), fromEnv }
}

/**
 * A new engine for the host's options (see `engineOptions`). Throws the
 * loader's NATIVE_MODULE_MISSING when no binary fits, and INVALID_REQUEST
 * for an option the binding does not take.
 * @param {EngineOptions} [options]
 * @param {Record<string, string | undefined>} [env]
 * @param {HashlineOptions} [defaults]
 * @returns {import("../index.js").Hashline}
 */
function openEngine(options = {}, env = process.env, defaults = {}) {
  const { options: chosen, fromEnv } = engineOptions(options, env, defaults)
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
