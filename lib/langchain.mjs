// @ts-check
// The tools for LangChain.js (`@langchain/core`): the same descriptions, JSON
// schemas and behaviour as everywhere else, wrapped with LangChain's `tool()`.
// A rejected edit throws; an agent's tool node hands the error's message, the
// repair text, back to the model as an error tool message. The run's
// `signal` (from `invoke`'s config) reaches the engine, which stops a call
// before it writes anything.
import { tool } from "@langchain/core/tools"
import { HOSTS } from "./hosts.mjs"
import { createTools as createPlainTools, hostTools } from "./tools.mjs"

/**
 * @typedef {import("../index.js").HashlineOptions} HashlineOptions
 * @typedef {import("./tools-types.d.mts").HashlineTool} HashlineTool
 */

/** @param {HashlineTool} plain */
function wrap(plain) {
  return tool((input, config) => plain.execute(input, { signal: config?.signal }), {
    name: plain.name,
    description: plain.description,
    schema: /** @type {any} */ (plain.inputSchema),
  })
}

/**
 * `[read, edit, grep]` for `createAgent`'s `tools` (or a model's
 * `bindTools`), over one engine rooted at `options.root` (default: the
 * working directory).
 * @param {HashlineOptions} [options] as for `new Hashline(options)`
 * @returns {import("./langchain-types.d.mts").HashlineLangchainTools}
 */
export function createTools(options = {}) {
  return /** @type {any} */ (hostTools(HOSTS.langchain, createPlainTools({ host: "langchain", ...options })).map(wrap))
}
