// @ts-check
// The parsing of OpenCode's read and grep output, with a stand-in for the
// engine so that each case says exactly which lines count as matching.
import test from "ava"
import { tagGrepOutput, tagReadOutput, tagReadPageOutput } from "../../opencode/view.mjs"

// These tests pin the full view's text; the lean view, the default, has its own in lean.spec.mjs.
process.env.HASHLINE_VIEW = "full"

/**
 * A tagger that knows one file: a shown line matches when its text equals
 * (or, when cut, starts) the file's line.
 * @param {string} file
 * @param {string[]} fileLines
 * @param {Array<{ file: string, lines: import("../../opencode/types.mjs").ShownLine[] }>} [calls]
 */
function fakeTagger(file, fileLines, calls = []) {
  /** @type {import("../../opencode/view.mjs").Tagger} */
  return (path, lines) => {
    calls.push({ file: path, lines })
    if (path !== file) throw Object.assign(new Error("not found"), { code: "NOT_FOUND" })
    return {
      rev: "72C4946C",
      totalLines: fileLines.length,
      refs: lines.map(({ line, text, truncated }) => {
        const actual = fileLines[line - 1]
        const ok = actual !== undefined && (truncated ? actual.startsWith(text) : actual === text)
        return ok ? `${line}#A${line}#B${line}` : null
      }),
    }
  }
}

/** @param {string} path @param {string[]} body @param {string} footer */
const readView = (path, body, footer) =>
  [`<path>${path}</path>`, "<type>file</type>", "<content>", ...body, "", footer, "</content>"].join("\n")

test("a read view gets refs and the REV", async (t) => {
  const calls = /** @type {any[]} */ ([])
  const tag = fakeTagger("/p/a.ts", ["one", "  two", ""], calls)
  const out = await tagReadOutput(readView("/p/a.ts", ["1: one", "2:   two", "3: "], "(End of file - total 3 lines)"), tag)
  t.is(
    out,
    readView("/p/a.ts", ["1#A1#B1|one", "2#A2#B2|  two", "3#A3#B3|"], "(End of file - total 3 lines)").replace(
      "<type>file</type>\n",
      "<type>file</type>\nREV:72C4946C\n",
    ),
  )
  t.deepEqual(calls[0].lines, [
    { line: 1, text: "one" },
    { line: 2, text: "  two" },
    { line: 3, text: "" },
  ])
})

test("a partial read keeps its numbering and footer", async (t) => {
  const tag = fakeTagger("/p/a.ts", ["a", "b", "c", "d"])
  const footer = "(Showing lines 2-3 of 4. Use offset=4 to continue.)"
  const out = await tagReadOutput(readView("/p/a.ts", ["2: b", "3: c"], footer), tag)
  t.true(out.includes("\n2#A2#B2|b\n3#A3#B3|c\n\n" + footer + "\n</content>"))
})

test("only lines that match the file get refs", async (t) => {
  const tag = fakeTagger("/p/a.ts", ["one", "changed", "three"])
  const out = await tagReadOutput(readView("/p/a.ts", ["1: one", "2: two", "3: three"], "(End of file - total 3 lines)"), tag)
  t.true(out.includes("\n1#A1#B1|one\n2: two\n3#A3#B3|three\n"))
})

test("a view in which no line matches is left alone", async (t) => {
  const tag = fakeTagger("/p/a.ts", ["x", "y"])
  const input = readView("/p/a.ts", ["1: one", "2: two"], "(End of file - total 2 lines)")
  t.is(await tagReadOutput(input, tag), input)
})

test("a cut line is matched on its prefix and keeps OpenCode's note", async (t) => {
  const long = "x".repeat(2500)
  const tag = fakeTagger("/p/a.ts", [long])
  const shown = `1: ${"x".repeat(2000)}... (line truncated to 2000 chars)`
  const out = await tagReadOutput(readView("/p/a.ts", [shown], "(End of file - total 1 lines)"), tag)
  t.true(out.includes(`\n1#A1#B1|${"x".repeat(2000)}... (line truncated to 2000 chars)\n`))
})

test("a byte order mark shown on line 1 is not taken as text", async (t) => {
  const tag = fakeTagger("/p/a.ts", ["first", "second"])
  const out = await tagReadOutput(readView("/p/a.ts", ["1: \uFEFFfirst", "2: second"], "(End of file - total 2 lines)"), tag)
  t.true(out.includes("\n1#A1#B1|first\n"))
})

test("an empty file still shows its REV", async (t) => {
  const tag = fakeTagger("/p/empty.ts", [])
  const input = ["<path>/p/empty.ts</path>", "<type>file</type>", "<content>", "", "(End of file - total 0 lines)", "</content>"].join("\n")
  t.is(await tagReadOutput(input, tag), input.replace("<type>file</type>\n", "<type>file</type>\nREV:72C4946C\n"))
})

test("a reminder OpenCode appends after the view survives", async (t) => {
  const tag = fakeTagger("/p/a.ts", ["one"])
  const input = readView("/p/a.ts", ["1: one"], "(End of file - total 1 lines)") + "\n\n<system-reminder>\nrules\n</system-reminder>"
  const out = await tagReadOutput(input, tag)
  t.true(out.endsWith("</content>\n\n<system-reminder>\nrules\n</system-reminder>"))
  t.true(out.includes("\n1#A1#B1|one\n"))
})

