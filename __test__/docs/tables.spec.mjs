// @ts-check
// The tables of the pages that restate what the code declares are held to
// it: the error codes of docs/format.md §9 to the engine's table of codes,
// and the README's install lines to the package and the folders it ships
// for each host, whose guide repeats its line word for word.
import test from "ava"
import fs from "node:fs"
import path from "node:path"
import { binding } from "../helpers.mjs"
import { REPO, codeSpans, readPage, section, tables } from "./pages.mjs"

/** @param {string} file */
const json = (file) => JSON.parse(fs.readFileSync(path.join(REPO, file), "utf8"))

/** @type {Array<{ code: string, class: string, exitStatus: number }>} */
const CODES = binding.errorCodes()


test("format.md §9 gives every engine code its class and exit status, as the engine declares them", (t) => {
  const [classes] = tables(section(readPage("docs/format.md"), "§9 Errors"))
  t.deepEqual(classes[0], ["class", "exit status", "codes"])
  /** @type {Map<string, { name: string, status: number, codes: string[] }>} */
  const declared = new Map()
  for (const c of CODES) {
    const row = declared.get(c.class) ?? { name: c.class, status: c.exitStatus, codes: [] }
    t.is(row.status, c.exitStatus, `${c.code}: one exit status per class`)
    row.codes.push(c.code)
    declared.set(c.class, row)
  }
  const byName = (/** @type {{ name: string }} */ a, /** @type {{ name: string }} */ b) => a.name.localeCompare(b.name)
  t.deepEqual(
    classes
      .slice(1)
      .map(([name, status, codes]) => ({ name, status: Number(status), codes: codeSpans(codes).sort() }))
      .sort(byName),
    [...declared.values()].map((row) => ({ ...row, codes: row.codes.sort() })).sort(byName),
  )
})

test("format.md §9 says what each engine code means, each once", (t) => {
  const [, meanings] = tables(section(readPage("docs/format.md"), "§9 Errors"))
  t.deepEqual(meanings[0], ["code", "when"])
  const listed = meanings.slice(1).map(([code]) => codeSpans(code)[0])
  t.deepEqual(listed, CODES.map((c) => c.code))
  for (const [, when] of meanings.slice(1)) t.not(when, "")
})

/**
 * What an install line of the README names, checked against the package;
 * an empty list means the line is as the package is.
 * @param {string} line
 * @returns {string[] | undefined} undefined for a line this test does not know
 */
function installProblems(line) {
  const pkg = json("package.json")
  const mcp = json("packages/hashline-mcp/package.json")
  /** @type {string[]} */
  const problems = []
  const need = (/** @type {boolean} */ ok, /** @type {string} */ what) => {
    if (!ok) problems.push(what)
  }
  /** The folder of the global package a line installs from. */
  const folder = (/** @type {string} */ text) => {
    const m = /"\$\(npm root -g\)\/hashline\/([\w-]+)"/.exec(text)
    if (!m) return undefined
    need(pkg.files.includes(m[1]), `the package does not ship ${m[1]}/`)
    need(fs.existsSync(path.join(REPO, m[1])), `${m[1]}/ does not exist`)
    return m[1]
  }
  /** A plugin `name@marketplace` of a marketplace manifest. */
  const plugin = (/** @type {string} */ manifest, /** @type {string} */ id) => {
    const [name, market] = id.split("@")
    const m = json(manifest)
    need(m.name === market, `${manifest} is the marketplace ${m.name}, not ${market}`)
    need(m.plugins.some((/** @type {{ name: string }} */ p) => p.name === name), `${manifest} has no plugin ${name}`)
  }
  let m
  if ((m = /^"plugin": \["([^"]+)"\]$/.exec(line))) need(m[1] === pkg.name, `the package is ${pkg.name}`)
  else if ((m = /^pi install npm:(\S+)$/.exec(line))) need(m[1] === pkg.name && pkg.pi?.extensions?.length > 0, "the package is no pi package")
  else if ((m = /^(npm install(?: -g)?|bun add) (\S+)$/.exec(line))) need(m[2] === pkg.name, `the package is ${pkg.name}`)
  else if ((m = /^npx -y (\S+)(?: read \S+)?$/.exec(line))) need((m[1] === pkg.name && pkg.bin?.hashline) || (m[1] === mcp.name && mcp.bin?.[mcp.name]), `no command ${m[1]}`)
  else if ((m = /^(claude|codex) plugin marketplace add (.*)$/.exec(line))) {
    const dir = folder(m[2])
    need(dir === (m[1] === "claude" ? "claude-code" : "codex"), `${m[1]} takes its marketplace from ${dir}`)
  } else if ((m = /^claude plugin install (\S+)$/.exec(line))) plugin("claude-code/.claude-plugin/marketplace.json", m[1])
  else if ((m = /^codex plugin add (\S+)$/.exec(line))) plugin("codex/.agents/plugins/marketplace.json", m[1])
  else if ((m = /^(gemini|qwen) extensions install (.*)$/.exec(line))) {
    const dir = folder(m[2])
    const manifest = `${dir}/${m[1]}-extension.json`
    need(fs.existsSync(path.join(REPO, manifest)), `${manifest} does not exist`)
  } else return undefined
  return problems
}

/** The README's install table: host, its lines, and its guide. */
function installTable() {
  const [rows] = tables(section(readPage("README.md"), "Install"))
  if (rows[0].join("|") !== "host|install|guide") throw new Error(`the install table's columns are ${rows[0].join(", ")}`)
  return rows.slice(1).map(([host, install, guide]) => ({
    host,
    lines: codeSpans(install).filter((s) => !/^[\w-]+\.json$/.test(s)),
    guide: /** @type {RegExpExecArray} */ (/\]\(([^)]+)\)/.exec(guide))[1],
  }))
}

test("every install line of the README names the package, the folder it ships for the host and the plugin in it as they are", (t) => {
  const rows = installTable()
  t.true(rows.length >= 10, rows.map((r) => r.host).join(", "))
  for (const { host, lines } of rows) {
    t.true(lines.length > 0, host)
    for (const line of lines) t.deepEqual(installProblems(line), [], `${host}: ${line}`)
  }
})

test("each host's guide gives the README's install line word for word", (t) => {
  for (const { host, lines, guide } of installTable()) {
    const page = readPage(guide)
    for (const line of lines) t.true(page.includes(line), `${guide} does not show ${host}'s ${line}`)
  }
})

test("the install check knows a wrong line from a right one", (t) => {
  t.deepEqual(installProblems("claude plugin install hashline@hashline"), [])
  t.deepEqual(installProblems("codex plugin add hashline@elsewhere"), ["codex/.agents/plugins/marketplace.json is the marketplace hashline, not elsewhere"])
  t.deepEqual(installProblems('gemini extensions install "$(npm root -g)/hashline/gemini"'), ["the package does not ship gemini/", "gemini/ does not exist", "gemini/gemini-extension.json does not exist"])
  t.deepEqual(installProblems("npx -y hashline-mcp"), [])
  t.deepEqual(installProblems("npx -y hashline-mcpp"), ["no command hashline-mcpp"])
  t.is(installProblems("brew install hashline"), undefined)
})
