// @ts-check
// Search (`Hashline.search`, and the grep tool every host builds on it) on
// real folders: what it walks and skips, what it says it skipped, where it
// stops, the refs of its hits, and the patterns and globs it refuses.
import test from "ava"
import fs from "node:fs"
import path from "node:path"
import { createTools } from "../../lib/tools.mjs"
import * as helpers from "../helpers.mjs"

// These tests pin the full view's text; the lean view, the default, has its own in lean.spec.mjs.
process.env.HASHLINE_VIEW = "full"

const { binding, scratch } = helpers
/**
 * The refs of a view's lines, by line number.
 * @param {string} text
 */
const refsOf = (text) => /** @type {Record<number, string>} */ (helpers.refsOf(text))

/**
 * @param {import("ava").ExecutionContext} t
 * @param {Record<string, string | Buffer>} files
 */
function project(t, files) {
  const root = scratch(t)
  for (const [name, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, name)), { recursive: true })
    fs.writeFileSync(path.join(root, name), content)
  }
  return root
}

/**
 * The files whose hits a grep output shows, in order.
 * @param {string} output
 */
const filesOf = (output) => [...output.matchAll(/^(\S+) REV:[0-9A-F]{8}$/gm)].map((m) => m[1])

/**
 * The ref grep or read showed for a line with this exact text.
 * @param {string} output
 * @param {string} text
 */
