// @ts-check
// The `hashline` command line, run as a separate process per call the way a
// shell-only agent runs it: versions kept on disk between calls, JSON output,
// exit codes per error kind, and batches over several files.
import test from "ava"
import { spawn, spawnSync } from "node:child_process"
import fs from "node:fs"
import path from "node:path"
import { fileURLToPath } from "node:url"
import * as helpers from "../helpers.mjs"
import { nbformatProblems } from "../support/nbformat.mjs"

// These tests pin the full view's text; the lean view, the default, has its own in lean.spec.mjs.
process.env.HASHLINE_VIEW = "full"

const { scratch } = helpers
/**
 * The refs of a view's lines, by line number.
 * @param {string} text
 */
const refsOf = (text) => /** @type {Record<number, string>} */ (helpers.refsOf(text))

const CLI = path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "cli", "hashline.cjs")

/**
 * @typedef {{ cwd: string, store?: string, input?: string | Buffer, env?: Record<string, string | undefined> }} RunOptions
 */

/**
 * Runs the command line with its own store folder unless told otherwise.
 * @param {string[]} args
 * @param {RunOptions} options
 */
function hashline(args, options) {
  /** @type {Record<string, string | undefined>} */
  const env = { ...process.env, HASHLINE_STORE: options.store, ...options.env }
  for (const key of Object.keys(env)) if (env[key] === undefined) delete env[key]
  const result = spawnSync(process.execPath, [CLI, ...args], { cwd: options.cwd, input: options.input ?? "", encoding: "utf8", env, timeout: 30_000 })
  return { status: result.status, stdout: result.stdout, stderr: result.stderr }
}

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
  return { root, store: path.join(scratch(t), "store") }
}

test("a shell-only agent chains edits across invocations from one read", (t) => {
  const { root, store } = project(t, { "app.py": "def total(items):\n    if not items:\n        return None\n    return len(items)\n" })
  const read = hashline(["read", "app.py"], { cwd: root, store })
  t.is(read.status, 0)
  const refs = refsOf(read.stdout)

  const first = hashline(["edit", "app.py"], {
    cwd: root,
    store,
    input: JSON.stringify({ operations: [{ op: "replace", ref: refs[3], content: "        return 0" }, { op: "insert_after", ref: refs[1], content: '    """Counts the items."""' }] }),
  })
  t.is(first.status, 0, first.stderr)
  t.regex(first.stdout, /^Applied 2 operations to app\.py\. REV [0-9A-F]{8} -> [0-9A-F]{8} \(\+2 -1\)$/m)

  // Line 4 of the first read is line 5 now: only the stored versions can tell.
  const second = hashline(["edit", "app.py", "--ops", JSON.stringify([{ op: "replace", ref: refs[4], content: "    return len(list(items))" }])], { cwd: root, store })
  t.is(second.status, 0, second.stderr)
  t.is(
    fs.readFileSync(path.join(root, "app.py"), "utf8"),
    'def total(items):\n    """Counts the items."""\n    if not items:\n        return 0\n    return len(list(items))\n',
  )
})

test("without the store of the first read, the same chained edit is rejected with exit 1 and nothing written", (t) => {
  const { root, store } = project(t, { "a.txt": "one\ntwo\nthree\n" })
  const refs = refsOf(hashline(["read", "a.txt"], { cwd: root, store }).stdout)
  t.is(hashline(["edit", "a.txt", "--ops", JSON.stringify([{ op: "prepend", content: "zero" }])], { cwd: root, store }).status, 0)

  const elsewhere = path.join(scratch(t), "other-store")
  const stale = hashline(["edit", "a.txt", "--ops", JSON.stringify([{ op: "replace", ref: refs[3], content: "THREE" }])], { cwd: root, store: elsewhere })
  t.is(stale.status, 1)
  t.regex(stale.stderr, /^hashline: Edit rejected, nothing written/)
  t.is(fs.readFileSync(path.join(root, "a.txt"), "utf8"), "zero\none\ntwo\nthree\n")
})

