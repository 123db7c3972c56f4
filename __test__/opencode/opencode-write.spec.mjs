// @ts-check
// The OpenCode plugin's `write` hook in the lean view, the default: a whole
// file written from a tagged read never lands the read's own text (prefixes,
// a blank line's bare tag, the REV line, a line the read cut), and what the
// clean-up did is said with the write's result.
import test from "ava"
import fs from "node:fs"
import os from "node:os"
import path from "node:path"
import pluginModule from "../../opencode/plugin.mjs"

delete process.env.HASHLINE_VIEW

/** OpenCode cuts a line of its read past this many characters. */
const READ_CUT = 2000

/** @param {import("ava").ExecutionContext} t @param {Record<string, string>} files */
function project(t, files) {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "hashline-oc-write-")))
  t.teardown(() => fs.rmSync(root, { recursive: true, force: true }))
  for (const [name, content] of Object.entries(files)) fs.writeFileSync(path.join(root, name), content)
  return root
}

/**
 * The plugin's hooks, a read of `name` through them as OpenCode 1.18 shows
 * it (long lines cut), and a write of new content for it.
 * @param {string} root @param {string} name
 */
async function plugin(root, name) {
  const hooks = await pluginModule.server(/** @type {any} */ ({ directory: root, worktree: root }))
  const file = path.join(root, name)
  const lines = fs.readFileSync(file, "utf8").split("\n")
  if (lines[lines.length - 1] === "") lines.pop()
  const shown = lines.map((l, i) => `${i + 1}: ${l.length > READ_CUT ? `${l.slice(0, READ_CUT)}... (line truncated to ${READ_CUT} chars)` : l}`)
  const read = { title: name, output: [`<path>${file}</path>`, "<type>file</type>", "<content>", ...shown, "", `(End of file - total ${lines.length} lines)`, "</content>"].join("\n"), metadata: {} }
  await /** @type {any} */ (hooks["tool.execute.after"])({ tool: "read", sessionID: "s", callID: "r", args: { filePath: file } }, read)
  const view = read.output.split("\n")
  let calls = 0
  /** @param {string} content */
  const write = async (content) => {
    const callID = `w${calls++}`
    const args = { filePath: name, content }
    await /** @type {any} */ (hooks["tool.execute.before"])({ tool: "write", sessionID: "s", callID }, { args })
    const result = { title: name, output: "Wrote file successfully.", metadata: {} }
    await /** @type {any} */ (hooks["tool.execute.after"])({ tool: "write", sessionID: "s", callID, args }, result)
    return { content: args.content, output: result.output }
  }
  return { view, lines: view.filter((l) => /^\d+[a-z]{2}( |$)/.test(l)), write }
}

test("a write copied from a tagged read, blank lines' tags without their space, lands without any prefix and says so", async (t) => {
  const text = "def f():\n    one()\n\n    two()\n"
  const { lines, write } = await plugin(project(t, { "a.py": text }), "a.py")
  const copied = lines.map((l) => l.trimEnd().replace("two", "TWO"))
  t.regex(copied[2], /^3[a-z]{2}$/)
  const written = await write(`${copied.join("\n")}\n`)
  t.is(written.content, text.replace("two", "TWO"))
  t.regex(written.output, /Removed the view prefixes \(LINEab or LINE#HASH#ANCHOR\|\) from 4 lines of content before writing/)
})

test("the REV line a tagged read shows, copied above its lines, is left out and said", async (t) => {
  const text = "alpha\nbeta\n"
  const { view, lines, write } = await plugin(project(t, { "a.txt": text }), "a.txt")
  const rev = view.find((l) => /^REV:[0-9A-F]{8}$/.test(l))
  t.truthy(rev)
  const written = await write(`${rev}\n${lines.join("\n").replace("beta", "BETA")}\n`)
  t.is(written.content, "alpha\nBETA\n")
  t.regex(written.output, /Left out line 1 of the content, the REV line a read shows above the lines, copied with it/)
})

test("a line the read cut, copied unchanged, is written whole; changed before the cut, the write is refused", async (t) => {
  const long = `const DATA = "${"abcdefghij".repeat(250)}";`
  const text = `// data\n${long}\nlet x = 1;\n`
  const { lines, write } = await plugin(project(t, { "a.js": text }), "a.js")
  t.regex(lines[1], /\.\.\. \(line truncated to 2000 chars\)$/)
  const changed = lines.map((l) => l.replace("DATA", "MORE"))
  const err = await t.throwsAsync(() => write(`${changed.join("\n")}\n`))
  t.regex(String(err?.message), /line 2: .*ends with the note of a line a view cut/)
  const written = await write(`${lines.join("\n").replace("x = 1", "x = 2")}\n`)
  t.is(written.content, `// data\n${long}\nlet x = 2;\n`)
  t.regex(written.output, /Wrote line 2 of the content whole/)
})