function refFor(output, text) {
  for (const line of output.split("\n")) {
    const m = /^(?:>>>)?\s*(\d+#[0-9A-F]{3}#[0-9A-F]{3})\|(.*)$/.exec(line)
    if (m && m[2] === text) return m[1]
  }
  throw new Error(`no ref for ${JSON.stringify(text)} in:\n${output}`)
}

/**
 * @param {import("ava").ExecutionContext} t
 * @param {Promise<unknown>} promise
 */
async function errorOf(t, promise) {
  return /** @type {any} */ (await t.throwsAsync(promise))
}

test("grep skips what .gitignore lists, so build output does not crowd out the sources", async (t) => {
  const root = project(t, {
    ".gitignore": "target/\n*.log\n",
    "src/lib.rs": "fn needle() {}\n",
    "target/debug/build.rs": "fn needle() {}\n".repeat(150),
    "debug.log": "needle\n",
  })
  const { grep } = createTools({ root })
  const out = await grep.execute({ pattern: "needle" })
  t.deepEqual(filesOf(out), ["src/lib.rs"])
  t.regex(out, /^Found 1 matching line in 1 file\.$/m)
  // Named, an ignored folder or file is searched.
  t.deepEqual(filesOf(await grep.execute({ pattern: "needle", path: "debug.log" })), ["debug.log"])
  t.regex(await grep.execute({ pattern: "needle", path: "target" }), /^target\/debug\/build\.rs REV:/m)
})

test("a .ignore file and a .gitignore in a subfolder are respected too", async (t) => {
  const root = project(t, {
    ".ignore": "vendor/\n",
    "vendor/dep.js": "needle\n",
    "app/.gitignore": "generated.js\n",
    "app/generated.js": "needle\n",
    "app/main.js": "needle\n",
  })
  t.deepEqual(filesOf(await createTools({ root }).grep.execute({ pattern: "needle" })), ["app/main.js"])
})

test("grep skips hidden files and folders unless asked for or named, and .git unless named", async (t) => {
  const root = project(t, {
    ".env": "needle=1\n",
    ".github/ci.yml": "needle: 2\n",
    ".git/config": "needle = 3\n",
    "main.js": "needle\n",
  })
  const { grep } = createTools({ root })
  t.deepEqual(filesOf(await grep.execute({ pattern: "needle" })), ["main.js"])
  t.deepEqual(filesOf(await grep.execute({ pattern: "needle", hidden: true })), [".env", ".github/ci.yml", "main.js"])
  t.deepEqual(filesOf(await grep.execute({ pattern: "needle", path: ".github" })), [".github/ci.yml"])
  t.deepEqual(filesOf(await grep.execute({ pattern: "needle", path: ".git" })), [".git/config"])
})

test("grep counts and names the files it did not search: binary, not UTF-8, over the size limit", async (t) => {
  const root = project(t, {
    "bin.dat": Buffer.from("needle\0binary\n"),
    "latin1.txt": Buffer.from("needle caf\xe9\n", "latin1"),
    "big.txt": `needle\n${"x".repeat(200)}\n`,
    "ok.txt": "needle\n",
  })
  const { grep } = createTools({ root, maxFileBytes: 100 })
  const out = await grep.execute({ pattern: "needle" })
  t.deepEqual(filesOf(out), ["ok.txt"])
  t.regex(out, /^Not searched: 1 binary file \(bin\.dat\); 1 file not valid UTF-8 \(latin1\.txt\); 1 file over the size limit of 100 bytes \(big\.txt\)\.$/m)

  const result = new binding.Hashline({ view: "full", root, maxFileBytes: 100 }).search("needle")
  t.like(result.skipped, { binary: 1, notUtf8: 1, tooLarge: 1, unreadable: 0 })
  t.deepEqual(
    result.skipped.files.map((/** @type {any} */ f) => [f.path, f.reason]),
    [["big.txt", "TOO_LARGE"], ["bin.dat", "BINARY"], ["latin1.txt", "NOT_UTF8"]],
  )
  const none = await grep.execute({ pattern: "absent" })
  t.regex(none, /^No matches found\.\nNot searched: 1 binary file/)
})

test("grep stops at the limit and says how many more lines it found, at least", async (t) => {
  const root = project(t, { "many.txt": Array.from({ length: 150 }, (_, i) => `hit ${i + 1}`).join("\n") })
  const { grep } = createTools({ root })
  const out = await grep.execute({ pattern: "^hit" })
  t.regex(out, /^Found 100 matching lines in 1 file and stopped at the limit of 100: at least 50 more matching lines were not shown\.$/m)
  t.is(out.split("\n").filter((l) => /^\s+\d+#/.test(l)).length, 100)
  t.regex(out, /Narrow the pattern, path or globs, or raise the limit, to see the others\./)

  const few = await grep.execute({ pattern: "^hit", maxResults: 7 })
  t.is(few.split("\n").filter((l) => /^\s+\d+#/.test(l)).length, 7)
  t.regex(few, /stopped at the limit of 7: at least 143 more/)

  const result = new binding.Hashline({ view: "full", root }).search("^hit", { maxResults: 150 })
  t.like(result, { shown: 150, more: 0, stopped: false })
})

test("at the limit the walk stops: of many files, few are searched", async (t) => {
  /** @type {Record<string, string>} */
  const files = {}
  for (let i = 0; i < 400; i++) files[`d${i % 20}/f${i}.txt`] = "needle\n".repeat(5)
  const root = project(t, files)
  const result = new binding.Hashline({ view: "full", root }).search("needle", { maxResults: 3 })
  t.is(result.shown, 3)
  t.true(result.stopped)
  t.true(result.more >= 2)
  // Every file holds five hits: had the walk gone on, it would have counted them all.
  t.true(result.shown + result.more < 400 * 5)
})

test("a hit's ref is the one read shows, for a BOM, CRLF, lone CR and long lines, and an edit can cite it unread", async (t) => {
  const long = `needle ${"é".repeat(3000)}`
  const root = project(t, {
    "bom.txt": "\uFEFFneedle one\r\nplain\r\n",
    "cr.txt": "a\rneedle two\r\rb\n",
    "long.txt": `first\n${long}\nlast\n`,
  })
  const tools = createTools({ root })
  const out = await tools.grep.execute({ pattern: "needle" })
  const fresh = createTools({ root })
  t.is(refFor(out, "needle one"), refsOf(await fresh.read.execute({ filePath: "bom.txt" }))[1])
  t.is(refFor(out, "needle two"), refsOf(await fresh.read.execute({ filePath: "cr.txt" }))[2])
  const longRef = refsOf(await fresh.read.execute({ filePath: "long.txt" }))[2]
  t.true(out.includes(`  ${longRef}|needle `))
  t.regex(out, /… \(line cut at 2000 of 3007 characters; its ref covers the whole line\)$/m)

  await tools.edit.execute({ filePath: "cr.txt", operations: [{ op: "replace", ref: refFor(out, "needle two"), content: "found" }] })
  t.is(fs.readFileSync(path.join(root, "cr.txt"), "latin1"), "a\rfound\r\rb\n")
  await tools.edit.execute({ filePath: "bom.txt", operations: [{ op: "delete", ref: refFor(out, "needle one") }] })
  t.is(fs.readFileSync(path.join(root, "bom.txt"), "utf8"), "\uFEFFplain\r\n")
})

test("context lines come with refs, marked apart from hits, and an edit may cite them", async (t) => {
  const root = project(t, { "a.txt": "one\ntwo\nneedle\nfour\nfive\nsix\nseven\nneedle\nnine\n" })
  const tools = createTools({ root })
  const out = await tools.grep.execute({ pattern: "needle", context: 1 })
  t.regex(out, /^Found 2 matching lines in 1 file, with 1 line of context; matching lines are marked >>>\.$/m)
  const body = out.split("\n").filter((l) => /^(>>> |    )\d+#|^--$/.test(l))
  t.deepEqual(
    body.map((l) => l.replace(/#[0-9A-F]{3}#[0-9A-F]{3}/, "")),
    ["    2|two", ">>> 3|needle", "    4|four", "--", "    7|seven", ">>> 8|needle", "    9|nine"],
  )
  // Line 2 was shown as context only: the seen-lines guard lets an edit cite it.
  await tools.edit.execute({ filePath: "a.txt", operations: [{ op: "replace", ref: refFor(out, "two"), content: "TWO" }] })
  t.is(fs.readFileSync(path.join(root, "a.txt"), "utf8"), "one\nTWO\nneedle\nfour\nfive\nsix\nseven\nneedle\nnine\n")
  // Line 5 was not shown at all.
  const view = binding.formatView(fs.readFileSync(path.join(root, "a.txt"), "utf8"), { view: "full" })
  const unseen = await errorOf(t, tools.edit.execute({ filePath: "a.txt", operations: [{ op: "delete", ref: refsOf(view)[5] }] }))
  t.is(unseen.code, "UNSEEN_LINES")
})

test("search returns structured hits: path, rev, line, ref, text and context", (t) => {
  const root = project(t, { "src/a.js": "const a = 1\nconst b = 2\nconst c = 3\n", "src/b.js": "let b = 2\n" })
  const engine = new binding.Hashline({ view: "full", root })
  const result = engine.search("b = 2", { context: 1 })
  const view = engine.read("src/a.js")
  const refs = refsOf(view.text)
  t.is(result.shown, 2)
  t.deepEqual(result.hits[0], {
    path: "src/a.js",
    rev: view.rev,
    line: 2,
    ref: refs[2],
    text: "const b = 2",
    truncated: false,
    before: [{ line: 1, ref: refs[1], text: "const a = 1", truncated: false }],
    after: [{ line: 3, ref: refs[3], text: "const c = 3", truncated: false }],
  })
  t.like(result.hits[1], { path: "src/b.js", line: 1, text: "let b = 2", before: [], after: [] })
  t.regex(result.text, /^src\/a\.js REV:[0-9A-F]{8}$/m)
})

test("a pattern with nested repetition returns at once on any input", async (t) => {
  const root = project(t, { "a.txt": `${"a".repeat(100_000)}b\n${"a".repeat(30)}\n` })
  const out = await createTools({ root }).grep.execute({ pattern: "^(a+)+$" })
  t.regex(out, /^Found 1 matching line in 1 file\.$/m)
  t.regex(out, /^\s+2#[0-9A-F]{3}#[0-9A-F]{3}\|a{30}$/m)
})

test("an invalid pattern or glob is INVALID_REQUEST, with what is wrong", async (t) => {
  const root = project(t, { "a.ts": "x\n" })
  const { grep } = createTools({ root })
  for (const [args, message] of /** @type {Array<[Record<string, unknown>, RegExp]>} */ ([
    [{ pattern: "(" }, /pattern is not a valid regular expression/],
    [{ pattern: "(?<=a)b" }, /look-around/],
    [{ pattern: "a\\nb" }, /pattern cannot match across lines/],
    [{ pattern: "x", include: "*.{ts" }, /include glob "\*\.\{ts" is not valid/],
    [{ pattern: "x", include: "[z-a].ts" }, /include glob "\[z-a\]\.ts" is not valid/],
    [{ pattern: "x", exclude: "a[" }, /exclude glob "a\[" is not valid/],
  ])) {
    const err = await errorOf(t, grep.execute(args))
    t.is(err.code, "INVALID_REQUEST", JSON.stringify(args))
    t.regex(err.message, message)
  }
  const engine = new binding.Hashline({ view: "full", root })
  t.is(thrownCode(() => engine.search("x", { maxResults: 0 })), "INVALID_REQUEST")
  t.is(thrownCode(() => engine.search("x", { context: 1.5 })), "INVALID_REQUEST")
  t.is(thrownCode(() => engine.search("x", /** @type {any} */ ({ maxResults: "5" }))), "INVALID_REQUEST")
  t.is(thrownCode(() => engine.search(/** @type {any} */ (42))), "INVALID_REQUEST")
  t.is(thrownCode(() => engine.search(/** @type {any} */ (undefined))), "INVALID_REQUEST")
})

/** @param {() => unknown} fn */
function thrownCode(fn) {
  try {
    fn()
  } catch (err) {
    return /** @type {any} */ (err).code
  }
  return undefined
}

test("ignoreCase, fixedStrings and word select lines as -i, -F and -w do", async (t) => {
  const root = project(t, { "a.txt": "Total\ntotal\nsubtotal\na.b\naxb\n" })
  const { grep } = createTools({ root })
  /** @param {Record<string, unknown>} args */
  const lines = async (args) => [...(await grep.execute(args)).matchAll(/^\s+\d+#[0-9A-F]{3}#[0-9A-F]{3}\|(.*)$/gm)].map((m) => m[1])
  t.deepEqual(await lines({ pattern: "total" }), ["total", "subtotal"])
  t.deepEqual(await lines({ pattern: "total", ignoreCase: true }), ["Total", "total", "subtotal"])
  t.deepEqual(await lines({ pattern: "(?i)TOTAL" }), ["Total", "total", "subtotal"])
  t.deepEqual(await lines({ pattern: "total", word: true }), ["total"])
  t.deepEqual(await lines({ pattern: "a.b" }), ["a.b", "axb"])
  t.deepEqual(await lines({ pattern: "a.b", fixedStrings: true }), ["a.b"])
  t.deepEqual(await lines({ pattern: "(", fixedStrings: true }), [])
})

test("include and exclude globs: file names, paths under the root, braces and classes", async (t) => {
  const root = project(t, {
    "src/a.ts": "needle\n",
    "src/a.test.ts": "needle\n",
    "src/deep/b.mjs": "needle\n",
    "src/c.txt": "needle\n",
    "docs/file1.h": "needle\n",
  })
  const { grep } = createTools({ root })
  /** @param {Record<string, unknown>} args */
  const files = async (args) => filesOf(await grep.execute({ pattern: "needle", ...args }))
  t.deepEqual(await files({ include: "*.ts" }), ["src/a.test.ts", "src/a.ts"])
  t.deepEqual(await files({ include: "*.{ts,mjs}", exclude: "*.test.ts" }), ["src/a.ts", "src/deep/b.mjs"])
  t.deepEqual(await files({ include: "src/**/*.mjs" }), ["src/deep/b.mjs"])
  t.deepEqual(await files({ include: "file?.[ch]" }), ["docs/file1.h"])
  t.deepEqual(await files({ exclude: "src/" }), ["docs/file1.h"])
  // Globs are relative to the root, also when the search starts lower down.
  t.deepEqual(await files({ path: "src", include: "src/deep/*" }), ["src/deep/b.mjs"])
})

test("grep never leaves the root: links out are not followed, and paths outside are refused", async (t) => {
  const outside = project(t, { "secret.txt": "needle secret\n" })
  const root = project(t, { "in.txt": "needle in\n" })
  fs.symlinkSync(outside, path.join(root, "linked-dir"))
  fs.symlinkSync(path.join(outside, "secret.txt"), path.join(root, "linked.txt"))
  const { grep } = createTools({ root })
  const out = await grep.execute({ pattern: "needle" })
  t.deepEqual(filesOf(out), ["in.txt"])
  t.false(out.includes("secret"))
  for (const p of ["..", outside, "linked-dir", "linked.txt"]) {
    t.is((await errorOf(t, grep.execute({ pattern: "needle", path: p }))).code, "OUTSIDE_ROOT", p)
  }
  t.is((await errorOf(t, grep.execute({ pattern: "needle", path: "nope" }))).code, "NOT_FOUND")
})

test("invert lists the lines that do not match", (t) => {
  const root = project(t, { "a.txt": "keep\ndrop\nkeep too\n" })
  const result = new binding.Hashline({ view: "full", root }).search("keep", { invert: true })
  t.deepEqual(result.hits.map((/** @type {any} */ h) => h.text), ["drop"])
  t.regex(result.text, /^Found 1 line not matching in 1 file\.$/m)
})
