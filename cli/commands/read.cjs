// @ts-check
// `hashline read FILE`: the file with a ref before each line; a notebook's
// cells (or, with --raw, its JSON).
"use strict"

/** @param {import("../args.cjs").Context} cx */
async function read(cx) {
  const view = cx.engine().read(cx.given(cx.rest[0]), { offset: cx.offset, limit: cx.limit, raw: cx.values.raw === true })
  return { stdout: view.text, json: { ok: true, ...view } }
}

module.exports = { run: read }
