// @ts-check
// The apply_patch tool, driven the way OpenCode drives it, on real files
// through the native module. The first group follows the cases of OpenCode's
// own apply_patch and patch tests, so the format is read the same way; the
// cases whose outcome differs on purpose say so in their names.
import test from "ava"
import fs from "node:fs"
import os from "node:os"
import path from "node:path"
import patchTool, { parsePatchArguments } from "../../opencode/patch.mjs"
import { binding } from "../helpers.mjs"

// These tests pin the full view's text; the lean view, the default, has its own in lean.spec.mjs.
process.env.HASHLINE_VIEW = "full"

/**
 * @typedef {{ permission: string, patterns: string[], always: string[], metadata: Record<string, any> }} Ask
 */

/**
 * @param {import("ava").ExecutionContext} t
 * @param {Record<string, string | Buffer>} [files]
 */
function project(t, files = {}) {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "hashline-patch-")))
  t.teardown(() => fs.rmSync(root, { recursive: true, force: true }))
  for (const [name, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, name)), { recursive: true })
    fs.writeFileSync(path.join(root, name), content)
  }
  return root
}

/**
 * @param {string} root
 * @param {{ directory?: string, refuse?: string[] }} [options]
 */
function context(root, options = {}) {
  /** @type {Ask[]} */
  const asks = []
  const ctx = /** @type {any} */ ({
    sessionID: "ses_test",
    messageID: "msg_test",
    agent: "build",
    directory: options.directory ?? root,
    worktree: root,
    abort: new AbortController().signal,
    metadata() {},
    /** @param {Ask} input */
    async ask(input) {
      asks.push(input)
      if (options.refuse?.includes(input.permission)) throw new Error(`The user rejected permission to use this specific tool call (${input.permission}).`)
    },
  })
  return { ctx, asks }
}

/** @param {string} body */
const patch = (body) => `*** Begin Patch\n${body}\n*** End Patch`

/**
 * @param {string} root
 * @param {string} patchText
 * @param {{ directory?: string, refuse?: string[] }} [options]
 */
async function run(root, patchText, options) {
  const { ctx, asks } = context(root, options)
  const result = /** @type {any} */ (await patchTool.execute({ patchText }, ctx))
  return { result, asks }
}

/**
 * @param {import("ava").ExecutionContext} t
 * @param {string} root
 * @param {string} patchText
 */
async function rejected(t, root, patchText) {
  const { ctx, asks } = context(root)
  const err = await t.throwsAsync(() => patchTool.execute({ patchText }, ctx))
  t.is(asks.length, 0, "nothing is asked for a patch that cannot apply")
  return /** @type {Error} */ (err)
}

/** @param {string} root @param {string} name */
const read = (root, name) => fs.readFileSync(path.join(root, name), "utf8")
/** @param {string} root @param {string} name */
const exists = (root, name) => fs.existsSync(path.join(root, name))

test("a missing patchText is refused", async (t) => {
  const root = project(t)
  const { ctx } = context(root)
  await t.throwsAsync(() => patchTool.execute({ patchText: "" }, ctx), { message: /patchText is required/ })
  t.throws(() => parsePatchArguments({ patchText: "x", path: "a" }), { message: /unknown argument path/ })
})

test("text that is not a patch is refused", async (t) => {
  const err = await rejected(t, project(t), "invalid patch")
  t.regex(err.message, /^Patch rejected, nothing written: line 1 of the patch: a patch starts with the line `\*\*\* Begin Patch`/)
})

test("an empty patch is refused (its text differs: the patch names no file)", async (t) => {
  const err = await rejected(t, project(t), "*** Begin Patch\n*** End Patch")
  t.regex(err.message, /the patch names no file/)
})

test("add, update and delete apply in one patch after one permission prompt", async (t) => {
  const root = project(t, { "modify.txt": "line1\nline2\n", "delete.txt": "obsolete\n" })
  const { result, asks } = await run(root, patch("*** Add File: nested/new.txt\n+created\n*** Delete File: delete.txt\n*** Update File: modify.txt\n@@\n-line2\n+changed"))
  t.true(result.title.startsWith("Success. Updated the following files:"))
  t.true(result.output.startsWith("Success. Updated the following files:\nA nested/new.txt\nD delete.txt\nM modify.txt\n"))
  t.regex(result.metadata.diff, /^--- a\/modify\.txt$/m)
  t.is(asks.length, 1)
  t.is(read(root, "nested/new.txt"), "created\n")
  t.is(read(root, "modify.txt"), "line1\nchanged\n")
  t.false(exists(root, "delete.txt"))
})

