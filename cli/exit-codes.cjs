// @ts-check
// The exit status of each error code, with the class it belongs to. The
// engine declares a class for each of its codes and the binding exposes
// them as `errorCodes()`; the help text and the exit statuses are both
// derived from that, and the codes after it are the command line's own.
"use strict"

/**
 * @typedef {{ code: string, class: string, exitStatus: number, description: string }} ErrorCodeInfo
 */

/**
 * The engine's codes as the binding declares them. Without a loadable
 * binary there are none: the command then ends with NATIVE_MODULE_MISSING,
 * one of the command line's own.
 * @returns {ErrorCodeInfo[]}
 */
const engineCodes = () => {
  try {
    return require("../lib/native.cjs").errorCodes()
  } catch {
    return []
  }
}

/** @type {ErrorCodeInfo[]} */
const CLI_CODES = [
  { code: "NATIVE_MODULE_MISSING", class: "other", exitStatus: 5, description: "the native module did not load" },
  { code: "USAGE", class: "usage", exitStatus: 64, description: "wrong command line" },
]

/** Every code the command line can end with. */
const errorCodes = () => [...engineCodes(), ...CLI_CODES]

/**
 * The exit status for an error code; an unknown one is a failure of the
 * "other" class.
 * @param {string} code
 */
function exitStatus(code) {
  return errorCodes().find((c) => c.code === code)?.exitStatus ?? 5
}

module.exports = { errorCodes, exitStatus }
