// @ts-check
// Batches over several files (`hashline apply`): checked as a whole before
// any write, then written file by file, with an honest account when a write
// fails half-way.
import test from "ava"
import fs from "node:fs"
import path from "node:path"
import { applyBatch } from "../lib/batch.mjs"
import * as helpers from "./helpers.mjs"

// These tests pin the full view's text; the lean view, the default, has its own in lean.spec.mjs.
process.env.HASHLINE_VIEW = "full"

const { binding, scratch } = helpers
/**
 * The refs of a view's lines, by line number.
 * @param {string} text
 */
const refsOf = (text) => /** @type {Record<number, string>} */ (helpers.refsOf(text))

/**
 * @param {import("ava").ExecutionContext} t
 * @param {Record<string, string>} files
 */
function project(t, files) {
  const root = scratch(t)
  for (const [name, content] of Object.entries(files)) fs.writeFileSync(path.join(root, name), content)
  return root
}

test("two names of one file in a batch are rejected before anything is written", (t) => {
  const root = project(t, { "a.txt": "a\n", "b.txt": "b\n" })
  fs.symlinkSync(path.join(root, "a.txt"), path.join(root, "alias.txt"))
  const engine = new binding.Hashline({ view: "full", root })
  const result = applyBatch(engine, [
    { path: "b.txt", operations: [{ op: "append", content: "c" }] },
    { path: "a.txt", operations: [{ op: "append", content: "x" }] },
    { path: "alias.txt", operations: [{ op: "append", content: "y" }] },
  ])
  t.like(result, { ok: false, stage: "check" })
  t.deepEqual(result.ok ? [] : result.errors.map((e) => [e.index, e.code]), [[2, "INVALID_REQUEST"]])
  t.is(fs.readFileSync(path.join(root, "a.txt"), "utf8"), "a\n")
  t.is(fs.readFileSync(path.join(root, "b.txt"), "utf8"), "b\n")
})

test("a file changed by someone else between check and write stops the batch there: earlier files stay written, later ones are not", (t) => {
  const root = project(t, { "a.txt": "a\n", "b.txt": "b\n", "c.txt": "c\n" })
  const real = new binding.Hashline({ view: "full", root })
  const b = refsOf(real.read("b.txt").text)
  // A writer that changes the very line b.txt's edit names, after the check.
  const engine = {
    root: real.root,
    plan: real.plan.bind(real),
    /** @param {import("../index.js").EditPlan} plan */
    commit(plan) {
      if (plan.path === "b.txt") fs.writeFileSync(path.join(root, "b.txt"), "B by someone else\n")
      return real.commit(plan)
    },
  }
  const result = applyBatch(engine, [
    { path: "a.txt", operations: [{ op: "append", content: "a2" }] },
    { path: "b.txt", operations: [{ op: "replace", ref: b[1], content: "b2" }] },
    { path: "c.txt", operations: [{ op: "append", content: "c2" }] },
  ])
  if (result.ok || result.stage !== "write") return t.fail(`expected a failed write, got ${JSON.stringify(result)}`)
  t.deepEqual(result.written.map((r) => r.path), ["a.txt"])
  t.deepEqual(result.errors.map((e) => [e.index, e.path, e.code]), [[1, "b.txt", "BASE_CHANGED"]])
  t.deepEqual(result.notWritten, ["c.txt"])
  t.is(fs.readFileSync(path.join(root, "a.txt"), "utf8"), "a\na2\n")
  t.is(fs.readFileSync(path.join(root, "b.txt"), "utf8"), "B by someone else\n")
  t.is(fs.readFileSync(path.join(root, "c.txt"), "utf8"), "c\n")
})

test("a batch that is not a non-empty array is an INVALID_REQUEST", (t) => {
  const engine = new binding.Hashline({ view: "full", root: scratch(t) })
  for (const batch of [[], {}, "x", null]) {
    t.is(/** @type {any} */ (t.throws(() => applyBatch(engine, batch))).code, "INVALID_REQUEST")
  }
})
