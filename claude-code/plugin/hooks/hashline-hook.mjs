#!/usr/bin/env node
// @ts-check
// The plugin's hooks. Claude Code gives each hook its event as JSON on stdin
// and reads the decision as JSON on stdout. PreToolUse turns Edit, MultiEdit
// and NotebookEdit away with a reason naming hashline's tools, which the model
// receives as the call's result; SessionStart tells the model, once, which
// tools read and change files here and how refs work. This file runs from
// Claude Code's plugin cache, apart from the hashline package, so it imports
// nothing: the instruction is a copy, kept equal to the package's by a test.
import fs from "node:fs"
import path from "node:path"
import { fileURLToPath } from "node:url"

// Claude Code names a plugin's MCP tools mcp__plugin_<plugin>_<server>__<tool>;
// both names are this plugin's own (plugin.json and .mcp.json).
const TOOL = "mcp__plugin_hashline_hashline"

const GUIDE = `Files are read and changed through the hashline tools here: read a text file with ${TOOL}__read (each line shows a ref such as 12ab), change it with ${TOOL}__edit citing those refs, and search with ${TOOL}__grep. Claude Code's Edit, MultiEdit and NotebookEdit are turned off; Claude Code's Read shows no refs, so read a file with ${TOOL}__read before editing it. Write stays for new files.`

// The server's MCP instructions say the same, but Claude Code leaves them out
// when the server connects after the session's first request.
const INSTRUCTION = fs.readFileSync(path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "instruction.md"), "utf8").trim()

let input = ""
process.stdin.setEncoding("utf8")
for await (const chunk of process.stdin) input += chunk
/** @type {{ hook_event_name?: string, tool_name?: string }} */
let event = {}
try {
  event = JSON.parse(input)
} catch {
  // An event that is not JSON gets no decision: Claude Code goes on as usual.
}

if (event.hook_event_name === "PreToolUse") {
  const reason = `${event.tool_name ?? "This tool"} is turned off by the hashline plugin. Read the file with ${TOOL}__read, then change it with ${TOOL}__edit, citing the refs the read shows (or with oldString/newString).`
  process.stdout.write(JSON.stringify({ hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny", permissionDecisionReason: reason } }))
} else if (event.hook_event_name === "SessionStart") {
  process.stdout.write(JSON.stringify({ hookSpecificOutput: { hookEventName: "SessionStart", additionalContext: `${GUIDE}\n${INSTRUCTION}` } }))
}
