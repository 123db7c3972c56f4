// @ts-check
// The framework-free tools (`hashline/tools`): the shared schema and texts,
// the read/grep/edit chain on real files, the root they refuse to leave, and
// what grep searches.
import test from "ava"
import fs from "node:fs"
import path from "node:path"
import { z } from "zod"
import { createToolList, createTools, settingsOf } from "../../lib/tools.mjs"
import { engineOptions, openEngine } from "../../lib/engine.cjs"
import { errorInfo } from "../../lib/errors.mjs"
import editTool, { DESCRIPTION } from "../../opencode/edit.mjs"
import * as helpers from "../helpers.mjs"

// These tests pin the full view's text; the lean view, the default, has its own in lean.spec.mjs.
process.env.HASHLINE_VIEW = "full"

const { scratch } = helpers
/**
 * The refs of a view's lines, by line number.
 * @param {string} text
 */
const refsOf = (text) => /** @type {Record<number, string>} */ (helpers.refsOf(text))

/**
 * @param {import("ava").ExecutionContext} t
 * @param {Record<string, string | Buffer>} files
 */
function project(t, files) {
  const root = scratch(t)
  for (const [name, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, name)), { recursive: true })
    fs.writeFileSync(path.join(root, name), content)
  }
  return root
}

/**
 * The ref grep or read showed for a line with this exact text.
 * @param {string} output
 * @param {string} text
 */
