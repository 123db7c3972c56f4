// The engine owns the request format; every host's schema and description
// is written against it. These tests fail when one of them drifts from the
// engine's own table of ops, fields and aliases.

import test from "ava"
import { z } from "zod"
import { requestFormat } from "../../index.js"
import { EDIT_DESCRIPTION, EDIT_SCHEMA, OPS, zodEditArgs } from "../../lib/definitions.mjs"
import { EDIT_FIELDS } from "../../lib/texts.cjs"

const format = requestFormat()
/** @param {{ name: string }[]} fields */
const names = (fields) => fields.map((f) => f.name)

test("the hosts' ops are the engine's, in the engine's order", (t) => {
  t.deepEqual([...OPS], format.ops)
  const op = /** @type {any} */ (EDIT_SCHEMA.properties.operations).items.properties.op
  t.deepEqual(op.enum, format.ops)
})

test("the JSON schema names every field of the engine's request and operation, and nothing else but filePath", (t) => {
  t.deepEqual(Object.keys(EDIT_SCHEMA.properties), ["filePath", ...names(format.requestFields)])
  const item = /** @type {any} */ (EDIT_SCHEMA.properties.operations).items
  t.deepEqual(Object.keys(item.properties), names(format.operationFields))
})

test("the zod schema agrees with the JSON schema and so with the engine", (t) => {
  const zod = z.toJSONSchema(z.object(zodEditArgs(z)), { io: "input" })
  t.deepEqual(Object.keys(/** @type {any} */ (zod).properties), Object.keys(EDIT_SCHEMA.properties))
  const item = /** @type {any} */ (zod).properties.operations.items
  t.deepEqual(Object.keys(item.properties), names(format.operationFields))
  t.deepEqual(item.properties.op.enum, format.ops)
})

test("every documented field has a description, and the tool text shows every op", (t) => {
  for (const field of ["filePath", ...names(format.requestFields), ...names(format.operationFields)]) {
    t.true(field in EDIT_FIELDS, `no description for ${field}`)
  }
  for (const op of format.ops) {
    t.true(EDIT_DESCRIPTION.includes(`"${op}"`), `the description does not show ${op}`)
  }
})

test("no alias of the engine shadows another field's name", (t) => {
  for (const fields of [format.requestFields, format.operationFields]) {
    const all = fields.flatMap((f) => [f.name, ...f.aliases])
    t.is(new Set(all).size, all.length)
  }
})
