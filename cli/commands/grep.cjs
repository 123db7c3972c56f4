// @ts-check
// `hashline grep PATTERN [PATH...]`: matching lines with refs, as rg finds them.
"use strict"

/** @param {import("../args.cjs").Context} cx */
async function grep(cx) {
  const { values } = cx
  const [pattern, ...paths] = cx.rest
  const globs = [...(values.glob ?? []), ...(values.include ?? [])]
  const found = cx.engine().search(pattern, {
    path: paths.length > 0 ? paths.map(cx.given) : cx.here === "" ? [] : [cx.here],
    include: globs.filter((g) => !g.startsWith("!")),
    exclude: globs.filter((g) => g.startsWith("!")).map((g) => g.slice(1)),
    ignoreCase: values["ignore-case"],
    fixedStrings: values["fixed-strings"],
    word: values["word-regexp"],
    invert: values["invert-match"],
    hidden: values.hidden,
    maxResults: cx.maxResults,
    context: cx.context,
  })
  const { text, ...structured } = found
  return { stdout: text, json: { ok: true, ...structured } }
}

module.exports = { run: grep }
