// @ts-check
// The pages link each other instead of saying a thing twice, so a link that
// leads nowhere loses a fact: every relative link of README.md,
// ARCHITECTURE.md and docs/ must name a file of the repository, and its
// anchor, if it has one, a heading of that page.
import test from "ava"
import fs from "node:fs"
import path from "node:path"
import { REPO, anchors, links, pages, readPage, slug } from "./pages.mjs"

/**
 * What is wrong with a link of `page`, or undefined when it resolves.
 * @param {string} page
 * @param {string} target
 */
function broken(page, target) {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target)) return undefined
  const hash = target.indexOf("#")
  const file = decodeURIComponent(hash === -1 ? target : target.slice(0, hash))
  const anchor = hash === -1 ? undefined : decodeURIComponent(target.slice(hash + 1))
  const resolved = file === "" ? path.join(REPO, page) : path.resolve(REPO, path.dirname(page), file)
  const relative = path.relative(REPO, resolved)
  if (relative.startsWith("..") || path.isAbsolute(relative)) return "leads out of the repository"
  if (!fs.existsSync(resolved)) return `${relative.split(path.sep).join("/")} does not exist`
  if (anchor === undefined || !resolved.endsWith(".md")) return undefined
  if (!anchors(fs.readFileSync(resolved, "utf8")).has(anchor)) return `${relative.split(path.sep).join("/")} has no heading #${anchor}`
  return undefined
}

test("every relative link of README.md, ARCHITECTURE.md and docs/ names a file, and a heading of it", (t) => {
  const all = pages()
  t.true(all.includes("docs/format.md") && all.includes("docs/hosts/opencode.md"), all.join(", "))
  let count = 0
  /** @type {string[]} */
  const wrong = []
  for (const page of all) {
    for (const { target, line } of links(readPage(page))) {
      count++
      const why = broken(page, target)
      if (why) wrong.push(`${page}:${line}: ${target}: ${why}`)
    }
  }
  t.deepEqual(wrong, [])
  t.true(count > 50, `${count} links`)
})

test("every relative link of the engine crate's README names a file of the repository, and a heading of it", (t) => {
  const page = "crates/hashline/README.md"
  const found = links(readPage(page))
  t.true(found.length > 0, `${page} links the format's specification`)
  t.deepEqual(
    found.flatMap(({ target, line }) => {
      const why = broken(page, target)
      return why ? [`${page}:${line}: ${target}: ${why}`] : []
    }),
    [],
  )
})

test("every page under docs/ is reached by a link from README.md or from a page it reaches", (t) => {
  const reached = new Set(["README.md"])
  const queue = ["README.md"]
  while (queue.length > 0) {
    const page = /** @type {string} */ (queue.shift())
    for (const { target } of links(readPage(page))) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue
      const file = target.split("#")[0]
      if (!file.endsWith(".md")) continue
      const name = path.relative(REPO, path.resolve(REPO, path.dirname(page), decodeURIComponent(file))).split(path.sep).join("/")
      if (!reached.has(name) && fs.existsSync(path.join(REPO, name))) {
        reached.add(name)
        queue.push(name)
      }
    }
  }
  t.deepEqual(pages().filter((page) => !reached.has(page)), [])
})

test("the link check sees what GitHub renders: wrapped link texts, no links in code, headings' anchors as GitHub makes them", (t) => {
  const text = [
    "# Title",
    "## §7 Nothing is written on a guess",
    "## `apply_patch` for GPT models",
    "## Recovery's threat model",
    "## Title",
    "See [the",
    "wrapped text](other.md#a-b) and `[not](a link)`.",
    "```",
    "[no](link.md)",
    "## not a heading",
    "```",
  ].join("\n")
  t.deepEqual(links(text), [{ target: "other.md#a-b", line: 6 }])
  t.deepEqual([...anchors(text)], ["title", "7-nothing-is-written-on-a-guess", "apply_patch-for-gpt-models", "recoverys-threat-model", "title-1"])
  t.is(slug("A write: the lock, the last check"), "a-write-the-lock-the-last-check")
  t.is(broken("docs/cli.md", "format.md#9-errors"), undefined)
  t.is(broken("docs/cli.md", "format.md#10-nothing"), "docs/format.md has no heading #10-nothing")
  t.is(broken("docs/cli.md", "missing.md"), "docs/missing.md does not exist")
  t.is(broken("docs/cli.md", "../../outside.md"), "leads out of the repository")
  t.is(broken("README.md", "https://example.com/x.md#nowhere"), undefined)
})