test("the store defaults to $XDG_CACHE_HOME/hashline", (t) => {
  const { root } = project(t, { "a.txt": "a\n" })
  const cache = scratch(t)
  const read = hashline(["read", "a.txt"], { cwd: root, env: { XDG_CACHE_HOME: cache } })
  t.is(read.status, 0)
  t.true(fs.readdirSync(path.join(cache, "hashline")).length > 0)
})

test("--json prints one object for results and for errors", (t) => {
  const { root, store } = project(t, { "a.txt": "a\nb\nc\n" })
  const read = JSON.parse(hashline(["read", "a.txt", "--offset", "2", "--limit", "1", "--json"], { cwd: root, store }).stdout)
  t.like(read, { ok: true, path: "a.txt", totalLines: 3, startLine: 2, endLine: 2 })
  t.regex(read.rev, /^[0-9A-F]{8}$/)

  const ref = refsOf(read.text)[2]
  const edit = JSON.parse(hashline(["edit", "a.txt", "--json", "--rev", read.rev, "--ops", JSON.stringify([{ op: "delete", ref }])], { cwd: root, store }).stdout)
  t.like(edit, { ok: true, path: "a.txt", previousRev: read.rev, additions: 0, deletions: 1, problems: [] })
  t.regex(edit.diff, /^-b$/m)
  t.true(edit.output.startsWith(edit.headline), "the headline is the output's first sentence")

  const failed = hashline(["edit", "a.txt", "--json", "--ops", JSON.stringify([{ op: "delete", ref: "1#AAA#BBB" }])], { cwd: root, store })
  t.is(failed.status, 1)
  t.is(failed.stderr, "")
  const error = JSON.parse(failed.stdout)
  t.like(error, { ok: false, error: { code: "HASH_MISMATCH", path: "a.txt" } })
  t.deepEqual(error.error.mismatches[0].expected, "1#AAA#BBB")
})

test("exit codes follow the error kind", (t) => {
  const { root, store } = project(t, { "a.txt": "a\n", "bin.dat": Buffer.from([0, 1, 2]), "sub/b.txt": "b\n" })
  /** @param {string[]} args @param {string} [input] */
  const status = (args, input) => hashline(args, { cwd: root, store, input }).status
  const ops = (/** @type {unknown} */ value) => ["--ops", JSON.stringify(value)]
  t.is(status(["read", "a.txt"]), 0)
  t.is(status(["edit", "a.txt", ...ops([{ op: "delete", ref: "1#AAA#BBB" }])]), 1)
  t.is(status(["edit", "a.txt", ...ops([{ op: "delete", ref: "one" }])]), 2)
  t.is(status(["edit", "a.txt", ...ops({ oldString: "zzz", newString: "y" })]), 2)
  t.is(status(["edit", "a.txt"], "not json"), 2)
  t.is(status(["read", "a.txt", "--offset", "9"]), 2)
  t.is(status(["read", "missing.txt"]), 3)
  t.is(status(["read", "bin.dat"]), 3)
  t.is(status(["read", "../a.txt", "--root", "sub"]), 4)
  t.is(status(["frobnicate"]), 64)
  t.is(status(["read"]), 64)
  t.is(status(["read", "a.txt", "--ops", "[]"]), 64)
  t.is(status(["read", "a.txt", "--bogus"]), 64)
})

test("a request on stdin that is not UTF-8 is INVALID_REQUEST (exit 2) and nothing is written", (t) => {
  const { root, store } = project(t, { "a.txt": "a\nb\n" })
  // `newString` holds the byte 0xFF, which is no UTF-8: it must not become U+FFFD.
  const input = Buffer.concat([Buffer.from('{"oldString":"b","newString":"'), Buffer.from([0xff]), Buffer.from('"}')])
  const result = hashline(["edit", "a.txt", "--json"], { cwd: root, store, input })
  t.is(result.status, 2)
  t.like(JSON.parse(result.stdout), { ok: false, error: { code: "INVALID_REQUEST" } })
  t.regex(JSON.parse(result.stdout).error.message, /not valid UTF-8/)
  t.is(fs.readFileSync(path.join(root, "a.txt"), "utf8"), "a\nb\n")
})

