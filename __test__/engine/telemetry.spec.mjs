// @ts-check
// The local telemetry record through the binding (docs/telemetry.md): what
// a call leaves in it and what it never does, how it is turned off, that a
// failure to write it fails no call, that processes appending at once never
// interleave a record, and that its token estimates come near the
// benchmarks' counts.
import test from "ava"
import { spawn } from "node:child_process"
import fs from "node:fs"
import { createRequire } from "node:module"
import path from "node:path"
import { fileURLToPath } from "node:url"
import { Tiktoken } from "js-tiktoken/lite"
import * as helpers from "../helpers.mjs"

const { binding, scratch } = helpers
/**
 * The refs of a view's lines, by line number.
 * @param {string} text
 */
const refsOf = (text) => /** @type {Record<number, string>} */ (helpers.refsOf(text))

const require = createRequire(import.meta.url)
const o200k = new Tiktoken(require("js-tiktoken/ranks/o200k_base"))
const LOADER = path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "index.js")

const records = helpers.recorded

/**
 * A project with `files`, and a session over it recording into a folder of
 * its own.
 * @param {import("ava").ExecutionContext} t
 * @param {Record<string, string>} files
 * @param {Record<string, unknown>} [options]
 */
function project(t, files, options = {}) {
  const root = scratch(t)
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(root, name), text)
  const dir = path.join(scratch(t), "telemetry")
  const hl = new binding.Hashline({ root, telemetryDir: dir, host: "test-host", model: "session-model", ...options })
  return { root, dir, hl }
}

/**
 * Runs a Node script with the binding loaded as `binding`, in `env`.
 * @param {string} script
 * @param {Record<string, string | undefined>} env
 * @returns {Promise<number | null>}
 */
function node(script, env) {
  const child = spawn(process.execPath, ["--input-type=module", "-e", `import { createRequire } from "node:module"\nconst binding = createRequire(import.meta.url)(${JSON.stringify(LOADER)})\n${script}`], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "inherit", "inherit"],
  })
  return new Promise((resolve) => child.once("exit", resolve))
}

test("every call is recorded with its host, model, tool, ops, outcome, sizes and tokens, and no content or path in clear", async (t) => {
  const secret = "SECRET-CONTENT-OF-THE-FILE"
  const { root, dir, hl } = project(t, { "private-name.ts": `const a = 1\nconst b = "${secret}"\nconst c = 3\n`, "other.ts": "x\n" })
  const refs = refsOf(hl.read("private-name.ts").text)
  hl.edit("private-name.ts", { operations: [{ op: "replace", ref: refs[1], content: "const a = 10" }, { op: "insert_after", ref: refs[3], content: "const d = 4" }] }, { model: "call-model", callId: "call-1" })
  t.throws(() => hl.edit("private-name.ts", { operations: [{ op: "replace", ref: "2zz", content: secret }] }), { code: "HASH_MISMATCH" })
  const plan = await hl.planAsync("other.ts", { oldString: "x", newString: "y" })
  await hl.commitAsync(plan)
  await hl.searchAsync("const", { model: "grep-model" })
  await hl.applyBatchAsync([{ path: "other.ts", operations: [{ op: "append", content: "z" }] }])
  binding.flushTelemetry()

  const written = fs.readFileSync(path.join(dir, "telemetry.jsonl"), "utf8")
  for (const clear of [secret, "private-name", "other.ts", root]) t.false(written.includes(clear), clear)
  const [read, edit, refused, fallback, grep, apply] = records(dir)
  t.like(read, { v: 1, tool: "read", host: "test-host", model: "session-model", view: "lean", outcome: "ok", lines: { file: 3, shown: 3 } })
  t.like(edit, { tool: "edit", model: "call-model", callId: "call-1", ops: ["replace", "insert_after"], outcome: "applied", lines: { added: 2, removed: 1 } })
  t.like(refused, { tool: "edit", outcome: "refused", code: "HASH_MISMATCH", ops: ["replace"] })
  t.like(fallback, { tool: "edit", ops: ["old_string"], outcome: "applied" })
  t.like(grep, { tool: "grep", model: "grep-model", outcome: "ok" })
  t.like(apply, { tool: "apply", ops: ["append"], outcome: "applied", files: 1 })
  // One file, one hash; another file, another.
  t.regex(read.path, /^[0-9a-f]{16}$/)
  t.is(edit.path, read.path)
  t.is(refused.path, read.path)
  t.not(fallback.path, read.path)
  t.is(apply.path, fallback.path)
  for (const r of [read, edit, refused, fallback, grep, apply]) {
    t.true(r.tokens.request > 0 && r.tokens.result > 0, JSON.stringify(r))
    t.true(typeof r.ms === "number" && r.ms >= 0)
    t.true(Math.abs(r.at - Date.now()) < 60_000)
  }
  // The commit of a plan is the one record of the call, timed over both.
  t.true(fallback.ms > 0)
})

