// @ts-check
// Runs one command-line call inside this process and prints, on stderr, the
// milliseconds from the start of the command line's loading to the process's
// exit: the time a call costs after Node itself has started. With no
// arguments after `--` it loads nothing, the baseline of the same measure.
//
//   node bench/cli/measure.mjs path/to/cli/hashline.cjs read FILE ...
//   node bench/cli/measure.mjs --baseline
import { createRequire } from "node:module"
import { pathToFileURL } from "node:url"

const start = performance.now()
process.on("exit", () => process.stderr.write(`\nMEASURE ${(performance.now() - start).toFixed(3)}\n`))
const [cli, ...args] = process.argv.slice(2)
if (cli !== "--baseline") {
  process.argv = [process.argv[0], cli, ...args]
  // A CommonJS command line is loaded as `node cli` loads it, without the
  // ES module loader.
  if (cli.endsWith(".cjs")) createRequire(import.meta.url)(cli)
  else await import(pathToFileURL(cli).href)
}