test("a command named like an Object.prototype member is an unknown command (exit 64)", (t) => {
  const { root, store } = project(t, {})
  for (const command of ["toString", "constructor", "__proto__", "hasOwnProperty"]) {
    const result = hashline([command], { cwd: root, store })
    t.is(result.status, 64, `${command}: ${result.stderr}`)
    t.regex(result.stderr, /unknown command/)
  }
})

test("relative paths resolve against --root", (t) => {
  const { root, store } = project(t, { "sub/b.txt": "b\n" })
  const read = hashline(["read", "b.txt", "--root", "sub"], { cwd: root, store })
  t.is(read.status, 0, read.stderr)
  t.regex(read.stdout, /^b\.txt REV:/)
})

test("apply writes every file of a batch and reports each", (t) => {
  const { root, store } = project(t, { "a.txt": "a\n", "b.txt": "b\n" })
  const a = refsOf(hashline(["read", "a.txt"], { cwd: root, store }).stdout)
  const b = refsOf(hashline(["read", "b.txt"], { cwd: root, store }).stdout)
  const batch = [
    { path: "a.txt", operations: [{ op: "replace", ref: a[1], content: "A" }] },
    { filePath: "b.txt", operations: [{ op: "insert_after", ref: b[1], content: "c" }] },
  ]
  const out = hashline(["apply", "--json"], { cwd: root, store, input: JSON.stringify(batch) })
  t.is(out.status, 0, out.stdout)
  t.deepEqual(JSON.parse(out.stdout).results.map((/** @type {any} */ r) => [r.path, r.additions, r.deletions]), [["a.txt", 1, 1], ["b.txt", 1, 0]])
  t.is(fs.readFileSync(path.join(root, "a.txt"), "utf8"), "A\n")
  t.is(fs.readFileSync(path.join(root, "b.txt"), "utf8"), "b\nc\n")
})

test("apply checks every entry before writing any: one bad entry leaves all files untouched and all failures are listed", (t) => {
  const { root, store } = project(t, { "a.txt": "a\n", "b.txt": "b\n" })
  const a = refsOf(hashline(["read", "a.txt"], { cwd: root, store }).stdout)
  const batch = [
    { path: "a.txt", operations: [{ op: "replace", ref: a[1], content: "A" }] },
    { path: "b.txt", operations: [{ op: "replace", ref: "1#AAA#BBB", content: "B" }] },
    { path: "a.txt", operations: [{ op: "append", content: "again" }] },
    { path: "../c.txt", operations: [{ op: "append", content: "c" }] },
  ]
  const out = hashline(["apply"], { cwd: root, store, input: JSON.stringify(batch) })
  t.is(out.status, 1)
  t.regex(out.stderr, /^hashline: Batch rejected, nothing written: 3 of 4 entries failed\./)
  t.regex(out.stderr, /^\[1\] b\.txt: Edit rejected/m)
  t.regex(out.stderr, /^\[2\] a\.txt: a\.txt is the file of entry 0 too/m)
  t.regex(out.stderr, /^\[3\] \.\.\/c\.txt: .*outside the project root/m)
  t.is(fs.readFileSync(path.join(root, "a.txt"), "utf8"), "a\n")
  t.is(fs.readFileSync(path.join(root, "b.txt"), "utf8"), "b\n")
  t.false(fs.existsSync(path.join(root, "..", "c.txt")))

  const json = JSON.parse(hashline(["apply", "--json"], { cwd: root, store, input: JSON.stringify(batch) }).stdout)
  t.deepEqual(json.errors.map((/** @type {any} */ e) => [e.index, e.code]), [[1, "HASH_MISMATCH"], [2, "INVALID_REQUEST"], [3, "OUTSIDE_ROOT"]])
  t.deepEqual(json.written, [])
})

