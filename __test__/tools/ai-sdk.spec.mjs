// @ts-check
// `hashline/ai`, used by the AI SDK's own generateText loop with its mock
// language model standing in for a provider: the model reads, cites refs from
// the tool result it was given, and the file on disk changes accordingly.
import test from "ava"
import fs from "node:fs"
import path from "node:path"
import { generateText, stepCountIs } from "ai"
import { MockLanguageModelV3 } from "ai/test"
import { createTools } from "../../lib/ai.mjs"
import { EDIT_DESCRIPTION, EDIT_SCHEMA } from "../../lib/definitions.mjs"
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
 * @typedef {Parameters<MockLanguageModelV3["doGenerate"]>[0]} CallOptions
 * @typedef {{ toolName: string, input: Record<string, unknown> } | { text: string }} Turn
 */

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 5, text: 5, reasoning: 0 },
}

/**
 * The text of every tool result (or tool error) in the prompt, oldest first.
 * @param {CallOptions["prompt"]} prompt
 */
function toolOutputs(prompt) {
  /** @type {string[]} */
  const outputs = []
  for (const message of prompt) {
    if (message.role !== "tool") continue
    for (const part of message.content) {
      if (part.type !== "tool-result") continue
      const output = part.output
      outputs.push(output.type === "text" || output.type === "error-text" ? `${output.type}:${output.value}` : `${output.type}:${JSON.stringify(output)}`)
    }
  }
  return outputs
}

/**
 * A model that plays a script: each turn sees the tool outputs so far and
 * answers with one tool call or with text.
 * @param {Array<(outputs: string[]) => Turn>} script
 */
function scriptedModel(script) {
  /** @type {CallOptions[]} */
  const calls = []
  const model = new MockLanguageModelV3({
    doGenerate: async (options) => {
      calls.push(options)
      const step = script[calls.length - 1]
      const turn = step ? step(toolOutputs(options.prompt)) : { text: "Done." }
      if ("text" in turn) {
        return { content: [{ type: "text", text: turn.text }], finishReason: { unified: "stop", raw: "stop" }, usage, warnings: [] }
      }
      return {
        content: [{ type: "tool-call", toolCallId: `call-${calls.length}`, toolName: turn.toolName, input: JSON.stringify(turn.input) }],
        finishReason: { unified: "tool-calls", raw: "tool_calls" },
        usage,
        warnings: [],
      }
    },
  })
  return { model, calls }
}

/** @param {string[]} outputs */
const last = (outputs) => outputs[outputs.length - 1] ?? ""

test("the model reads, then edits by the refs it was shown, and the file on disk changes", async (t) => {
  const root = scratch(t)
  fs.writeFileSync(path.join(root, "greet.js"), "function greet(name) {\n  return 'Hello ' + name\n}\n")
  const { model, calls } = scriptedModel([
    () => ({ toolName: "read", input: { filePath: "greet.js" } }),
    (outputs) => {
      const refs = refsOf(last(outputs).replace(/^text:/, ""))
      return { toolName: "edit", input: { filePath: "greet.js", operations: [{ op: "replace", ref: refs[2], content: "  return `Hello ${name}!`" }] } }
    },
    () => ({ text: "Updated greet.js." }),
  ])

  const result = await generateText({ model, tools: createTools({ root }), prompt: "Use a template literal in greet.js", stopWhen: stepCountIs(5) })
  t.is(result.text, "Updated greet.js.")
  t.is(fs.readFileSync(path.join(root, "greet.js"), "utf8"), "function greet(name) {\n  return `Hello ${name}!`\n}\n")
  t.regex(last(toolOutputs(calls[2].prompt)), /^text:Applied 1 operation to greet\.js/)

  const offered = calls[0].tools ?? []
  const edit = offered.find((tool) => tool.name === "edit")
  t.deepEqual(
    offered.map((tool) => tool.name),
    ["read", "edit", "grep"],
  )
  t.is(edit && "description" in edit ? edit.description : undefined, EDIT_DESCRIPTION)
  t.deepEqual(edit && "inputSchema" in edit ? edit.inputSchema : undefined, /** @type {any} */ (EDIT_SCHEMA))
})

test("a rejected edit reaches the model as an error with the repair text, the file stays, and the retry lands", async (t) => {
  const root = scratch(t)
  fs.writeFileSync(path.join(root, "a.txt"), "alpha\nbeta\n")
  const { model } = scriptedModel([
    () => ({ toolName: "edit", input: { filePath: "a.txt", operations: [{ op: "replace", ref: "2#AAA#BBB", content: "BETA" }] } }),
    (outputs) => {
      // ai 7 puts the error's name before its message; ai 6 gives the message alone.
      t.regex(last(outputs), /^error-text:(Error: )?Edit rejected, nothing written/)
      t.is(fs.readFileSync(path.join(root, "a.txt"), "utf8"), "alpha\nbeta\n")
      const shown = /^>>> (2#[0-9A-F]{3}#[0-9A-F]{3})\|beta$/m.exec(last(outputs))
      t.truthy(shown, last(outputs))
      return { toolName: "edit", input: { filePath: "a.txt", operations: [{ op: "replace", ref: shown?.[1], content: "BETA" }] } }
    },
    () => ({ text: "Done." }),
  ])

  const result = await generateText({ model, tools: createTools({ root }), prompt: "Uppercase beta", stopWhen: stepCountIs(5) })
  const first = result.steps[0].content.find((part) => part.type === "tool-error")
  t.truthy(first)
  t.is(fs.readFileSync(path.join(root, "a.txt"), "utf8"), "alpha\nBETA\n")
})

test("grep through the AI SDK returns hits with refs under the root only", async (t) => {
  const root = scratch(t)
  fs.mkdirSync(path.join(root, "src"))
  fs.writeFileSync(path.join(root, "src", "x.ts"), "const port = 8080\n")
  const { model, calls } = scriptedModel([() => ({ toolName: "grep", input: { pattern: "port" } }), () => ({ toolName: "grep", input: { pattern: "x", path: ".." } })])
  await generateText({ model, tools: createTools({ root }), prompt: "Find the port", stopWhen: stepCountIs(3) })
  const outputs = toolOutputs(calls[2].prompt)
  t.regex(outputs[0], /^text:Found 1 matching line in 1 file\.\n\nsrc\/x\.ts REV:[0-9A-F]{8}\n {2}1#[0-9A-F]{3}#[0-9A-F]{3}\|const port = 8080\n$/)
  t.regex(outputs[1], /^error-text:.*outside the project root/)
})

test("the AI SDK's abortSignal reaches the engine: an aborted edit writes nothing", async (t) => {
  const root = scratch(t)
  fs.writeFileSync(path.join(root, "a.txt"), "alpha\nbeta\n")
  const tools = createTools({ root })
  const execute = /** @type {(input: unknown, options: object) => Promise<string>} */ (tools.edit.execute)
  const options = { toolCallId: "call-1", messages: [], abortSignal: AbortSignal.abort() }
  const err = await t.throwsAsync(execute({ filePath: "a.txt", oldString: "beta", newString: "BETA" }, options))
  t.like(err, { code: "CANCELLED", name: "AbortError" })
  t.is(fs.readFileSync(path.join(root, "a.txt"), "utf8"), "alpha\nbeta\n")
})
