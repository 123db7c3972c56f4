// @ts-check
// `hashline stats` and the command line's own record: figures per model and
// host as a table, CSV and JSON, within a time window and filters; advice
// with its figures; a planted or cut record read without failing and never
// through a link; and `--no-telemetry`.
import test from "ava"
import { spawnSync } from "node:child_process"
import fs from "node:fs"
import path from "node:path"
import { fileURLToPath } from "node:url"
import * as helpers from "../helpers.mjs"

const { binding, scratch } = helpers
/**
 * The refs of a view's lines, by line number.
 * @param {string} text
 */
const refsOf = (text) => /** @type {Record<number, string>} */ (helpers.refsOf(text))

const CLI = path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "cli", "hashline.cjs")

/**
 * @param {string[]} args
 * @param {{ cwd: string, env?: Record<string, string | undefined> }} options
 */
function hashline(args, options) {
  /** @type {Record<string, string | undefined>} */
  const env = { ...process.env, HASHLINE_STORE: path.join(options.cwd, ".store"), ...options.env }
  for (const key of Object.keys(env)) if (env[key] === undefined) delete env[key]
  const result = spawnSync(process.execPath, [CLI, ...args], { cwd: options.cwd, encoding: "utf8", env, timeout: 30_000 })
  return { status: result.status, stdout: result.stdout, stderr: result.stderr }
}

/**
 * Edits by `model` through a session of `host`, each after a read: one of
 * every `n / refused` cites a ref that no line has (a mistyped lean ref),
 * and the next, citing the read's ref, lands.
 * @param {string} root
 * @param {string} dir
 * @param {{ host: string, model: string, n: number, refused: number, view?: "lean" | "full" }} calls
 */
function edits(root, dir, { host, model, n, refused, view = "lean" }) {
  const file = `${model}.txt`
  fs.writeFileSync(path.join(root, file), "first\n")
  const hl = new binding.Hashline({ root, telemetryDir: dir, host, model, view })
  for (let i = 0; i < n; i++) {
    const ref = refsOf(hl.read(file).text)[1]
    try {
      hl.edit(file, { operations: [{ op: "insert_after", ref: refused > 0 && i % (n / refused) === 0 ? "1qq" : ref, content: `line ${i}` }] })
    } catch {
      // A refusal: recorded.
    }
  }
}

test("stats shows each model's figures on each host as a table, as CSV and as JSON, within a window and filters", (t) => {
  const root = scratch(t)
  const dir = path.join(scratch(t), "telemetry")
  edits(root, dir, { host: "opencode", model: "typo-model", n: 40, refused: 10 })
  edits(root, dir, { host: "pi", model: "careful-model", n: 5, refused: 0, view: "full" })
  binding.flushTelemetry()
  fs.writeFileSync(path.join(root, "c.txt"), "c\n")
  t.is(hashline(["read", "c.txt", "--root", root], { cwd: root, env: { HASHLINE_TELEMETRY_DIR: dir } }).status, 0)

  const table = hashline(["stats", "--telemetry-dir", dir], { cwd: root })
  t.is(table.status, 0, table.stderr)
  const lines = table.stdout.split("\n")
  t.regex(lines[0], /^91 calls from \d{4}-\d\d-\d\d to \d{4}-\d\d-\d\d, in .* \(1 file\)\.$/)
  t.regex(lines[2], /^model\s+host\s+calls\s+edits\s+first try\s+retries\s+tokens\/edit\s+stale\s+refusals$/)
  const typo = lines.find((l) => l.startsWith("typo-model"))
  // 40 edits: 10 refused (each a run of its own, the next edit its retry),
  // so 30 first tries, 20 of them landed.
  t.regex(String(typo), /^typo-model\s+opencode\s+80\s+40\s+66\.7%\s+1\.0 \(10\/10\)\s+[\d,]+\s+0\s+HASH_MISMATCH 10$/)
  t.regex(table.stdout, /^careful-model\s+pi\s+10\s+5\s+100\.0%\s+-/m)
  t.regex(table.stdout, /^\(unknown\)\s+cli\s+1\s+0\s+-/m)
  t.regex(table.stdout, /Advice:\n {2}typo-model on opencode: 10 of 40 edits in the lean view \(25%\) were refused for their refs .* set view "full" for this model \(\{"typo-model": \{"view": "full"\}\} in HASHLINE_MODELS or the option models\)\./)

  const json = JSON.parse(hashline(["stats", "--telemetry-dir", dir, "--json"], { cwd: root }).stdout)
  t.like(json, { ok: true, records: 91, matched: 91, skipped: 0 })
  const group = json.groups.find((/** @type {any} */ g) => g.model === "typo-model")
  t.like(group, { host: "opencode", edits: { attempts: 40, applied: 30, firstTries: 30, firstTryApplied: 20 }, retries: { runs: 10, landed: 10, toSuccess: 1 }, refusals: [{ code: "HASH_MISMATCH", count: 10 }] })
  t.like(json.advice[0], { model: "typo-model", kind: "lean-refs", setting: "view", value: "full", attempts: 40, count: 10 })
  // Each day's edits, per model and host, add up to the model's.
  const perDay = json.days.filter((/** @type {any} */ d) => d.model === "typo-model").reduce((/** @type {number} */ n, /** @type {any} */ d) => n + d.edits.attempts, 0)
  t.is(perDay, 40)

  const csv = hashline(["stats", "--telemetry-dir", dir, "--csv", "--host", "opencode"], { cwd: root }).stdout.trim().split("\n")
  t.is(csv.length, 2)
  t.true(csv[0].startsWith("model,host,calls,reads,edits,applied,first_tries,first_try_applied,first_try_rate,"))
  t.true(csv[1].startsWith("typo-model,opencode,80,40,40,30,30,20,0.6666666666666666,10,10,0,1,"))
  t.true(csv[1].endsWith(",HASH_MISMATCH:10"))

  const filtered = JSON.parse(hashline(["stats", "--telemetry-dir", dir, "--json", "--model", "CAREFUL", "--tool", "edit"], { cwd: root }).stdout)
  t.deepEqual(
    filtered.groups.map((/** @type {any} */ g) => [g.model, g.calls]),
    [["careful-model", 5]],
  )
  const future = JSON.parse(hashline(["stats", "--telemetry-dir", dir, "--json", "--since", "2999-01-01"], { cwd: root }).stdout)
  t.like(future, { records: 91, matched: 0, groups: [] })
  const past = hashline(["stats", "--telemetry-dir", dir, "--until", "1h"], { cwd: root })
  t.regex(past.stdout, /^None of the 91 calls recorded match in /)
  const both = hashline(["stats", "--telemetry-dir", dir, "--csv", "--json"], { cwd: root })
  t.is(both.status, 64)
})

