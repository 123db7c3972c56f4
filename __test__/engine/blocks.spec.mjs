// @ts-check
// Block operations: an edit cites only a block's first line and the engine
// finds its last in the file's syntax tree, on real files through the loader.
import test from "ava"
import fs from "node:fs"
import path from "node:path"
import editTool from "../../opencode/edit.mjs"
import { binding, refsOf as refsOfView, scratch, thrown } from "../helpers.mjs"

const { Hashline } = binding

/** @param {string} text @returns {Record<number, string>} */
const refsOf = (text) => /** @type {any} */ (refsOfView(text))

/**
 * A folder with `name` holding `text`, a session on it, and the refs of a read.
 * @param {import("ava").ExecutionContext} t
 * @param {string} name
 * @param {string} text
 */
function session(t, name, text) {
  const root = scratch(t)
  fs.writeFileSync(path.join(root, name), text)
  const engine = new Hashline({ root, view: "full" })
  return { root, engine, refs: refsOf(engine.read(name).text), file: path.join(root, name) }
}

const TS = `import { x } from "./x"

export function total(items: number[]): number {
  let sum = 0
  for (const item of items) {
    sum += item
  }
  return sum
}

export const zero = 0
`

test("replace_block replaces a whole function cited by its first line and says where it ended", (t) => {
  const { engine, refs, file } = session(t, "total.ts", TS)
  const result = engine.edit("total.ts", { operations: [{ op: "replace_block", ref: refs[3], content: "export function total(items: number[]): number {\n  return items.reduce((a, b) => a + b, 0)\n}" }] })
  t.is(fs.readFileSync(file, "utf8"), TS.replace(/export function total[\s\S]*?\n}\n/, "export function total(items: number[]): number {\n  return items.reduce((a, b) => a + b, 0)\n}\n"))
  t.regex(result.output, /operation 1 \(replace_block\): the block starting on line 3 ends on line 9/)
})

test("the outermost block on a line is meant, and an inner one by its own line", (t) => {
  const { engine, refs, file } = session(t, "total.ts", TS)
  engine.edit("total.ts", { operations: [{ op: "delete_block", ref: refs[5] }] })
  t.is(fs.readFileSync(file, "utf8"), TS.replace("  for (const item of items) {\n    sum += item\n  }\n", ""))
})

test("insert_after_block and insert_before_block put lines around a Python class and an HTML element", (t) => {
  const py = session(t, "m.py", "class A:\n    def f(self):\n        return 1\n\nx = A()\n")
  py.engine.edit("m.py", { operations: [{ op: "insert_after_block", ref: py.refs[1], content: "\n\nclass B(A):\n    pass" }] })
  t.is(fs.readFileSync(py.file, "utf8"), "class A:\n    def f(self):\n        return 1\n\n\nclass B(A):\n    pass\n\nx = A()\n")
  const html = session(t, "p.html", "<main>\n  <section>\n    <p>a</p>\n  </section>\n</main>\n")
  html.engine.edit("p.html", { operations: [{ op: "insert_before_block", ref: html.refs[2], content: "  <h1>T</h1>" }] })
  t.is(fs.readFileSync(html.file, "utf8"), "<main>\n  <h1>T</h1>\n  <section>\n    <p>a</p>\n  </section>\n</main>\n")
})

test("a block op is refused with the reason: no parsed language, a line that starts no block, a through", (t) => {
  const txt = session(t, "notes.txt", "a {\n  b\n}\n")
  const noLanguage = /** @type {any} */ (thrown(t, () => txt.engine.edit("notes.txt", { operations: [{ op: "replace_block", ref: txt.refs[1], content: "x" }] })))
  t.is(noLanguage.code, "INVALID_REQUEST")
  t.regex(noLanguage.message, /in no language the engine parses.*replace with `through`/s)
  const ts = session(t, "total.ts", TS)
  const noBlock = /** @type {any} */ (thrown(t, () => ts.engine.edit("total.ts", { operations: [{ op: "delete_block", ref: ts.refs[4] }] })))
  t.is(noBlock.code, "INVALID_REQUEST")
  t.regex(noBlock.message, /line 4 \(`let sum = 0`\) starts no block/)
  const through = /** @type {any} */ (thrown(t, () => ts.engine.edit("total.ts", { operations: [{ op: "replace_block", ref: ts.refs[3], through: ts.refs[9], content: "x" }] })))
  t.regex(through.message, /takes no `through`/)
  t.is(fs.readFileSync(ts.file, "utf8"), TS)
})

test("a stale ref of a block op is refused like any other", (t) => {
  const { engine, refs, file } = session(t, "total.ts", TS)
  fs.writeFileSync(file, TS.replace("let sum = 0", "let sum = 1"))
  const err = /** @type {any} */ (thrown(t, () => engine.edit("total.ts", { operations: [{ op: "replace_block", ref: refs[4], content: "x" }] })))
  t.is(err.code, "HASH_MISMATCH")
})

test("the OpenCode edit tool takes block ops", async (t) => {
  const { root, refs, file } = session(t, "total.ts", TS)
  const ctx = { sessionID: "s", messageID: "m", agent: "build", directory: root, worktree: root, abort: new AbortController().signal, metadata() {}, async ask() {} }
  const result = await editTool.execute(/** @type {any} */ ({ filePath: "total.ts", operations: [{ op: "delete_block", ref: refs[3] }] }), /** @type {any} */ (ctx))
  t.false(fs.readFileSync(file, "utf8").includes("function total"))
  t.regex(result.output, /ends on line 9/)
})
