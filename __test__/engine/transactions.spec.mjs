// @ts-check
// Changes of several files land whole or not at all: a batch (`hashline
// apply`, `applyBatch`) and a patch whose write fails for one file leave
// every file as it was, and a batch gives one result for all its files.
import test from "ava"
import { spawnSync } from "node:child_process"
import fs from "node:fs"
import path from "node:path"
import { fileURLToPath } from "node:url"
import ts from "typescript"
import { binding, refsOf as untypedRefsOf, scratch } from "../helpers.mjs"

const CLI = path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "cli", "hashline.cjs")

/** @param {string} text */
const refsOf = (text) => /** @type {Record<number, string>} */ (untypedRefsOf(text))

/**
 * A folder of files, each file's content as given.
 * @param {import("ava").ExecutionContext} t
 * @param {Record<string, string>} files
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
 * Every file under `root`, with its content, hidden ones included.
 * @param {string} root
 */
function snapshot(root) {
  /** @type {Record<string, string>} */
  const files = {}
  for (const entry of fs.readdirSync(root, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue
    const file = path.join(entry.parentPath, entry.name)
    files[path.relative(root, file)] = fs.readFileSync(file, "utf8")
  }
  return files
}

/**
 * Makes `dir` refuse new names: immutable for root (whom modes do not
 * stop), read-only for anyone else; undone when the test ends.
 * @param {import("ava").ExecutionContext} t
 * @param {string} dir
 */
function refuseWrites(t, dir) {
  if (process.getuid?.() === 0) {
    const set = spawnSync("chattr", ["+i", dir])
    if (set.status !== 0) throw new Error(`chattr +i ${dir} failed: ${set.stderr}`)
    t.teardown(() => spawnSync("chattr", ["-i", dir]))
  } else {
    fs.chmodSync(dir, 0o555)
    t.teardown(() => fs.chmodSync(dir, 0o755))
  }
}

/**
 * @param {string[]} args
 * @param {{ cwd: string, input?: string }} options
 */
function hashline(args, options) {
  const store = path.join(options.cwd, "..", `${path.basename(options.cwd)}-store`)
  const result = spawnSync(process.execPath, [CLI, ...args], { cwd: options.cwd, input: options.input ?? "", encoding: "utf8", env: { ...process.env, HASHLINE_STORE: store, HASHLINE_VIEW: "full" }, timeout: 30_000 })
  fs.rmSync(store, { recursive: true, force: true })
  return result
}

test("a batch whose last folder refuses writes changes no file, and says so", (t) => {
  const root = project(t, { "a/one.txt": "one\n", "b/two.txt": "two\n" })
  refuseWrites(t, path.join(root, "b"))
  const batch = [
    { path: "a/one.txt", operations: [{ op: "append", content: "1" }] },
    { path: "b/two.txt", operations: [{ op: "append", content: "2" }] },
  ]
  const before = snapshot(root)
  const out = hashline(["apply", "--root", root, "--json"], { cwd: root, input: JSON.stringify(batch) })
  t.not(out.status, 0)
  const json = JSON.parse(out.stdout)
  t.false(json.ok)
  t.is(json.error.code, "PERMISSION")
  t.regex(json.error.message, /nothing written/)
  t.deepEqual(json.written, [])
  t.deepEqual(snapshot(root), before)
})

test("a patch whose deletion is refused after its update traded names puts the update back", (t) => {
  const root = project(t, { "a/one.txt": "one\n", "b/two.txt": "two\n" })
  const hl = new binding.Hashline({ root, view: "full" })
  const plan = hl.planPatch("*** Begin Patch\n*** Update File: a/one.txt\n@@\n-one\n+ONE\n*** Delete File: b/two.txt\n*** End Patch")
  refuseWrites(t, path.join(root, "b"))
  const before = snapshot(root)
  const err = /** @type {any} */ (t.throws(() => hl.commitPatch(plan)))
  t.is(err.code, "PERMISSION")
  t.regex(err.message, /Every file of the change is as it was/)
  t.deepEqual(snapshot(root), before)
})

test("a file changed after a batch was planned refuses the whole batch: no file is written", (t) => {
  const root = project(t, { "a.txt": "a\n", "b.txt": "b\n", "c.txt": "c\n" })
  const hl = new binding.Hashline({ root, view: "full" })
  const b = refsOf(hl.read("b.txt").text)
  const plan = hl.planBatch([
    { path: "a.txt", operations: [{ op: "append", content: "a2" }] },
    { path: "b.txt", operations: [{ op: "replace", ref: b[1], content: "b2" }] },
    { path: "c.txt", operations: [{ op: "append", content: "c2" }] },
  ])
  fs.writeFileSync(path.join(root, "b.txt"), "B by someone else\n")
  const err = /** @type {any} */ (t.throws(() => hl.commitBatch(plan)))
  t.is(err.code, "BASE_CHANGED")
  t.is(err.path, "b.txt")
  t.deepEqual(snapshot(root), { "a.txt": "a\n", "b.txt": "B by someone else\n", "c.txt": "c\n" })
})

test("a batch is one result: each file's change with fresh refs and its diff, and a line naming them all", (t) => {
  const root = project(t, { "a.txt": "a\n" })
  const hl = new binding.Hashline({ root, view: "full" })
  const result = hl.applyBatch([
    { path: "a.txt", operations: [{ op: "append", content: "a2" }] },
    { filePath: "new/b.txt", operations: [{ op: "append", content: "b" }] },
  ])
  t.regex(result.output, /^Edited 2 files as one change: a\.txt, new\/b\.txt\.\n/)
  t.deepEqual(result.files.map((/** @type {any} */ f) => [f.path, f.additions, f.deletions]), [["a.txt", 1, 0], ["new/b.txt", 1, 0]])
  t.regex(result.files[0].output, /^\+2#[0-9A-F]{3}#[0-9A-F]{3}\|a2$/m)
  t.regex(result.files[1].diff, /^\+b$/m)
  t.deepEqual(snapshot(root), { "a.txt": "a\na2\n", "new/b.txt": "b\n" })
})

test("a batch entry's literal writes its content as sent, and BatchEntry declares it", (t) => {
  // A content line in the form of a full ref no view showed: refused as a
  // possible copy unless the entry says to write exactly this.
  const text = "```diff\n@@ -1 +1 @@\n```\n"
  const root = project(t, { "a.md": text })
  const hl = new binding.Hashline({ root, view: "full" })
  const refs = refsOf(hl.read("a.md").text)
  const operations = [{ op: "insert_after", ref: refs[2], content: "-old line\n+12#ABC#DEF|added" }]
  const err = /** @type {any} */ (t.throws(() => hl.applyBatch([{ path: "a.md", operations }])))
  t.is(err.errors[0].code, "AMBIGUOUS_ECHO")
  t.is(fs.readFileSync(path.join(root, "a.md"), "utf8"), text)
  /** @type {import("../../index.js").BatchEntry[]} */
  const batch = [{ path: "a.md", literal: true, operations }]
  hl.applyBatch(batch)
  t.is(fs.readFileSync(path.join(root, "a.md"), "utf8"), "```diff\n@@ -1 +1 @@\n-old line\n+12#ABC#DEF|added\n```\n")
  // The declaration generated from the binding, as a TypeScript user gets it.
  const declarations = ts.createSourceFile("index.d.ts", fs.readFileSync(new URL("../../index.d.ts", import.meta.url), "utf8"), ts.ScriptTarget.Latest)
  const entry = declarations.statements.find((s) => ts.isInterfaceDeclaration(s) && s.name.text === "BatchEntry")
  const literal = entry && ts.isInterfaceDeclaration(entry) ? entry.members.find((m) => m.name && ts.isIdentifier(m.name) && m.name.text === "literal") : undefined
  t.truthy(literal, "BatchEntry has literal")
  t.is(literal && ts.isPropertySignature(literal) ? literal.type?.getText(declarations) : undefined, "boolean")
})

test("a rejected batch lists every failing entry by index, with its code and path", (t) => {
  const root = project(t, { "a.txt": "a\n" })
  fs.symlinkSync(path.join(root, "a.txt"), path.join(root, "alias.txt"))
  const hl = new binding.Hashline({ root, view: "full" })
  const err = /** @type {any} */ (
    t.throws(() =>
      hl.applyBatch([{ path: "a.txt", operations: [{ op: "append", content: "x" }] }, "nonsense", { path: "alias.txt", operations: [{ op: "append", content: "y" }] }, { path: "b.txt", oldString: "x", newString: "y" }]),
    )
  )
  t.is(err.code, "INVALID_REQUEST")
  t.deepEqual(
    err.errors.map((/** @type {any} */ e) => [e.index, e.code, e.path ?? null]),
    [
      [1, "INVALID_REQUEST", null],
      [2, "INVALID_REQUEST", "alias.txt"],
      [3, "NOT_FOUND", "b.txt"],
    ],
  )
  t.regex(err.message, /^Batch rejected, nothing written: 3 of 4 entries failed\./)
  t.is(fs.readFileSync(path.join(root, "a.txt"), "utf8"), "a\n")
})

test("a batch that is not a non-empty array is an INVALID_REQUEST", (t) => {
  const hl = new binding.Hashline({ root: scratch(t) })
  for (const batch of [[], {}, "x", null, undefined]) {
    const err = /** @type {any} */ (t.throws(() => hl.applyBatch(/** @type {any} */ (batch))))
    t.is(err.code, "INVALID_REQUEST")
    t.regex(err.message, /^The batch must be a non-empty array/)
  }
})