test("grep prints hits with refs that a later edit can cite", (t) => {
  const { root, store } = project(t, { "src/a.js": "let x = 1\nlet y = 2\n" })
  const found = hashline(["grep", "let y", "src"], { cwd: root, store })
  t.is(found.status, 0)
  const ref = /^ {2}(2#[0-9A-F]{3}#[0-9A-F]{3})\|let y = 2$/m.exec(found.stdout)?.[1]
  t.truthy(ref)
  const edit = hashline(["edit", "src/a.js", "--ops", JSON.stringify([{ op: "replace", ref, content: "let y = 3" }])], { cwd: root, store })
  t.is(edit.status, 0, edit.stderr)
  t.is(fs.readFileSync(path.join(root, "src/a.js"), "utf8"), "let x = 1\nlet y = 3\n")
})

test("without its native module the command line says why and exits with 5", (t) => {
  const copy = scratch(t)
  const repo = path.join(path.dirname(CLI), "..")
  for (const folder of ["cli", "lib"]) fs.cpSync(path.join(repo, folder), path.join(copy, folder), { recursive: true })
  fs.copyFileSync(path.join(repo, "package.json"), path.join(copy, "package.json"))
  const result = spawnSync(process.execPath, [path.join(copy, "cli", "hashline.cjs"), "read", "a.txt"], { cwd: copy, encoding: "utf8", timeout: 30_000 })
  t.is(result.status, 5)
  // One line: what was detected, the package looked for, and the fixes.
  t.regex(result.stderr, /^hashline: The hashline native module could not be loaded on \S+ \S+.*: .*hashline-\S+@\d+\.\d+\.\d+.*npm install --save-optional hashline-\S+.*build the binary from a clone.*\n$/)
  t.is(result.stderr.split("\n").length, 2)
  const json = spawnSync(process.execPath, [path.join(copy, "cli", "hashline.cjs"), "read", "a.txt", "--json"], { cwd: copy, encoding: "utf8", timeout: 30_000 })
  t.is(json.status, 5)
  t.is(JSON.parse(json.stdout).error.code, "NATIVE_MODULE_MISSING")
})

test("each command has its own --help, and help COMMAND says the same", (t) => {
  const { root, store } = project(t, {})
  for (const command of ["read", "edit", "apply", "grep", "mcp", "cache"]) {
    const help = hashline([command, "--help"], { cwd: root, store })
    t.is(help.status, 0)
    t.true(help.stdout.startsWith(`Usage: hashline ${command}`), help.stdout)
    t.is(hashline(["help", command], { cwd: root, store }).stdout, help.stdout)
  }
  t.regex(hashline(["read", "--help"], { cwd: root, store }).stdout, /--offset N/)
  t.notRegex(hashline(["read", "--help"], { cwd: root, store }).stdout, /--max-count/)
  t.regex(hashline(["--help"], { cwd: root, store }).stdout, /^Usage: hashline <command>/)
})

test("--version and -V print the version", (t) => {
  const { root, store } = project(t, {})
  const { version } = JSON.parse(fs.readFileSync(path.join(path.dirname(CLI), "..", "package.json"), "utf8"))
  for (const flag of ["--version", "-V"]) t.like(hashline([flag], { cwd: root, store }), { status: 0, stdout: `${version}\n` })
})

test("a reader that closes the pipe early ends the command quietly with exit 0", async (t) => {
  const { root, store } = project(t, { "big.txt": Array.from({ length: 200_000 }, (_, i) => `line ${i}`).join("\n") })
  const child = spawn(process.execPath, [CLI, "read", "big.txt", "--limit", "200000"], { cwd: root, env: { ...process.env, HASHLINE_STORE: store } })
  let stderr = ""
  child.stderr.on("data", (chunk) => (stderr += chunk))
  // Like `| head -1`: the first chunk, then the pipe is closed.
  child.stdout.once("data", () => child.stdout.destroy())
  const code = await new Promise((resolve) => child.on("close", resolve))
  t.is(stderr, "")
  t.is(code, 0)
})

test("the whole view reaches a slow reader through a pipe another process made non-blocking", (t) => {
  const lines = Array.from({ length: 100_000 }, (_, i) => `line ${i}`)
  const { root, store } = project(t, { "big.txt": lines.join("\n") })
  // A parent that shares a non-blocking pipe, and reads only once the pipe is full.
  const script = [
    "import fcntl, os, subprocess, sys, time",
    "r, w = os.pipe()",
    "fcntl.fcntl(w, fcntl.F_SETFL, fcntl.fcntl(w, fcntl.F_GETFL) | os.O_NONBLOCK)",
    "child = subprocess.Popen(sys.argv[1:], stdout=w)",
    "os.close(w)",
    "time.sleep(0.5)",
    "out = b''",
    "while chunk := os.read(r, 65536):",
    "    out += chunk",
    "sys.stdout.buffer.write(out)",
    "sys.exit(child.wait())",
  ].join("\n")
  const result = spawnSync("python3", ["-c", script, process.execPath, CLI, "read", "big.txt", "--limit", "100000"], {
    cwd: root,
    env: { ...process.env, HASHLINE_STORE: store },
    encoding: "utf8",
    maxBuffer: 64 << 20,
    timeout: 60_000,
  })
  t.is(result.stderr, "")
  t.is(result.status, 0)
  const shown = result.stdout.split("\n").filter((l) => /^\d+#/.test(l))
  t.is(shown.length, lines.length)
  t.true(shown[shown.length - 1].endsWith(`|${lines[lines.length - 1]}`))
})

test("errors go to stderr after hashline:", (t) => {
  const { root, store } = project(t, { "a.txt": "a\n" })
  const missing = hashline(["read", "missing.txt"], { cwd: root, store })
  t.is(missing.stdout, "")
  t.regex(missing.stderr, /^hashline: .*missing\.txt/)
  const stale = hashline(["edit", "a.txt", "--ops", JSON.stringify([{ op: "delete", ref: "1#AAA#BBB" }])], { cwd: root, store })
  t.regex(stale.stderr, /^hashline: Edit rejected/)
  // The lines to cite are left as the engine wrote them.
  t.regex(stale.stderr, /^>>> 1#[0-9A-F]{3}#[0-9A-F]{3}\|a$/m)
})

test("usage errors exit 64 every time: bad numbers, unknown flags, missing arguments and values", (t) => {
  const { root, store } = project(t, { "a.txt": "a\n" })
  const cases = [
    ["read", "a.txt", "--offset", "abc"],
    ["read", "a.txt", "--limit", "0"],
    ["read", "a.txt", "--limit", "-3"],
    ["read", "a.txt", "--offset"],
    ["read", "a.txt", "--frob"],
    ["grep", "a", "-m", "x"],
    ["grep", "a", "-C", "1.5"],
    ["grep"],
    ["edit"],
    ["cache"],
    ["cache", "empty"],
    ["read", "a.txt", "--store-max-bytes", "lots"],
    ["read", "a.txt", "--rev", "X"],
    [],
  ]
  for (const args of cases) {
    const result = hashline(args, { cwd: root, store })
    t.is(result.status, 64, `${args.join(" ")}: ${result.stderr}`)
    t.regex(result.stderr, /^hashline: /)
  }
  t.is(hashline(["read", "a.txt"], { cwd: root, store, env: { HASHLINE_STORE_MAX_BYTES: "a lot" } }).status, 64)
})

test("inside a git work tree the root is its top: ../f works from a subfolder, and outside it is still refused", (t) => {
  const { root, store } = project(t, { "f.txt": "f\n", "sub/g.txt": "g\n", ".git/HEAD": "ref: refs/heads/main\n" })
  const sub = path.join(root, "sub")
  const read = hashline(["read", "../f.txt"], { cwd: sub, store })
  t.is(read.status, 0, read.stderr)
  t.regex(read.stdout, /^f\.txt REV:/)
  const refs = refsOf(read.stdout)
  const edit = hashline(["edit", "../f.txt", "--ops", JSON.stringify([{ op: "replace", ref: refs[1], content: "F" }])], { cwd: sub, store })
  t.is(edit.status, 0, edit.stderr)
  t.is(fs.readFileSync(path.join(root, "f.txt"), "utf8"), "F\n")
  t.regex(hashline(["read", "g.txt"], { cwd: sub, store }).stdout, /^sub\/g\.txt REV:/)
  // grep searches where the user stands, as rg does.
  const grep = hashline(["grep", "^[a-zA-Z]$"], { cwd: sub, store })
  t.regex(grep.stdout, /sub\/g\.txt/)
  t.notRegex(grep.stdout, /f\.txt/)
  t.is(hashline(["read", "../../outside.txt"], { cwd: sub, store }).status, 4)
})

test("outside a git work tree the root is the working directory", (t) => {
  const { root, store } = project(t, { "sub/g.txt": "g\n", "f.txt": "f\n" })
  const sub = path.join(root, "sub")
  t.is(hashline(["read", "g.txt"], { cwd: sub, store }).status, 0)
  t.is(hashline(["read", "../f.txt"], { cwd: sub, store }).status, 4)
})

/** The bytes of the store folder's files. */
const storeBytes = (/** @type {string} */ store) => fs.readdirSync(store).reduce((sum, name) => sum + fs.statSync(path.join(store, name)).size, 0)

test("reading and grepping unchanged files writes no second copy of them to the store", (t) => {
  const files = Object.fromEntries(Array.from({ length: 5 }, (_, i) => [`f${i}.txt`, `${"x\n".repeat(5000)}needle ${i}\n`]))
  const { root, store } = project(t, files)
  /** Each file of the store: its inode and size. */
  const listing = () => Object.fromEntries(fs.readdirSync(store).map((name) => [name, fs.statSync(path.join(store, name))]))
  hashline(["grep", "needle"], { cwd: root, store })
  const copies = Object.entries(listing()).filter(([, stat]) => stat.size > 10_000)
  t.is(copies.length, 5)
  // Other lines of the same versions shown: the copies stay as they were.
  for (const name of Object.keys(files)) hashline(["read", name], { cwd: root, store })
  const after = listing()
  for (const [name, stat] of copies) t.is(after[name]?.ino, stat.ino, name)
  t.is(Object.values(after).filter((stat) => stat.size > 10_000).length, 5)
  // The same again: nothing is written at all.
  const names = (/** @type {Record<string, fs.Stats>} */ l) => Object.entries(l).map(([name, stat]) => `${name} ${stat.ino} ${stat.size}`).sort()
  for (const name of Object.keys(files)) hashline(["read", name], { cwd: root, store })
  hashline(["grep", "needle"], { cwd: root, store })
  t.deepEqual(names(listing()), names(after))
})

test("cache clear removes only files the store wrote (their header or text proves it) and counts the others as skipped", (t) => {
  const { root, store } = project(t, { "a.txt": "a\n" })
  hashline(["read", "a.txt"], { cwd: root, store })
  const written = fs.readdirSync(store).sort()
  // Files of the user's, in a folder given as the store by mistake, named
  // as versions are: no version header, a text that is not its REV's.
  const lookalikes = { "0123456789abcdef-0BADF00D.hlv": "my notes\n", "0123456789abcdef-0BADF00D.hlt": "my text\n" }
  for (const [name, content] of Object.entries(lookalikes)) fs.writeFileSync(path.join(store, name), content)
  const cleared = hashline(["cache", "clear", "--json"], { cwd: root, store })
  t.is(cleared.status, 0, cleared.stderr)
  t.like(JSON.parse(cleared.stdout), { ok: true, files: written.length, skipped: 2 })
  t.deepEqual(fs.readdirSync(store).sort(), Object.keys(lookalikes).sort())
  for (const [name, content] of Object.entries(lookalikes)) t.is(fs.readFileSync(path.join(store, name), "utf8"), content)
  t.regex(hashline(["cache", "clear"], { cwd: root, store }).stdout, /^Removed 0 files \(0 bytes\) from the store .*; left 2 files that hashline did not write\.\n$/)
})

test("--store-max-bytes and $HASHLINE_STORE_MAX_BYTES cap the store, and cache clear empties it and says what it removed", (t) => {
  const files = Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`f${i}.txt`, `${i}\n${"y".repeat(20_000)}\n`]))
  const { root, store } = project(t, files)
  for (const name of Object.keys(files)) hashline(["read", name, "--store-max-bytes", "64K"], { cwd: root, store })
  t.true(storeBytes(store) <= 64 * 1024 * 1.1, `${storeBytes(store)}`)
  for (const name of Object.keys(files)) hashline(["read", name], { cwd: root, store, env: { HASHLINE_STORE_MAX_BYTES: "40000" } })
  t.true(storeBytes(store) <= 40_000 * 1.1, `${storeBytes(store)}`)

  const bytes = storeBytes(store)
  const count = fs.readdirSync(store).length
  fs.writeFileSync(path.join(store, "mine.txt"), "kept")
  const cleared = hashline(["cache", "clear", "--json"], { cwd: root, store })
  t.is(cleared.status, 0, cleared.stderr)
  t.like(JSON.parse(cleared.stdout), { ok: true, store, files: count, bytes })
  t.deepEqual(fs.readdirSync(store), ["mine.txt"])
  t.regex(hashline(["cache", "clear"], { cwd: root, store }).stdout, /^Removed 0 files \(0 bytes\) from the store /)
})