test("several hunks apply to one file", async (t) => {
  const root = project(t, { "multi.txt": "line1\nline2\nline3\nline4\n" })
  await run(root, patch("*** Update File: multi.txt\n@@\n-line2\n+changed2\n@@\n-line4\n+changed4"))
  t.is(read(root, "multi.txt"), "line1\nchanged2\nline3\nchanged4\n")
})

test("a hunk of context and added lines inserts between them", async (t) => {
  const root = project(t, { "insert_only.txt": "alpha\nomega\n" })
  await run(root, patch("*** Update File: insert_only.txt\n@@\n alpha\n+beta\n omega"))
  t.is(read(root, "insert_only.txt"), "alpha\nbeta\nomega\n")
})

test("a file without a final newline keeps it absent (differs: OpenCode adds one)", async (t) => {
  const root = project(t, { "no_newline.txt": "no newline at end" })
  await run(root, patch("*** Update File: no_newline.txt\n@@\n-no newline at end\n+first line\n+second line"))
  t.is(read(root, "no_newline.txt"), "first line\nsecond line")
})

test("a file moves to a new folder, and onto an existing file with a note", async (t) => {
  const root = project(t, { "old/name.txt": "old content\n", "a/from.txt": "from\n", "b/dest.txt": "existing\n" })
  await run(root, patch("*** Update File: old/name.txt\n*** Move to: renamed/dir/name.txt\n@@\n-old content\n+new content"))
  t.false(exists(root, "old/name.txt"))
  t.is(read(root, "renamed/dir/name.txt"), "new content\n")
  const { result } = await run(root, patch("*** Update File: a/from.txt\n*** Move to: b/dest.txt\n@@\n-from\n+new"))
  t.false(exists(root, "a/from.txt"))
  t.is(read(root, "b/dest.txt"), "new\n")
  t.regex(result.output, /b\/dest\.txt existed and was replaced by the moved file/)
  t.is(result.metadata.files[0].type, "move")
  t.is(result.metadata.files[0].movePath, path.join(root, "b/dest.txt"))
})

test("the approval shows every line the patch destroys: the lines of a file a move replaces, and of a deleted file", async (t) => {
  const root = project(t, { "a/from.txt": "from\n", "b/dest.txt": "dest one\ndest two\n", "gone.txt": "gone one\ngone two\n" })
  const { result, asks } = await run(root, patch("*** Update File: a/from.txt\n*** Move to: b/dest.txt\n@@\n-from\n+new\n*** Delete File: gone.txt"))
  t.is(asks.length, 1)
  const shown = asks[0].metadata.diff
  for (const line of ["-from", "+new", "-dest one", "-dest two", "-gone one", "-gone two"]) t.true(shown.split("\n").includes(line), `${line} in:\n${shown}`)
  const move = asks[0].metadata.files.find((/** @type {any} */ f) => f.type === "move")
  t.is(move.deletions, 3)
  t.regex(move.patch, /^--- a\/b\/dest\.txt\n\+\+\+ b\/b\/dest\.txt\n@@ -1,2 \+1 @@\n-dest one\n-dest two\n\+new\n/m)
  t.regex(result.output, /b\/dest\.txt existed and was replaced by the moved file; its 2 lines are shown as removed/)
  t.is(read(root, "b/dest.txt"), "new\n")
})

test("Add File over an existing file replaces it and says so", async (t) => {
  const root = project(t, { "duplicate.txt": "old content\n" })
  const { result } = await run(root, patch("*** Add File: duplicate.txt\n+new content"))
  t.is(read(root, "duplicate.txt"), "new content\n")
  t.regex(result.output, /Replaced duplicate\.txt with 1 line/)
  t.regex(result.output, /duplicate\.txt existed; the patch replaced all of its 1 line/)
})

test("updating or deleting a missing file, or deleting a folder, is refused", async (t) => {
  const root = project(t)
  fs.mkdirSync(path.join(root, "dir"))
  t.regex((await rejected(t, root, patch("*** Update File: missing.txt\n@@\n-nope\n+better"))).message, /File missing\.txt not found/)
  t.regex((await rejected(t, root, patch("*** Delete File: missing.txt"))).message, /File missing\.txt not found/)
  t.regex((await rejected(t, root, patch("*** Delete File: dir"))).message, /Path is a directory, not a file: dir/)
})

