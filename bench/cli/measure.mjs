// @ts-check
// Runs one command-line call inside this process and prints, on stderr, the
// milliseconds from the start of the command line's loading to the process's
// exit: the time a call costs after Node itself has started, and the CPU
// time the process spent in that span (user and system), which load from
// other processes inflates far less. With no arguments after `--` it loads
// nothing, the baseline of the same measure.
//
//   node bench/cli/measure.mjs path/to/cli/hashline.cjs read FILE ...
//   node bench/cli/measure.mjs --baseline
import { createRequire } from "node:module"
import { pathToFileURL } from "node:url"

const start = performance.now()
const cpu = process.cpuUsage()
process.on("exit", () => {
  const used = process.cpuUsage(cpu)
  process.stderr.write(`\nMEASURE ${(performance.now() - start).toFixed(3)} CPU ${((used.user + used.system) / 1000).toFixed(3)}\n`)
})
const [cli, ...args] = process.argv.slice(2)
if (cli !== "--baseline") {
  process.argv = [process.argv[0], cli, ...args]
  // A CommonJS command line is loaded as `node cli` loads it, without the
  // ES module loader.
  if (cli.endsWith(".cjs")) createRequire(import.meta.url)(cli)
  else await import(pathToFileURL(cli).href)
}
