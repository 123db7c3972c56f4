// @ts-check
// The Claude Code plugin's files and hooks, run as Claude Code runs them: the
// hook script with the event as JSON on stdin, its decision read from stdout.
import test from "ava"
import { spawnSync } from "node:child_process"
import fs from "node:fs"
import path from "node:path"
import { HOSTS } from "../../lib/hosts.mjs"
import { PLAIN_INSTRUCTION } from "../../lib/texts.cjs"
import { REPO } from "../support/published.mjs"

const PLUGIN = path.join(REPO, "claude-code", "plugin")
const HOOK = path.join(PLUGIN, "hooks", "hashline-hook.mjs")
/** @param {string} file */
const json = (file) => JSON.parse(fs.readFileSync(path.join(PLUGIN, file), "utf8"))

/**
 * The hook run on `input` as Claude Code runs it.
 * @param {string} input
 */
function run(input) {
  return spawnSync(process.execPath, [HOOK], { input, encoding: "utf8", env: { ...process.env, CLAUDE_PLUGIN_ROOT: PLUGIN } })
}

/** @param {Record<string, unknown>} event */
function hook(event) {
  const ran = run(JSON.stringify(event))
  if (ran.status !== 0) throw new Error(ran.stderr)
  return ran.stdout ? JSON.parse(ran.stdout) : undefined
}

test("the tool names the hooks give are the plugin's: Claude Code names them after the plugin and its server, started text-only and always loaded", (t) => {
  const plugin = json(".claude-plugin/plugin.json").name
  const [name, server] = Object.entries(json(".mcp.json").mcpServers)[0]
  t.true(/** @type {any} */ (server).alwaysLoad)
  t.true(/** @type {any} */ (server).args.includes("--text-only"))
  for (const [tool, named] of Object.entries(HOSTS["claude-code"].tools)) t.is(named, `mcp__plugin_${plugin}_${name}__${tool}`)
  t.deepEqual(json("hooks/hooks.json").hooks.PreToolUse.map((/** @type {{ matcher: string }} */ h) => h.matcher), ["Edit|MultiEdit|NotebookEdit"])
})

for (const tool of ["Edit", "MultiEdit", "NotebookEdit"]) {
  test(`PreToolUse denies ${tool} with a reason naming hashline's read and edit`, (t) => {
    const decision = hook({ hook_event_name: "PreToolUse", tool_name: tool, tool_input: {} }).hookSpecificOutput
    t.is(decision.hookEventName, "PreToolUse")
    t.is(decision.permissionDecision, "deny")
    t.true(decision.permissionDecisionReason.startsWith(`${tool} is turned off`))
    t.true(decision.permissionDecisionReason.includes("mcp__plugin_hashline_hashline__read"))
    t.true(decision.permissionDecisionReason.includes("mcp__plugin_hashline_hashline__edit"))
  })
}

test("PreToolUse turns NotebookEdit away because hashline edits notebooks, saying how: the cell header and the cell ops", (t) => {
  const reason = hook({ hook_event_name: "PreToolUse", tool_name: "NotebookEdit", tool_input: { notebook_path: "/p/a.ipynb", new_source: "x" } }).hookSpecificOutput.permissionDecisionReason
  t.regex(reason, /which edits notebooks itself/)
  t.regex(reason, /# %% \[code\] id=/)
  for (const op of ["replace_cell", "insert_cell_after", "delete_cell", "move_cell", "set_cell_type", "set_cell_metadata"]) t.true(reason.includes(op), op)
  t.true(hook({ hook_event_name: "SessionStart", source: "startup" }).hookSpecificOutput.additionalContext.includes("Jupyter notebooks (.ipynb) too"))
})

test("SessionStart gives the model the tool names and the instruction; other events get no decision", (t) => {
  const context = hook({ hook_event_name: "SessionStart", source: "startup" }).hookSpecificOutput.additionalContext
  t.true(context.includes("change it with mcp__plugin_hashline_hashline__edit"))
  t.true(context.endsWith(PLAIN_INSTRUCTION))
  t.is(hook({ hook_event_name: "PostToolUse", tool_name: "Read" }), undefined)
})

test("PreToolUse makes no decision on any tool but Claude Code's edit tools: hashline's own, Read, Write, Bash and the rest go on as usual", (t) => {
  for (const tool of ["Read", "Write", "Bash", "Grep", "Glob", "mcp__plugin_hashline_hashline__read", "mcp__plugin_hashline_hashline__edit", "edit", "NotebookRead", "EditX"]) {
    t.is(hook({ hook_event_name: "PreToolUse", tool_name: tool, tool_input: {} }), undefined, tool)
  }
})

test("the tools PreToolUse denies are the ones its matcher sends it", (t) => {
  const matcher = json("hooks/hooks.json").hooks.PreToolUse[0].matcher
  for (const tool of matcher.split("|")) t.is(hook({ hook_event_name: "PreToolUse", tool_name: tool }).hookSpecificOutput.permissionDecision, "deny", tool)
})

test("an event that is not one the hook can read gets no decision, quietly, and the hook exits 0", (t) => {
  for (const input of ["null", "", "not json", "[]", "42", '"PreToolUse"', "{}", '{"hook_event_name":"PreToolUse"}', '{"hook_event_name":"PreToolUse","tool_name":null}', '{"hook_event_name":"PreToolUse","tool_name":{"x":1}}', '{"hook_event_name":null}', '{"hook_event_name":["SessionStart"]}']) {
    const ran = run(input)
    t.is(ran.status, 0, input)
    t.is(ran.stdout, "", input)
    t.is(ran.stderr, "", input)
  }
})
