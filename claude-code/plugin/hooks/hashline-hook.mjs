#!/usr/bin/env node
// @ts-check
// The plugin's hooks. Claude Code gives each hook its event as JSON on stdin
// and reads the decision as JSON on stdout. PreToolUse turns Edit, MultiEdit
// and NotebookEdit away with a reason naming hashline's tools, which the model
// receives as the call's result, and makes no decision on any other tool
// (hooks.json's matcher sends only those three, but the hook does not rely on
// it); SessionStart tells the model, once, which tools read and change files
// here and how refs work. An event it cannot read gets no decision and no
// output: Claude Code goes on as usual. This file runs from Claude Code's
// plugin cache, apart from the hashline package, so it imports nothing: what
// it says is in texts.json beside it, which scripts/generate.mjs makes from
// the package's texts (the context, and the reason for each tool it turns
// away, Claude Code's own edit tools, which hooks.json's matcher lists).
import fs from "node:fs"
import path from "node:path"
import { fileURLToPath } from "node:url"

/** @type {{ context: string, turnedAway: Record<string, string> }} */
const TEXTS = JSON.parse(fs.readFileSync(path.join(path.dirname(fileURLToPath(import.meta.url)), "texts.json"), "utf8"))

/**
 * The event on stdin: an object, or undefined for anything else (not JSON,
 * null, an array, a string).
 * @returns {Promise<Record<string, unknown> | undefined>}
 */
async function readEvent() {
  let input = ""
  process.stdin.setEncoding("utf8")
  for await (const chunk of process.stdin) input += chunk
  try {
    const event = JSON.parse(input)
    return event && typeof event === "object" && !Array.isArray(event) ? event : undefined
  } catch {
    return undefined
  }
}

const event = await readEvent()
const tool = event?.tool_name

if (event?.hook_event_name === "PreToolUse" && typeof tool === "string" && Object.hasOwn(TEXTS.turnedAway, tool)) {
  process.stdout.write(JSON.stringify({ hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny", permissionDecisionReason: TEXTS.turnedAway[tool] } }))
} else if (event?.hook_event_name === "SessionStart") {
  // The server's MCP instructions say the same, but Claude Code leaves them
  // out when the server connects after the session's first request.
  process.stdout.write(JSON.stringify({ hookSpecificOutput: { hookEventName: "SessionStart", additionalContext: TEXTS.context } }))
}
