// @ts-check
// The parse check: an edit that breaks the parse of a file in a language
// the engine has a grammar for is reported with the result ("warn", the
// default), refused with nothing written ("reject"), or not looked for
// ("off"), in every host, on real files.
import test from "ava"
import fs from "node:fs"
import path from "node:path"
import { spawnSync } from "node:child_process"
import { fileURLToPath } from "node:url"
import pluginModule from "../../opencode/plugin.mjs"
import { binding, refsOf as refsOfView, scratch, thrown } from "../helpers.mjs"

/** @param {string} text @returns {Record<number, string>} */
const refsOf = (text) => /** @type {any} */ (refsOfView(text))

const { Hashline } = binding
const CLI = fileURLToPath(new URL("../../cli/hashline.cjs", import.meta.url))

const SOURCE = "export function area(w: number, h: number): number {\n  const a = w * h;\n  return a;\n}\n"

/**
 * A folder holding `name` with `text`, a session on it with `options`, and
 * the refs of a read of it.
 * @param {import("ava").ExecutionContext} t
 * @param {Record<string, unknown>} [options]
 */
function session(t, options = {}, name = "area.ts", text = SOURCE) {
  const root = scratch(t)
  fs.writeFileSync(path.join(root, name), text)
  const engine = new Hashline({ root, view: "full", ...options })
  const refs = refsOf(engine.read(name).text)
  return { root, engine, refs, file: path.join(root, name) }
}

test("an edit that deletes a closing brace is written and its broken lines come back with refs", (t) => {
  const { engine, refs, file } = session(t)
  const result = engine.edit("area.ts", { operations: [{ op: "delete", ref: refs[4] }] })
  t.is(fs.readFileSync(file, "utf8"), SOURCE.replace("}\n", ""))
  const broken = result.problems.filter((/** @type {any} */ p) => p.language === "TypeScript")
  t.true(broken.length > 0, JSON.stringify(result.problems))
  t.is(broken[0].severity, "error")
  t.regex(broken[0].message, /^TypeScript syntax: /)
  const now = refsOf(engine.read("area.ts").text)
  t.is(broken[0].ref, now[broken[0].line])
  t.regex(result.output, /Syntax: the file parsed as TypeScript before this edit and no longer does/)
  t.true(result.output.includes(`>>> ${now[broken[0].line]}|`), result.output)
})

test("a good edit of the same file reports nothing", (t) => {
  const { engine, refs } = session(t)
  const result = engine.edit("area.ts", { operations: [{ op: "replace", ref: refs[2], content: "  const a = w * h * 1;" }] })
  t.deepEqual(result.problems, [])
  t.notRegex(result.output, /Syntax:/)
})

