// Lean refs carry few bits, so they are attacked where they are weakest: a
// view read before the session changed the file, a ref copied from it with
// its line number possibly typed one off, in files full of repeated lines.
// Whatever the engine does, it may change only the line whose tag was
// copied, carried to where that line is now, or refuse.

import test from "ava"
import fs from "node:fs"
import path from "node:path"
import { binding, scratch } from "../helpers.mjs"

const { Hashline } = binding
const POOL = ["}", "}", "", "", "  return x;", "x", "{", "fn a() {", "let y = 1;", "// c"]

test("a stale lean ref, its number maybe typed one off, changes only the line its tag came from, or nothing", (t) => {
  const dir = scratch(t)
  let seed = 1
  /** @param {number} n */
  const random = (n) => {
    seed = (seed * 1103515245 + 12345) % 2147483648
    return seed % n
  }
  let landed = 0
  let refused = 0
  for (let trial = 0; trial < 400; trial++) {
    const n = 3 + random(30)
    const lines = Array.from({ length: n }, () => POOL[random(POOL.length)])
    const name = `f${trial}.txt`
    const file = path.join(dir, name)
    fs.writeFileSync(file, lines.join("\n") + "\n")
    const hl = new Hashline({ root: dir, view: "lean" })
    const lean = hl.read(name).text.split("\n").filter((l) => /^\d+[a-z]{2} /.test(l))
    const full = hl.read(name, { view: "full" }).text.split("\n").filter((l) => /^\d+#/.test(l)).map((l) => l.split("|")[0])
    const at = random(n)
    const earlier =
      random(2) === 0
        ? { op: "insert_after", ref: full[at], content: Array.from({ length: 1 + random(3) }, () => POOL[random(POOL.length)]).join("\n") }
        : { op: "delete", ref: full[at] }
    try {
      // The earlier edit only sets the scene: its repeats of neighbouring
      // lines are meant.
      hl.edit(name, { operations: [earlier], literal: true })
    } catch {
      continue
    }
    const between = fs.readFileSync(file, "utf8").split("\n").slice(0, -1)
    const meant = random(n)
    const typed = Math.min(n, Math.max(1, meant + 1 + [0, 0, 1, -1][random(4)]))
    const tag = lean[meant].split(" ")[0].replace(/^\d+/, "")
    try {
      hl.edit(name, { operations: [{ op: "replace", ref: `${typed}${tag}`, content: "CHANGED" }] })
    } catch {
      refused++
      t.is(fs.readFileSync(file, "utf8"), between.join("\n") + "\n", "a refused edit writes nothing")
      continue
    }
    landed++
    const now = fs.readFileSync(file, "utf8").split("\n").slice(0, -1)
    const where = earlier.op === "delete" ? (meant < at ? meant : meant === at ? -1 : meant - 1) : meant <= at ? meant : meant + between.length - n
    t.is(now.indexOf("CHANGED"), where, JSON.stringify({ lines, earlier, typed, tag }))
    t.deepEqual(now.filter((_, i) => i !== where), between.filter((_, i) => i !== where))
  }
  t.log(`${landed} landed, ${refused} refused`)
  t.true(landed > 100 && refused > 10, "both outcomes are exercised")
})
