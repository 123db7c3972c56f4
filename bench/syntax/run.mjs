// @ts-check
// What the parse check costs an edit: the same one-line edit of a real
// TypeScript source, end to end (plan, check, write), at 500, 5,000 and
// 100,000 lines, with `syntax: "off"` and with "warn": in a session that
// edits the file again (it kept the tree of the version it wrote: only the
// change is parsed again), and as the first edit of a new session after a
// read. A session parses what it reads in the background, so that first
// edit comes a second after the read, as a model's would (seconds later);
// the same edit with no pause shows the cost when the parse is not done. The three take turns in every round,
// so that load from other processes falls on all alike; the table shows
// medians, min and max, and their ratios to "off". Before timing, each source is shown to parse (an
// edit that breaks it must be reported), so the check is really run. Last,
// what the first use of each grammar in a process costs: its parse tables
// are stored compressed and expanded then.
//
//   node bench/syntax/run.mjs [--build-release | --binding path/to/index.js] [--rounds N]
//
// --binding        the loader to measure (default: the package's index.js,
//                  a debug build after `npm test`: use a release build).
// --build-release  first build a release copy into bench/.cache/syntax-release.
// --rounds         timed edits per size and mode, after two untimed (default 31).
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { asCount, bindingOptions, load, loaderOf, median, options, progress, repo } from "../harness.mjs"

/** The TypeScript sources of the `ai` package (a dev dependency), whole files in a fixed order. */
function sources() {
  const top = path.join(repo, "node_modules", "ai", "src")
  if (!fs.existsSync(top)) throw new Error(`${top} is missing: run npm install first`)
  /** @type {string[]} */
  const files = []
  const walk = (/** @type {string} */ dir) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const full = path.join(dir, entry.name)
      if (entry.isDirectory()) walk(full)
      else if (entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts") && !entry.name.includes(".test.")) files.push(full)
    }
  }
  walk(top)
  return files.map((f) => fs.readFileSync(f, "utf8"))
}

/**
 * Whole source files, repeated as needed, until the text has at least `n` lines.
 * @param {string[]} texts
 * @param {number} n
 */
function textOf(texts, n) {
  let text = ""
  let lines = 0
  for (let i = 0; lines < n; i++) {
    const t = texts[i % texts.length]
    text += t.endsWith("\n") ? t : `${t}\n`
    lines += t.split("\n").length - 1
  }
  return text
}

/** A small valid file per grammar, by a name that picks it. */
const SAMPLES = {
  "run.sh": 'if [ -n "$1" ]; then\n  echo "$1"\nfi\n',
  "a.c": "int main(void) {\n  return 0;\n}\n",
  "A.cs": "class A {\n  void M() { }\n}\n",
  "a.cpp": "namespace n {\nclass A { int x; };\n}\n",
  "a.css": "a {\n  color: red;\n}\n",
  "a.go": "package a\n\nfunc F() int {\n\treturn 1\n}\n",
  "a.html": "<div>\n  <p>x</p>\n</div>\n",
  "A.java": "class A {\n  void m() {}\n}\n",
  "a.js": "function f(x) {\n  return x;\n}\n",
  "a.json": '{\n  "a": [1, 2]\n}\n',
  "a.md": "# Title\n\nText.\n",
  "a.php": "<?php\nfunction f() {\n  return 1;\n}\n",
  "a.py": "def f():\n    return 1\n",
  "a.rb": "def f\n  1\nend\n",
  "a.rs": "fn f() -> u8 {\n    1\n}\n",
  "a.toml": "[a]\nb = 1\n",
  "a.ts": "function f(x: number): number {\n  return x;\n}\n",
  "a.tsx": "const a = (x: number) => <div>{x}</div>;\n",
  "a.yaml": "a:\n  - 1\n  - 2\n",
}

/**
 * What a grammar's first use in a process costs (its parse tables are
 * expanded then): in a new process per round, the first checked edit of a
 * small file, the same edit again, and the first edit with the check off.
 * @param {string} binding
 * @param {number} rounds
 */
function firstUse(binding, rounds) {
  const child = `
    const [binding, name, text] = process.argv.slice(1)
    const fs = require("node:fs"), os = require("node:os"), path = require("node:path")
    const { Hashline } = require(binding)
    const root = fs.mkdtempSync(path.join(os.tmpdir(), "hashline-first-use-"))
    const time = (engine) => {
      fs.writeFileSync(path.join(root, name), text)
      const start = process.hrtime.bigint()
      engine.edit(name, { operations: [{ op: "append", content: "\\n" }] })
      return Number(process.hrtime.bigint() - start) / 1e6
    }
    const off = time(new Hashline({ root, syntax: "off" }))
    const warn = new Hashline({ root, syntax: "warn" })
    const first = time(warn)
    const again = time(warn)
    fs.rmSync(root, { recursive: true, force: true })
    console.log(JSON.stringify({ off, first, again }))
  `
  /** @type {string[]} */
  const rows = []
  for (const [name, text] of Object.entries(SAMPLES)) {
    /** @type {{ off: number[], first: number[], again: number[] }} */
    const t = { off: [], first: [], again: [] }
    for (let round = 0; round < rounds; round++) {
      const out = spawnSync(process.execPath, ["-e", child, binding, name, text], { encoding: "utf8" })
      if (out.status !== 0) throw new Error(`first use of ${name}: ${out.stderr}`)
      const r = JSON.parse(out.stdout)
      for (const k of /** @type {const} */ (["off", "first", "again"])) t[k].push(r[k])
    }
    rows.push(`| ${path.extname(name)} | ${fmt(median(t.off))} | ${fmt(median(t.first))} | ${fmt(median(t.again))} | ${fmt(median(t.first) - median(t.again))} |`)
  }
  return rows
}

