// @ts-check
// `hashline edit FILE`: one file's edit request, from --ops or stdin.
"use strict"

const { requestJson } = require("../request.cjs")
const { Failure } = require("../args.cjs")

/**
 * @typedef {import("../../index.js").EditResult} EditResult
 */

/**
 * An edit request as the command line takes it: a request object, or just
 * the operations array.
 * @param {unknown} json
 * @param {string} filePath
 * @param {string | undefined} rev
 */
async function editArguments(json, filePath, rev) {
  const { describeType, parseEditArguments } = require("../../lib/arguments.cjs")
  const body = Array.isArray(json) ? { operations: json } : json
  if (!body || typeof body !== "object") {
    throw new Failure("INVALID_REQUEST", `The request must be an object like {"operations":[...]} or an array of operations, got ${describeType(body)}.`)
  }
  const args = /** @type {Record<string, unknown>} */ ({ ...body, filePath })
  if (rev !== undefined && (!Object.hasOwn(args, "rev") || args.rev === undefined)) args.rev = rev
  return parseEditArguments(args)
}

/** @param {EditResult} r */
const editJson = (r) => ({ path: r.path, headline: r.headline, rev: r.rev, previousRev: r.previousRev, additions: r.additions, deletions: r.deletions, output: r.output, diff: r.diff, problems: r.problems })

/** @param {import("../args.cjs").Context} cx */
async function edit(cx) {
  const { filePath, request } = await editArguments(await requestJson(cx.values.ops, "request", cx.command), cx.given(cx.rest[0]), cx.values.rev)
  const result = cx.engine().edit(filePath, request)
  // One newline ends the output, whether or not the engine's text has one.
  return { stdout: result.output.endsWith("\n") ? result.output : `${result.output}\n`, json: { ok: true, ...editJson(result) } }
}

module.exports = { run: edit, editJson }
