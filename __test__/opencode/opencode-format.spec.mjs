// @ts-check
// After a write, the formatters OpenCode would run on the file run through
// Bun's shell, with real formatter binaries (prettier from npm, ruff from
// PyPI, rustfmt from the Rust toolchain); the result shows the formatted
// file's refs, and refs from before the edit still land.
import test from "ava"
import { spawnSync } from "node:child_process"
import fs from "node:fs"
import os from "node:os"
import path from "node:path"
import { fileURLToPath } from "node:url"
import { BUILTIN, configured } from "../../opencode/format.mjs"
import { binding, bunBinary } from "../helpers.mjs"

// These tests pin the full view's text; the lean view, the default, has its own in lean.spec.mjs.
process.env.HASHLINE_VIEW = "full"

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..")
const SCRIPT = path.join(REPO, "__test__", "support", "plugin-in-bun.mjs")
/** The PATH without this repository's node_modules/.bin, so only a project's own tools are found. */
const PATH = (process.env.PATH ?? "").split(path.delimiter).filter((dir) => !dir.includes(`node_modules${path.sep}.bin`)).join(path.delimiter)

/** @param {import("ava").ExecutionContext} t @param {Record<string, string>} files */
function project(t, files) {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "hashline-format-")))
  t.teardown(() => fs.rmSync(root, { recursive: true, force: true }))
  for (const [name, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, name)), { recursive: true })
    fs.writeFileSync(path.join(root, name), content)
  }
  return root
}

/**
 * The plugin's tools run under Bun for these actions.
 * @param {string} root
 * @param {unknown} config
 * @param {Array<({ read: string } | { edit: unknown } | { patch: string }) & { abortWhen?: string }>} actions
 * @param {Record<string, string>} [env] added to the environment
 * @returns {any[]}
 */
function inBun(root, config, actions, env = {}) {
  const r = spawnSync(bunBinary(), [SCRIPT, JSON.stringify({ root, config, actions })], {
    cwd: root,
    encoding: "utf8",
    env: { ...process.env, PATH, ...env },
    timeout: 90_000,
  })
  if (r.status !== 0) throw new Error(`bun failed (${r.status}): ${r.stderr}`)
  return JSON.parse(r.stdout)
}

/**
 * The ref a view shows for a line of text.
 * @param {string} view
 * @param {string} text
 */
