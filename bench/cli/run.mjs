// @ts-check
// The command line's cost per call after Node's start: `hashline read` of a
// 200-line file (the target: at most 5 ms more than Node doing nothing), and
// a few other calls, against a baseline measured in the same run. Each call
// is a new process; `measure.cjs`, preloaded with `node -r`, times it from
// inside, from the end of Node's own start (the same for any script) to the
// process's exit, while the command line loads as `node cli/hashline.cjs`
// loads it. The baseline is the same measure around a script that does
// nothing, so the figure beyond it is what the command line adds, loading
// its own file included. Wall times of whole processes, with `node` running
// that empty script as their baseline, are shown beside. Rounds run every case
// once, in turn, so that load from other processes falls on all alike.
//
//   node bench/cli/run.mjs [--binding path/to/index.js] [--runs N]
//
// --binding  the loader whose command line (../cli next to it) is run
//            (default: the package's own; a release build, such as the copy
//            `bench/search/run.mjs --build-release` makes, is what users run)

import { spawnSync } from "node:child_process"
import fs from "node:fs"
import os from "node:os"
import path from "node:path"
import { fileURLToPath } from "node:url"
import { asCount, bindingOptions, median, options, repo } from "../harness.mjs"

const here = path.dirname(fileURLToPath(import.meta.url))

function main() {
  const opts = options(import.meta.url, { binding: bindingOptions.binding, runs: { parse: asCount, default: 30 } })
  const cli = path.join(path.dirname(opts.binding), "cli", "hashline.cjs")
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "hashline-bench-cli-"))
  const env = { ...process.env, HASHLINE_STORE: path.join(work, "store") }
  // Node reads extra CA certificates at every start, whatever the script:
  // without them its start is shorter and steadier, for both rows alike.
  const wallEnv = { ...env }
  delete wallEnv.NODE_EXTRA_CA_CERTS
  fs.writeFileSync(path.join(work, "f200.txt"), Array.from({ length: 200 }, (_, i) => `  const value${i} = compute(${i}, "line ${i}")\n`).join(""))
  const measure = ["-r", path.join(here, "measure.cjs")]
  const nothing = path.join(here, "nothing.cjs")
  const cases = [
    { name: "a script that does nothing (baseline)", args: [...measure, nothing] },
    { name: "`hashline read` of a 200-line file", args: [...measure, cli, "read", "f200.txt"] },
    { name: "`hashline read --help`", args: [...measure, cli, "read", "--help"] },
    { name: "`hashline grep` in one 200-line file", args: [...measure, cli, "grep", "value1\\d", "f200.txt"] },
  ]
  const wall = [
    { name: "`node` running a script that does nothing (baseline)", args: [nothing] },
    { name: "`node cli/hashline.cjs read` of a 200-line file", args: [cli, "read", "f200.txt"] },
  ]
  /** @type {number[][]} */
  const inside = cases.map(() => [])
  /** @type {number[][]} */
  const cpu = cases.map(() => [])
  /** @type {number[][]} */
  const whole = wall.map(() => [])
  for (let round = -1; round < opts.runs; round++) {
    cases.forEach((c, i) => {
      const r = spawnSync(process.execPath, c.args, { cwd: work, env, encoding: "utf8" })
      const m = /MEASURE (\S+) CPU (\S+)/.exec(r.stderr)
      if (r.status !== 0 || !m) throw new Error(`${c.name} failed (${r.status}): ${r.stderr}`)
      if (round >= 0) inside[i].push(Number(m[1]))
      if (round >= 0) cpu[i].push(Number(m[2]))
    })
    wall.forEach((c, i) => {
      const start = performance.now()
      const r = spawnSync(process.execPath, c.args, { cwd: work, env: wallEnv })
      if (r.status !== 0) throw new Error(`${c.name} failed (${r.status})`)
      if (round >= 0) whole[i].push(performance.now() - start)
    })
  }
  fs.rmSync(work, { recursive: true, force: true })

  const ms = (/** @type {number} */ n) => `${n.toFixed(1)} ms`
  process.stdout.write(`# Command line: time per call\n\n`)
  process.stdout.write(`Node ${process.version}; ${os.cpus().length} cores, load ${os.loadavg().map((l) => l.toFixed(1)).join(" ")}; `)
  process.stdout.write(`binding ${path.relative(repo, opts.binding)}; ${opts.runs} rounds after a warm-up, medians.\n\n`)
  process.stdout.write("| call | after Node's start | beyond the baseline | CPU time | CPU beyond the baseline |\n|---|---:|---:|---:|---:|\n")
  const base = median(inside[0])
  const cpuBase = median(cpu[0])
  cases.forEach((c, i) =>
    process.stdout.write(
      `| ${c.name} | ${ms(median(inside[i]))} | ${i === 0 ? "" : ms(median(inside[i]) - base)} | ${ms(median(cpu[i]))} | ${i === 0 ? "" : ms(median(cpu[i]) - cpuBase)} |\n`,
    ),
  )
  const read = median(inside[1]) - base
  process.stdout.write(`\nTarget: \`read\` of a 200-line file within 5 ms after Node's start: ${read <= 5 ? "**met**" : "**missed**"} (${ms(read)}).\n\n`)
  process.stdout.write("| whole process | wall time | beyond the baseline |\n|---|---:|---:|\n")
  const wallBase = median(whole[0])
  wall.forEach((c, i) => process.stdout.write(`| ${c.name} | ${ms(median(whole[i]))} | ${i === 0 ? "" : ms(median(whole[i]) - wallBase)} |\n`))
}

main()