test("a notebook reads as its cells across invocations, --raw as its JSON, and an edit by cell ops validates", (t) => {
  const fixture = fs.readFileSync(new URL("../fixtures/notebooks/nbformat/test4.5.ipynb", import.meta.url))
  const { root, store } = project(t, { "analysis.ipynb": fixture })
  const read = hashline(["read", "analysis.ipynb"], { cwd: root, store })
  t.is(read.status, 0)
  const header = read.stdout.split("\n").find((l) => /\|# %% \[code\] id=/.test(l))
  t.truthy(header, read.stdout)
  const raw = hashline(["read", "analysis.ipynb", "--raw"], { cwd: root, store })
  t.is(raw.status, 0)
  t.regex(raw.stdout, /\|\s*"nbformat": 4,/)
  const ops = JSON.stringify([{ op: "insert_cell_after", ref: header?.split("|")[0], cellType: "markdown", content: "## Notes" }])
  const edit = hashline(["edit", "analysis.ipynb", "--ops", ops], { cwd: root, store })
  t.is(edit.status, 0, edit.stderr)
  t.regex(edit.stdout, /\+\d+#[0-9A-F]{3}#[0-9A-F]{3}\|# %% \[markdown\] id=[0-9a-f]{8}/)
  const cells = JSON.parse(fs.readFileSync(path.join(root, "analysis.ipynb"), "utf8")).cells
  t.true(cells.some((/** @type {any} */ c) => c.cell_type === "markdown" && c.source.join("") === "## Notes"))
  t.deepEqual(nbformatProblems([path.join(root, "analysis.ipynb")]), [])
  const broken = project(t, { "bad.ipynb": fs.readFileSync(new URL("../fixtures/notebooks/nbformat/invalid_unique_cell_id.ipynb", import.meta.url)) })
  const refused = hashline(["read", "bad.ipynb"], { cwd: broken.root, store: broken.store })
  t.not(refused.status, 0)
  t.regex(refused.stderr, /INVALID_NOTEBOOK|not read as a notebook's cells/)
})
