// @ts-check
// `hashline grep` with the flags ripgrep users reach for: each flag run as a
// separate process, as a shell-only agent runs it.
import test from "ava"
import { spawnSync } from "node:child_process"
import fs from "node:fs"
import path from "node:path"
import { fileURLToPath } from "node:url"
import { scratch } from "../helpers.mjs"

// These tests pin the full view's text; the lean view, the default, has its own in lean.spec.mjs.
process.env.HASHLINE_VIEW = "full"

const CLI = path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "cli", "hashline.cjs")

/**
 * @param {import("ava").ExecutionContext} t
 * @param {Record<string, string>} files
 */
function project(t, files) {
  const root = scratch(t)
  for (const [name, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, name)), { recursive: true })
    fs.writeFileSync(path.join(root, name), content)
  }
  const store = path.join(scratch(t), "store")
  /** @param {string[]} args */
  const grep = (args) => {
    const result = spawnSync(process.execPath, [CLI, "grep", ...args], { cwd: root, encoding: "utf8", env: { ...process.env, HASHLINE_STORE: store }, timeout: 30_000 })
    return { status: result.status, stdout: result.stdout, stderr: result.stderr }
  }
  return { root, grep }
}

/**
 * The text of the hit lines of a grep output.
 * @param {string} stdout
 */
