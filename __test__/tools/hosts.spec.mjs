// @ts-check
// The host table (lib/hosts.mjs): each adapter offers the tools its row
// names, in its order, under the names its model knows, with the file
// argument its row names; the one rename of that argument takes the host's
// name back to filePath and, given both names, lets the check refuse the
// call rather than pick a file.
import test from "ava"
import { RunContext } from "@openai/agents"
import fs from "node:fs"
import path from "node:path"
import { toFilePath } from "../../lib/arguments.cjs"
import { TOOL_NAMES, DISALLOWED_TOOLS } from "../../lib/claude-agent-sdk.mjs"
import { HOSTS } from "../../lib/hosts.mjs"
import { createTools as createAiTools } from "../../lib/ai.mjs"
import { createTools as createLangchainTools } from "../../lib/langchain.mjs"
import { createTools as createOpenAIAgentsTools } from "../../lib/openai-agents.mjs"
import { createTools, hostTools } from "../../lib/tools.mjs"
import plugin from "../../opencode/plugin.mjs"
import pi from "../../pi/extension.mjs"
import { scratch } from "../helpers.mjs"

test("each framework adapter offers the tools of its row, in its order", (t) => {
  const root = scratch(t)
  t.deepEqual(Object.keys(createAiTools({ root })), Object.keys(HOSTS.ai.tools))
  t.deepEqual(createLangchainTools({ root }).map((tool) => tool.name), Object.keys(HOSTS.langchain.tools))
  t.deepEqual(createOpenAIAgentsTools({ root }).map((tool) => tool.name), Object.keys(HOSTS["openai-agents"].tools))
  t.deepEqual(TOOL_NAMES, ["mcp__hashline__read", "mcp__hashline__edit", "mcp__hashline__grep"])
  t.deepEqual(DISALLOWED_TOOLS, HOSTS["claude-agent-sdk"].turnsOff)
})

test("a failed call reaches the model as each framework's row says: thrown for the host to hand on, or answered with the engine's text", async (t) => {
  const root = scratch(t)
  const stale = { filePath: "missing.txt", operations: [{ op: "delete", ref: "1#AAA#AAA" }] }
  /** @type {Array<[keyof typeof HOSTS, () => Promise<unknown>]>} */
  const calls = [
    ["ai", () => /** @type {any} */ (createAiTools({ root }).edit).execute(stale, { toolCallId: "1", messages: [] })],
    ["langchain", () => createLangchainTools({ root })[1].invoke(stale)],
    ["openai-agents", () => createOpenAIAgentsTools({ root })[1].invoke(new RunContext(), JSON.stringify(stale))],
  ]
  for (const [host, call] of calls) {
    if (HOSTS[host].errors === "thrown") t.is(/** @type {any} */ (await t.throwsAsync(call())).code, "NOT_FOUND", host)
    else t.regex(String(await call()), /missing\.txt/, host)
  }
})

test("pi registers the tools of its row, each file argument named path in the schema and the description", (t) => {
  /** @type {Array<Record<string, any>>} */
  const registered = []
  pi({ registerTool: (tool) => registered.push(tool) })
  t.deepEqual(registered.map((tool) => tool.name), Object.keys(HOSTS.pi.tools))
  for (const tool of registered.filter((tool) => tool.name !== "grep")) {
    t.true(tool.parameters.required.includes(HOSTS.pi.fileArgument), tool.name)
    t.false(JSON.stringify(tool.parameters).includes("filePath"), tool.name)
    t.false(tool.description.includes("filePath"), tool.name)
  }
})

test("OpenCode 1 and 2 register the tools of their rows under the names their models know", async (t) => {
  const root = scratch(t)
  const hooks = await plugin.server(/** @type {any} */ ({ client: {}, project: {}, directory: root, worktree: root }))
  t.deepEqual(Object.keys(hooks.tool ?? {}), Object.values(HOSTS.opencode.tools))
  /** @type {string[]} */
  const added = []
  const registration = { dispose: async () => {} }
  await plugin.setup({
    location: { directory: root },
    tool: {
      transform: async (callback) => (callback({ add: (tool) => added.push(tool.name) }), registration),
      hook: async () => registration,
    },
  })
  t.deepEqual(added, Object.values(HOSTS["opencode-2"].tools))
})

test("a host's file argument becomes filePath; with both names the call is refused, and no file is picked", async (t) => {
  t.deepEqual(toFilePath({ path: "a.txt", operations: [] }, "path"), { filePath: "a.txt", operations: [] })
  t.deepEqual(toFilePath({ filePath: "a.txt" }, "path"), { filePath: "a.txt" })
  t.deepEqual(toFilePath({ path: "a.txt" }, "filePath"), { path: "a.txt" })
  const root = scratch(t)
  fs.writeFileSync(path.join(root, "a.txt"), "a\n")
  fs.writeFileSync(path.join(root, "b.txt"), "b\n")
  const [, edit] = hostTools(HOSTS.pi, createTools({ root }))
  const err = /** @type {any} */ (await t.throwsAsync(edit.execute({ path: "a.txt", filePath: "b.txt", operations: [{ op: "append", content: "x" }] })))
  t.is(err.code, "INVALID_REQUEST")
  t.is(fs.readFileSync(path.join(root, "a.txt"), "utf8"), "a\n")
  t.is(fs.readFileSync(path.join(root, "b.txt"), "utf8"), "b\n")
  t.regex(await edit.execute({ path: "a.txt", operations: [{ op: "append", content: "x" }] }), /^Applied 1 operation to a\.txt/)
})
