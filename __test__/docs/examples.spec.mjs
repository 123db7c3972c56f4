// @ts-check
// The examples of the pages are run, and must print what the pages show:
// a block whose first line starts with `$ ` is a session of the command
// line, each `$ hashline ...` run in turn as a shell-only agent runs it, one
// process per call with the versions kept in a store folder; a `js` block
// that requires 'hashline' runs as a script, and prints the block after it.
// Each starts from the same project: the src/app.ts of the README's example.
import test from "ava"
import { spawnSync } from "node:child_process"
import fs from "node:fs"
import path from "node:path"
import { scratch } from "../helpers.mjs"
import { REPO, fenced, pages, readPage } from "./pages.mjs"

const CLI = path.join(REPO, "cli", "hashline.cjs")
const PROJECT = { "src/app.ts": "export function total(items) {\n  if (!items) return null;\n  return items.length;\n}\n" }

/**
 * The environment of a run: none of the settings a user may have made, and
 * the store given; the telemetry record still goes to the test's scratch
 * folder, never the user's.
 * @param {string} store
 */
function environment(store) {
  /** @type {Record<string, string | undefined>} */
  const env = { ...process.env, HASHLINE_STORE: store }
  for (const name of Object.keys(env)) if (name.startsWith("HASHLINE_") && name !== "HASHLINE_STORE" && name !== "HASHLINE_TELEMETRY_DIR") delete env[name]
  return env
}

/**
 * A fresh project holding PROJECT, and a store folder beside it.
 * @param {import("ava").ExecutionContext} t
 */
function project(t) {
  const root = scratch(t)
  for (const [name, text] of Object.entries(PROJECT)) {
    fs.mkdirSync(path.dirname(path.join(root, name)), { recursive: true })
    fs.writeFileSync(path.join(root, name), text)
  }
  return { root, store: path.join(scratch(t), "store") }
}

/**
 * The words of a command as a POSIX shell splits them, for the plain
 * commands the pages show: bare words and quoted ones, nothing the shell
 * would expand or redirect.
 * @param {string} command
 * @returns {string[]}
 */
export function words(command) {
  /** @type {string[]} */
  const out = []
  let i = 0
  while (i < command.length) {
    if (command[i] === " ") {
      i++
      continue
    }
    let word = ""
    while (i < command.length && command[i] !== " ") {
      const c = command[i]
      if (c === "'") {
        const end = command.indexOf("'", i + 1)
        if (end === -1) throw new Error(`an unclosed quote in: ${command}`)
        word += command.slice(i + 1, end)
        i = end + 1
      } else if (c === '"') {
        const end = command.indexOf('"', i + 1)
        if (end === -1) throw new Error(`an unclosed quote in: ${command}`)
        const inner = command.slice(i + 1, end)
        if (/[$`\\]/.test(inner)) throw new Error(`a double-quoted word the shell would expand: ${command}`)
        word += inner
        i = end + 1
      } else if (/[|&;<>()$`\\*?~#]/.test(c)) {
        throw new Error(`the examples run plain commands; this one uses the shell's ${c}: ${command}`)
      } else {
        word += c
        i++
      }
    }
    out.push(word)
  }
  return out
}

/**
 * The calls of a session block, each with the output shown after it.
 * @param {string} text
 * @returns {Array<{ command: string, expected: string }>}
 */
export function session(text) {
  /** @type {Array<{ command: string, expected: string[] }>} */
  const calls = []
  for (const line of text.split("\n")) {
    if (line.startsWith("$ ")) calls.push({ command: line.slice(2), expected: [] })
    else if (calls.length === 0) throw new Error(`a session starts with a command: ${line}`)
    else calls[calls.length - 1].expected.push(line)
  }
  return calls.map(({ command, expected }) => ({ command, expected: expected.join("\n").trimEnd() }))
}

/** Every session block of the pages, with where it is. */
function sessions() {
  return pages().flatMap((page) =>
    fenced(readPage(page))
      .blocks.filter((block) => block.text.startsWith("$ "))
      .map((block) => ({ where: `${page}:${block.line}`, text: block.text })),
  )
}

/** Every `js` block of the pages that requires 'hashline', with the block after it. */
function scripts() {
  return pages().flatMap((page) => {
    const { blocks } = fenced(readPage(page))
    return blocks.flatMap((block, i) => (block.info === "js" && block.text.includes("require('hashline')") ? [{ where: `${page}:${block.line}`, text: block.text, prints: blocks[i + 1]?.text ?? "" }] : []))
  })
}

test("the README's example is a session of the command line, and every page's example is run", (t) => {
  t.true(sessions().some(({ where }) => where.startsWith("README.md:")))
  t.true(scripts().some(({ where }) => where.startsWith("docs/api.md:")))
})

for (const { where, text } of sessions()) {
  test(`the command line prints what ${where} shows`, (t) => {
    const { root, store } = project(t)
    for (const { command, expected } of session(text)) {
      const [name, ...args] = words(command)
      t.is(name, "hashline", command)
      const run = spawnSync(process.execPath, [CLI, ...args], { cwd: root, env: environment(store), encoding: "utf8", timeout: 60_000 })
      t.is(`${run.stdout}${run.stderr}`.trimEnd(), expected, `$ ${command}`)
      t.is(run.status, 0, `$ ${command}`)
    }
  })
}

for (const { where, text, prints } of scripts()) {
  test(`the script of ${where} prints the block after it`, (t) => {
    const { root, store } = project(t)
    fs.mkdirSync(path.join(root, "node_modules"))
    fs.symlinkSync(REPO, path.join(root, "node_modules", "hashline"), "junction")
    fs.writeFileSync(path.join(root, "example.cjs"), text)
    const run = spawnSync(process.execPath, ["example.cjs"], { cwd: root, env: environment(store), encoding: "utf8", timeout: 60_000 })
    t.is(run.stderr, "")
    t.is(run.status, 0)
    t.is(run.stdout.trimEnd(), prints.trimEnd())
  })
}

test("a session is split into calls and their output, and a command into the words a shell would pass", (t) => {
  t.deepEqual(session("$ hashline read a\nA\nB\n\n$ hashline grep x\n"), [
    { command: "hashline read a", expected: "A\nB" },
    { command: "hashline grep x", expected: "" },
  ])
  t.deepEqual(words(`hashline edit f --ops '[{"content":"a\\nb"}]'`), ["hashline", "edit", "f", "--ops", '[{"content":"a\\nb"}]'])
  t.deepEqual(words(`hashline grep "two words" -g '!*.md'`), ["hashline", "grep", "two words", "-g", "!*.md"])
  t.throws(() => words("echo x | hashline edit f"), { message: /the shell's \|/ })
  t.throws(() => words('hashline read "$HOME/f"'), { message: /expand/ })
})