/** @param {number} ms */
const fmt = (ms) => (ms < 1 ? ms.toFixed(3) : ms < 10 ? ms.toFixed(2) : ms.toFixed(1))

function main() {
  const o = options(import.meta.url, { ...bindingOptions, rounds: { parse: asCount, default: 31 } })
  o.binding = loaderOf(o, "syntax-release")
  const { Hashline } = load(o.binding)
  const texts = sources()
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "hashline-syntax-bench-"))
  /** @type {string[]} */
  const rows = []
  try {
    for (const size of [500, 5000, 100000]) {
      const text = textOf(texts, size)
      const lines = text.split("\n").length - 1
      const target = Math.floor(lines / 2)
      /** @type {Record<string, { engine: any, name: string, times: number[], line: string }>} */
      const modes = {}
      for (const syntax of ["warn", "off", "first", "hurried", "firstOff"]) {
        const root = path.join(work, `${size}-${syntax}`)
        fs.mkdirSync(root)
        const name = "source.ts"
        fs.writeFileSync(path.join(root, name), text)
        const engine = new Hashline({ root, syntax: syntax === "off" ? "off" : "warn", view: "full" })
        engine.read(name, { limit: 1 })
        modes[syntax] = { engine, name, times: [], line: text.split("\n")[target] }
      }
      // The check runs: a line that cannot parse is reported in "warn".
      {
        const { engine, name } = modes.warn
        const broken = engine.edit(name, { operations: [{ op: "append", content: "const = ;" }] })
        if (!broken.problems.some((/** @type {any} */ p) => p.language === "TypeScript")) throw new Error(`the ${lines}-line source did not parse, or the check did not run`)
        fs.writeFileSync(path.join(work, `${size}-warn`, name), text)
      }
      for (let round = 0; round < o.rounds + 2; round++) {
        const all = ["warn", "off", "first", "hurried", "firstOff"]
        const order = [...all.slice(round % all.length), ...all.slice(0, round % all.length)]
        for (const syntax of order) {
          const m = modes[syntax]
          if (syntax === "first" || syntax === "hurried" || syntax === "firstOff") {
            m.engine = new Hashline({ root: path.join(work, `${size}-${syntax}`), syntax: syntax === "firstOff" ? "off" : "warn", view: "full" })
          }
          const ref = m.engine.read(m.name, { offset: target + 1, limit: 1 }).text.split("\n")[1].split("|")[0]
          if (syntax === "first" || syntax === "firstOff") Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1000)
          const content = `// edit ${round}`
          const start = process.hrtime.bigint()
          m.engine.edit(m.name, { operations: [{ op: "insert_after", ref, content }] })
          const ms = Number(process.hrtime.bigint() - start) / 1e6
          if (round >= 2) m.times.push(ms)
        }
      }
      const cell = (/** @type {number[]} */ xs) => `${fmt(median(xs))} (${fmt(Math.min(...xs))}–${fmt(Math.max(...xs))})`
      const ratio = (/** @type {number[]} */ xs, /** @type {number[]} */ base) => `${(median(xs) / median(base)).toFixed(2)}×`
      const { off, warn, first, hurried, firstOff } = Object.fromEntries(Object.entries(modes).map(([k, v]) => [k, v.times]))
      rows.push(
        `| ${lines.toLocaleString("en-US")} | ${cell(off)} | ${cell(warn)} | ${ratio(warn, off)} | ${cell(firstOff)} | ${cell(first)} | ${ratio(first, firstOff)} | ${cell(hurried)} | ${ratio(hurried, firstOff)} |`,
      )
      progress(`${lines} lines done`)
    }
  } finally {
    fs.rmSync(work, { recursive: true, force: true })
  }
  console.log(`Node ${process.version}; ${os.cpus().length} cores, load ${os.loadavg().map((l) => l.toFixed(1)).join(" ")}; binding ${path.relative(repo, o.binding)}; ${o.rounds} edits per cell after two untimed, medians (min–max) in ms.\n`)
  console.log("| lines | edited before: off | warn | warn / off | first edit after a read: off | warn, a second after | / off | warn, right after | / off |")
  console.log("|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
  for (const r of rows) console.log(r)
  const first = firstUse(o.binding, 7)
  console.log("\nFirst use of each grammar in a process, a small file, medians of 7 new processes in ms: the first edit with the check off, the first with it on (the grammar's tables are expanded), the same edit again, and the difference.\n")
  console.log("| file | first edit, off | first edit, warn | again | first use |")
  console.log("|---|---:|---:|---:|---:|")
  for (const r of first) console.log(r)
}

main()
