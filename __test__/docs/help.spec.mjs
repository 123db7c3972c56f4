// @ts-check
// The command line's help is documentation too: what `hashline read --help`
// says a read shows must be what it prints. The first ref it names is of the
// form a read prints by default, and any other form is said to come with the
// option that shows it.
import test from "ava"
import { spawnSync } from "node:child_process"
import fs from "node:fs"
import path from "node:path"
import { scratch } from "../helpers.mjs"
import { REPO } from "./pages.mjs"

const CLI = path.join(REPO, "cli", "hashline.cjs")

/**
 * A ref in a help text, or the pattern of one: lean (`12ab`, `LINEab`) or
 * full (`12#A3F#9BC`, `LINE#HASH#ANCHOR`).
 */
const REF = /\b(?:\d+|LINE)(?:#(?:[0-9A-F]{3}|HASH)#(?:[0-9A-F]{3}|ANCHOR)|[a-z]{2})\b/g

/**
 * What the command line prints for `args`, run in `cwd` with none of the
 * settings a user may have made.
 * @param {string[]} args
 * @param {string} cwd
 */
function run(args, cwd) {
  /** @type {Record<string, string | undefined>} */
  const env = { ...process.env }
  for (const name of Object.keys(env)) if (name.startsWith("HASHLINE_")) delete env[name]
  env.HASHLINE_STORE = path.join(cwd, ".store")
  const out = spawnSync(process.execPath, [CLI, ...args], { cwd, env, encoding: "utf8" })
  if (out.status !== 0) throw new Error(`hashline ${args.join(" ")}: ${out.stderr}`)
  return out.stdout
}

/**
 * Whether a ref is of the full form.
 * @param {string} ref
 */
const full = (ref) => ref.includes("#")

test("hashline read --help shows first the form of ref a read prints by default, and the other with the option that shows it", (t) => {
  const root = scratch(t)
  fs.writeFileSync(path.join(root, "a.txt"), "one\ntwo\n")
  const printed = run(["read", "a.txt"], root).split("\n")[1]
  const shownByDefault = /** @type {RegExpMatchArray} */ (printed.match(REF))[0]

  // What the command does, between the usage line and the options.
  const help = run(["read", "--help"], root).split("\n\n")[1]
  const refs = [...help.matchAll(REF)]
  t.true(refs.length > 0, help)
  t.is(full(refs[0][0]), full(shownByDefault), `the help's first ref ${refs[0][0]} is not of the form a read prints: ${printed}`)
  for (const ref of refs.filter((m) => full(m[0]) !== full(shownByDefault))) {
    const sentence = help.slice(ref.index, help.indexOf(")", ref.index))
    t.regex(sentence, /--view full/, `${ref[0]} is shown without the option that shows it`)
  }
})

test("hashline mcp --help gives the server's own defaults: the working directory as root, versions in memory unless a store is named", (t) => {
  const root = scratch(t)
  const options = run(["mcp", "--help"], root)
  const option = (/** @type {string} */ name) => options.slice(options.indexOf(`  ${name} `), options.indexOf("\n  --", options.indexOf(`  ${name} `) + 1))
  t.regex(option("--store"), /in memory only/)
  t.notRegex(option("--store"), /\.cache/)
  t.regex(option("--root"), /default: the working directory\)/)
  t.notRegex(option("--root"), /git work tree/)
})
