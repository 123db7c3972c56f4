// @ts-check
// The JSON an edit or apply takes, from --ops or else stdin.
"use strict"

const { Failure, usage } = require("./args.cjs")

/** @returns {Promise<string>} */
async function readStdin() {
  /** @type {Buffer[]} */
  const chunks = []
  for await (const chunk of process.stdin) chunks.push(/** @type {Buffer} */ (chunk))
  try {
    // Strictly: a lenient decoding would put U+FFFD in place of bad bytes.
    return new TextDecoder("utf-8", { fatal: true }).decode(Buffer.concat(chunks))
  } catch {
    throw new Failure("INVALID_REQUEST", "The input on stdin is not valid UTF-8; send the JSON as UTF-8 text.")
  }
}

/**
 * @param {string | undefined} ops
 * @param {string} what
 * @param {string} command
 * @returns {Promise<unknown>}
 */
async function requestJson(ops, what, command) {
  let text = ops
  if (text === undefined) {
    if (process.stdin.isTTY) throw usage(`give the ${what} as JSON on stdin or with --ops.`, command)
    text = await readStdin()
  }
  if (text.trim() === "") throw new Failure("INVALID_REQUEST", `The ${what} is empty; expected JSON.`)
  try {
    return JSON.parse(text)
  } catch (err) {
    throw new Failure("INVALID_REQUEST", `The ${what} is not valid JSON: ${err instanceof Error ? err.message : String(err)}`)
  }
}

module.exports = { requestJson }
