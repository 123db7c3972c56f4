// The engine owns the request format; every host's schema, description and
// help is written against it. These tests fail when one of them drifts from
// the engine's own table of ops, fields and aliases.

import test from "ava"
import * as fs from "node:fs"
import { createRequire } from "node:module"
import { z } from "zod"
import { requestFormat } from "../../index.js"
import { EDIT_DESCRIPTION, EDIT_SCHEMA, OPS, zodEditArgs } from "../../lib/definitions.mjs"
import { EDIT_FIELDS, INSTRUCTION, OP_LINES } from "../../lib/texts.cjs"

const require = createRequire(import.meta.url)
const format = requestFormat()
/** @param {{ name: string }[]} fields */
const names = (fields) => fields.map((f) => f.name)
const opNames = names(format.ops)

test("the hosts' ops are the engine's, in the engine's order", (t) => {
  t.deepEqual([...OPS], opNames)
  const op = /** @type {any} */ (EDIT_SCHEMA.properties.operations).items.properties.op
  t.deepEqual(op.enum, opNames)
  t.deepEqual(format.operationFields.find((f) => f.name === "op")?.values, opNames)
})

test("every field of the JSON schema has the type the engine gives it", (t) => {
  const item = /** @type {any} */ (EDIT_SCHEMA.properties.operations).items
  for (const field of format.requestFields) t.is(/** @type {any} */ (EDIT_SCHEMA.properties)[field.name].type, field.type, field.name)
  for (const field of format.operationFields) t.is(item.properties[field.name].type, field.type, field.name)
})

test("each op's shape, doc and example come with it, and its example has exactly its fields", (t) => {
  for (const op of format.ops) {
    t.regex(op.doc, /^[^\n]+\.$/, op.name)
    const example = JSON.parse(op.example)
    t.is(example.op, op.name)
    t.is("ref" in example, op.ref, op.name)
    t.is("after" in example || "before" in example, op.place, op.name)
    t.is("content" in example, op.content, op.name)
    if ("through" in example) t.true(op.through, op.name)
    if (op.block) t.true(op.ref && !op.through, op.name)
  }
})

test("the edit description explains each op once, and names no op the engine lacks", (t) => {
  const covered = OP_LINES.flatMap(([covers]) => covers)
  t.is(new Set(covered).size, covered.length)
  for (const name of covered) t.true(opNames.includes(name), `the texts explain ${name}, which the engine has not`)
  for (const [, name] of INSTRUCTION.matchAll(/"op":"(\w+)"/g)) t.true(opNames.includes(name), name)
})

test("an op the texts have no words for yet is described from the engine's table", (t) => {
  const { editDescription } = require("../../lib/texts.cjs")
  const swap = { name: "swap", doc: "Lines `ref..=through` and the lines `after` names trade places.", example: "", ref: true, through: true, content: false, place: true, block: false }
  const text = editDescription([...format.ops, swap])
  t.true(text.includes('- {"op":"swap","ref":R,"through":R2,"after":R3} (or "before":R3): Lines `ref..=through` and the lines `after` names trade places.'), text)
  t.is(editDescription(format.ops), EDIT_DESCRIPTION)
})

test("the binding's types of a request and a batch entry declare exactly the engine's fields", (t) => {
  const declared = fs.readFileSync(new URL("../../index.d.ts", import.meta.url), "utf8")
  /** @param {string} name */
  const fieldsOf = (name) => {
    const body = declared.match(new RegExp(`export interface ${name} \\{([^}]*)\\}`))?.[1] ?? ""
    return [...body.matchAll(/^\s+(\w+)\??:/gm)].map((m) => m[1])
  }
  t.deepEqual(fieldsOf("Operation").sort(), names(format.operationFields).sort())
  t.deepEqual(fieldsOf("EditRequest").sort(), names(format.requestFields).sort())
  const entry = fieldsOf("BatchEntry").filter((f) => f !== "path" && f !== "filePath")
  t.deepEqual(entry.sort(), names(format.requestFields).sort())
  t.notRegex(declared, /LINE#HASH#ANCHOR` from a view/)
})

test("the command line's edit help lists every op with its fields and doc", (t) => {
  const help = require("../../cli/help.cjs").helpFor("edit")
  for (const op of format.ops) {
    t.true(help.includes(`\n  ${op.name} (`), `the help does not list ${op.name}`)
    const words = op.doc.replaceAll("`", "").split(" ")
    t.true(help.includes(words.slice(0, 3).join(" ")), `the help does not give ${op.name}'s doc`)
  }
  const listed = help.slice(help.indexOf("\nOperations"), help.indexOf("\n  --ops"))
  for (const line of listed.split("\n")) t.true(line.length <= 80, line)
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
  t.deepEqual(item.properties.op.enum, opNames)
})

test("every documented field has a description, and the tool text shows every op", (t) => {
  for (const field of ["filePath", ...names(format.requestFields), ...names(format.operationFields)]) {
    t.true(field in EDIT_FIELDS, `no description for ${field}`)
  }
  for (const op of opNames) {
    t.true(EDIT_DESCRIPTION.includes(`"${op}"`), `the description does not show ${op}`)
  }
})

test("no alias of the engine shadows another field's name", (t) => {
  for (const fields of [format.requestFields, format.operationFields]) {
    const all = fields.flatMap((f) => [f.name, ...f.aliases])
    t.is(new Set(all).size, all.length)
  }
})
