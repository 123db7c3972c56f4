// @ts-check
// `hashline mcp` driven by a client nobody here wrote: the official Python
// MCP package (`mcp` on PyPI, pinned in scripts/tools.txt, which npm install
// puts in the clone's own venv). It runs wherever Python is installed; only a
// machine without Python skips it.
import test from "ava"
import { spawnSync } from "node:child_process"
import fs from "node:fs"
import path from "node:path"
import { fileURLToPath } from "node:url"
import { scratch } from "../helpers.mjs"
import { VENV_PYTHON } from "../../scripts/tools.mjs"

const here = path.dirname(fileURLToPath(import.meta.url))
const repo = path.join(here, "..", "..")
const CLI = path.join(repo, "cli", "hashline.cjs")
const CLIENT = path.join(here, "..", "support", "mcp_client.py")

/** The clone's venv (made by npm install) if there is one, else the system's Python. */
function python() {
  if (fs.existsSync(VENV_PYTHON)) return VENV_PYTHON
  for (const name of ["python3", "python"]) if (spawnSync(name, ["--version"]).status === 0) return name
  return undefined
}

const PYTHON = python()

;(PYTHON ? test : test.skip)(`the official Python MCP client reads, edits by ref and greps, with structured results${PYTHON ? "" : " (skipped: no Python on this machine)"}`, (t) => {
  const py = /** @type {string} */ (PYTHON)
  const check = spawnSync(py, ["-c", "import mcp"], { encoding: "utf8" })
  t.is(check.status, 0, `the Python package mcp is not installed for ${py}; npm install installs it (${check.stderr.trim()})`)
  const project = scratch(t)
  fs.writeFileSync(path.join(project, "f.txt"), "a\nb\nc\n")
  const run = spawnSync(py, [CLIENT, project, process.execPath, CLI, "mcp", "--root", project], { encoding: "utf8", timeout: 120_000 })
  t.is(run.status, 0, run.stderr)
  const got = JSON.parse(run.stdout)

  t.is(got.protocolVersion, "2025-11-25")
  t.is(got.server, "hashline")
  t.deepEqual(Object.keys(got.tools), ["read", "edit", "grep", "apply"])
  t.like(got.tools.read.annotations, { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false })
  t.like(got.tools.edit.annotations, { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false })
  for (const name of ["read", "edit", "grep", "apply"]) t.is(got.tools[name].outputSchema.type, "object")

  t.false(got.read.isError)
  t.like(got.read.structured, { ok: true, path: "f.txt", totalLines: 3, startLine: 1, endLine: 3 })
  t.deepEqual(
    got.read.structured.lines.map((/** @type {{ line: number, text: string }} */ l) => [l.line, l.text]),
    [[1, "a"], [2, "b"], [3, "c"]],
  )
  t.true(got.read.text.includes(`${got.read.structured.lines[1].ref} b`))

  t.false(got.edit.isError, got.edit.text)
  t.like(got.edit.structured, { ok: true, path: "f.txt", previousRev: got.read.structured.rev, additions: 1, deletions: 1 })
  t.is(fs.readFileSync(path.join(project, "f.txt"), "utf8"), "a\nB\nc\n")

  t.like(got.grep.structured, { ok: true, shown: 2, files: 1, more: 0 })
  t.deepEqual(
    got.grep.structured.hits.map((/** @type {{ path: string, line: number, rev: string }} */ h) => [h.path, h.line, h.rev]),
    [["f.txt", 1, got.edit.structured.rev], ["f.txt", 3, got.edit.structured.rev]],
  )

  t.true(got.stale.isError)
  t.like(got.stale.structured, { ok: false, error: { code: "HASH_MISMATCH", path: "f.txt" } })
  t.is(got.stale.structured.error.mismatches[0].expected, "2#AAA#BBB")
  t.regex(got.stale.text, /^Edit rejected, nothing written/)
})
