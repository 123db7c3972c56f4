// @ts-check
// `hashline mcp`, driven by the MCP SDK's own client over stdio: the tool
// list, edits by refs on real files, and the root the server refuses to leave.
import test from "ava"
import fs from "node:fs"
import path from "node:path"
import { fileURLToPath } from "node:url"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { EDIT_DESCRIPTION, EDIT_SCHEMA, GREP_DESCRIPTION, GREP_SCHEMA, READ_DESCRIPTION, READ_SCHEMA } from "../lib/definitions.mjs"
import * as helpers from "./helpers.mjs"

const { scratch } = helpers
/**
 * The refs of a view's lines, by line number.
 * @param {string} text
 */
const refsOf = (text) => /** @type {Record<number, string>} */ (helpers.refsOf(text))

const CLI = path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "cli", "hashline.mjs")

/**
 * A project folder, a folder next to it, and a connected client whose server
 * has the project as its root.
 * @param {import("ava").ExecutionContext} t
 * @param {Record<string, string>} files
 */
async function connect(t, files) {
  const root = scratch(t)
  const outside = scratch(t)
  fs.writeFileSync(path.join(outside, "secret.txt"), "secret\n")
  for (const [name, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, name)), { recursive: true })
    fs.writeFileSync(path.join(root, name), content)
  }
  const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, "mcp", "--root", root], cwd: outside, stderr: "pipe" })
  const client = new Client({ name: "hashline-test", version: "1.0.0" })
  await client.connect(transport)
  t.teardown(() => client.close())
  /**
   * @param {string} name
   * @param {Record<string, unknown>} args
   */
  const call = async (name, args) => {
    const result = /** @type {{ content: Array<{ type: string, text: string }>, isError?: boolean }} */ (await client.callTool({ name, arguments: args }))
    return { text: result.content.map((c) => c.text).join(""), isError: result.isError === true }
  }
  return { root, outside, client, call }
}

test("the server lists read, edit and grep with the shared descriptions and JSON schemas", async (t) => {
  const { client } = await connect(t, {})
  const { tools } = await client.listTools()
  t.deepEqual(
    tools.map((tool) => [tool.name, tool.description, tool.inputSchema]),
    [
      ["read", READ_DESCRIPTION, READ_SCHEMA],
      ["edit", EDIT_DESCRIPTION, EDIT_SCHEMA],
      ["grep", GREP_DESCRIPTION, GREP_SCHEMA],
    ],
  )
  t.true(tools.find((tool) => tool.name === "read")?.annotations?.readOnlyHint)
  t.regex(client.getInstructions() ?? "", /LINE#HASH#ANCHOR\|content/)
})

test("an edit by the refs of a read writes the file, and a second edit from the same read lands too", async (t) => {
  const { root, call } = await connect(t, { "src/app.ts": "export function total(items) {\n  if (!items) return null\n  return items.length\n}\n" })
  const view = await call("read", { filePath: "src/app.ts" })
  t.false(view.isError)
  const refs = refsOf(view.text)

  const first = await call("edit", { filePath: "src/app.ts", operations: [{ op: "replace", ref: refs[2], content: "  if (!items) {\n    return 0\n  }" }] })
  t.false(first.isError, first.text)
  t.regex(first.text, /^Applied 1 operation to src\/app\.ts/)
  const second = await call("edit", { filePath: "src/app.ts", operations: [{ op: "insert_after", ref: refs[3], content: "  // counted" }] })
  t.false(second.isError, second.text)
  t.is(
    fs.readFileSync(path.join(root, "src/app.ts"), "utf8"),
    "export function total(items) {\n  if (!items) {\n    return 0\n  }\n  return items.length\n  // counted\n}\n",
  )
})

test("grep hits carry refs an edit can cite directly", async (t) => {
  const { root, call } = await connect(t, { "a.py": "x = 1\ny = 2\n", "b.py": "z = 3\n" })
  const found = await call("grep", { pattern: "^y =", include: "*.py" })
  t.false(found.isError)
  const ref = /^ {2}(\d+#[0-9A-F]{3}#[0-9A-F]{3})\|y = 2$/m.exec(found.text)?.[1]
  t.truthy(ref, found.text)
  const edit = await call("edit", { filePath: "a.py", operations: [{ op: "replace", ref, content: "y = 20" }] })
  t.false(edit.isError, edit.text)
  t.is(fs.readFileSync(path.join(root, "a.py"), "utf8"), "x = 1\ny = 20\n")
})

test("paths outside the root are tool errors, whichever tool and however named, and nothing is written", async (t) => {
  const { root, outside, call } = await connect(t, { "in.txt": "in\n" })
  fs.symlinkSync(path.join(outside, "secret.txt"), path.join(root, "link.txt"))
  const secret = path.join(outside, "secret.txt")
  const attempts = [
    await call("read", { filePath: secret }),
    await call("read", { filePath: "link.txt" }),
    await call("edit", { filePath: secret, operations: [{ op: "append", content: "x" }] }),
    await call("edit", { filePath: "link.txt", oldString: "secret", newString: "public" }),
    await call("grep", { pattern: "secret", path: outside }),
  ]
  for (const attempt of attempts) {
    t.true(attempt.isError)
    t.regex(attempt.text, /outside the project root/)
  }
  const everything = await call("grep", { pattern: "secret" })
  t.is(everything.text, "No matches found.\n")
  t.is(fs.readFileSync(secret, "utf8"), "secret\n")
})

test("a rejected edit is a tool error carrying the repair text", async (t) => {
  const { root, call } = await connect(t, { "a.txt": "a\nb\n" })
  const result = await call("edit", { filePath: "a.txt", operations: [{ op: "delete", ref: "2#AAA#BBB" }] })
  t.true(result.isError)
  t.regex(result.text, /^Edit rejected, nothing written: 1 ref no longer matches a\.txt/)
  t.regex(result.text, /^>>> 2#[0-9A-F]{3}#[0-9A-F]{3}\|b$/m)
  t.is(fs.readFileSync(path.join(root, "a.txt"), "utf8"), "a\nb\n")

  const badArgs = await call("edit", { file: "a.txt" })
  t.true(badArgs.isError)
  t.regex(badArgs.text, /unknown argument file\. The arguments are filePath/)
  const unknown = await call("write", {})
  t.true(unknown.isError)
  t.regex(unknown.text, /Unknown tool write\. The tools are read, edit, grep\./)
})