test("folders, images, PDFs and unknown output are left alone", async (t) => {
  const tag = fakeTagger("/p/a.ts", ["one"])
  const folder = "<path>/p</path>\n<type>directory</type>\n<entries>\na.ts\n\n(1 entries)\n</entries>"
  t.is(await tagReadOutput(folder, tag), folder)
  t.is(await tagReadOutput("Image read successfully", tag), "Image read successfully")
  t.is(await tagReadOutput("PDF read successfully", tag), "PDF read successfully")
  const noFooter = "<path>/p/a.ts</path>\n<type>file</type>\n<content>\n1: one\n</content>"
  t.is(await tagReadOutput(noFooter, tag), noFooter)
})

test("grep hits get refs, file by file, keeping OpenCode's layout", async (t) => {
  const calls = /** @type {any[]} */ ([])
  const tag = (/** @type {string} */ file, /** @type {any[]} */ lines) =>
    file === "/p/a.ts"
      ? fakeTagger("/p/a.ts", ["alpha", "beta alpha"], calls)(file, lines)
      : fakeTagger("/p/b.ts", ["x", "alpha\tz"], calls)(file, lines)
  const input = [
    "Found 3 matches",
    "/p/a.ts:",
    "  Line 1: alpha\r",
    "",
    "  Line 2: beta alpha",
    "",
    "",
    "/p/b.ts:",
    "  Line 2: alpha\tz",
    "",
  ].join("\n")
  const out = await tagGrepOutput(input, tag)
  t.is(
    out,
    ["Found 3 matches", "/p/a.ts:", "  1#A1#B1|alpha", "", "  2#A2#B2|beta alpha", "", "", "/p/b.ts:", "  2#A2#B2|alpha\tz", ""].join(
      "\n",
    ),
  )
  t.deepEqual(
    calls.map((c) => c.file),
    ["/p/a.ts", "/p/b.ts"],
  )
})

test("a cut grep hit is matched on its prefix", async (t) => {
  const long = "y".repeat(3000)
  const tag = fakeTagger("/p/a.ts", [long])
  const input = ["Found 1 matches", "/p/a.ts:", `  Line 1: ${"y".repeat(2000)}...`].join("\n")
  t.is(await tagGrepOutput(input, tag), ["Found 1 matches", "/p/a.ts:", `  1#A1#B1|${"y".repeat(2000)}...`].join("\n"))
})

test("grep hits the engine cannot serve keep their plain form", async (t) => {
  const tag = fakeTagger("/p/a.ts", ["alpha"])
  const input = ["Found 2 matches", "/p/gone.ts:", "  Line 1: alpha", "", "/p/a.ts:", "  Line 1: alpha", ""].join("\n")
  t.is(await tagGrepOutput(input, tag), ["Found 2 matches", "/p/gone.ts:", "  Line 1: alpha", "", "/p/a.ts:", "  1#A1#B1|alpha", ""].join("\n"))
  t.is(await tagGrepOutput("No files found", tag), "No files found")
})

test("the truncation note after grep results is kept", async (t) => {
  const tag = fakeTagger("/p/a.ts", ["alpha"])
  const input = ["Found 100 matches (more matches available)", "/p/a.ts:", "  Line 1: alpha", "", "", "(Results truncated. Consider using a more specific path or pattern.)"].join("\n")
  const out = await tagGrepOutput(input, tag)
  t.true(out.endsWith("  1#A1#B1|alpha\n\n\n(Results truncated. Consider using a more specific path or pattern.)"))
})

test("a notebook's read gives way to the engine's view of its cells; where the engine has none, its JSON is tagged as any file", async (t) => {
  const json = ["{", ' "cells": [],', ' "metadata": {},', ' "nbformat": 4,', ' "nbformat_minor": 5', "}"]
  const output = readView("/p/n.ipynb", json.map((l, i) => `${i + 1}: ${l}`), "(End of file - total 6 lines)")
  const cells = "n.ipynb REV:72C4946C lines 1-2 of 2\n1ab # %% [code] id=a1\n2cd x = 1\n"
  /** @type {string[]} */
  const asked = []
  const notebook = async (/** @type {string} */ file) => (asked.push(file), cells)
  t.is(await tagReadOutput(output, fakeTagger("/p/n.ipynb", json), notebook), `<path>/p/n.ipynb</path>\n<type>file</type>\n<content>\n${cells.trimEnd()}\n</content>`)
  t.deepEqual(asked, ["/p/n.ipynb"])
  const reminder = "\n\n<system-reminder>\nInstructions from AGENTS.md\n</system-reminder>"
  t.is(await tagReadOutput(output + reminder, fakeTagger("/p/n.ipynb", json), notebook), `<path>/p/n.ipynb</path>\n<type>file</type>\n<content>\n${cells.trimEnd()}\n</content>${reminder}`)
  asked.pop()
  const tagged = await tagReadOutput(output, fakeTagger("/p/n.ipynb", json), async () => undefined)
  t.true(tagged.includes("\n1#A1#B1|{\n"))
  await tagReadOutput(readView("/p/a.ts", ["1: x"], "(End of file - total 1 lines)"), fakeTagger("/p/a.ts", ["x"]), async (file) => (asked.push(file), cells))
  t.deepEqual(asked, ["/p/n.ipynb"], "no other file is asked for")
})

test("OpenCode 2's read of a notebook gives way to the engine's view of its cells", async (t) => {
  const cells = "n.ipynb REV:72C4946C lines 1-2 of 2\n1ab # %% [code] id=a1\n2cd x = 1\n"
  const output = "Read file /p/n.ipynb, lines 1-2\n1: {\n2: }"
  t.is(await tagReadPageOutput(output, fakeTagger("/p/n.ipynb", ["{", "}"]), async () => cells), cells.trimEnd())
})