function refFor(output, text) {
  for (const line of output.split("\n")) {
    const m = /^\s*(\d+#[0-9A-F]{3}#[0-9A-F]{3})\|(.*)$/.exec(line)
    if (m && m[2] === text) return m[1]
  }
  throw new Error(`no ref for ${JSON.stringify(text)} in:\n${output}`)
}

/**
 * @param {import("ava").ExecutionContext} t
 * @param {Promise<unknown>} promise
 */
async function codeOf(t, promise) {
  const err = await t.throwsAsync(promise)
  return /** @type {any} */ (err)?.code
}

test("the edit tool has the OpenCode tool's description and, field for field, its schema", (t) => {
  const { edit } = createTools({ root: scratch(t) })
  t.is(edit.description, DESCRIPTION)
  const fromZod = z.toJSONSchema(z.object(/** @type {any} */ (editTool.args)), { io: "input" })
  const { $schema, ...openCodeSchema } = fromZod
  t.deepEqual(edit.inputSchema, /** @type {any} */ (openCodeSchema))
})

test("each call gets its own copy of the schemas, so a host that rewrites one changes no other", (t) => {
  const first = createTools({ root: scratch(t) })
  first.edit.inputSchema.properties.filePath.description = "changed"
  t.not(createTools({ root: scratch(t) }).edit.inputSchema.properties.filePath.description, "changed")
})

test("read shows refs, and two edits from that one read land on the right lines", async (t) => {
  const root = project(t, { "src/app.js": "function total(items) {\n  if (!items) return null\n  return items.length\n}\n" })
  const tools = createTools({ root })
  const view = await tools.read.execute({ filePath: "src/app.js" })
  t.regex(view, /^src\/app\.js REV:[0-9A-F]{8} lines 1-4 of 4$/m)
  const refs = refsOf(view)

  const first = await tools.edit.execute({ filePath: "src/app.js", operations: [{ op: "insert_before", ref: refs[2], content: "  // guard" }] })
  t.regex(first, /^Applied 1 operation to src\/app\.js/)
  await tools.edit.execute({ filePath: "src/app.js", operations: [{ op: "replace", ref: refs[3], content: "  return items.length + 0" }] })
  t.is(
    fs.readFileSync(path.join(root, "src/app.js"), "utf8"),
    "function total(items) {\n  // guard\n  if (!items) return null\n  return items.length + 0\n}\n",
  )
})

test("read takes offset and limit, also as digit strings", async (t) => {
  const root = project(t, { "a.txt": "1\n2\n3\n4\n5\n" })
  const view = await createTools({ root }).read.execute({ filePath: "a.txt", offset: "2", limit: 2 })
  t.deepEqual(Object.keys(refsOf(view)).map(Number), [2, 3])
  t.regex(view, /Read on with offset=4/)
})

test("an edit can cite a grep hit without reading the file first", async (t) => {
  const root = project(t, { "src/a.ts": "export const a = 1\nexport const b = 2\n", "src/b.ts": "import { a } from './a'\n" })
  const tools = createTools({ root })
  const hits = await tools.grep.execute({ pattern: "const b" })
  t.regex(hits, /^Found 1 matching line in 1 file\.$/m)
  t.regex(hits, /^src\/a\.ts REV:[0-9A-F]{8}$/m)
  await tools.edit.execute({ filePath: "src/a.ts", operations: [{ op: "replace", ref: refFor(hits, "export const b = 2"), content: "export const b = 3" }] })
  t.is(fs.readFileSync(path.join(root, "src/a.ts"), "utf8"), "export const a = 1\nexport const b = 3\n")
})

test("a stale ref is rejected with the repair text and the code, and nothing is written", async (t) => {
  const root = project(t, { "a.txt": "x\ny\n" })
  const tools = createTools({ root })
  const refs = refsOf(await tools.read.execute({ filePath: "a.txt" }))
  fs.writeFileSync(path.join(root, "a.txt"), "X\nY\n")
  const err = /** @type {any} */ (await t.throwsAsync(tools.edit.execute({ filePath: "a.txt", operations: [{ op: "delete", ref: refs[2] }] })))
  t.is(err.code, "HASH_MISMATCH")
  t.regex(err.message, /^Edit rejected, nothing written/)
  t.is(fs.readFileSync(path.join(root, "a.txt"), "utf8"), "X\nY\n")
})

test("read, edit and grep refuse paths outside the root, through .. and through links", async (t) => {
  const outside = project(t, { "secret.txt": "secret value\n" })
  const root = project(t, { "in.txt": "in\n" })
  fs.symlinkSync(outside, path.join(root, "linked"))
  const tools = createTools({ root })

  t.is(await codeOf(t, tools.read.execute({ filePath: path.join(outside, "secret.txt") })), "OUTSIDE_ROOT")
  t.is(await codeOf(t, tools.read.execute({ filePath: "linked/secret.txt" })), "OUTSIDE_ROOT")
  t.is(await codeOf(t, tools.edit.execute({ filePath: "../secret.txt", operations: [{ op: "append", content: "x" }] })), "OUTSIDE_ROOT")
  t.is(await codeOf(t, tools.grep.execute({ pattern: "secret", path: ".." })), "OUTSIDE_ROOT")
  t.is(await codeOf(t, tools.grep.execute({ pattern: "secret", path: "linked" })), "OUTSIDE_ROOT")
  t.is(await tools.grep.execute({ pattern: "secret" }), "No matches found.\n")
  t.is(fs.readFileSync(path.join(outside, "secret.txt"), "utf8"), "secret value\n")
})

test("grep skips hidden folders, what .gitignore lists, binary and non-UTF-8 files, and keeps what include names", async (t) => {
  const root = project(t, {
    ".gitignore": "node_modules/\n",
    "src/a.ts": "needle a\n",
    "src/b.mjs": "needle b\n",
    "src/c.txt": "needle c\n",
    ".git/config": "needle git\n",
    "node_modules/x/index.js": "needle dep\n",
    "bin.dat": Buffer.from("needle\0binary\n"),
    "latin1.txt": Buffer.from("needle caf\xe9\n", "latin1"),
  })
  const { grep } = createTools({ root })
  const all = await grep.execute({ pattern: "needle" })
  t.deepEqual([...all.matchAll(/^(\S+) REV:/gm)].map((m) => m[1]), ["src/a.ts", "src/b.mjs", "src/c.txt"])

  const scripts = await grep.execute({ pattern: "needle", include: "*.{ts,mjs}" })
  t.deepEqual([...scripts.matchAll(/^(\S+) REV:/gm)].map((m) => m[1]), ["src/a.ts", "src/b.mjs"])

  const named = await grep.execute({ pattern: "needle", path: "node_modules" })
  t.deepEqual([...named.matchAll(/^(\S+) REV:/gm)].map((m) => m[1]), ["node_modules/x/index.js"])
})

test("grep shows at most 100 lines and says how many more it found", async (t) => {
  const root = project(t, { "many.txt": Array.from({ length: 150 }, (_, i) => `hit ${i + 1}`).join("\n") })
  const out = await createTools({ root }).grep.execute({ pattern: "^hit" })
  t.regex(out, /^Found 100 matching lines in 1 file and stopped at the limit of 100: at least 50 more matching lines were not shown\.$/m)
  t.is(out.split("\n").filter((l) => /^\s+\d+#/.test(l)).length, 100)
  t.regex(out, /Narrow the pattern/)
})

test("grep takes a leading (?i) as ignore case, and refs of CRLF files match the engine's", async (t) => {
  const root = project(t, { "w.txt": "\uFEFFFirst\r\nSecond\r\n" })
  const tools = createTools({ root })
  const out = await tools.grep.execute({ pattern: "(?i)^first" })
  const view = await tools.read.execute({ filePath: "w.txt" })
  t.is(refFor(out, "First"), refsOf(view)[1])
})

test("arguments are checked with INVALID_REQUEST errors that say how to call the tool", async (t) => {
  const tools = createTools({ root: scratch(t) })
  /** @param {Promise<unknown>} p */
  const message = async (p) => {
    const err = /** @type {any} */ (await t.throwsAsync(p))
    t.is(err.code, "INVALID_REQUEST")
    return err.message
  }
  t.regex(await message(tools.read.execute({ filePath: "a", offset: "x" })), /offset must be a whole number of at least 1, got "x"/)
  t.regex(await message(tools.read.execute({ path: "a" })), /unknown argument path\. The arguments are filePath, offset, limit/)
  t.regex(await message(tools.grep.execute({ pattern: "(" })), /pattern is not a valid regular expression/)
  t.regex(await message(tools.grep.execute({ pattern: "x", include: "*.{ts" })), /include glob "\*\.\{ts" is not valid/)
  t.regex(await message(tools.grep.execute({ pattern: "x", maxResults: 0 })), /maxResults must be a whole number of at least 1, got an? number/)
  t.regex(await message(tools.grep.execute({ pattern: "x", word: "yes" })), /word must be true or false, got "yes"/)
  t.regex(await message(tools.edit.execute({ filePath: "a" })), /The request needs `operations`/)
})

test("a tool call whose signal is aborted writes nothing and rejects with CANCELLED", async (t) => {
  const root = project(t, { "a.txt": "one\ntwo\n" })
  const tools = createTools({ root })
  const refs = refsOf(await tools.read.execute({ filePath: "a.txt" }))
  const err = await t.throwsAsync(tools.edit.execute({ filePath: "a.txt", operations: [{ op: "replace", ref: refs[2], content: "TWO" }] }, { signal: AbortSignal.abort() }))
  t.like(err, { code: "CANCELLED", name: "AbortError" })
  t.is(fs.readFileSync(path.join(root, "a.txt"), "utf8"), "one\ntwo\n")
  await t.throwsAsync(tools.read.execute({ filePath: "a.txt" }, { signal: AbortSignal.abort() }), { code: "CANCELLED" })
  await t.throwsAsync(tools.grep.execute({ pattern: "one" }, { signal: AbortSignal.abort() }), { code: "CANCELLED" })
})

test("every host gets one list of four tools, the same objects createTools names", (t) => {
  const list = createToolList({ root: scratch(t) })
  t.deepEqual(list.map((tool) => tool.name), ["read", "edit", "grep", "apply"])
  const byName = createTools({ root: scratch(t) })
  for (const tool of list) {
    t.is(byName[tool.name].description, tool.description)
    t.deepEqual(byName[tool.name].inputSchema, tool.inputSchema)
    t.is(tool.annotations.readOnlyHint, tool.name === "read" || tool.name === "grep")
  }
})

test("each tool's zod shape is its JSON schema", (t) => {
  for (const tool of createToolList({ root: scratch(t) })) {
    const { $schema, ...fromZod } = z.toJSONSchema(z.object(tool.zodSchema(z)), { io: "input" })
    // zod states the largest safe integer as every whole number's maximum.
    const stated = JSON.parse(JSON.stringify(fromZod, (key, value) => (key === "maximum" && value === Number.MAX_SAFE_INTEGER ? undefined : value)))
    t.deepEqual(stated, tool.inputSchema, tool.name)
  }
})

test("apply writes several files as one change, and one stale entry writes none of them", async (t) => {
  const root = project(t, { "a.txt": "a\n", "b.txt": "b\n" })
  const tools = createTools({ root })
  const a = refsOf(await tools.read.execute({ filePath: "a.txt" }))
  const b = refsOf(await tools.read.execute({ filePath: "b.txt" }))
  const { text, result } = await tools.apply.call({
    files: [
      { filePath: "a.txt", operations: [{ op: "replace", ref: a[1], content: "A" }] },
      { filePath: "b.txt", operations: JSON.stringify([{ op: "replace", ref: b[1], content: "B" }]) },
    ],
  })
  t.is(result.files.length, 2)
  t.regex(text, /a\.txt/)
  t.is(fs.readFileSync(path.join(root, "a.txt"), "utf8"), "A\n")
  t.is(fs.readFileSync(path.join(root, "b.txt"), "utf8"), "B\n")
  const err = await t.throwsAsync(tools.apply.execute({
    files: [
      { filePath: "a.txt", operations: [{ op: "append", content: "more" }] },
      { filePath: "b.txt", operations: [{ op: "replace", ref: b[1], content: "stale" }] },
    ],
  }))
  t.is(/** @type {any} */ (err).code, "HASH_MISMATCH")
  t.is(fs.readFileSync(path.join(root, "a.txt"), "utf8"), "A\n")
  t.regex(await t.throwsAsync(tools.apply.execute({ files: [] })).then((e) => e?.message ?? ""), /files must be a list of edits/)
})

test("the binding judges the view and syntax options, and a wrong value from the environment names its variable", (t) => {
  const root = scratch(t)
  const fromEnv = /** @type {any} */ (t.throws(() => openEngine({ root }, { HASHLINE_VIEW: "tiny" })))
  t.is(fromEnv.code, "INVALID_REQUEST")
  t.regex(fromEnv.message, /"lean" or "full".*\(from HASHLINE_VIEW\)\.$/)
  const given = /** @type {any} */ (t.throws(() => openEngine({ root, syntax: /** @type {any} */ ("loud") }, {})))
  t.regex(given.message, /"warn", "reject" or "off"/)
  t.notRegex(given.message, /HASHLINE_SYNTAX/)
  t.truthy(openEngine({ root }, { HASHLINE_VIEW: " Full ", HASHLINE_SYNTAX: "Reject" }))
})

/**
 * The fields an interface of index.d.ts declares.
 * @param {string} name
 */
function declaredFields(name) {
  const dts = fs.readFileSync(new URL("../../index.d.ts", import.meta.url), "utf8")
  const body = new RegExp(`^export interface ${name} \\{\\n([\\s\\S]*?)^\\}`, "m").exec(dts)?.[1] ?? ""
  return [...body.matchAll(/^ {2}(\w+)\??:/gm)].map((m) => m[1])
}

test("every field a thrown error carries is one index.d.ts declares, and errorInfo keeps each: mismatches, a suggestion, the problems of a refused parse, each refused entry of a batch", async (t) => {
  const root = project(t, { "a.ts": "export const a = 1;\n", "b.txt": "b\n" })
  const engine = openEngine({ root, syntax: "reject" })
  const a = refsOf(engine.read("a.ts").text)
  const errors = [
    t.throws(() => engine.edit("a.ts", { operations: [{ op: "replace", ref: a[1], content: "export const a = (1;" }] })),
    t.throws(() => engine.edit("a.ts", { operations: [{ op: "delete", ref: "1#XYZ" }] })),
    t.throws(() => engine.edit("b.txt", { operations: [{ op: "delete", ref: "1#AAA#AAA" }] })),
    t.throws(() => engine.applyBatch([{ filePath: "a.ts", operations: [{ op: "append", content: "x();" }] }, { filePath: "b.txt", operations: [{ op: "delete", ref: "1#AAA#AAA" }] }])),
  ].map((err) => /** @type {any} */ (err))
  t.deepEqual(errors.map((err) => err.code), ["SYNTAX_ERROR", "INVALID_REF", "HASH_MISMATCH", "HASH_MISMATCH"])
  const declared = declaredFields("ErrorFields")
  t.true(declared.includes("problems") && declared.includes("errors"), declared.join(", "))
  const entryDeclared = declaredFields("EntryError")
  for (const err of errors) {
    const carried = Object.keys(err).filter((key) => key !== "stack" && key !== "message")
    t.deepEqual(carried.filter((key) => !declared.includes(key)), [], err.code)
    const info = /** @type {Record<string, unknown>} */ (errorInfo(err))
    for (const key of carried) {
      const value = err[key]
      if (Array.isArray(value) && value.length === 0) t.false(key in info, key)
      else if (key !== "errors") t.deepEqual(info[key], value, key)
    }
    for (const entry of err.errors ?? []) t.deepEqual(Object.keys(entry).filter((key) => !entryDeclared.includes(key)), [])
  }
  t.like(errorInfo(errors[0]).problems?.[0], { severity: "error", language: "TypeScript" })
  t.is(errorInfo(errors[1]).suggestion, a[1])
  t.like(errorInfo(errors[3]).errors, [{ index: 1, code: "HASH_MISMATCH", path: "b.txt" }])
})

test("openEngine takes the store folder and its size from HASHLINE_STORE and HASHLINE_STORE_MAX_BYTES where the host gives none, sizes also as 64K; a size that is none names where it came from", (t) => {
  const root = project(t, { "a.txt": "a\n" })
  const store = path.join(scratch(t), "store")
  const env = { HASHLINE_STORE: store, HASHLINE_STORE_MAX_BYTES: "64K" }
  t.deepEqual(engineOptions({ root }, env).options, { root, storeDir: store, storeMaxBytes: 65536 })
  t.deepEqual(engineOptions({ root, storeDir: "/given", storeMaxBytes: "1M" }, env).options, { root, storeDir: "/given", storeMaxBytes: 1 << 20 })
  t.deepEqual(engineOptions({ root }, {}, { storeDir: "/default" }).options, { root, storeDir: "/default" })
  t.is(engineOptions({ root }, env, { storeDir: "/default" }).options.storeDir, store)
  // The folder a variable names is the one a later process finds: the versions a read kept there.
  openEngine({ root }, env).read("a.txt")
  t.true(fs.readdirSync(store).length > 0)
  const fromEnv = /** @type {any} */ (t.throws(() => openEngine({ root }, { HASHLINE_STORE_MAX_BYTES: "a lot" })))
  t.is(fromEnv.code, "INVALID_REQUEST")
  t.regex(fromEnv.message, /^HASHLINE_STORE_MAX_BYTES takes a number of bytes such as 500M, got "a lot"\.$/)
  t.regex(/** @type {any} */ (t.throws(() => openEngine({ root, storeMaxBytes: "lots" }, {}))).message, /^options\.storeMaxBytes takes a number of bytes/)
})

test("a read by a model the user set to the full view shows full refs, the longest part of its id deciding; other models get the session's view", async (t) => {
  const root = project(t, { "a.txt": "one\ntwo\n" })
  const models = { KIMI: { view: /** @type {const} */ ("full") }, "kimi-k2-mini": { view: /** @type {const} */ ("lean") } }
  const tools = createTools({ root, view: "lean", models, telemetry: false })
  const full = /^1#[0-9A-F]{3}#[0-9A-F]{3}\|one$/m
  const lean = /^1[a-z]{2} one$/m
  t.regex(await tools.read.execute({ filePath: "a.txt" }, { model: "moonshot/Kimi-K2" }), full)
  t.regex(await tools.read.execute({ filePath: "a.txt" }, { model: "kimi-k2-mini" }), lean)
  t.regex(await tools.read.execute({ filePath: "a.txt" }, { model: "gpt-5" }), lean)
  t.regex(await tools.read.execute({ filePath: "a.txt" }), lean)
  // The session's model, where a call names none.
  const session = createTools({ root, view: "lean", models, model: "kimi-k2", telemetry: false })
  t.regex(await session.read.execute({ filePath: "a.txt" }), full)
  // HASHLINE_MODELS, where the host gives no setting.
  t.deepEqual(settingsOf({}, { HASHLINE_MODELS: '{"deepseek": {"view": "full"}}' }).settingOf("DeepSeek-V4"), { view: "full" })
  // An edit by the full refs lands as any other.
  const shown = await tools.read.execute({ filePath: "a.txt" }, { model: "kimi-k2" })
  await tools.edit.execute({ filePath: "a.txt", operations: [{ op: "replace", ref: refFor(shown, "two"), content: "TWO" }] }, { model: "kimi-k2" })
  t.is(fs.readFileSync(path.join(root, "a.txt"), "utf8"), "one\nTWO\n")
})

test("a per-model setting that is not one is refused with INVALID_REQUEST naming where it came from, never ignored", (t) => {
  const refused = (/** @type {unknown} */ models, /** @type {Record<string, string>} */ env = {}) => {
    const err = t.throws(() => settingsOf(/** @type {any} */ ({ models }), env))
    t.is(/** @type {any} */ (err)?.code, "INVALID_REQUEST")
    return err?.message ?? ""
  }
  t.regex(refused({ kimi: { view: "wide" } }), /^options\.models: view \(for "kimi"\) takes "lean" or "full", not "wide"\.$/)
  t.regex(refused({ kimi: { veiw: "full" } }), /"veiw" \(for "kimi"\) is no setting; the settings are view\./)
  t.regex(refused({ kimi: "full" }), /the setting of "kimi" is not an object/)
  t.regex(refused({ "": { view: "full" } }), /may not be empty/)
  t.regex(refused(["kimi"]), /an object of settings/)
  t.regex(refused(undefined, { HASHLINE_MODELS: "{kimi: full}" }), /^HASHLINE_MODELS: not JSON/)
  t.throws(() => createTools({ root: scratch(t), models: /** @type {any} */ ({ kimi: { view: "wide" } }) }), { code: "INVALID_REQUEST" })
})