function refFor(view, text) {
  for (const line of view.split("\n")) {
    const m = /^[+ ]?(\d+#[0-9A-F]{3}#[0-9A-F]{3})\|(.*)$/.exec(line)
    if (m && m[2] === text) return m[1]
  }
  throw new Error(`no ref for ${JSON.stringify(text)} in:\n${view}`)
}

/** @param {string} name */
function onPath(name) {
  return spawnSync(name, ["--version"], { env: { ...process.env, PATH }, encoding: "utf8" }).status === 0
}

test("formatters are off unless the config turns them on, then overridden, added and disabled by name", (t) => {
  t.deepEqual(configured({}), [])
  t.deepEqual(configured({ formatter: false }), [])
  t.deepEqual(
    configured({ formatter: true }).map((f) => f.name),
    BUILTIN.map((f) => f.name),
  )
  const list = configured({
    formatter: { prettier: { disabled: true }, ruff: { disabled: true }, rustfmt: { extensions: [".rs", ".rs.in"] }, mine: { command: ["mine", "$FILE"], extensions: [".x"] } },
  })
  const names = list.map((f) => f.name)
  t.false(names.includes("prettier"))
  t.false(names.includes("ruff") || names.includes("uv"), "disabling ruff disables uv too, as in OpenCode")
  t.deepEqual(list.find((f) => f.name === "rustfmt")?.extensions, [".rs", ".rs.in"])
  t.is(list.find((f) => f.name === "rustfmt")?.enabled, BUILTIN.find((f) => f.name === "rustfmt")?.enabled)
  t.is(names[names.length - 1], "mine")
})

test("ruff formats a patched Python file; the result shows its refs and older refs still land", async (t) => {
  t.true(onPath("ruff"), "ruff is on the PATH (pip install ruff)")
  // ruff will add the blank lines PEP 8 wants: every line below the import moves.
  const original = "import os\ndef f():\n    return os.sep\nx=1\ny = 2\n"
  const root = project(t, { "pyproject.toml": "[tool.ruff]\n", "a.py": original })
  const view = binding.formatView(original, { view: 'full' })
  const [read, patched, edited] = inBun(root, { formatter: true }, [
    { read: "a.py" },
    { patch: "*** Begin Patch\n*** Update File: a.py\n@@\n-y = 2\n+y = [1,2 ,3]\n*** End Patch" },
    // Still citing the first read: that line is now two lines lower.
    { edit: { filePath: "a.py", operations: [{ op: "insert_after", ref: refFor(view, "    return os.sep"), content: "    # separator" }] } },
  ])
  t.regex(read.output, /REV:[0-9A-F]{8}/)
  t.is(patched.error, undefined)
  t.regex(patched.output, /^Patched a\.py with 1 hunk, then formatted it with ruff\. REV [0-9A-F]{8} -> [0-9A-F]{8} \(\+\d+ -2\)$/m)
  t.regex(patched.output, /^\+8#[0-9A-F]{3}#[0-9A-F]{3}\|x = 1$/m)
  t.regex(patched.output, /^\+9#[0-9A-F]{3}#[0-9A-F]{3}\|y = \[1, 2, 3\]$/m)
  t.regex(patched.metadata.diff, /^\+x = 1$/m)
  t.is(edited.error, undefined)
  t.regex(edited.output, /were found at their current positions/)
  t.is(fs.readFileSync(path.join(root, "a.py"), "utf8"), "import os\n\n\ndef f():\n    return os.sep\n    # separator\n\n\nx = 1\ny = [1, 2, 3]\n")
})

test("rustfmt formats an edited Rust file and the next edit cites the refs the result showed", async (t) => {
  t.true(onPath("rustfmt"), "rustfmt is on the PATH (rustup component add rustfmt)")
  const original = "fn main() {\n    let x = 1;\n    println!(\"{}\", x);\n}\n"
  const root = project(t, { "src/main.rs": original })
  const view = binding.formatView(original, { view: 'full' })
  const [first] = inBun(root, { formatter: true }, [{ edit: { filePath: "src/main.rs", operations: [{ op: "replace", ref: refFor(view, "    let x = 1;"), content: "    let x=vec![1,2,3];" }] } }])
  t.is(first.error, undefined)
  t.regex(first.output, /then formatted it with rustfmt/)
  const ref = refFor(first.output, "    let x = vec![1, 2, 3];")
  const [second] = inBun(root, { formatter: true }, [{ edit: { filePath: "src/main.rs", operations: [{ op: "replace", ref, content: "    let x = vec![4];" }] } }])
  // A new process has a new store: the ref is checked against the file itself.
  t.is(second.error, undefined)
  t.is(fs.readFileSync(path.join(root, "src/main.rs"), "utf8"), "fn main() {\n    let x = vec![4];\n    println!(\"{}\", x);\n}\n")
})

test("prettier from the project's node_modules formats the file when its package.json lists it", async (t) => {
  const root = project(t, { "package.json": JSON.stringify({ devDependencies: { prettier: "3" } }), "src/a.ts": "export const a = { b: 1 }\n" })
  fs.symlinkSync(path.join(REPO, "node_modules"), path.join(root, "node_modules"), "dir")
  const view = binding.formatView("export const a = { b: 1 }\n", { view: "full" })
  const [result] = inBun(root, { formatter: true }, [{ edit: { filePath: "src/a.ts", operations: [{ op: "replace", ref: refFor(view, "export const a = { b: 1 }"), content: "export const a = {b:1,c:'x'}" }] } }])
  t.is(result.error, undefined)
  t.regex(result.output, /then formatted it with prettier/)
  t.is(fs.readFileSync(path.join(root, "src/a.ts"), "utf8"), 'export const a = { b: 1, c: "x" };\n')
  t.regex(result.output, /^\+1#[0-9A-F]{3}#[0-9A-F]{3}\|export const a = \{ b: 1, c: "x" \};$/m)
})

test("a formatter that is set up but missing, or fails, leaves the edit in place and says so", async (t) => {
  const root = project(t, { "package.json": JSON.stringify({ devDependencies: { prettier: "3" } }), "a.json": '{"a":1}\n', "b.txt": "one\n" })
  const config = { formatter: { broken: { command: ["sh", "-c", "echo cannot format >&2; exit 3", "$FILE"], extensions: [".txt"] } } }
  const [missing, failed] = inBun(root, config, [
    { edit: { filePath: "a.json", operations: [{ op: "replace", ref: refFor(binding.formatView('{"a":1}\n', { view: 'full' }), '{"a":1}'), content: '{"a":2}' }] } },
    { edit: { filePath: "b.txt", oldString: "one", newString: "two" } },
  ])
  t.is(fs.readFileSync(path.join(root, "a.json"), "utf8"), '{"a":2}\n')
  t.regex(missing.output, /Note: a\.json was not formatted with prettier: the project's package\.json lists prettier, but no prettier command was found/)
  t.is(fs.readFileSync(path.join(root, "b.txt"), "utf8"), "two\n")
  t.regex(failed.output, /Note: broken failed on b\.txt \(exit code 3: cannot format\)\. The edit is in place/)
})

test("a user formatter's change is taken in: the result shows the file as it formatted it", async (t) => {
  const root = project(t, { "c.txt": "alpha\nbeta\n" })
  const config = { formatter: { upper: { command: ["sed", "-i", "s/^b/B/", "$FILE"], extensions: [".txt"] } } }
  const [result] = inBun(root, config, [{ patch: "*** Begin Patch\n*** Update File: c.txt\n@@\n alpha\n+bravo\n*** End Patch" }])
  t.is(fs.readFileSync(path.join(root, "c.txt"), "utf8"), "alpha\nBravo\nBeta\n")
  t.regex(result.output, /then formatted it with upper/)
  t.regex(result.output, /^\+2#[0-9A-F]{3}#[0-9A-F]{3}\|Bravo$/m)
  t.regex(result.output, /^\+3#[0-9A-F]{3}#[0-9A-F]{3}\|Beta$/m)
  t.regex(result.output, /^-\|beta$/m)
})

test("without a formatter config nothing runs", async (t) => {
  const root = project(t, { "package.json": JSON.stringify({ devDependencies: { prettier: "3" } }), "a.ts": "const a = {b:1}\n" })
  fs.symlinkSync(path.join(REPO, "node_modules"), path.join(root, "node_modules"), "dir")
  const [result] = inBun(root, {}, [{ edit: { filePath: "a.ts", oldString: "b:1", newString: "b:2" } }])
  t.is(fs.readFileSync(path.join(root, "a.ts"), "utf8"), "const a = {b:2}\n")
  t.notRegex(result.output, /format/)
})

/**
 * Whether each process a formatter wrote into `file` (one id a line) has
 * ended: gone, or a zombie no parent has reaped yet (a container's first
 * process may never reap the orphans it inherits).
 * @param {string} file
 */
function allEnded(file) {
  return fs
    .readFileSync(file, "utf8")
    .split("\n")
    .filter(Boolean)
    .every((pid) => {
      try {
        process.kill(Number(pid), 0)
      } catch {
        return true
      }
      try {
        const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8")
        return stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z")
      } catch {
        return false
      }
    })
}

/**
 * Ends, when the test does, any process a formatter wrote into `file`.
 * @param {import("ava").ExecutionContext} t
 * @param {string} file
 */
function endWithTest(t, file) {
  t.teardown(() => {
    for (const pid of fs.existsSync(file) ? fs.readFileSync(file, "utf8").split("\n").filter(Boolean) : []) {
      try {
        process.kill(Number(pid), "SIGKILL")
      } catch {
        // ended already
      }
    }
  })
}

/**
 * An edit of a file under one formatter, `name` running `command`, that is
 * stopped: at a time limit of 1 s, or with `abort` by the tool call's abort
 * once the formatter made a file `started`. The edit answers, and the file
 * stays as the edit wrote it. Returns the project folder.
 * @param {import("ava").ExecutionContext} t
 * @param {string} name
 * @param {string[]} command
 * @param {{ abort?: boolean }} [options]
 */
function stoppedEdit(t, name, command, { abort = false } = {}) {
  const root = project(t, { "b.txt": "one\n" })
  endWithTest(t, path.join(root, "pids"))
  const config = { formatter: { [name]: { command, extensions: [".txt"] } } }
  const edit = { filePath: "b.txt", oldString: "one", newString: "two" }
  // With `abort`, the limit would not stop it: only the abort can.
  const [result] = inBun(root, config, [abort ? { edit, abortWhen: "started" } : { edit }], { HASHLINE_FORMATTER_TIMEOUT_MS: abort ? "600000" : "1000" })
  t.is(result.error, undefined)
  t.is(fs.readFileSync(path.join(root, "b.txt"), "utf8"), "two\n")
  const why = abort ? "the tool call was aborted" : "it did not finish within 1 s"
  t.true(result.output.includes(`Note: ${name} was stopped on b.txt (${why}); the file was left as the edit wrote it.`), result.output)
  return root
}

/**
 * Whether every process a formatter wrote into the project's `pids` has
 * ended, waited for boundedly: a killed process ends a moment after its
 * signal.
 * @param {string} root
 */
async function endedIn(root) {
  const file = path.join(root, "pids")
  const deadline = Date.now() + 10_000
  while (!allEnded(file) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100))
  return allEnded(file)
}

// A formatter that writes its process and the one it starts, then waits on
// it forever.
const HANGING = ["sh", "-c", 'echo $$ > pids; sleep 100000 & echo $! >> pids; touch started; wait', "sh", "$FILE"]

// A formatter that exits at once, leaving behind a process in a session of
// its own (out of its process group) that holds its output open: it writes
// its id, then waits on nothing for ever.
const ESCAPING = ["sh", "-c", "setsid sh -c 'echo $$ >> pids; exec sleep 100000' & while [ ! -s pids ]; do sleep 0.01; done; touch started", "sh", "$FILE"]

const unixTest = process.platform === "win32" ? test.skip : test
const linuxTest = process.platform === "linux" ? test : test.skip

unixTest("a formatter that never exits is stopped at the time limit, with what it started, and the edit stays as written", async (t) => {
  const root = stoppedEdit(t, "hang", HANGING)
  t.true(await endedIn(root), "the formatter and the process it started were ended")
})

unixTest("a formatter still running when the tool call is aborted is stopped at once", async (t) => {
  t.true(await endedIn(stoppedEdit(t, "hang", HANGING, { abort: true })))
})

linuxTest("a formatter that exits leaving a process in its own session on its output is stopped at the time limit, that process too, and the edit answers", async (t) => {
  const root = stoppedEdit(t, "escape", ESCAPING)
  t.true(await endedIn(root), "the process the formatter left on its output was ended")
})

linuxTest("a formatter whose leftover process holds its output is stopped when the tool call is aborted, and the edit answers at once", async (t) => {
  t.true(await endedIn(stoppedEdit(t, "escape", ESCAPING, { abort: true })))
})

linuxTest("a formatter whose leftover on its output can no longer be found still lets the edit answer at the time limit", (t) => {
  // Its own session and an empty environment: nothing ties it to the run
  // but the output it holds.
  stoppedEdit(t, "hidden", ["sh", "-c", "setsid env -i sh -c 'echo $$ >> pids; exec sleep 100000' & while [ ! -s pids ]; do sleep 0.01; done", "sh", "$FILE"])
})

unixTest("$FILE is the file's exact name, one argument, whatever characters it holds", async (t) => {
  const names = ["a$&b.txt", "a$`b.txt", "a$'b.txt", "a$$b.txt", "a b;$(touch pwned).txt"]
  const root = project(t, Object.fromEntries(names.map((n) => [n, "one\n"])))
  // The formatter records the argument it was given, as given.
  const config = { formatter: { record: { command: ["sh", "-c", 'printf "%s\\n" "$1" >> args', "sh", "$FILE"], extensions: [".txt"] } } }
  inBun(root, config, names.map((name) => ({ edit: { filePath: name, oldString: "one", newString: "two" } })))
  const args = fs.readFileSync(path.join(root, "args"), "utf8").split("\n").filter(Boolean)
  t.deepEqual(args, names.map((n) => path.join(root, n)))
  t.false(fs.existsSync(path.join(root, "pwned")))
})

test("the formatter time limit is read from its option or HASHLINE_FORMATTER_TIMEOUT_MS, and a bad one is refused", async (t) => {
  const { formatterTimeoutOption } = await import("../../opencode/format.mjs")
  const saved = process.env.HASHLINE_FORMATTER_TIMEOUT_MS
  t.teardown(() => {
    if (saved === undefined) delete process.env.HASHLINE_FORMATTER_TIMEOUT_MS
    else process.env.HASHLINE_FORMATTER_TIMEOUT_MS = saved
  })
  delete process.env.HASHLINE_FORMATTER_TIMEOUT_MS
  t.is(formatterTimeoutOption(undefined), undefined)
  t.is(formatterTimeoutOption(2500), 2500)
  process.env.HASHLINE_FORMATTER_TIMEOUT_MS = "1500"
  t.is(formatterTimeoutOption(undefined), 1500)
  for (const bad of [0, -1, 1.5, "soon"]) t.throws(() => formatterTimeoutOption(bad), { message: /whole number of milliseconds/ })
})