test("reject writes nothing and fails with SYNTAX_ERROR carrying the problems; the refs still hold", (t) => {
  const { engine, refs, file } = session(t, { syntax: "reject" })
  const err = /** @type {any} */ (thrown(t, () => engine.edit("area.ts", { operations: [{ op: "replace", ref: refs[2], content: "  const a = (w * h;" }] })))
  t.is(err.code, "SYNTAX_ERROR")
  t.is(err.path, "area.ts")
  t.true(err.problems.length > 0)
  t.is(err.problems[0].language, "TypeScript")
  t.regex(err.message, /nothing written/)
  t.regex(err.message, /const a = \(w \* h;/)
  t.is(fs.readFileSync(file, "utf8"), SOURCE)
  const fixed = engine.edit("area.ts", { operations: [{ op: "replace", ref: refs[2], content: "  const a = (w * h);" }] })
  t.deepEqual(fixed.problems, [])
})

test("reject refuses a patch that breaks the parse, and writes nothing", (t) => {
  const { engine, file } = session(t, { syntax: "reject" })
  const patch = "*** Begin Patch\n*** Update File: area.ts\n@@\n   return a;\n-}\n*** End Patch"
  const err = /** @type {any} */ (thrown(t, () => engine.planPatch(patch)))
  t.is(err.code, "SYNTAX_ERROR")
  t.is(fs.readFileSync(file, "utf8"), SOURCE)
})

test("edits that follow one another in a session are judged on the new text each time", (t) => {
  const { engine, refs, file } = session(t)
  t.deepEqual(engine.edit("area.ts", { operations: [{ op: "insert_after", ref: refs[2], content: "  const b = a;" }] }).problems, [])
  const next = refsOf(engine.read("area.ts").text)
  const broken = engine.edit("area.ts", { operations: [{ op: "replace", ref: next[3], content: "  const b = a +;" }] })
  t.is(broken.problems.filter((/** @type {any} */ p) => p.language === "TypeScript")[0]?.line, 3)
  const again = refsOf(engine.read("area.ts").text)
  t.deepEqual(engine.edit("area.ts", { operations: [{ op: "replace", ref: again[3], content: "  const b = a + 1;" }] }).problems, [])
  t.is(fs.readFileSync(file, "utf8"), SOURCE.replace("  return a;", "  const b = a + 1;\n  return a;"))
})

test("off does not parse", (t) => {
  const { engine, refs } = session(t, { syntax: "off" })
  const result = engine.edit("area.ts", { operations: [{ op: "delete", ref: refs[4] }] })
  t.deepEqual(result.problems, [])
})

test("a file that did not parse before, and a file in another language, are left alone", (t) => {
  const broken = session(t, { syntax: "reject" }, "b.ts", "function f( {\n  return 1;\n}\n")
  broken.engine.edit("b.ts", { operations: [{ op: "delete", ref: broken.refs[3] }] })
  t.is(fs.readFileSync(broken.file, "utf8"), "function f( {\n  return 1;\n")
  const text = session(t, { syntax: "reject" }, "notes.txt", "a {\n}\n")
  const result = text.engine.edit("notes.txt", { operations: [{ op: "delete", ref: text.refs[2] }] })
  t.deepEqual(result.problems, [])
})

test("an unknown mode is refused when the session is made", (t) => {
  const err = /** @type {any} */ (thrown(t, () => new Hashline({ root: scratch(t), syntax: "strict" })))
  t.is(err.code, "INVALID_REQUEST")
  t.regex(err.message, /"warn", "reject" or "off"/)
})

test("the command line takes --syntax: reject exits 2 with nothing written, a bad mode is a usage error", (t) => {
  const root = scratch(t)
  fs.writeFileSync(path.join(root, "a.rs"), "fn f() {\n    g();\n}\n")
  const run = (/** @type {string[]} */ args) => spawnSync(process.execPath, [CLI, ...args, "--root", root, "--store", path.join(root, ".store")], { encoding: "utf8", env: { ...process.env, HASHLINE_VIEW: "full" } })
  const refs = refsOf(run(["read", "a.rs"]).stdout)
  const refused = run(["edit", "a.rs", "--syntax", "reject", "--ops", JSON.stringify([{ op: "delete", ref: refs[3] }])])
  t.is(refused.status, 2, refused.stderr)
  t.regex(refused.stderr, /^hashline: .*nothing written/)
  t.is(fs.readFileSync(path.join(root, "a.rs"), "utf8"), "fn f() {\n    g();\n}\n")
  const bad = run(["read", "a.rs", "--syntax", "loud"])
  t.is(bad.status, 64)
})

test("the OpenCode edit tool appends the broken lines where the built-in edit puts LSP errors, and the plugin's syntax option rejects", async (t) => {
  const root = fs.realpathSync(scratch(t))
  fs.writeFileSync(path.join(root, "a.py"), "def f():\n    return 1\n")
  const context = { sessionID: "s", messageID: "m", agent: "build", directory: root, worktree: root, abort: new AbortController().signal, metadata() {}, async ask() {} }
  const hooks = /** @type {any} */ (await /** @type {any} */ (pluginModule).server(/** @type {any} */ ({ directory: root, worktree: root }), {}))
  const engine = new Hashline({ root, view: "full" })
  const refs = refsOf(engine.read("a.py").text)
  const result = await hooks.tool.edit.execute({ filePath: "a.py", operations: [{ op: "replace", ref: refs[2], content: "    return (1" }] }, context)
  t.regex(result.output, /LSP errors detected in this file, please fix:\n<diagnostics file="[^"]*a\.py">\nERROR \[\d+:\d+\] Python syntax: /)
  t.truthy(result.metadata.diagnostics[path.join(root, "a.py")])

  const strict = fs.realpathSync(scratch(t))
  fs.writeFileSync(path.join(strict, "a.py"), "def f():\n    return 1\n")
  const strictHooks = /** @type {any} */ (await /** @type {any} */ (pluginModule).server(/** @type {any} */ ({ directory: strict, worktree: strict }), { syntax: "reject" }))
  const strictRefs = refsOf(new Hashline({ root: strict, view: "full" }).read("a.py").text)
  await t.throwsAsync(() => strictHooks.tool.edit.execute({ filePath: "a.py", operations: [{ op: "replace", ref: strictRefs[2], content: "    return (1" }] }, { ...context, directory: strict, worktree: strict }), { message: /nothing written/ })
  t.is(fs.readFileSync(path.join(strict, "a.py"), "utf8"), "def f():\n    return 1\n")
  await /** @type {any} */ (pluginModule).server(/** @type {any} */ ({ directory: strict, worktree: strict }), {})
})

test("applyEdits parses text in the language its path names: the parse check, block ops and plain text without one", (t) => {
  const text = "fn f() {\n    g();\n}\n"
  const refs = refsOf(binding.formatView(text, { view: "full" }))
  const broken = binding.applyEdits(text, { operations: [{ op: "delete", ref: refs[3] }] }, { path: "src/f.rs" })
  t.is(broken.problems[0]?.language, "Rust")
  const plain = binding.applyEdits(text, { operations: [{ op: "delete", ref: refs[3] }] })
  t.deepEqual(plain.problems, [])
  const block = binding.applyEdits(text, { operations: [{ op: "replace_block", ref: refs[1], content: "fn f() {}" }] }, { path: "f.rs" })
  t.is(block.text, "fn f() {}\n")
  const err = /** @type {any} */ (thrown(t, () => binding.applyEdits(text, { operations: [{ op: "delete", ref: refs[3] }] }, { path: "f.rs", syntax: "reject" })))
  t.is(err.code, "SYNTAX_ERROR")
})
