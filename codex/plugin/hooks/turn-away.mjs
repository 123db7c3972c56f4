#!/usr/bin/env node
// @ts-check
// Codex runs this before each apply_patch (hooks.json). Exit code 2 turns the
// call away, and Codex hands the model what was written to stderr as the
// call's result: the reason in texts.json beside it, which
// scripts/generate.mjs makes from the package's texts (this file runs from
// Codex's plugin folder, apart from the hashline package, so it imports
// nothing). The event is read to its end first, so Codex never writes into a
// closed pipe; the tool it names picks the reason, and one the script cannot
// read gets that of the first tool hooks.json matches.
import fs from "node:fs"
import path from "node:path"
import { fileURLToPath } from "node:url"

/** @type {{ turnedAway: Record<string, string> }} */
const TEXTS = JSON.parse(fs.readFileSync(path.join(path.dirname(fileURLToPath(import.meta.url)), "texts.json"), "utf8"))

let input = ""
process.stdin.setEncoding("utf8")
for await (const chunk of process.stdin) input += chunk
/** @type {unknown} */
let tool
try {
  tool = JSON.parse(input)?.tool_name
} catch {
  tool = undefined
}
const reasons = TEXTS.turnedAway
process.stderr.write(typeof tool === "string" && Object.hasOwn(reasons, tool) ? reasons[tool] : Object.values(reasons)[0])
process.exitCode = 2
