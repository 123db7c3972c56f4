// @ts-check
// Sessions are objects a garbage collector frees when it likes, which may be
// never in a process that makes little garbage: a session must not hold an
// operating-system resource between calls, or a host that makes one session
// per request runs out of file descriptors.
import test from "ava"
import { spawnSync } from "node:child_process"
import { fileURLToPath } from "node:url"
import path from "node:path"
import fs from "node:fs"
import { binding, scratch } from "../helpers.mjs"

const INDEX = path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "index.js")
const SESSIONS = 500

test(`${SESSIONS} live sessions, each on its own root after a read, an edit, a committed plan and a committed patch, hold no file descriptor between calls`, (t) => {
  if (process.platform !== "linux") return t.pass("counts /proc/self/fd")
  const dir = scratch(t)
  const script = `
    const fs = require("node:fs"), path = require("node:path")
    const { Hashline } = require(${JSON.stringify(INDEX)})
    const open = () => fs.readdirSync("/proc/self/fd").length
    const kept = []
    const before = open()
    for (let i = 0; i < ${SESSIONS}; i++) {
      const root = path.join(${JSON.stringify(dir)}, String(i))
      fs.mkdirSync(root)
      fs.writeFileSync(path.join(root, "f.txt"), "a\\n")
      const hl = new Hashline({ root })
      hl.read("f.txt")
      hl.edit("f.txt", { operations: [{ op: "append", content: "b" }] })
      const plan = hl.plan("f.txt", { operations: [{ op: "append", content: "c" }] })
      hl.commit(plan)
      const patch = hl.planPatch("*** Begin Patch\\n*** Update File: f.txt\\n@@\\n-c\\n+C\\n*** End Patch\\n")
      hl.commitPatch(patch)
      kept.push(hl, plan, patch)
    }
    console.log(JSON.stringify({ grew: open() - before, sessions: kept.length / 3 }))
  `
  const result = spawnSync(process.execPath, ["-e", script], { encoding: "utf8", timeout: 120_000 })
  t.is(result.status, 0, result.stderr)
  const { grew, sessions } = JSON.parse(result.stdout)
  t.is(sessions, SESSIONS)
  t.true(grew < 10, `${grew} descriptors stayed open for ${SESSIONS} idle sessions`)
})

test("a written plan keeps its result and refuses to be written again", (t) => {
  const dir = scratch(t)
  const { Hashline } = binding
  fs.writeFileSync(path.join(dir, "f.txt"), "a\n")
  const hl = new Hashline({ root: dir })
  const plan = hl.plan("f.txt", { operations: [{ op: "append", content: "b" }] })
  const result = hl.commit(plan)
  t.is(plan.rev, result.rev)
  t.is(plan.output, result.output)
  const again = /** @type {{ code?: string, message: string }} */ (t.throws(() => hl.commit(plan)))
  t.is(again.code, "BASE_CHANGED")
  t.regex(again.message, /written already/)
  const patch = hl.planPatch("*** Begin Patch\n*** Update File: f.txt\n@@\n-b\n+B\n*** End Patch\n")
  const patched = hl.commitPatch(patch)
  t.is(patch.summary, patched.summary)
  t.is(/** @type {{ code?: string }} */ (t.throws(() => hl.commitPatch(patch))).code, "BASE_CHANGED")
  t.is(fs.readFileSync(path.join(dir, "f.txt"), "utf8"), "a\nB\n")
})
