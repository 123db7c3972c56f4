// @ts-check
// The cost of writes before and after changes of several files became
// transactions: a one-file edit (plan and commit, the path every host takes)
// and a batch of five files, each timed against a baseline build in the same
// run, in interleaved rounds (every round runs each candidate once, so load
// from other processes falls on both alike), on a disk folder and, where
// there is one, an in-memory one (no flush to wait for, so the engine's own
// work shows). The table gives medians and the ratio after/before.
//
//   node bench/transaction/run.mjs [--baseline-commit REV | --baseline path/to/index.js]
//                                  [--binding path/to/index.js] [--rounds N] [--target-dir DIR]
//
// --baseline-commit  build the baseline from that commit (default: the commit
//                    before transactions, 2c5b678), exported with `git archive`
//                    into bench/.cache/transaction-baseline, release build.
// --baseline         an already built loader to compare against instead.
// --binding          the loader of the build measured (default: a release
//                    build of this tree into bench/.cache/transaction-release).
// --rounds           rounds per measurement (default 300).
// --target-dir       where cargo builds (default bench/.cache/transaction-target);
//                    both release builds share it, so the second reuses the
//                    dependencies the first compiled.

import { spawnSync } from "node:child_process"
import fs from "node:fs"
import os from "node:os"
import path from "node:path"
import { asCount, asPath, buildRelease, cache, interleaved, load, options, repo } from "../harness.mjs"

/**
 * The baseline: the tree at `commit`, exported with `git archive` into
 * bench/.cache/transaction-baseline and built there.
 * @param {string} commit
 * @param {string} targetDir
 */
function baselineFrom(commit, targetDir) {
  const src = path.join(cache, "transaction-baseline")
  fs.rmSync(src, { recursive: true, force: true })
  fs.mkdirSync(src, { recursive: true })
  const archive = spawnSync("git", ["-C", repo, "archive", "--format=tar", commit], { maxBuffer: 1 << 30 })
  if (archive.status !== 0) throw new Error(`git archive ${commit} failed: ${archive.stderr}`)
  const untar = spawnSync("tar", ["-x", "-C", src], { input: archive.stdout })
  if (untar.status !== 0) throw new Error(`tar failed: ${untar.stderr}`)
  return buildRelease("transaction-baseline", { cwd: src, targetDir })
}

/** The lines of a generated source file. @param {number} n */
const source = (n) => Array.from({ length: n }, (_, i) => `  const value${i} = compute(${i}, "item ${i}")`).join("\n") + "\n"

/**
 * A one-file edit citing a ref from a read, on a fresh file each round.
 * @param {any} native
 * @param {string} dir
 */
function oneFileEdit(native, dir) {
  return () => {
    fs.rmSync(dir, { recursive: true, force: true })
    fs.mkdirSync(dir, { recursive: true })
    fs.writeFileSync(path.join(dir, "f.txt"), source(2000))
    const hl = new native.Hashline({ root: dir, view: "full" })
    const line = hl.read("f.txt", { offset: 1000, limit: 1 }).text.split("\n")[1]
    const ref = line.slice(0, line.indexOf("|"))
    return () => hl.edit("f.txt", { operations: [{ op: "replace", ref, content: "  const replaced = 1" }] })
  }
}

/**
 * Five files edited in one call: a batch, as one transaction where the
 * build has them, else planned together and written one by one (what
 * `hashline apply` did before).
 * @param {any} native
 * @param {string} dir
 */
function fiveFiles(native, dir) {
  return () => {
    fs.rmSync(dir, { recursive: true, force: true })
    for (const folder of ["a", "b", "c"]) fs.mkdirSync(path.join(dir, folder), { recursive: true })
    const names = ["a/1.txt", "a/2.txt", "b/3.txt", "b/4.txt", "c/5.txt"]
    for (const name of names) fs.writeFileSync(path.join(dir, name), source(500))
    const hl = new native.Hashline({ root: dir, view: "full" })
    const entries = names.map((name) => ({ path: name, operations: [{ op: "append", content: "// appended" }] }))
    if (typeof hl.applyBatch === "function") return () => hl.applyBatch(entries)
    return () => {
      const plans = entries.map((e) => hl.plan(e.path, { operations: e.operations }))
      for (const plan of plans) hl.commit(plan)
    }
  }
}

const o = options(import.meta.url, {
  "baseline-commit": { default: "2c5b678" },
  baseline: { parse: asPath },
  binding: { parse: asPath },
  rounds: { parse: asCount, default: 300 },
  "target-dir": { parse: asPath, default: path.join(cache, "transaction-target") },
})
const before = o.baseline ?? baselineFrom(o.baselineCommit, o.targetDir)
const after = o.binding ?? buildRelease("transaction-release", { targetDir: o.targetDir })
const natives = [load(before), load(after)]
const places = [["disk", fs.mkdtempSync(path.join(os.tmpdir(), "hashline-bench-txn-"))]]
if (fs.existsSync("/dev/shm")) places.push(["memory", fs.mkdtempSync(path.join("/dev/shm", "hashline-bench-txn-"))])

console.log(`# Writes before and after transactions (release builds, ${o.rounds} interleaved rounds, medians)\n`)
console.log(`before: ${path.relative(repo, before)}\nafter:  ${path.relative(repo, after)}\n`)
console.log("| workload | folder | before | after | after/before |")
console.log("|---|---|---:|---:|---:|")
for (const [name, workload] of /** @type {const} */ ([["one-file edit (2,000 lines)", oneFileEdit], ["five files in one call (500 lines each)", fiveFiles]])) {
  for (const [place, dir] of places) {
    const [b, a] = interleaved(natives.map((native, i) => ({ prepare: workload(native, path.join(dir, String(i))) })), { rounds: o.rounds }).map((t) => t.ms * 1000)
    console.log(`| ${name} | ${place} | ${b.toFixed(0)} us | ${a.toFixed(0)} us | ${(a / b).toFixed(2)} |`)
  }
}
for (const [, dir] of places) fs.rmSync(dir, { recursive: true, force: true })