test("an unknown file header is refused", async (t) => {
  const err = await rejected(t, project(t), patch("*** Frobnicate File: foo"))
  t.regex(err.message, /line 2 of the patch: an unknown `\*\*\*` line/)
})

test("missing context is refused and the file left as it was", async (t) => {
  const root = project(t, { "modify.txt": "line1\nline2\n" })
  const err = await rejected(t, root, patch("*** Update File: modify.txt\n@@\n-missing\n+changed"))
  t.regex(err.message, /^Patch rejected, nothing written: its hunk for modify\.txt does not fit the file/)
  t.is(read(root, "modify.txt"), "line1\nline2\n")
})

test("a failing file leaves no side effect in the others", async (t) => {
  const root = project(t)
  await rejected(t, root, patch("*** Add File: created.txt\n+hello\n*** Update File: missing.txt\n@@\n-old\n+new"))
  t.false(exists(root, "created.txt"))
})

test("End of File anchors a hunk at the end, also when its lines occur earlier", async (t) => {
  const root = project(t, { "tail.txt": "alpha\nlast\n", "eof_anchor.txt": "start\nmarker\nmiddle\nmarker\nend\n" })
  await run(root, patch("*** Update File: tail.txt\n@@\n-last\n+end\n*** End of File"))
  t.is(read(root, "tail.txt"), "alpha\nend\n")
  await run(root, patch("*** Update File: eof_anchor.txt\n@@\n-marker\n-end\n+marker-changed\n+end\n*** End of File"))
  t.is(read(root, "eof_anchor.txt"), "start\nmarker\nmiddle\nmarker-changed\nend\n")
})

test("a blank line inside a hunk is a blank context line, so a hunk spanning the wrong lines is refused", async (t) => {
  const root = project(t, { "two_chunks.txt": "a\nb\nc\nd\n" })
  await rejected(t, root, patch("*** Update File: two_chunks.txt\n@@\n-b\n+B\n\n-d\n+D"))
  t.is(read(root, "two_chunks.txt"), "a\nb\nc\nd\n")
})

test("an @@ line picks which of two identical places the hunk changes", async (t) => {
  const root = project(t, { "multi_ctx.txt": "fn a\nx=10\ny=2\nfn b\nx=10\ny=20\n" })
  await run(root, patch("*** Update File: multi_ctx.txt\n@@ fn b\n-x=10\n+x=11"))
  t.is(read(root, "multi_ctx.txt"), "fn a\nx=10\ny=2\nfn b\nx=11\ny=20\n")
})

test("a patch inside a here-document is unwrapped, with or without cat or apply_patch", async (t) => {
  const root = project(t)
  for (const [name, open] of [["heredoc_test.txt", "cat <<'EOF'"], ["heredoc_no_cat.txt", "<<EOF"], ["heredoc_cmd.txt", "apply_patch <<'EOF'"]]) {
    await run(root, `${open}\n${patch(`*** Add File: ${name}\n+content`)}\nEOF`)
    t.is(read(root, name), "content\n")
  }
})

test("white space at the ends of lines is tolerated, and re-indents the added lines", async (t) => {
  const root = project(t, { "trailing_ws.txt": "line1  \nline2\nline3   \n", "leading_ws.txt": "  line1\nline2\n  line3\n", "whitespace.md": "alpha   \n  beta\n" })
  await run(root, patch("*** Update File: trailing_ws.txt\n@@\n-line2\n+changed"))
  t.is(read(root, "trailing_ws.txt"), "line1  \nchanged\nline3   \n")
  await run(root, patch("*** Update File: leading_ws.txt\n@@\n-line2\n+changed"))
  t.is(read(root, "leading_ws.txt"), "  line1\nchanged\n  line3\n")
  // Differs: OpenCode writes BETA without the line's indentation.
  await run(root, patch("*** Update File: whitespace.md\n@@\n-alpha\n+ALPHA\n@@\n-beta\n+BETA"))
  t.is(read(root, "whitespace.md"), "ALPHA\n  BETA\n")
})

