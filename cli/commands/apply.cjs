// @ts-check
// `hashline apply`: edits of several files, written by the engine as one
// transaction: every file takes its new version or none does, and a
// rejection lists every failing entry.
"use strict"

const { requestJson } = require("../request.cjs")
const { editJson } = require("./edit.cjs")

/** @param {import("../args.cjs").Context} cx */
async function apply(cx) {
  const batch = await requestJson(cx.values.ops, "batch", cx.command)
  const engine = cx.engine()
  try {
    const result = engine.applyBatch(/** @type {any} */ (batch))
    return { stdout: `${result.output}\n`, json: { ok: true, output: result.output, results: result.files.map(editJson) } }
  } catch (err) {
    const { errorInfo } = await import("../../lib/errors.mjs")
    const { exitStatus } = require("../exit-codes.cjs")
    const { errors, ...info } = errorInfo(err)
    const first = errors?.[0] ?? info
    const json = { ok: false, error: first, errors: errors ?? [info], written: [] }
    return { stdout: "", stderr: `${info.message}\n`, json, code: exitStatus(first.code) }
  }
}

module.exports = { run: apply }