test("stats reads a planted or cut record without failing, acting on it or following a link out of its folder", (t) => {
  const dir = scratch(t)
  const outside = path.join(scratch(t), "outside.jsonl")
  const record = (/** @type {Record<string, unknown>} */ fields) => JSON.stringify({ v: 1, at: Date.now(), tool: "edit", view: "lean", outcome: "applied", ms: 1, ...fields })
  fs.writeFileSync(outside, `${record({ model: "outside-model" })}\n`)
  fs.symlinkSync(outside, path.join(dir, "telemetry.jsonl"))
  fs.writeFileSync(
    path.join(dir, "telemetry.1.jsonl"),
    [
      record({ model: "=HYPERLINK(\"http://x\")" }),
      record({ model: "\u001b[2Jwiped" }),
      record({ model: "x", path: "../../etc/passwd" }),
      record({ model: "x", lines: { file: -1 } }),
      "{\"v\":1,\"at\":",
      "x".repeat(100_000),
      record({ model: "cut" }).slice(0, 40),
    ].join("\n"),
  )
  fs.mkdirSync(path.join(dir, "telemetry.2.jsonl"))
  const before = fs.readFileSync(outside, "utf8")
  const table = hashline(["stats", "--telemetry-dir", dir], { cwd: dir })
  t.is(table.status, 0, table.stderr)
  t.false(table.stdout.includes("outside-model"))
  t.false(table.stdout.includes("\u001b"))
  t.regex(table.stdout, /^1 call from /)
  t.regex(table.stdout, /Note: 6 lines were no record and were skipped\./)
  const csv = hashline(["stats", "--telemetry-dir", dir, "--csv"], { cwd: dir }).stdout
  t.regex(csv, /^"'=HYPERLINK\(""http:\/\/x""\)",,/m)
  t.is(fs.readFileSync(outside, "utf8"), before)
})

test("the command line's calls are recorded as host cli once the process ends, and --no-telemetry keeps none", (t) => {
  const root = scratch(t)
  fs.writeFileSync(path.join(root, "a.txt"), "a\n")
  const dir = path.join(scratch(t), "telemetry")
  const env = { HASHLINE_TELEMETRY_DIR: dir }
  t.is(hashline(["read", "a.txt", "--root", root, "--no-telemetry"], { cwd: root, env }).status, 0)
  t.false(fs.existsSync(dir))
  t.is(hashline(["edit", "a.txt", "--root", root, "--ops", '[{"op":"append","content":"b"}]'], { cwd: root, env }).status, 0)
  const [edit] = fs.readFileSync(path.join(dir, "telemetry.jsonl"), "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l))
  t.like(edit, { host: "cli", tool: "edit", ops: ["append"], outcome: "applied" })
  t.is(hashline(["read", "a.txt", "--root", root], { cwd: root, env: { ...env, HASHLINE_TELEMETRY: "0" } }).status, 0)
  t.is(fs.readFileSync(path.join(dir, "telemetry.jsonl"), "utf8").split("\n").filter(Boolean).length, 1)
})