test("an edit's result says how it came to be: stale refs recovered and copies the clean-up removed", (t) => {
  const { hl, dir } = project(t, { "f.txt": "alpha beta\ngamma delta\nepsilon zeta\nlast line\n" }, { view: "full" })
  const view = hl.read("f.txt").text
  const refs = refsOf(view)
  const first = hl.edit("f.txt", { operations: [{ op: "replace", ref: refs[1], content: "ALPHA\nalpha two" }] })
  t.deepEqual(first.outcome, { remapped: false, prefixesRemoved: 0, echoesDropped: 0 })
  const prefixOf = (/** @type {number} */ n) => `${refs[n]}|`
  // Refs of the first read, and the prefix of the replaced line copied in.
  const second = hl.edit("f.txt", { operations: [{ op: "replace", ref: refs[3], content: `${prefixOf(3)}epsilon zeta changed` }] })
  t.deepEqual(second.outcome, { remapped: true, prefixesRemoved: 1, echoesDropped: 0 })
  binding.flushTelemetry()
  t.like(records(dir)[2], { remapped: true, cleaned: { prefixes: 1 } })
})

test("the record is off with telemetry: false, and HASHLINE_TELEMETRY=0 turns it off whatever a host passes", async (t) => {
  const { root, dir, hl } = project(t, { "a.txt": "a\n" }, { telemetry: false })
  hl.read("a.txt")
  binding.flushTelemetry()
  t.false(fs.existsSync(dir))
  const script = `const hl = new binding.Hashline({ root: ${JSON.stringify(root)}, telemetry: true, telemetryDir: ${JSON.stringify(dir)} })\nhl.read("a.txt")`
  t.is(await node(script, { HASHLINE_TELEMETRY: "0" }), 0)
  t.false(fs.existsSync(dir))
  // Moved by HASHLINE_TELEMETRY_DIR, and written when the process ends.
  const moved = path.join(scratch(t), "moved")
  t.is(await node(`new binding.Hashline({ root: ${JSON.stringify(root)} }).read("a.txt")`, { HASHLINE_TELEMETRY_DIR: moved }), 0)
  t.is(records(moved).length, 1)
})

test("a failure to write the record fails no call", (t) => {
  const root = scratch(t)
  fs.writeFileSync(path.join(root, "a.txt"), "a\n")
  const notAFolder = path.join(scratch(t), "file")
  fs.writeFileSync(notAFolder, "")
  const open = path.join(scratch(t), "open")
  fs.mkdirSync(open, { mode: 0o777 })
  fs.chmodSync(open, 0o777)
  for (const telemetryDir of [notAFolder, open, path.join(notAFolder, "below")]) {
    const hl = new binding.Hashline({ root, telemetryDir })
    const refs = refsOf(hl.read("a.txt").text)
    hl.edit("a.txt", { operations: [{ op: "append", content: "b" }] })
    t.truthy(refs[1])
  }
  binding.flushTelemetry()
  t.is(fs.readFileSync(notAFolder, "utf8"), "")
  if (process.platform !== "win32") t.deepEqual(fs.readdirSync(open), [])
  t.is(fs.readFileSync(path.join(root, "a.txt"), "utf8"), "a\nb\nb\nb\n")
})

