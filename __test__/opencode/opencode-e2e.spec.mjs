// @ts-check
// End to end: the real OpenCode binary, headless, with this package's tool and
// plugin, against a scripted model on 127.0.0.1. Each scenario checks the
// exact bytes of the files afterwards.
import test from "ava"
import fs from "node:fs"
import os from "node:os"
import path from "node:path"
import { spawnSync } from "node:child_process"
import { createRequire } from "node:module"
import { makeProject, opencodeBinary, opencodeConfig, REPO_ROOT, runOpencode, toolParts } from "../e2e/opencode.mjs"
import { startScriptedServer } from "../e2e/server.mjs"
import { recorded, statsTable } from "../helpers.mjs"
import { notebookChange } from "../support/notebooks.mjs"

/**
 * @typedef {import("../e2e/server.mjs").Step} Step
 * @typedef {import("../e2e/opencode.mjs").ProjectOptions} ProjectOptions
 */

/** @type {string | undefined} */
let nativeProblem
try {
  createRequire(import.meta.url)("../../index.js")
} catch (err) {
  nativeProblem = `the native module does not load (npm run build): ${err instanceof Error ? err.message : String(err)}`
}

/** @type {string | undefined} */
let binaryProblem
try {
  opencodeBinary()
} catch (err) {
  binaryProblem = err instanceof Error ? err.message : String(err)
}

// Each run starts a full OpenCode; two cores do not gain from running several.
const ready = !nativeProblem && !binaryProblem
const scenario = ready ? test.serial : test.serial.skip
if (!ready) {
  test("OpenCode end-to-end prerequisites", (t) => {
    t.fail([nativeProblem, binaryProblem].filter(Boolean).join("; "))
  })
}

/**
 * Runs one scenario and leaves its folder behind only when it failed.
 * @param {import("ava").ExecutionContext} t
 * @param {{ files: Record<string, string | Buffer>, steps: Step[], permission?: Record<string, unknown>, plugin?: string[], project?: Omit<ProjectOptions, "files">, prompt?: string, model?: string, formatter?: unknown, setup?: (project: ReturnType<typeof makeProject>) => void }} spec
 */
async function play(t, spec) {
  t.timeout(180_000)
  const project = makeProject({ files: spec.files, ...spec.project })
  spec.setup?.(project)
  const server = await startScriptedServer(spec.steps)
  t.teardown(async () => {
    await server.close()
    if (t.passed) project.cleanup()
    else t.log(`kept ${project.root}`)
  })
  const run = await runOpencode(project, {
    prompt: spec.prompt ?? "Make the change.",
    config: { ...opencodeConfig(server.url, spec.permission, { model: spec.model, formatter: spec.formatter }), ...(spec.plugin ? { plugin: spec.plugin } : {}) },
    timeoutMs: 120_000,
    model: spec.model,
  })
  t.log(`opencode run: ${run.ms} ms`)
  t.deepEqual(server.errors, [])
  t.false(run.timedOut, `opencode did not finish: ${run.stderr.slice(-2000)}`)
  return { project, server, run, tools: toolParts(run.events) }
}

