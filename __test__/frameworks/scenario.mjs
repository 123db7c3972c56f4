// @ts-check
// The conversation every framework's scripted model plays: read a file, edit
// it citing a ref taken from the read's result, send that ref again once it
// has gone stale, take the fresh ref the refusal shows, and land the edit.
// Each step is computed from the tool results the framework handed back, so
// every ref cited is one the engine really produced.
import { setTimeout as sleep } from "node:timers/promises"
import { refsOf } from "../helpers.mjs"

export const FILE = "greet.js"
export const BEFORE = "function greet(name) {\n  return 'Hello ' + name\n}\n"
export const AFTER = "function greet(name) {\n  return `Hi ${name}!`\n}\n"
export const REJECTED = /Edit rejected, nothing written/

/**
 * @typedef {{ name: "read" | "edit", args: Record<string, unknown> }} Call
 */

/**
 * The ref of line 2 as a read showed it.
 * @param {string} text
 */
function line2(text) {
  const ref = /** @type {Record<number, string>} */ (refsOf(text))[2]
  if (!ref) throw new Error(`no ref for line 2 in:\n${text}`)
  return ref
}

/** A refusal's mark on the line it is about, with that line's fresh ref, lean or full. */
const FRESH_LINE_2 = /^>>> (2[a-z]{2}(?= )|2#[0-9A-F]{3}#[0-9A-F]{3}(?=\|))/m

/**
 * The fresh ref of line 2 that a refusal shows (`>>> 2ab …`).
 * @param {string} text
 */
function refreshed(text) {
  const ref = FRESH_LINE_2.exec(text)?.[1]
  if (!ref) throw new Error(`no fresh ref for line 2 in the refusal:\n${text}`)
  return ref
}

/**
 * The next tool call, from the results so far (oldest first); undefined
 * once the edit has landed.
 * @param {string[]} results
 * @returns {Call | undefined}
 */
export function nextCall(results) {
  const replace = (/** @type {string} */ ref, /** @type {string} */ content) => ({ name: /** @type {const} */ ("edit"), args: { filePath: FILE, operations: [{ op: "replace", ref, content }] } })
  switch (results.length) {
    case 0:
      return { name: "read", args: { filePath: FILE } }
    case 1:
      return replace(line2(results[0]), "  return `Hello ${name}!`")
    case 2:
      // The read's ref for line 2, which the edit before has made stale.
      return replace(line2(results[0]), "  return `Hi ${name}!`")
    case 3:
      return replace(refreshed(results[2]), "  return `Hi ${name}!`")
    default:
      return undefined
  }
}

/**
 * Checks what the model was handed back, step by step.
 * @param {import("ava").ExecutionContext} t
 * @param {string[]} results
 */
export function checkResults(t, results) {
  t.is(results.length, 4, results.join("\n---\n"))
  t.regex(results[0], /^greet\.js REV:[0-9A-F]{8} lines 1-3 of 3\n1[a-z]{2} function greet\(name\) \{\n/)
  t.regex(results[1], /Applied 1 operation to greet\.js/)
  t.regex(results[2], REJECTED)
  t.regex(results[2], /^>>> 2[a-z]{2}   return `Hello \$\{name\}!`$/m)
  t.regex(results[3], /Applied 1 operation to greet\.js/)
}

/**
 * One line of the request log: the step, the tools offered, and the start of
 * the last tool result the model saw.
 * @param {number} step
 * @param {string[]} offered
 * @param {string | undefined} lastResult
 */
export function logLine(step, offered, lastResult) {
  const seen = lastResult === undefined ? "-" : JSON.stringify(lastResult.split("\n").slice(0, 2).join("\\n").slice(0, 100))
  return `request ${step}: tools [${offered.join(", ")}], last tool result ${seen}`
}

/**
 * Waits for a condition, polling; fails after 30 s.
 * @param {() => boolean} done
 */
export async function until(done) {
  for (let waited = 0; !done(); waited += 5) {
    if (waited > 30_000) throw new Error(`still waiting for ${done}`)
    await sleep(5)
  }
}
