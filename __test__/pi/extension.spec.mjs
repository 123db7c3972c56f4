// @ts-check
// The pi extension as pi calls it: its factory gets an API whose
// registerTool collects the definitions, and each tool's prepareArguments and
// execute are called the way pi calls them (arguments prepared, then checked,
// then run with pi's AbortSignal and context).
import test from "ava"
import fs from "node:fs"
import path from "node:path"
import hashline from "../../pi/extension.mjs"
import { INSTRUCTION } from "../../lib/texts.cjs"
import { scratch } from "../helpers.mjs"
import { nbformatProblems } from "../support/nbformat.mjs"

/** @returns {Record<string, any>} */
function registered() {
  /** @type {Record<string, any>} */
  const tools = {}
  hashline({ registerTool: (tool) => (tools[/** @type {string} */ (tool.name)] = tool) })
  return tools
}

/** @param {any} tool @param {unknown} args */
const prepared = (tool, args) => (tool.prepareArguments ? tool.prepareArguments(args) : args)

test("read, edit and grep are registered under pi's names, take path, and carry the instruction as snippets and guidelines", (t) => {
  const tools = registered()
  t.deepEqual(Object.keys(tools).sort(), ["edit", "grep", "read"])
  t.deepEqual(tools.read.parameters.required, ["path"])
  t.deepEqual(tools.edit.parameters.required, ["path"])
  t.is(tools.edit.parameters.properties.filePath, undefined)
  t.false(tools.edit.description.includes("filePath"))
  for (const name of ["read", "edit", "grep"]) t.is(typeof tools[name].promptSnippet, "string")
  const lines = INSTRUCTION.split("\n").slice(1, -1)
  t.deepEqual(tools.edit.promptGuidelines, lines)
})

test("path, filePath and an @-prefixed path name the same file", async (t) => {
  const root = scratch(t)
  fs.writeFileSync(path.join(root, "a.txt"), "one\n")
  const { read } = registered()
  for (const args of [{ path: "a.txt" }, { filePath: "a.txt" }, { path: "@a.txt" }]) {
    const result = await read.execute("call", prepared(read, args), undefined, undefined, { cwd: root })
    t.regex(result.content[0].text, /^a\.txt REV:[0-9A-F]{8} lines 1-1 of 1\n1[a-z]{2} one\n/)
  }
})

test("an edit whose signal is already aborted is refused and writes nothing; the same edit without it lands", async (t) => {
  const root = scratch(t)
  fs.writeFileSync(path.join(root, "a.txt"), "one\ntwo\n")
  const { read, edit } = registered()
  const view = (await read.execute("r", { path: "a.txt" }, undefined, undefined, { cwd: root })).content[0].text
  const ref = /^(2[a-z]{2}) two$/m.exec(view)?.[1]
  const args = { path: "a.txt", operations: [{ op: "replace", ref, content: "TWO" }] }
  const controller = new AbortController()
  controller.abort()
  await t.throwsAsync(edit.execute("e1", args, controller.signal, undefined, { cwd: root }))
  t.is(fs.readFileSync(path.join(root, "a.txt"), "utf8"), "one\ntwo\n")
  await edit.execute("e2", args, undefined, undefined, { cwd: root })
  t.is(fs.readFileSync(path.join(root, "a.txt"), "utf8"), "one\nTWO\n")
})

test("edits of one file sent at once are queued one after the other, each against the file the one before left", async (t) => {
  const root = scratch(t)
  fs.writeFileSync(path.join(root, "a.txt"), "a\nb\nc\n")
  const { read, edit } = registered()
  const view = (await read.execute("r", { path: "a.txt" }, undefined, undefined, { cwd: root })).content[0].text
  const ref = (/** @type {string} */ text) => new RegExp(`^(\\d+[a-z]{2}) ${text}$`, "m").exec(view)?.[1]
  await Promise.all([
    edit.execute("e1", { path: "a.txt", operations: [{ op: "replace", ref: ref("a"), content: "A" }] }, undefined, undefined, { cwd: root }),
    edit.execute("e2", { path: "a.txt", operations: [{ op: "replace", ref: ref("c"), content: "C" }] }, undefined, undefined, { cwd: root }),
    edit.execute("e3", { path: "a.txt", operations: [{ op: "insert_after", ref: ref("b"), content: "b2" }] }, undefined, undefined, { cwd: root }),
  ])
  t.is(fs.readFileSync(path.join(root, "a.txt"), "utf8"), "A\nb\nb2\nC\n")
})

test("a notebook reads as its cells through pi's read, and a cell op through pi's edit writes a valid notebook", async (t) => {
  const root = scratch(t)
  fs.copyFileSync(new URL("../fixtures/notebooks/nbconvert/nbconvert_library.ipynb", import.meta.url), path.join(root, "n.ipynb"))
  const { read, edit } = registered()
  const view = (await read.execute("r", { path: "n.ipynb" }, undefined, undefined, { cwd: root })).content[0].text
  const [, header, number] = /^(\d+[a-z]{2}) # %% \[code\] cell (\d+)$/m.exec(view) ?? []
  t.truthy(header, view.slice(0, 500))
  await edit.execute("e", { path: "n.ipynb", operations: [{ op: "set_cell_metadata", ref: header, metadata: { tags: ["parameters"] } }] }, undefined, undefined, { cwd: root })
  const cells = JSON.parse(fs.readFileSync(path.join(root, "n.ipynb"), "utf8")).cells
  t.deepEqual(cells[Number(number) - 1].metadata.tags, ["parameters"])
  t.deepEqual(nbformatProblems([path.join(root, "n.ipynb")]), [])
})
