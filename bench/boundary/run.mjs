// The cost of crossing the boundary with large texts: applyEdits and
// formatView of a 100,000-line text (5.8 MB), ASCII and not, timed for two
// builds of the addon in one process, in rotation, medians of 25 calls.
// Not part of the test command.
//
//   node bench/boundary/run.mjs BASELINE.node CANDIDATE.node
//
// e.g. a release build of main against one of a branch
// (cargo build --release --target-dir DIR, then DIR/release/libhashline_node.so
// copied to a name ending in .node).
import path from "node:path"
import { load, median, options } from "../harness.mjs"

const addons = options(import.meta.url, {}, { positionals: true })._
if (addons.length !== 2) {
  console.error("usage: node bench/boundary/run.mjs BASELINE.node CANDIDATE.node")
  process.exit(64)
}
const [a, b] = addons.map((/** @type {string} */ file) => load(path.resolve(file)))
const line = (i) => `    const value${i} = compute(${i}, "text") + other[${i % 7}];`
const ascii = Array.from({ length: 100000 }, (_, i) => line(i)).join("\n") + "\n"
const mixed = ascii.replace(/text/g, "tëxt")
for (const [name, text] of [["ascii", ascii], ["non-ascii", mixed]]) {
  const req = { operations: [{ op: "append", content: "x" }] }
  const times = { baseline: [], candidate: [] }
  for (let r = 0; r < 25; r++) {
    for (const [k, m] of r % 2 ? [["baseline", a], ["candidate", b]] : [["candidate", b], ["baseline", a]]) {
      const t0 = process.hrtime.bigint()
      m.applyEdits(text, req)
      times[k].push(Number(process.hrtime.bigint() - t0) / 1e6)
    }
  }
  const fv = { baseline: [], candidate: [] }
  for (let r = 0; r < 25; r++) {
    for (const [k, m] of r % 2 ? [["baseline", a], ["candidate", b]] : [["candidate", b], ["baseline", a]]) {
      const t0 = process.hrtime.bigint()
      m.formatView(text)
      fv[k].push(Number(process.hrtime.bigint() - t0) / 1e6)
    }
  }
  console.log(`${name} ${(text.length / 1e6).toFixed(2)} MB: applyEdits baseline ${median(times.baseline).toFixed(1)} ms, candidate ${median(times.candidate).toFixed(1)} ms (${(median(times.baseline) / median(times.candidate)).toFixed(2)}x); formatView baseline ${median(fv.baseline).toFixed(1)} ms, candidate ${median(fv.candidate).toFixed(1)} ms (${(median(fv.baseline) / median(fv.candidate)).toFixed(2)}x)`)
}