// The lean view (the default) and the full one (what apply_patch results show).
const REF_LINE = /^(\d+[a-z]{2}) (.*)$|^(\d+#[0-9A-F]{3}#[0-9A-F]{3})\|(.*)$/

/**
 * The refs a view shows, by the text of their line, as a model reads them.
 * @param {string | undefined} output
 */
function refsOf(output) {
  /** @type {Array<{ ref: string, text: string }>} */
  const found = []
  for (const line of (output ?? "").split("\n")) {
    // Read and grep lines, and an edit result's context (" ") and added ("+") lines.
    const m = REF_LINE.exec(line.trimStart().replace(/^\+/, ""))
    if (m) found.push(m[1] ? { ref: m[1], text: m[2] } : { ref: m[3], text: m[4] })
  }
  return found
}

/**
 * @param {string | undefined} output
 * @param {string} text
 */
function refFor(output, text) {
  const hit = refsOf(output).find((r) => r.text === text)
  if (!hit) throw new Error(`no ref for ${JSON.stringify(text)} in:\n${output}`)
  return hit.ref
}

/** @param {any} schema @returns {string[]} */
function unionKeywords(schema) {
  if (!schema || typeof schema !== "object") return []
  const own = ["anyOf", "oneOf", "allOf"].filter((k) => k in schema)
  return [...own, ...Object.values(schema).flatMap(unionKeywords)]
}

const done = () => ({ text: "Done." })

scenario("the model sees one edit tool, with this package's flat schema, and the instruction once", async (t) => {
  const { server, run } = await play(t, { files: { "a.txt": "x\n" }, steps: [done] })
  t.is(run.code, 0)
  const request = server.agentRequests[0]
  const edits = (request.tools ?? []).filter((tool) => tool.function.name === "edit")
  t.is(edits.length, 1)
  const schema = edits[0].function.parameters
  t.deepEqual(Object.keys(schema.properties).sort(), ["filePath", "keepOutputs", "literal", "newString", "oldString", "operations", "raw", "replaceAll", "rev"])
  t.deepEqual(schema.required, ["filePath"])
  const op = schema.properties.operations.items
  t.deepEqual(Object.keys(op.properties).sort(), ["after", "before", "cellType", "content", "literal", "metadata", "op", "ref", "through"])
  t.is(op.properties.content.type, "string")
  t.deepEqual(unionKeywords(schema), [])
  t.true(edits[0].function.description?.includes("12#A3F#9BC"))

  const system = request.messages.filter((m) => m.role === "system").map((m) => String(m.content)).join("\n")
  t.is(system.split("<hashline>").length - 1, 1)
})

scenario("a read shows refs and the REV, and an edit built from them lands", async (t) => {
  const original = "function total(items) {\n  let sum = 0\n  for (const x of items) sum += x\n  return sum\n}\n"
  const { project, run, tools } = await play(t, {
    files: { "src/total.js": original },
    steps: [
      () => ({ calls: [{ name: "read", args: { filePath: "src/total.js" } }] }),
      ({ lastToolOutput }) => ({
        calls: [
          {
            name: "edit",
            args: {
              filePath: "src/total.js",
              operations: [
                { op: "replace", ref: refFor(lastToolOutput, "  let sum = 0"), content: "  let sum = 0 // running total" },
                { op: "insert_before", ref: refFor(lastToolOutput, "  return sum"), content: "  if (sum < 0) throw new Error(\"negative\")" },
              ],
            },
          },
        ],
      }),
      done,
    ],
  })
  t.is(run.code, 0)
  const [read, edit] = tools
  t.is(read.tool, "read")
  t.regex(read.state.output, /^REV:[0-9A-F]{8}$/m)
  t.is(refsOf(read.state.output).length, 5)
  t.is(edit.tool, "edit")
  t.is(edit.state.status, "completed", edit.state.error)
  t.is(edit.state.title, "src/total.js")
  t.is(edit.state.metadata.filediff.file, project.file("src/total.js"))
  t.is(edit.state.metadata.filediff.additions, 2)
  t.is(edit.state.metadata.filediff.deletions, 1)
  t.regex(edit.state.metadata.diff, /^\+\s+let sum = 0 \/\/ running total$/m)
  t.is(
    project.read("src/total.js").toString("utf8"),
    'function total(items) {\n  let sum = 0 // running total\n  for (const x of items) sum += x\n  if (sum < 0) throw new Error("negative")\n  return sum\n}\n',
  )

  // The local record, where OpenCode's environment puts it: the read it
  // tagged with the session's model, the edit with the model OpenCode
  // gives the call (ctx.extra.model), each with OpenCode's id of the call.
  const telemetry = path.join(project.home, "state", "hashline", "telemetry")
  const records = recorded(telemetry)
  t.deepEqual(
    records.map((r) => [r.host, r.model, r.tool, r.outcome]),
    [
      ["opencode", "m", "read", "ok"],
      ["opencode", "m", "edit", "applied"],
    ],
  )
  t.deepEqual(
    records.map((r) => r.callId),
    [read.callID, edit.callID],
  )
  t.log(`hashline stats of this session:\n${statsTable(telemetry)}`)
})

scenario("a notebook reads as its cells through OpenCode's read, and one edit changes a code cell and adds a markdown cell, valid and with the stale outputs cleared", async (t) => {
  const change = notebookChange("nbsphinx/pre-executed.ipynb", "analysis.ipynb")
  const { project, run, tools } = await play(t, {
    files: { "analysis.ipynb": change.text },
    steps: [
      () => ({ calls: [{ name: "read", args: { filePath: "analysis.ipynb" } }] }),
      ({ lastToolOutput }) => ({ calls: [{ name: "edit", args: change.edit(lastToolOutput) }] }),
      done,
    ],
  })
  t.is(run.code, 0)
  const [read, edit] = tools
  t.is(read.tool, "read")
  t.regex(read.state.output, /^<content>\nanalysis\.ipynb REV:[0-9A-F]{8} lines 1-\d+ of \d+\n  » notebook: nbformat 4\.4/m)
  t.false(read.state.output.includes('"cell_type"'), "the cells, not the JSON")
  t.is(edit.tool, "edit")
  t.is(edit.state.status, "completed", edit.state.error)
  change.check(t, project.file("analysis.ipynb"))
})

scenario("edits from the first read's refs after lines moved land right or are rejected, never wrong", async (t) => {
  const lines = ["a", "}", "b", "}", "c", "}", "d", "}", "e", "}"]
  /** @type {string | undefined} */
  let firstRead
  const { project, run, tools } = await play(t, {
    files: { "f.txt": lines.join("\n") + "\n" },
    steps: [
      () => ({ calls: [{ name: "read", args: { filePath: "f.txt" } }] }),
      ({ lastToolOutput }) => {
        firstRead = lastToolOutput
        // Two lines in at the top: everything after moves by 2.
        return {
          calls: [{ name: "edit", args: { filePath: "f.txt", operations: [{ op: "insert_after", ref: refFor(firstRead, "a"), content: "a1\na2" }] } }],
        }
      },
      // Still from the first read: line 8 ("}") is now line 10, and an
      // identical "}" now sits at line 8.
      () => {
        const closing = refsOf(firstRead).filter((r) => r.text === "}")
        return { calls: [{ name: "edit", args: { filePath: "f.txt", operations: [{ op: "replace", ref: closing[3].ref, content: "} // d" }] } }] }
      },
      // A ref to a line the first edit rewrote must not be taken.
      () => ({
        calls: [
          {
            name: "edit",
            args: { filePath: "f.txt", operations: [{ op: "replace", ref: refFor(firstRead, "a"), through: refFor(firstRead, "b"), content: "z" }] },
          },
        ],
      }),
      done,
    ],
  })
  t.is(run.code, 0)
  const edits = tools.filter((p) => p.tool === "edit")
  t.is(edits.length, 3)
  t.is(edits[0].state.status, "completed", edits[0].state.error)
  // The "}" now at line 8 carries the cited tag too, but no view since the
  // first read showed it: only the first read can have given that ref, and
  // its line 8 is now line 10.
  t.is(edits[1].state.status, "completed", edits[1].state.error)
  const after = ["a", "a1", "a2", "}", "b", "}", "c", "}", "d", "} // d", "e", "}"]
  // Lines 1..3 of the first read had lines inserted between them: where that
  // range went cannot be proven, so the edit must be refused with fresh refs.
  t.is(edits[2].state.status, "error")
  t.regex(edits[2].state.error, /^Edit rejected, nothing written/)
  t.regex(edits[2].state.error, /^>>> 1[n-z][a-z] a$/m)
  t.is(project.read("f.txt").toString("utf8"), after.join("\n") + "\n")
})

scenario("view prefixes proven copied are cleaned, doubtful ones refused, and text that only looks like them written as sent", async (t) => {
  const { project, run, tools } = await play(t, {
    files: { "g.py": "def f():\n    return 1\n" },
    steps: [
      () => ({ calls: [{ name: "read", args: { filePath: "g.py" } }] }),
      ({ lastToolOutput }) => {
        const def = refFor(lastToolOutput, "def f():")
        const ret = refFor(lastToolOutput, "    return 1")
        return {
          calls: [
            // The model pasted both view lines, prefixes and all, and
            // changed one: the prefixes name the lines the read showed.
            { name: "edit", args: { filePath: "g.py", operations: [{ op: "replace", ref: def, through: ret, content: `${def} def f():\n${ret}     return 2` }] } },
          ],
        }
      },
      ({ lastToolOutput }) => ({
        // One changed line is too little to prove its prefix a copy.
        calls: [{ name: "edit", args: { filePath: "g.py", operations: [{ op: "replace", ref: refFor(lastToolOutput, "    return 2"), content: `${refFor(lastToolOutput, "    return 2")}     return 3` }] } }],
      }),
      ({ toolOutputs }) => ({
        // The refusal's own advice: the content again, without the prefix.
        calls: [{ name: "edit", args: { filePath: "g.py", operations: [{ op: "replace", ref: refFor(toolOutputs[toolOutputs.length - 2], "    return 2"), content: "    return 3" }] } }],
      }),
      () => ({ calls: [{ name: "write", args: { filePath: "notes.md", content: "3rd party notices\n5th avenue\n" } }] }),
      done,
    ],
  })
  t.is(run.code, 0)
  const edits = tools.filter((p) => p.tool === "edit")
  t.is(edits[0].state.status, "completed", edits[0].state.error)
  t.regex(edits[0].state.output, /removed the view prefixes/)
  t.is(edits[1].state.status, "error")
  t.regex(edits[1].state.error, /names a line a view of this file showed, but that is too little to prove it a copy/)
  t.regex(edits[1].state.error, /"literal": true/)
  t.is(edits[2].state.status, "completed", edits[2].state.error)
  t.is(project.read("g.py").toString("utf8"), "def f():\n    return 3\n")
  const writes = tools.filter((p) => p.tool === "write")
  t.is(writes[0].state.status, "completed", writes[0].state.error)
  t.is(project.read("notes.md").toString("utf8"), "3rd party notices\n5th avenue\n")
})

scenario("a write of content copied with prefixes from another file's view is refused, and sent again it is written as sent", async (t) => {
  const { project, run, tools } = await play(t, {
    files: { "g.py": "import os\nprint(os.sep)\n" },
    steps: [
      () => ({ calls: [{ name: "read", args: { filePath: "g.py" } }] }),
      ({ lastToolOutput }) => ({
        calls: [{ name: "write", args: { filePath: "h.py", content: `${refFor(lastToolOutput, "import os")} import os\n${refFor(lastToolOutput, "print(os.sep)")} print(os.sep)\n` } }],
      }),
      ({ request }) => {
        // The refusal's own advice: the same content again, to mean it.
        const write = request.messages.flatMap((m) => /** @type {any} */ (m).tool_calls ?? []).find((c) => c.function?.name === "write")
        return { calls: [{ name: "write", args: JSON.parse(write.function.arguments) }] }
      },
      done,
    ],
  })
  t.is(run.code, 0)
  const writes = tools.filter((p) => p.tool === "write")
  t.is(writes[0].state.status, "error")
  t.regex(writes[0].state.error, /looks copied from a view, but not from one of this file/)
  t.is(writes[1].state.status, "completed", writes[1].state.error)
  t.regex(project.read("h.py").toString("utf8"), /^1[n-z][a-z] import os\n2[a-m][a-z] print\(os\.sep\)\n$/)
})

scenario("a CRLF file with a byte order mark keeps both", async (t) => {
  const { project, run, tools } = await play(t, {
    files: { "w.cs": "\uFEFFclass A\r\n{\r\n    int x = 1;\r\n}\r\n" },
    steps: [
      () => ({ calls: [{ name: "read", args: { filePath: "w.cs" } }] }),
      ({ lastToolOutput }) => ({
        calls: [
          {
            name: "edit",
            args: { filePath: "w.cs", operations: [{ op: "replace", ref: refFor(lastToolOutput, "    int x = 1;"), content: "    int x = 2;\n    int y = 3;" }] },
          },
        ],
      }),
      done,
    ],
  })
  t.is(run.code, 0)
  const edit = tools.find((p) => p.tool === "edit")
  t.is(edit.state.status, "completed", edit.state.error)
  t.deepEqual(project.read("w.cs"), Buffer.from("\uFEFFclass A\r\n{\r\n    int x = 2;\r\n    int y = 3;\r\n}\r\n", "utf8"))
})

scenario("a refused permission leaves the file untouched", async (t) => {
  const original = "keep\nme\n"
  const { project, tools } = await play(t, {
    files: { "k.txt": original },
    permission: { edit: "ask" },
    steps: [
      () => ({ calls: [{ name: "read", args: { filePath: "k.txt" } }] }),
      ({ lastToolOutput }) => ({
        calls: [{ name: "edit", args: { filePath: "k.txt", operations: [{ op: "delete", ref: refFor(lastToolOutput, "me") }] } }],
      }),
      done,
    ],
  })
  // `opencode run` refuses every permission it would have to ask for.
  const edit = tools.find((p) => p.tool === "edit")
  t.is(edit?.state.status, "error")
  t.regex(edit?.state.error, /rejected permission/)
  t.is(project.read("k.txt").toString("utf8"), original)
})

scenario("the oldString/newString form works", async (t) => {
  const { project, run, tools } = await play(t, {
    files: { "l.md": "# Title\n\nSome text here.\n" },
    steps: [
      () => ({ calls: [{ name: "edit", args: { filePath: "l.md", oldString: "Some text", newString: "Other text" } }] }),
      () => ({ calls: [{ name: "edit", args: { filePath: "l.md", oldString: "missing", newString: "x" } }] }),
      done,
    ],
  })
  t.is(run.code, 0)
  const [ok, missing] = tools.filter((p) => p.tool === "edit")
  t.is(ok.state.status, "completed", ok.state.error)
  t.is(missing.state.status, "error")
  t.regex(missing.state.error, /Could not find oldString/)
  t.is(project.read("l.md").toString("utf8"), "# Title\n\nOther text here.\n")
})

scenario("a gpt-5 model patches two files with apply_patch; a stale hunk is rejected with refs, then fixed citing one", async (t) => {
  const app = "def total(items):\n    return sum(items)\n\n\ndef mean(items):\n    return total(items) / len(items)\n"
  const cs = "\uFEFFclass W\r\n{\r\n    int x = 1;\r\n    int y = 2;\r\n}\r\n"
  /** @type {string | undefined} */
  let appAfterRejection
  /** @type {ReturnType<typeof makeProject> | undefined} */
  let where
  /** @param {string} name */
  const file = (name) => /** @type {ReturnType<typeof makeProject>} */ (where).file(name)
  const appHunk = "*** Update File: src/app.py\n@@ def mean(items):\n-    return total(items) / len(items)\n+    return total(items) / max(len(items), 1)"
  const { project, run, server, tools } = await play(t, {
    model: "gpt-5.2",
    files: { "src/app.py": app, "W.cs": cs },
    setup: (p) => (where = p),
    steps: [
      () => ({ calls: [{ name: "read", args: { filePath: "src/app.py" } }, { name: "read", args: { filePath: "W.cs" } }] }),
      () => {
        // Someone else changes the line the model is about to patch.
        fs.writeFileSync(file("W.cs"), cs.replace("int x = 1;", "int x = 10;"))
        return { calls: [{ name: "apply_patch", args: { patchText: `*** Begin Patch\n${appHunk}\n*** Update File: W.cs\n@@\n {\n-    int x = 1;\n+    int x = 2;\n*** End Patch` } }] }
      },
      ({ lastToolOutput }) => {
        appAfterRejection = fs.readFileSync(file("src/app.py"), "utf8")
        // The rejection shows the line as it is now, with the ref to anchor the retry.
        const ref = /^>>> (\d+#[0-9A-F]{3}#[0-9A-F]{3})\|    int x = 10;$/m.exec(lastToolOutput ?? "")?.[1]
        if (!ref) throw new Error(`no ref in the rejection: ${lastToolOutput}`)
        return { calls: [{ name: "apply_patch", args: { patchText: `*** Begin Patch\n${appHunk}\n*** Update File: W.cs\n@@ ${ref}\n-    int x = 10;\n+    int x = 2;\n*** End Patch` } }] }
      },
      done,
    ],
  })
  t.is(run.code, 0)
  const offered = (server.agentRequests[0].tools ?? []).map((tool) => tool.function.name)
  t.true(offered.includes("apply_patch"))
  t.false(offered.includes("edit") || offered.includes("write"))
  const system = server.agentRequests[0].messages.filter((m) => m.role === "system").map((m) => String(m.content)).join("\n")
  t.regex(system, /call apply_patch/)
  t.notRegex(system, /call edit/)

  // The two reads ran side by side: their parts come in either order.
  const reads = tools.slice(0, 2)
  const readOf = (/** @type {string} */ name) => reads.find((p) => String(p.state.input?.filePath) === name)
  const [readApp, readCs] = [readOf("src/app.py"), readOf("W.cs")]
  const [stale, fixed] = tools.slice(2)
  // A model that patches copies lines: it reads OpenCode's own view.
  t.regex(readApp.state.output, /^1: def total\(items\):$/m)
  t.regex(readCs.state.output, /^1: class W$/m)
  t.notRegex(readCs.state.output, /#[0-9A-F]{3}#[0-9A-F]{3}\|/)
  t.is(stale.tool, "apply_patch")
  t.is(stale.state.status, "error")
  t.regex(stale.state.error, /Patch rejected, nothing written: its hunk for W\.cs does not fit the file/)
  t.is(appAfterRejection, app, "the rejected patch wrote neither file")
  t.is(fixed.state.status, "completed", fixed.state.error)
  t.regex(fixed.state.output, /^Success\. Updated the following files:\nM src\/app\.py\nM W\.cs$/m)
  t.regex(fixed.state.output, /^\+6#[0-9A-F]{3}#[0-9A-F]{3}\|    return total\(items\) \/ max\(len\(items\), 1\)$/m)
  t.deepEqual(
    fixed.state.metadata.files.map((/** @type {any} */ f) => [f.relativePath, f.type, f.additions, f.deletions]),
    [
      ["src/app.py", "update", 1, 1],
      ["W.cs", "update", 1, 1],
    ],
  )
  t.is(project.read("src/app.py").toString("utf8"), app.replace("/ len(items)", "/ max(len(items), 1)"))
  t.deepEqual(project.read("W.cs"), Buffer.from(cs.replace("int x = 1;", "int x = 2;"), "utf8"))

  // The record: both patches, with the model OpenCode gave the calls; its
  // plain reads, which the plugin leaves alone for this model, are not hashline's.
  const records = recorded(path.join(project.home, "state", "hashline", "telemetry"))
  t.deepEqual(
    records.map((r) => [r.host, r.model, r.tool, r.outcome, r.callId, r.files]),
    [
      ["opencode", "gpt-5.2", "patch", "refused", stale.callID, 2],
      ["opencode", "gpt-5.2", "patch", "applied", fixed.callID, 2],
    ],
  )
})

scenario("prettier formats the edited file, and the next edit cites the refs the result showed", async (t) => {
  const original = "export function add(a: number, b: number) {\n  return a + b;\n}\n"
  const { project, run, tools } = await play(t, {
    formatter: true,
    files: { "package.json": JSON.stringify({ devDependencies: { prettier: "3" } }) + "\n", "src/add.ts": original },
    // The project's own prettier, as an installed project has it.
    setup: (p) => fs.symlinkSync(path.join(REPO_ROOT, "node_modules"), path.join(p.project, "node_modules"), "dir"),
    steps: [
      () => ({ calls: [{ name: "read", args: { filePath: "src/add.ts" } }] }),
      ({ lastToolOutput }) => ({
        calls: [{ name: "edit", args: { filePath: "src/add.ts", operations: [{ op: "replace", ref: refFor(lastToolOutput, "  return a + b;"), content: "  const sum = a+b\n  return sum" }] } }],
      }),
      ({ lastToolOutput }) => ({
        calls: [{ name: "edit", args: { filePath: "src/add.ts", operations: [{ op: "replace", ref: refFor(lastToolOutput, "  return sum;"), content: "  return sum * 2;" }] } }],
      }),
      done,
    ],
  })
  t.is(run.code, 0)
  const [, formatted, next] = tools
  t.is(formatted.state.status, "completed", formatted.state.error)
  t.regex(formatted.state.output, /then formatted it with prettier/)
  t.regex(formatted.state.output, /^\+2[a-m][a-z]   const sum = a \+ b;$/m)
  t.regex(formatted.state.metadata.diff, /^\+  return sum;$/m)
  t.is(next.state.status, "completed", next.state.error)
  t.is(project.read("src/add.ts").toString("utf8"), "export function add(a: number, b: number) {\n  const sum = a + b;\n  return sum * 2;\n}\n")
})

// OpenCode's grep needs ripgrep; without it on PATH it would try to download it.
const hasRipgrep = spawnSync("rg", ["--version"]).status === 0
;(hasRipgrep ? scenario : test.serial.skip)("a grep hit carries a ref an edit can use", async (t) => {
  const { project, run, tools } = await play(t, {
    files: { "src/n.js": "const needle = 1\nconst other = 2\nexport { needle }\n" },
    steps: [
      () => ({ calls: [{ name: "grep", args: { pattern: "needle", include: "*.js" } }] }),
      ({ lastToolOutput }) => ({
        calls: [{ name: "edit", args: { filePath: "src/n.js", operations: [{ op: "replace", ref: refFor(lastToolOutput, "const needle = 1"), content: "const needle = 42" }] } }],
      }),
      done,
    ],
  })
  t.is(run.code, 0)
  const [grep, edit] = tools
  t.is(grep.tool, "grep")
  t.is(refsOf(grep.state.output).length, 2)
  t.is(edit.state.status, "completed", edit.state.error)
  t.is(project.read("src/n.js").toString("utf8"), "const needle = 42\nconst other = 2\nexport { needle }\n")
})

const manifest = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, "package.json"), "utf8"))
const serverEntry = manifest.exports?.["./server"]?.default
scenario("installed by name as an npm plugin, it tags reads and edits", async (t) => {
  t.is(serverEntry, "./opencode/plugin.mjs", "package.json exports the plugin as ./server")
  const { project, run, tools } = await play(t, {
    files: { "p.txt": "first\nsecond\n" },
    project: { hashline: false, npmPlugin: true },
    plugin: [manifest.name],
    steps: [
      () => ({ calls: [{ name: "read", args: { filePath: "p.txt" } }] }),
      ({ lastToolOutput }) => ({
        calls: [{ name: "edit", args: { filePath: "p.txt", operations: [{ op: "insert_after", ref: refFor(lastToolOutput, "first"), content: "between" }] } }],
      }),
      done,
    ],
  })
  t.is(run.code, 0)
  const [read, edit] = tools
  t.regex(read.state.output, /^REV:[0-9A-F]{8}$/m)
  t.is(edit.state.status, "completed", edit.state.error)
  t.is(project.read("p.txt").toString("utf8"), "first\nbetween\nsecond\n")
})

scenario("without its native module the tool files export no tool: OpenCode's own edit works, and the log says why", async (t) => {
  // A copy of the JS layer with no native module beside it.
  const { project, run, tools } = await play(t, {
    files: { "m.txt": "one\n" },
    project: { hashlineDir: copyWithoutNative(t) },
    steps: [() => ({ calls: [{ name: "edit", args: { filePath: "m.txt", oldString: "one", newString: "two" } }] }), done],
  })
  t.is(run.code, 0)
  const edit = tools.find((p) => p.tool === "edit")
  t.is(edit.state.status, "completed", edit.state.error)
  // The built-in edit's own reply: no tool of this package replaced it.
  t.is(edit.state.output, "Edit applied successfully.")
  t.true(run.events.some((e) => e.type === "text" && e.part.text === "Done."))
  t.is(project.read("m.txt").toString("utf8"), "two\n")
  t.regex(run.stderr, /hashline is off, OpenCode's own edit stays: The hashline native module could not be loaded/)
})

/** @param {import("ava").ExecutionContext} t */
function copyWithoutNative(t) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "hashline-nonative-"))
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }))
  for (const folder of ["opencode", "lib"]) {
    fs.mkdirSync(path.join(dir, folder))
    for (const name of fs.readdirSync(path.join(REPO_ROOT, folder))) {
      if (/\.(mjs|cjs)$/.test(name)) fs.copyFileSync(path.join(REPO_ROOT, folder, name), path.join(dir, folder, name))
    }
  }
  fs.copyFileSync(path.join(REPO_ROOT, "package.json"), path.join(dir, "package.json"))
  fs.symlinkSync(path.join(REPO_ROOT, "node_modules"), path.join(dir, "node_modules"), "dir")
  return path.join(dir, "opencode")
}
