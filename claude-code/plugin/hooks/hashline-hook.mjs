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
// plugin cache, apart from the hashline package, so it imports nothing: the
// instruction is a copy, kept equal to the package's by a test.
import fs from "node:fs"
import path from "node:path"
import { fileURLToPath } from "node:url"

// Claude Code names a plugin's MCP tools mcp__plugin_<plugin>_<server>__<tool>;
// both names are this plugin's own (plugin.json and .mcp.json).
const TOOL = "mcp__plugin_hashline_hashline"

/** Claude Code's own edit tools, the ones hooks.json's matcher lists. */
const TURNED_OFF = ["Edit", "MultiEdit", "NotebookEdit"]

const GUIDE = `Files are read and changed through the hashline tools here: read a text file with ${TOOL}__read (each line shows a ref such as 12ab), change it with ${TOOL}__edit citing those refs, and search with ${TOOL}__grep. Claude Code's Edit, MultiEdit and NotebookEdit are turned off; Claude Code's Read shows no refs, so read a file with ${TOOL}__read before editing it. Write stays for new files.`

// The server's MCP instructions say the same, but Claude Code leaves them out
// when the server connects after the session's first request.
const INSTRUCTION = fs.readFileSync(path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "instruction.md"), "utf8").trim()

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

if (event?.hook_event_name === "PreToolUse" && typeof tool === "string" && TURNED_OFF.includes(tool)) {
  const reason = `${tool} is turned off by the hashline plugin. Read the file with ${TOOL}__read, then change it with ${TOOL}__edit, citing the refs the read shows (or with oldString/newString).`
  process.stdout.write(JSON.stringify({ hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny", permissionDecisionReason: reason } }))
} else if (event?.hook_event_name === "SessionStart") {
  process.stdout.write(JSON.stringify({ hookSpecificOutput: { hookEventName: "SessionStart", additionalContext: `${GUIDE}\n${INSTRUCTION}` } }))
}
