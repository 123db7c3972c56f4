// @ts-check
// The files the package ships for Claude Code, Codex, Gemini CLI and Qwen
// Code: each is what scripts/generate.mjs makes of the host table and the
// package's texts, so what the model reads in them is the package's own
// text, and each starts the hashline-mcp of its release, text only. The
// Codex hook is run as Codex runs it: the event on stdin, the decision in
// its exit code.
import test from "ava"
import { spawnSync } from "node:child_process"
import fs from "node:fs"
import path from "node:path"
import { HOSTS } from "../../lib/hosts.mjs"
import { hostContext, hostSkill, turnedAway } from "../../lib/texts.cjs"
import { generatedFiles } from "../../scripts/generate.mjs"
import { REPO } from "../support/published.mjs"

/** @param {string} file */
const read = (file) => fs.readFileSync(path.join(REPO, file), "utf8")
/** @param {string} file */
const json = (file) => JSON.parse(read(file))
const { version } = json("package.json")

test("every file of an integration is committed as scripts/generate.mjs makes it", (t) => {
  const files = generatedFiles()
  t.true(files.size > 0)
  for (const [file, text] of files) t.is(read(file), text, `${file} differs: node scripts/generate.mjs writes it`)
})

test("the context files and the Codex skill are the package's texts for their host", (t) => {
  t.is(read("gemini-cli/GEMINI.md"), `${hostContext(HOSTS["gemini-cli"])}\n`)
  t.is(read("qwen-code/QWEN.md"), `${hostContext(HOSTS["qwen-code"])}\n`)
  t.is(read("codex/plugin/skills/hashline/SKILL.md"), hostSkill(HOSTS.codex))
})

test("each integration starts the hashline-mcp of its release, text only, as its server named hashline", (t) => {
  for (const file of ["codex/plugin/.mcp.json", "gemini-cli/gemini-extension.json", "qwen-code/qwen-extension.json"]) {
    const server = json(file).mcpServers.hashline
    t.is(server.command, "npx", file)
    t.deepEqual(server.args, ["-y", `hashline-mcp@${version}`, "--text-only"], file)
  }
  t.true(json("qwen-code/qwen-extension.json").mcpServers.hashline.alwaysLoadTools)
})

test("the manifests point at their files, and the Gemini CLI extension excludes the tools the guide says are off", (t) => {
  const gemini = json("gemini-cli/gemini-extension.json")
  t.is(gemini.name, "hashline")
  t.is(gemini.contextFileName, "GEMINI.md")
  t.deepEqual(gemini.excludeTools, HOSTS["gemini-cli"].turnsOff)
  t.is(json("qwen-code/qwen-extension.json").contextFileName, "QWEN.md")
  const plugin = json("codex/plugin/.codex-plugin/plugin.json")
  t.like(plugin, { name: "hashline", version, mcpServers: "./.mcp.json", skills: "./skills/" })
  t.deepEqual(json("codex/.agents/plugins/marketplace.json").plugins.map((/** @type {{ name: string, source: string }} */ p) => [p.name, p.source]), [["hashline", "./plugin"]])
  t.deepEqual(
    json("codex/plugin/hooks/hooks.json").hooks.PreToolUse.map((/** @type {{ matcher: string }} */ h) => h.matcher),
    HOSTS.codex.turnsOff,
  )
})

test("the Codex hook turns apply_patch away with exit code 2 and the package's reason on stderr, whatever the size of the patch", (t) => {
  const event = JSON.stringify({ hook_event_name: "PreToolUse", tool_name: "apply_patch", tool_input: { command: "x".repeat(1 << 20) } })
  const run = spawnSync(process.execPath, [path.join(REPO, "codex", "plugin", "hooks", "turn-away.mjs")], { input: event, encoding: "utf8" })
  t.is(run.status, 2)
  t.is(run.stderr, turnedAway(HOSTS.codex, "apply_patch"))
  t.is(run.stdout, "")
})
