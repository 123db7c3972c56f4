// @ts-check
// Preloaded with `node -r`, before the script a call runs, it prints on
// stderr at the process's exit the milliseconds from Node's start being
// done to the exit, and the CPU time (user and system) the process spent in
// that span, which load from other processes inflates far less. The script
// is then loaded as Node loads any main script, so the span holds what a
// call costs beyond Node's own start, and nothing a harness adds.
//
//   node -r bench/cli/measure.cjs cli/hashline.cjs read FILE ...
//   node -r bench/cli/measure.cjs bench/cli/nothing.cjs    (the baseline)
"use strict"

const start = performance.now()
const cpu = process.cpuUsage()
process.on("exit", () => {
  const used = process.cpuUsage(cpu)
  require("node:fs").writeSync(2, `\nMEASURE ${(performance.now() - start).toFixed(3)} CPU ${((used.user + used.system) / 1000).toFixed(3)}\n`)
})
