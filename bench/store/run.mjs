// @ts-check
// The store's footprint: the size of the store folder after one scripted
// command-line session (reads, greps over a tree, edits, then the same reads
// and greps again), each call a new process as a shell-only agent makes them.
// The tree is a copy of this repository's sources, so runs are comparable.
//
//   node bench/store/run.mjs [--binding path/to/index.js] [--cap BYTES] [--json out.json]
//
// --binding  the loader whose command line (../cli next to it) is run
//            (default: the package's own), e.g. an older build to compare.
// --cap      the store's byte cap, as $HASHLINE_STORE_MAX_BYTES (e.g. 512K).

import { spawnSync } from "node:child_process"
import fs from "node:fs"
import os from "node:os"
import path from "node:path"
import { asPath, bindingOptions, options, repo, writeReport } from "../harness.mjs"


/** Every file under `dir` whose name ends with one of `exts`, sorted. */
function filesUnder(/** @type {string} */ dir, /** @type {string[]} */ exts) {
  return fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && exts.some((x) => e.name.endsWith(x)))
    .map((e) => path.join(e.parentPath ?? e.path, e.name))
    .sort()
}

/**
 * Each file of a folder (the store is flat) by name: its inode and size.
 * The store writes every file to a temporary name and renames it, so a file
 * written again has a new inode.
 */
function listing(/** @type {string} */ dir) {
  /** @type {Map<string, { ino: number, size: number }>} */
  const files = new Map()
  if (fs.existsSync(dir)) {
    for (const name of fs.readdirSync(dir)) {
      const stat = fs.statSync(path.join(dir, name))
      files.set(name, { ino: stat.ino, size: stat.size })
    }
  }
  return files
}

function main() {
  const opts = options(import.meta.url, { binding: bindingOptions.binding, cap: {}, json: { parse: asPath } })
  const cli = path.join(path.dirname(opts.binding), "cli", "hashline.cjs")
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "hashline-bench-store-"))
  const tree = path.join(work, "tree")
  const store = path.join(work, "store")
  for (const folder of ["crates", "lib", "cli", "mcp", "opencode", "__test__"]) {
    fs.cpSync(path.join(repo, folder), path.join(tree, folder), { recursive: true, filter: (src) => !src.includes(`${path.sep}target`) })
  }
  const sources = filesUnder(tree, [".rs", ".mjs"]).map((f) => path.relative(tree, f))
  const treeBytes = sources.reduce((sum, f) => sum + fs.statSync(path.join(tree, f)).size, 0)
  const long = sources.filter((f) => fs.readFileSync(path.join(tree, f), "utf8").split("\n").length > 150)
  const reads = long.filter((_, i) => i % 2 === 0).slice(0, 40)
  const edits = reads.slice(0, 10)
  const patterns = ["fn ", "const ", "Result", "test\\(", "TODO|FIXME"]
  let calls = 0
  /** @param {string[]} args @param {string} [input] */
  const run = (args, input) => {
    calls++
    const r = spawnSync(process.execPath, [cli, "--root", tree, ...args], { cwd: tree, input, encoding: "utf8", env: { ...process.env, HASHLINE_STORE: store, ...(opts.cap ? { HASHLINE_STORE_MAX_BYTES: opts.cap } : {}) }, maxBuffer: 1 << 28 })
    if (r.status !== 0 && r.status !== 1) throw new Error(`hashline ${args.join(" ")} failed (${r.status}): ${r.stderr}`)
    return r.stdout
  }
  /** @type {Array<{ step: string, files: number, bytes: number, written: number }>} */
  const steps = []
  let before = listing(store)
  // The bytes of files new or rewritten since the last mark: what the step
  // wrote, as far as it is still there.
  const mark = (/** @type {string} */ step) => {
    const now = listing(store)
    let [bytes, written] = [0, 0]
    for (const [name, file] of now) {
      bytes += file.size
      if (before.get(name)?.ino !== file.ino) written += file.size
    }
    steps.push({ step, files: now.size, bytes, written })
    before = now
  }

  // As an agent works: search first, then read around the hits, a part at a
  // time, then whole files.
  for (const p of patterns) run(["grep", "-m", "1000", p])
  mark(`grep ${patterns.length} patterns over the tree (-m 1000)`)
  for (const f of reads) run(["read", f, "--limit", "50"])
  mark(`read lines 1-50 of ${reads.length} files`)
  for (const f of reads) run(["read", f, "--offset", "51", "--limit", "50"])
  mark("read lines 51-100 of the same files")
  for (const f of reads) run(["read", f])
  mark("read the same files whole")
  for (const f of edits) {
    const view = run(["read", f, "--limit", "1", "--view", "full"])
    const ref = /^(\d+#[0-9A-F]{3}#[0-9A-F]{3})\|/m.exec(view)?.[1]
    run(["edit", f], JSON.stringify({ operations: [{ op: "insert_before", ref, content: "// edited" }] }))
  }
  mark(`edit ${edits.length} files`)
  for (const p of patterns) run(["grep", "-m", "1000", p])
  for (const f of reads) run(["read", f])
  mark("the same greps and reads again")

  process.stdout.write(`# Store footprint after one command-line session\n\n`)
  process.stdout.write(`Command line: ${path.relative(repo, cli) || cli}; tree: ${sources.length} source files, ${(treeBytes / 1048576).toFixed(1)} MiB; ${calls} calls; store cap: ${opts.cap ?? "default"}.\n\n`)
  const mib = (/** @type {number} */ n) => `${(n / 1048576).toFixed(2)} MiB`
  process.stdout.write("| after | store files | store size | written by the step |\n|---|---:|---:|---:|\n")
  for (const s of steps) process.stdout.write(`| ${s.step} | ${s.files} | ${mib(s.bytes)} | ${mib(s.written)} |\n`)
  const total = steps.reduce((sum, s) => sum + s.written, 0)
  process.stdout.write(`\nWritten in all: ${mib(total)}.\n`)
  if (opts.json) writeReport(opts.json, `${JSON.stringify({ cli, calls, treeBytes, steps, written: total }, null, 2)}\n`)
  fs.rmSync(work, { recursive: true, force: true })
}

main()
