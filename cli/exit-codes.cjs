// @ts-check
// The exit status of each error code, with the class it belongs to. The
// engine declares a class for each of its codes; this table mirrors that
// declaration until the binding exposes it as `errorCodes()`, and the help
// text and the exit statuses are both derived from it. The codes after it
// are the command line's own.
"use strict"

/**
 * @typedef {{ code: string, class: string, exitStatus: number, description: string }} ErrorCodeInfo
 */

/** @type {ErrorCodeInfo[]} */
const ENGINE_CODES = [
  { code: "HASH_MISMATCH", class: "stale", exitStatus: 1, description: "a cited ref names a line that changed" },
  { code: "UNSEEN_LINES", class: "stale", exitStatus: 1, description: "an edit is anchored on lines no view showed" },
  { code: "BASE_CHANGED", class: "stale", exitStatus: 1, description: "the file changed between plan and commit" },
  { code: "INVALID_REQUEST", class: "request", exitStatus: 2, description: "the request is malformed" },
  { code: "INVALID_REF", class: "request", exitStatus: 2, description: "a ref is not a ref" },
  { code: "OUT_OF_RANGE", class: "request", exitStatus: 2, description: "a line number is past the end of the file" },
  { code: "CONFLICT", class: "request", exitStatus: 2, description: "operations overlap" },
  { code: "NO_CHANGE", class: "request", exitStatus: 2, description: "the edit changes nothing" },
  { code: "OLD_STRING_NOT_FOUND", class: "request", exitStatus: 2, description: "oldString is not in the file" },
  { code: "OLD_STRING_AMBIGUOUS", class: "request", exitStatus: 2, description: "oldString is in the file more than once" },
  { code: "CONTEXT_NOT_FOUND", class: "request", exitStatus: 2, description: "a patch hunk fits nowhere" },
  { code: "CONTEXT_AMBIGUOUS", class: "request", exitStatus: 2, description: "a patch hunk fits several places" },
  { code: "SYNTAX_ERROR", class: "request", exitStatus: 2, description: "the edit breaks the file's parse" },
  { code: "AMBIGUOUS_ECHO", class: "request", exitStatus: 2, description: "content may hold lines copied from a view" },
  { code: "NOT_FOUND", class: "file", exitStatus: 3, description: "no such file" },
  { code: "NOT_A_FILE", class: "file", exitStatus: 3, description: "the path is not a regular file" },
  { code: "NOT_UTF8", class: "file", exitStatus: 3, description: "the file is not UTF-8 text" },
  { code: "BINARY", class: "file", exitStatus: 3, description: "the file is binary" },
  { code: "TOO_LARGE", class: "file", exitStatus: 3, description: "the file is over the size limit" },
  { code: "OUTSIDE_ROOT", class: "refused", exitStatus: 4, description: "the path leads outside the root" },
  { code: "PERMISSION", class: "refused", exitStatus: 4, description: "the system refused access" },
  { code: "IO", class: "other", exitStatus: 5, description: "another input or output error" },
  { code: "LOCKED", class: "other", exitStatus: 5, description: "another process holds the file's lock" },
  { code: "INTERNAL", class: "other", exitStatus: 5, description: "a bug" },
  { code: "CANCELLED", class: "other", exitStatus: 5, description: "the call was stopped before it wrote" },
]

/** The engine's table; the one line to change once the binding has `errorCodes()`. */
const engineCodes = () => ENGINE_CODES

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