test("several processes recording at once never interleave a record and lose none", async (t) => {
  const root = scratch(t)
  fs.writeFileSync(path.join(root, "a.txt"), "one line\n".repeat(50))
  const dir = path.join(scratch(t), "telemetry")
  const calls = 400
  const script = (/** @type {number} */ n) =>
    `const hl = new binding.Hashline({ root: ${JSON.stringify(root)}, telemetryDir: ${JSON.stringify(dir)}, model: "process-${n}" })\nfor (let i = 0; i < ${calls}; i++) await hl.readAsync("a.txt", { callId: String(i) })`
  const codes = await Promise.all([0, 1, 2, 3].map((n) => node(script(n), {})))
  t.deepEqual(codes, [0, 0, 0, 0])
  const lines = fs.readFileSync(path.join(dir, "telemetry.jsonl"), "utf8").split("\n").filter(Boolean)
  t.is(lines.length, 4 * calls)
  const all = lines.map((line) => JSON.parse(line))
  for (let n = 0; n < 4; n++) {
    const mine = all.filter((r) => r.model === `process-${n}`).map((r) => Number(r.callId))
    t.deepEqual(new Set(mine).size, calls)
  }
  const stats = binding.telemetryStats({ dir })
  t.like(stats, { records: 4 * calls, skipped: 0, lost: 0 })
})

test("tokens are estimated near the o200k counts the benchmarks make", async (t) => {
  const source = fs.readFileSync(path.join(path.dirname(LOADER), "lib", "tools.mjs"), "utf8")
  const { hl, dir } = project(t, { "tools.mjs": source })
  for (const view of ["lean", "full"]) await hl.readAsync("tools.mjs", { view: /** @type {any} */ (view) })
  const refs = refsOf(hl.read("tools.mjs", { limit: 10 }).text)
  const request = { operations: [{ op: "replace", ref: refs[2], through: refs[4], content: "// The one list of hashline's tools.\n// Every host maps it." }] }
  const result = hl.edit("tools.mjs", request)
  binding.flushTelemetry()
  const [lean, full, , edit] = records(dir)
  const near = (/** @type {number} */ estimate, /** @type {string} */ text) => {
    const exact = o200k.encode(text, [], []).length
    t.true(Math.abs(estimate - exact) / exact < 0.2, `${estimate} against ${exact}`)
  }
  near(lean.tokens.result, (await hl.readAsync("tools.mjs", { view: "lean" })).text)
  near(full.tokens.result, (await hl.readAsync("tools.mjs", { view: "full" })).text)
  near(edit.tokens.result, result.output)
  near(edit.tokens.request, JSON.stringify({ filePath: "tools.mjs", ...request }))
})

test("the shared tools record the host of their row and the model a call names", async (t) => {
  const root = scratch(t)
  fs.writeFileSync(path.join(root, "a.txt"), "a\n")
  const dir = path.join(scratch(t), "telemetry")
  const { createTools } = await import("../../lib/tools.mjs")
  const tools = createTools({ root, telemetryDir: dir, host: "a-host" })
  await tools.read.call({ filePath: "a.txt" }, { model: "model-a", callId: "c1" })
  const ai = await import("../../lib/ai.mjs")
  const aiTools = ai.createTools({ root, telemetryDir: dir })
  await /** @type {any} */ (aiTools.read).execute({ filePath: "a.txt" }, { toolCallId: "x", messages: [] })
  binding.flushTelemetry()
  const [plain, viaAi] = records(dir)
  t.like(plain, { host: "a-host", model: "model-a", callId: "c1", tool: "read" })
  t.like(viaAi, { host: "ai", tool: "read", callId: "x" })
  t.false("model" in viaAi)
})

test("a session given no folder records where the test setup's HASHLINE_TELEMETRY_DIR says, as the engine reads the environment, never in the user's folder", (t) => {
  const root = scratch(t)
  fs.writeFileSync(path.join(root, "a.txt"), "a\n")
  const model = `setup-check-${process.pid}-${Date.now()}`
  new binding.Hashline({ root, model }).read("a.txt")
  const dir = String(process.env.HASHLINE_TELEMETRY_DIR)
  t.true(path.basename(dir).startsWith("hashline-test-telemetry-"), dir)
  t.true(records(dir).some((r) => r.model === model))
})
