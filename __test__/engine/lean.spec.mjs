// @ts-check
// The lean view (`12ab content`), the default of every host: the binding's
// options, the JS tools, the command line and the OpenCode plugin's tagging
// render it, and every host accepts lean and full refs alike.
import test from "ava"
import { spawnSync } from "node:child_process"
import fs from "node:fs"
import path from "node:path"
import { fileURLToPath } from "node:url"
import { createTools } from "../../lib/tools.mjs"
import { tagGrepOutput, tagReadOutput } from "../../opencode/view.mjs"
import { binding, refsOf, scratch, thrown as thrownAny } from "../helpers.mjs"

/** @param {import("ava").ExecutionContext} t @param {() => unknown} fn @returns {{ code?: string, message: string }} */
const thrown = (t, fn) => /** @type {any} */ (thrownAny(t, fn)) ?? { message: "" }

delete process.env.HASHLINE_VIEW
const CLI = fileURLToPath(new URL("../../cli/hashline.cjs", import.meta.url))
const LEAN_LINE = /^(\d+)([a-z]{2}) (.*)$/

/** @param {import("ava").ExecutionContext} t @param {Record<string, string>} files */
function project(t, files) {
  const root = scratch(t)
  for (const [name, content] of Object.entries(files)) fs.writeFileSync(path.join(root, name), content)
  return root
}