test("Unicode punctuation or normalisation differences are refused with the line's ref (differs: OpenCode matches them)", async (t) => {
  const root = project(t, { "unicode.txt": "He said \u201Chello\u201D\nsome\u2014dash\nend\n", "nfd.md": "# Summary\nRegion: Astana\u0301\n".normalize("NFD") })
  const err = await rejected(t, root, patch('*** Update File: unicode.txt\n@@\n-He said "hello"\n+He said "hi"'))
  t.regex(err.message, /^>>> 1#[0-9A-F]{3}#[0-9A-F]{3}\|He said \u201Chello\u201D$/m)
  await rejected(t, root, patch(`*** Update File: nfd.md\n@@\n-${"Region: Astana\u0301".normalize("NFC")}\n+Region: Almaty`))
  t.is(read(root, "unicode.txt"), "He said \u201Chello\u201D\nsome\u2014dash\nend\n")
})

test("an exact line is found among lines that only look the same, and a ligature is not the letters", async (t) => {
  const exact = "Region: Astana\u0301".normalize("NFC")
  const equivalent = exact.normalize("NFD")
  const root = project(t, { "order.md": `${equivalent}\n${exact}\n`, "compat.md": "o\uFB01ce\n" })
  await run(root, patch(`*** Update File: order.md\n@@\n-${exact}\n+Region: Almaty`))
  t.is(read(root, "order.md"), `${equivalent}\nRegion: Almaty\n`)
  await rejected(t, root, patch("*** Update File: compat.md\n@@\n-office\n+studio"))
})

test("an empty file gets its first line from an addition-only hunk", async (t) => {
  const root = project(t, { "empty.txt": "" })
  await run(root, patch("*** Update File: empty.txt\n@@\n+First line"))
  t.is(read(root, "empty.txt"), "First line\n")
})

test("absolute paths work and parent folders are created", async (t) => {
  const root = project(t, { "file1.txt": "content 1", "file2.txt": "content 2" })
  const abs = (/** @type {string} */ n) => path.join(root, n)
  await run(root, patch(`*** Add File: ${abs("deep/nested/file3.txt")}\n+new file content\n*** Update File: ${abs("file1.txt")}\n@@\n-content 1\n+updated content 1\n*** Delete File: ${abs("file2.txt")}`))
  t.is(read(root, "deep/nested/file3.txt"), "new file content\n")
  t.is(read(root, "file1.txt"), "updated content 1")
  t.false(exists(root, "file2.txt"))
})

// What OpenCode's own apply_patch gets wrong, done right.

test("an Update File hunk without an @@ line is applied, not skipped with a success", async (t) => {
  const root = project(t, { "a.txt": "one\ntwo\nthree\n" })
  const { result } = await run(root, patch("*** Update File: a.txt\n one\n-two\n+TWO"))
  t.is(read(root, "a.txt"), "one\nTWO\nthree\n")
  t.regex(result.output, /^\+2#[0-9A-F]{3}#[0-9A-F]{3}\|TWO$/m)
})

test("a CRLF file with a byte order mark keeps both", async (t) => {
  const root = project(t, { "w.cs": "\uFEFFclass A\r\n{\r\n    int x = 1;\r\n}\r\n" })
  await run(root, patch("*** Update File: w.cs\n@@\n {\n-    int x = 1;\n+    int x = 2;\n+    int y = 3;"))
  t.deepEqual(fs.readFileSync(path.join(root, "w.cs")), Buffer.from("\uFEFFclass A\r\n{\r\n    int x = 2;\r\n    int y = 3;\r\n}\r\n"))
})

test("a hunk that fits two places is refused with both and their refs", async (t) => {
  const root = project(t, { "f.txt": "fn a\nx=10\nfn b\nx=10\n" })
  const err = await rejected(t, root, patch("*** Update File: f.txt\n@@\n-x=10\n+x=11"))
  t.regex(err.message, /fits 2 places \(starting at lines 2, 4\)/)
  t.is((err.message.match(/^>>> \d+#[0-9A-F]{3}#[0-9A-F]{3}\|x=10$/gm) ?? []).length, 2)
  t.is(read(root, "f.txt"), "fn a\nx=10\nfn b\nx=10\n")
})

test("the ref a rejection showed anchors the retry", async (t) => {
  const root = project(t, { "f.txt": "fn a\nx=10\nfn b\nx=10\n" })
  const err = await rejected(t, root, patch("*** Update File: f.txt\n@@\n-x=10\n+x=11"))
  const ref = /^>>> (4#[0-9A-F]{3}#[0-9A-F]{3})\|x=10$/m.exec(err.message)?.[1]
  t.truthy(ref)
  await run(root, patch(`*** Update File: f.txt\n@@ ${ref}\n-x=10\n+x=11`))
  t.is(read(root, "f.txt"), "fn a\nx=10\nfn b\nx=11\n")
})

test("the permission prompt shows every file's diff and OpenCode's per-file metadata", async (t) => {
  const root = project(t, { "a.txt": "a\n", "b.txt": "b\n" })
  const { asks, result } = await run(root, patch("*** Update File: a.txt\n@@\n-a\n+A\n*** Update File: b.txt\n@@\n-b\n+B"))
  t.is(asks.length, 1)
  const ask = asks[0]
  t.is(ask.permission, "edit")
  t.deepEqual(ask.patterns, ["a.txt", "b.txt"])
  t.deepEqual(ask.always, ["*"])
  t.is(ask.metadata.filepath, "a.txt, b.txt")
  t.regex(ask.metadata.diff, /^-a\n\+A$/m)
  t.regex(ask.metadata.diff, /^-b\n\+B$/m)
  t.deepEqual(
    ask.metadata.files.map((/** @type {any} */ f) => [f.filePath, f.relativePath, f.type, f.additions, f.deletions]),
    [
      [path.join(root, "a.txt"), "a.txt", "update", 1, 1],
      [path.join(root, "b.txt"), "b.txt", "update", 1, 1],
    ],
  )
  t.deepEqual(result.metadata.files, ask.metadata.files)
  t.deepEqual(result.metadata.diagnostics, {})
})

test("a refused permission writes nothing", async (t) => {
  const root = project(t, { "a.txt": "a\n" })
  const { ctx } = context(root, { refuse: ["edit"] })
  await t.throwsAsync(() => patchTool.execute({ patchText: patch("*** Update File: a.txt\n@@\n-a\n+A") }, ctx), { message: /rejected permission/ })
  t.is(read(root, "a.txt"), "a\n")
})

test("a file outside the project asks for its folder first", async (t) => {
  const root = project(t, { "in.txt": "in\n" })
  const outside = project(t, { "out.txt": "out\n" })
  const { asks } = await run(root, patch(`*** Update File: ${path.join(outside, "out.txt")}\n@@\n-out\n+OUT`))
  t.is(asks[0].permission, "external_directory")
  t.deepEqual(asks[0].patterns, [path.join(outside, "*")])
  t.is(fs.readFileSync(path.join(outside, "out.txt"), "utf8"), "OUT\n")
  const { ctx } = context(root, { refuse: ["external_directory"] })
  await t.throwsAsync(() => patchTool.execute({ patchText: patch(`*** Delete File: ${path.join(outside, "out.txt")}`) }, ctx))
  t.true(fs.existsSync(path.join(outside, "out.txt")))
})

test("relative paths resolve against the session folder", async (t) => {
  const root = project(t, { "pkg/a.txt": "a\n" })
  const { result } = await run(root, patch("*** Update File: a.txt\n@@\n-a\n+A"), { directory: path.join(root, "pkg") })
  t.is(read(root, "pkg/a.txt"), "A\n")
  t.regex(result.output, /^M pkg\/a\.txt$/m)
})

test("problems a patch introduces come back as OpenCode's LSP errors, with refs", async (t) => {
  const root = project(t, { "m.txt": "keep\n" })
  const { result } = await run(root, patch("*** Update File: m.txt\n@@\n keep\n+<<<<<<< HEAD\n+ours"))
  const file = path.join(root, "m.txt")
  const ref = binding.formatView("keep\n<<<<<<< HEAD\nours\n", { view: "full" }).split("\n")[2].split("|")[0]
  t.true(result.output.endsWith(`\n\nLSP errors detected in m.txt, please fix:\n<diagnostics file="${file}">\nERROR [2:1] a merge conflict marker; the conflict it marks is not resolved (${ref})\n</diagnostics>`), result.output)
  t.deepEqual(result.metadata.diagnostics[file], [
    {
      range: { start: { line: 1, character: 0 }, end: { line: 1, character: 7 } },
      severity: 1,
      message: `a merge conflict marker; the conflict it marks is not resolved (${ref})`,
      source: "hashline",
    },
  ])
})

test("a patch that changed files while the user looked is planned again and asked again", async (t) => {
  const root = project(t, { "a.txt": "a\nb\n" })
  /** @type {Ask[]} */
  const asks = []
  const { ctx } = context(root)
  ctx.ask = async (/** @type {Ask} */ input) => {
    asks.push(input)
    if (asks.length === 1) fs.writeFileSync(path.join(root, "a.txt"), "top\na\nb\n")
  }
  await patchTool.execute({ patchText: patch("*** Update File: a.txt\n@@\n-b\n+B") }, ctx)
  t.is(asks.length, 2)
  t.is(read(root, "a.txt"), "top\na\nB\n")
})