const hits = (stdout) => [...stdout.matchAll(/^(?:>>> | {2})\d+#[0-9A-F]{3}#[0-9A-F]{3}\|(.*)$/gm)].map((m) => m[1])

const TEXT = "Total\ntotal\nsubtotal\na.b\naxb\n"

test("-i ignores case, -F takes the pattern literally, -w matches whole words", (t) => {
  const { grep } = project(t, { "a.txt": TEXT })
  t.deepEqual(hits(grep(["total"]).stdout), ["total", "subtotal"])
  for (const flag of ["-i", "--ignore-case"]) t.deepEqual(hits(grep([flag, "total"]).stdout), ["Total", "total", "subtotal"])
  for (const flag of ["-F", "--fixed-strings"]) t.deepEqual(hits(grep([flag, "a.b"]).stdout), ["a.b"])
  for (const flag of ["-w", "--word-regexp"]) t.deepEqual(hits(grep([flag, "total"]).stdout), ["total"])
  t.deepEqual(hits(grep(["-iw", "TOTAL"]).stdout), ["Total", "total"])
})

test("-v inverts the match and never prints the version", (t) => {
  const { grep } = project(t, { "a.txt": TEXT })
  for (const flag of ["-v", "--invert-match"]) {
    const out = grep([flag, "total"])
    t.is(out.status, 0, out.stderr)
    t.deepEqual(hits(out.stdout), ["Total", "a.b", "axb"])
  }
  const { version } = JSON.parse(fs.readFileSync(path.join(path.dirname(CLI), "..", "package.json"), "utf8"))
  const bare = spawnSync(process.execPath, [CLI, "-v"], { encoding: "utf8", timeout: 30_000 })
  t.not(bare.stdout.trim(), version)
  t.is(bare.status, 64)
})

test("-g includes by glob and excludes with a leading !, repeated; --include too", (t) => {
  const { grep } = project(t, { "src/a.ts": "needle\n", "src/a.test.ts": "needle\n", "src/b.mjs": "needle\n", "c.txt": "needle\n" })
  /** @param {string[]} args */
  const files = (args) => [...grep(args).stdout.matchAll(/^(\S+) REV:/gm)].map((m) => m[1])
  t.deepEqual(files(["-g", "*.ts", "needle"]), ["src/a.test.ts", "src/a.ts"])
  t.deepEqual(files(["--glob", "*.{ts,mjs}", "-g", "!*.test.ts", "needle"]), ["src/a.ts", "src/b.mjs"])
  t.deepEqual(files(["-g", "!src/", "needle"]), ["c.txt"])
  t.deepEqual(files(["--include", "*.mjs", "needle"]), ["src/b.mjs"])
})

test("-m limits the hits shown and the output says more were found", (t) => {
  const { grep } = project(t, { "a.txt": "hit\n".repeat(20) })
  for (const args of [["-m", "5"], ["--max-count", "5"], ["-m5"]]) {
    const out = grep([...args, "hit"])
    t.is(hits(out.stdout).length, 5, args.join(" "))
    t.regex(out.stdout, /stopped at the limit of 5: at least 15 more matching lines were not shown/)
  }
  const bad = grep(["-m", "0", "hit"])
  t.not(bad.status, 0)
  t.regex(bad.stderr, /-m\/--max-count takes a whole number of at least 1, got "0"/)
})

test("options take their values as rg's do: --name=value, grouped letters with a value last, and -- before a pattern that begins with a dash", (t) => {
  const { grep } = project(t, { "a.txt": "Hit\nhit\nhit\n-x here\n" })
  for (const args of [["--max-count=1", "hit"], ["-m=1", "hit"], ["-im1", "HIT"], ["-i", "-m", "1", "HIT"]]) {
    const out = grep(args)
    t.is(out.status, 0, `${args.join(" ")}: ${out.stderr}`)
    t.is(hits(out.stdout).length, 1, args.join(" "))
  }
  t.deepEqual(hits(grep(["-iw", "--", "-x"]).stdout), ["-x here"])
  t.deepEqual(hits(grep(["--glob=*.txt", "-F", "--", "-x"]).stdout), ["-x here"])
  // After --, --json is the pattern, not the output format.
  t.is(grep(["--", "--json"]).stdout, "No matches found.\n")
  // A value that begins with a dash is taken only after `=`, so a forgotten
  // value is never filled with the next option; a flag takes no value.
  for (const args of [["-m", "-i", "hit"], ["--max-count"], ["-x", "hit"], ["--frob", "hit"], ["--hidden=yes", "hit"], ["-iq", "hit"]]) {
    const out = grep(args)
    t.is(out.status, 64, `${args.join(" ")}: ${out.stderr}`)
    t.regex(out.stderr, /^hashline: /)
  }
  t.regex(grep(["-m", "-i", "hit"]).stderr, /-m needs a value; one that begins with a dash is joined to it, as in -m=VALUE/)
})

test("-C shows context lines with refs around each hit", (t) => {
  const { grep } = project(t, { "a.txt": "one\ntwo\nneedle\nfour\nfive\n" })
  for (const args of [["-C", "1"], ["--context", "1"], ["-C1"]]) {
    const out = grep([...args, "needle"])
    t.deepEqual(
      out.stdout.split("\n").filter((l) => /^(>>> | {4})\d+#/.test(l)).map((l) => l.replace(/#[0-9A-F]{3}#[0-9A-F]{3}/, "")),
      ["    2|two", ">>> 3|needle", "    4|four"],
      args.join(" "),
    )
  }
})

test("--hidden searches hidden files too; several paths are searched in turn", (t) => {
  const { grep } = project(t, { ".env": "needle\n", "a/x.txt": "needle\n", "b/y.txt": "needle\n", "c/z.txt": "needle\n" })
  /** @param {string[]} args */
  const files = (args) => [...grep(args).stdout.matchAll(/^(\S+) REV:/gm)].map((m) => m[1])
  t.deepEqual(files(["needle"]), ["a/x.txt", "b/y.txt", "c/z.txt"])
  t.deepEqual(files(["--hidden", "needle"]), [".env", "a/x.txt", "b/y.txt", "c/z.txt"])
  t.deepEqual(files(["needle", "a", "c"]), ["a/x.txt", "c/z.txt"])
})

test("an invalid glob or pattern exits 2 with INVALID_REQUEST, also as JSON", (t) => {
  const { grep } = project(t, { "a.txt": "x\n" })
  const glob = grep(["-g", "[z-a]", "x"])
  t.is(glob.status, 2)
  t.regex(glob.stderr, /glob "\[z-a\]" is not valid/)
  const pattern = grep(["--json", "("])
  t.is(pattern.status, 2)
  t.is(JSON.parse(pattern.stdout).error.code, "INVALID_REQUEST")
})

test("--json gives the structured hits and what was skipped", (t) => {
  const { grep } = project(t, { "a.txt": "x\nneedle\n" })
  const out = grep(["--json", "-C", "1", "needle"])
  t.is(out.status, 0, out.stderr)
  const json = JSON.parse(out.stdout)
  t.like(json, { ok: true, shown: 1, more: 0, stopped: false, skipped: { binary: 0, notUtf8: 0, tooLarge: 0, unreadable: 0 } })
  t.like(json.hits[0], { path: "a.txt", line: 2, text: "needle", before: [{ line: 1, text: "x" }], after: [] })
  // The ref in the view the command shows (full here, HASHLINE_VIEW), lean on request.
  t.regex(json.hits[0].ref, /^2#[0-9A-F]{3}#[0-9A-F]{3}$/)
  const lean = grep(["--json", "--view", "lean", "needle"])
  t.regex(JSON.parse(lean.stdout).hits[0].ref, /^2[a-m][a-z]$/)
})