test("the binding renders the lean view by default and the full one on request", (t) => {
  const text = "fn main() {\n    let x = 1;\n}\n"
  const lean = binding.formatView(text, { path: "src/lib.rs" })
  // The tags of the benchmark's reference function.
  t.deepEqual(lean.split("\n").slice(1, 4), ["1ve fn main() {", "2ay     let x = 1;", "3no }"])
  t.regex(binding.formatView(text, { view: "full" }).split("\n")[1], /^1#[0-9A-F]{3}#[0-9A-F]{3}\|fn main\(\) \{$/)
  t.is(thrown(t, () => binding.formatView(text, { view: /** @type {any} */ ("pair") })).code, "INVALID_REQUEST")

  const root = project(t, { "a.txt": "a\nb\nc\n" })
  const session = new binding.Hashline({ root })
  t.regex(session.read("a.txt").text.split("\n")[2], /^2[a-m][a-z] b$/)
  t.regex(session.read("a.txt", { view: "full" }).text.split("\n")[2], /^2#[0-9A-F]{3}#[0-9A-F]{3}\|b$/)
  t.regex(new binding.Hashline({ root, view: "full" }).read("a.txt").text.split("\n")[2], /^2#/)
  t.is(thrown(t, () => new binding.Hashline({ root, view: /** @type {any} */ ("compact") })).code, "INVALID_REQUEST")
})

test("a session edits by lean and full refs in one batch and answers in its own view", (t) => {
  const root = project(t, { "a.txt": "a\nb\nc\nd\n" })
  const session = new binding.Hashline({ root })
  const lean = /** @type {Record<number, string>} */ (refsOf(session.read("a.txt").text))
  const full = /** @type {Record<number, string>} */ (refsOf(session.read("a.txt", { view: "full" }).text))
  const result = session.edit("a.txt", { operations: [{ op: "replace", ref: lean[2], content: "B" }, { op: "delete", ref: full[4] }] })
  t.is(fs.readFileSync(path.join(root, "a.txt"), "utf8"), "a\nB\nc\n")
  t.regex(result.output, /^\+2[a-m][a-z] B$/m)
  t.regex(result.output, /^-b$/m)
  t.like(binding.parseRef("12 AB"), { line: 12, pair: "ab", hash: undefined })
  t.like(binding.parseRef("12#abc"), { line: 12, hash: "ABC", pair: undefined })
})

test("lean refs on text held by the caller are refused even with its REV, and the full refs shown hold", (t) => {
  const text = "a\nb\nc\n"
  const view = binding.formatView(text)
  const ref = /** @type {Record<number, string>} */ (refsOf(view))[2]
  const rev = /REV:([0-9A-F]{8})/.exec(view)?.[1]
  for (const request of [{ operations: [{ op: "replace", ref, content: "B" }] }, { operations: [{ op: "replace", ref, content: "B" }], rev }]) {
    const err = thrown(t, () => binding.applyEdits(text, request))
    t.is(err.code, "HASH_MISMATCH")
    t.regex(err.message, /^>>> 2#[0-9A-F]{3}#[0-9A-F]{3}\|b$/m, "the rejection shows full refs, which hold on their own")
  }
  const full = /^>>> (2#[0-9A-F]{3}#[0-9A-F]{3})\|b$/m.exec(thrown(t, () => binding.applyEdits(text, { operations: [{ op: "replace", ref, content: "B" }] })).message)?.[1]
  t.is(binding.applyEdits(text, { operations: [{ op: "replace", ref: full, content: "B" }] }).text, "a\nB\nc\n")
})

test("a line number typed one off is rejected, even in a run of identical lines", (t) => {
  const root = project(t, { "a.txt": "x\n}\n}\n}\ny\n" })
  const session = new binding.Hashline({ root })
  const refs = /** @type {Record<number, string>} */ (refsOf(session.read("a.txt").text))
  for (const line of [2, 3, 4]) {
    for (const typed of [line - 1, line + 1]) {
      const ref = `${typed}${refs[line].replace(/^\d+/, "")}`
      t.is(thrown(t, () => session.edit("a.txt", { operations: [{ op: "replace", ref, content: "Z" }] })).code, "HASH_MISMATCH", ref)
    }
  }
  t.is(fs.readFileSync(path.join(root, "a.txt"), "utf8"), "x\n}\n}\n}\ny\n")
})

test("echoed lean prefixes naming lines a read showed are stripped from a write, ordinals and units are not", (t) => {
  const root = project(t, { "a.js": "function f() {\n  x();\n}\n" })
  const session = new binding.Hashline({ root })
  const refs = /** @type {Record<number, string>} */ (refsOf(session.read("a.js").text))
  t.deepEqual(
    { ...session.stripViewPrefixes("a.js", `${refs[2]}   x();\n${refs[3]} }\n`) },
    { text: "  x();\n}\n", stripped: 2, resent: false, note: "Removed the view prefixes (LINEab or LINE#HASH#ANCHOR|) from 2 lines of content before writing: they name lines this file's views showed." },
  )
  for (const text of ["intro\n1st place\n2nd place\n", "10px solid\n", "5nq a\n3sh b\n", "3rd party notices\n", "5th avenue\n7th floor\n"]) {
    t.deepEqual({ ...session.stripViewPrefixes("notes.md", text) }, { text, stripped: 0, resent: false }, text)
  }
  // `1st` on line 1 has the number of the line it takes, as a view's
  // prefix would: refused once, then written as sent.
  const list = "1st place\n2nd place\n"
  t.is(thrown(t, () => session.stripViewPrefixes("list.md", list)).code, "AMBIGUOUS_ECHO")
  t.deepEqual({ ...session.stripViewPrefixes("list.md", list) }, { text: list, stripped: 0, resent: true }, "sent again after the refusal, it is handed back as sent, and said so")
})

test("createTools, the command line and HASHLINE_VIEW choose the view; both hosts accept either ref", async (t) => {
  const root = project(t, { "a.txt": "a\nb\n" })
  const tools = createTools({ root })
  const view = await tools.read.execute({ filePath: "a.txt" })
  t.regex(view.split("\n")[2], LEAN_LINE)
  t.regex(await tools.read.execute({ filePath: "a.txt", view: "full" }), /^2#[0-9A-F]{3}#[0-9A-F]{3}\|b$/m)
  t.regex(await createTools({ root, view: "full" }).read.execute({ filePath: "a.txt" }), /^1#/m)
  const ref = /** @type {Record<number, string>} */ (refsOf(view))[2]
  t.regex(await tools.edit.execute({ filePath: "a.txt", operations: [{ op: "replace", ref, content: "B" }] }), /^\+2[a-m][a-z] B$/m)
  t.regex(await tools.grep.execute({ pattern: "B" }), /^ {2}2[a-m][a-z] B$/m)

  const store = scratch(t)
  /** @param {string[]} args @param {Record<string, string>} [env] */
  const cli = (args, env = {}) => spawnSync(process.execPath, [CLI, ...args], { cwd: root, encoding: "utf8", env: { ...process.env, HASHLINE_STORE: store, ...env } })
  t.regex(cli(["read", "a.txt"]).stdout.split("\n")[1], /^1[n-z][a-z] a$/)
  t.regex(cli(["read", "a.txt", "--view", "full"]).stdout.split("\n")[1], /^1#[0-9A-F]{3}#[0-9A-F]{3}\|a$/)
  t.regex(cli(["read", "a.txt"], { HASHLINE_VIEW: "full" }).stdout.split("\n")[1], /^1#/)
  const bad = cli(["read", "a.txt", "--view", "tiny"])
  t.is(bad.status, 64)
  t.regex(bad.stderr, /lean.*full/)
})

test("the plugin tags OpenCode's read and grep output in the engine's view", async (t) => {
  const root = project(t, { "a.txt": "one\ntwo\n" })
  const session = new binding.Hashline({ root })
  /** @param {string} file @param {any[]} lines */
  const tag = (file, lines) => session.tag(path.join(root, file), lines)
  const read = await tagReadOutput("<path>a.txt</path>\n<type>file</type>\n<content>\n1: one\n2: two\n\n(End of file - total 2 lines)\n</content>", tag)
  t.regex(read, /^1[n-z][a-z] one$/m)
  t.regex(read, /^2[a-m][a-z] two$/m)
  const grep = await tagGrepOutput("Found 1 matches\na.txt:\n  Line 2: two\n", tag)
  t.regex(grep, /^ {2}2[a-m][a-z] two$/m)
  const ref = /^(2[a-m][a-z]) two$/m.exec(read)?.[1]
  session.edit("a.txt", { operations: [{ op: "replace", ref, content: "TWO" }] })
  t.is(fs.readFileSync(path.join(root, "a.txt"), "utf8"), "one\nTWO\n")
})

test("the OpenCode plugin's view option picks the view its read tagging shows", async (t) => {
  const plugin = (await import("../../opencode/plugin.mjs")).default
  /** @param {string} root @param {Record<string, unknown>} options */
  const tagged = async (root, options) => {
    const server = /** @type {(input: any, options: Record<string, unknown>) => Promise<any>} */ (plugin.server)
    const hooks = await server({ directory: root, worktree: root }, options)
    const output = { title: "", output: `<path>${path.join(root, "a.txt")}</path>\n<type>file</type>\n<content>\n1: one\n\n(End of file - total 1 lines)\n</content>`, metadata: {} }
    await hooks["tool.execute.after"]({ tool: "read", sessionID: "s", callID: "r", args: {} }, output)
    return output.output
  }
  t.regex(await tagged(project(t, { "a.txt": "one\n" }), { view: "full" }), /^1#[0-9A-F]{3}#[0-9A-F]{3}\|one$/m)
  t.regex(await tagged(project(t, { "a.txt": "one\n" }), {}), /^1[n-z][a-z] one$/m)
})
