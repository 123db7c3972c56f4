// @ts-check
// Sessions are objects a garbage collector frees when it likes, which may be
// never in a process that makes little garbage: a session must not hold an
// operating-system resource between calls, or a host that makes one session
// per request runs out of file descriptors.
import test from "ava"
import { spawnSync } from "node:child_process"
import { fileURLToPath } from "node:url"
import path from "node:path"
import { scratch } from "./helpers.mjs"

const INDEX = path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "index.js")
const SESSIONS = 500

test(`${SESSIONS} live sessions, each on its own root after a read and an edit, hold no file descriptor between calls`, (t) => {
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
      kept.push(hl)
    }
    console.log(JSON.stringify({ grew: open() - before, sessions: kept.length }))
  `
  const result = spawnSync(process.execPath, ["-e", script], { encoding: "utf8", timeout: 120_000 })
  t.is(result.status, 0, result.stderr)
  const { grew, sessions } = JSON.parse(result.stdout)
  t.is(sessions, SESSIONS)
  t.true(grew < 10, `${grew} descriptors stayed open for ${SESSIONS} idle sessions`)
})
