// @ts-check
// A scripted stand-in for a model provider on 127.0.0.1. One server speaks
// both wire formats the agent hosts use: OpenAI chat completions
// (`POST …/chat/completions`) and Anthropic messages (`POST …/messages`),
// each streamed (SSE) or plain. It plays the model: each answer is computed
// from the conversation so far, the way a model reads refs out of earlier
// tool output, so every edit it sends cites a ref the engine really showed.
import http from "node:http"

/**
 * @typedef {"openai" | "anthropic"} Api
 * @typedef {{ role: string, content?: any, tool_calls?: Array<{ id: string, function: { name: string, arguments: string } }>, tool_call_id?: string }} ChatMessage
 * @typedef {{ model?: string, messages: ChatMessage[], tools?: Array<any>, stream?: boolean, system?: any }} ChatRequest
 * @typedef {{ name: string, args: Record<string, unknown> }} ToolCall
 * @typedef {{ text?: string, calls?: ToolCall[] }} Reply
 * @typedef {{ api: Api, request: ChatRequest, turn: number, tools: string[], toolOutputs: string[], lastToolOutput: string | undefined }} TurnContext
 * @typedef {(ctx: TurnContext) => Reply} Step
 * @typedef {{ method: string, url: string, api?: Api, model?: string, stream?: boolean, turn?: number, tools?: string[], lastToolResult?: string, answered?: string[], status: number }} LogEntry
 */

/**
 * @param {any} content
 * @returns {string}
 */
function textOf(content) {
  if (typeof content === "string") return content
  if (Array.isArray(content)) {
    return content
      .map((/** @type {any} */ part) => {
        if (typeof part === "string") return part
        if (typeof part?.text === "string") return part.text
        // An Anthropic tool result may nest its own content blocks.
        if (part?.type === "tool_result") return textOf(part.content)
        return ""
      })
      .join("")
  }
  return ""
}

/**
 * The name of each tool a request offers, in either wire format.
 * @param {ChatRequest} body
 */
export function offeredTools(body) {
  return (body.tools ?? []).map((tool) => tool?.function?.name ?? tool?.name).filter((name) => typeof name === "string")
}

/**
 * The tool results a request carries, oldest first, as the model reads them.
 * @param {Api} api
 * @param {ChatRequest} body
 */
export function toolResultsOf(api, body) {
  if (api === "openai") return body.messages.filter((m) => m.role === "tool").map((m) => textOf(m.content))
  /** @type {string[]} */
  const results = []
  for (const message of body.messages) {
    if (message.role !== "user" || !Array.isArray(message.content)) continue
    for (const block of message.content) if (block?.type === "tool_result") results.push(textOf(block.content))
  }
  return results
}

/**
 * The model's turn: how many answers it has already given in this
 * conversation. Counting them, rather than the requests, keeps a retried or
 * side request from moving the script on.
 * @param {ChatRequest} body
 */
function turnOf(body) {
  return body.messages.filter((m) => m.role === "assistant").length
}

// A ref as views print it: lean `12ab content`, full `12#A3F#9BC|content`,
// at a line's start, after a diff marker or a rejection's `>>>`; or the `line`/`ref` pair of a
// JSON result. Lean refs are two lowercase letters right after the number.
const LEAN = /(?:^|\n)[ \t]*(?:[-+]|>>>)?[ \t]*(\d+)([a-z]{2}) /g
const FULL = /(\d+)(#[0-9A-F]{3}#[0-9A-F]{3})\|/g
const JSON_REF = /"line"\s*:\s*(\d+)\s*,\s*"ref"\s*:\s*"([^"]+)"/g
const REV = /REV:([0-9A-F]{8})/g

/**
 * Every ref a tool result shows, by line number, in the order shown.
 * @param {string} output
 * @returns {Array<{ line: number, ref: string }>}
 */
export function refsIn(output) {
  /** @type {Array<{ at: number, line: number, ref: string }>} */
  const found = []
  for (const m of output.matchAll(LEAN)) found.push({ at: m.index ?? 0, line: Number(m[1]), ref: `${m[1]}${m[2]}` })
  for (const m of output.matchAll(FULL)) found.push({ at: m.index ?? 0, line: Number(m[1]), ref: `${m[1]}${m[2]}` })
  for (const m of output.matchAll(JSON_REF)) found.push({ at: m.index ?? 0, line: Number(m[1]), ref: m[2] })
  return found.sort((a, b) => a.at - b.at).map(({ line, ref }) => ({ line, ref }))
}

const PLACEHOLDER = /\{\{(ref|firstref):(\d+)\}\}|\{\{rev\}\}/g

/**
 * Replaces the placeholders in every string of `value`: `{{ref:N}}` by the
 * newest ref for line N in any tool result so far, `{{firstref:N}}` by the
 * first one (a ref that may since have gone stale), `{{rev}}` by the newest
 * REV shown.
 * @param {unknown} value
 * @param {string[]} outputs
 * @returns {unknown}
 */
export function fillRefs(value, outputs) {
  if (typeof value === "string") {
    return value.replace(PLACEHOLDER, (whole, kind, line) => {
      if (!kind) {
        const revs = outputs.flatMap((o) => [...o.matchAll(REV)].map((m) => m[1]))
        if (revs.length === 0) throw new Error("{{rev}}: no tool result shows a REV yet")
        return revs[revs.length - 1]
      }
      const refs = outputs.flatMap((o) => refsIn(o)).filter((r) => r.line === Number(line))
      if (refs.length === 0) throw new Error(`${whole}: no tool result shows a ref for line ${line}`)
      return (kind === "ref" ? refs[refs.length - 1] : refs[0]).ref
    })
  }
  if (Array.isArray(value)) return value.map((v) => fillRefs(v, outputs))
  if (value && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fillRefs(v, outputs)]))
  return value
}

/**
 * The offered tool a scripted name means: the one named exactly so, else the
 * one whose name ends in `__NAME` (how hosts prefix MCP tools, such as
 * `mcp__hashline__edit` or `mcp__plugin_hashline_hashline__edit`).
 * @param {string} name
 * @param {string[]} offered
 */
export function matchTool(name, offered) {
  if (offered.includes(name)) return name
  const suffixed = offered.filter((tool) => tool.endsWith(`__${name}`))
  if (suffixed.length === 1) return suffixed[0]
  throw new Error(
    suffixed.length === 0
      ? `no tool named ${name} or *__${name} is offered (offered: ${offered.join(", ")})`
      : `${name} could mean any of ${suffixed.join(", ")}`,
  )
}

/**
 * Starts the server. `steps[i]` answers the model's turn i (the number of
 * assistant messages in the request); a turn past the script answers
 * "Done."; a request that offers no tools (titles, summaries, probes) gets a
 * short text. Tool call arguments go through `fillRefs`, and tool names
 * through `matchTool`; what a step cannot do is collected in `errors`.
 * @param {Step[]} steps
 */
export async function startScriptedServer(steps) {
  /** @type {ChatRequest[]} */
  const requests = []
  /** @type {ChatRequest[]} */
  const agentRequests = []
  /** @type {LogEntry[]} */
  const log = []
  /** @type {string[]} */
  const errors = []
  let callCounter = 0

  const server = http.createServer((req, res) => {
    const chunks = /** @type {Buffer[]} */ ([])
    req.on("data", (chunk) => chunks.push(chunk))
    req.on("end", () => {
      const url = req.url ?? "/"
      const route = url.split("?")[0].replace(/\/+$/, "")
      const method = req.method ?? "GET"
      /** @param {number} status @param {unknown} payload @param {Partial<LogEntry>} [extra] */
      const json = (status, payload, extra = {}) => {
        log.push({ method, url, status, ...extra })
        res.writeHead(status, { "content-type": "application/json" })
        res.end(JSON.stringify(payload))
      }
      if (method === "GET" && route.endsWith("/models")) {
        const created = Math.floor(Date.now() / 1000)
        const model = { id: "scripted", object: "model", type: "model", display_name: "Scripted", created, owned_by: "test", created_at: new Date(created * 1000).toISOString() }
        return json(200, { object: "list", data: [model], has_more: false, first_id: model.id, last_id: model.id })
      }
      if (method !== "POST") return json(404, { error: { message: `unexpected ${method} ${url}` } })
      /** @type {ChatRequest} */
      let body
      try {
        body = JSON.parse(Buffer.concat(chunks).toString("utf8"))
      } catch {
        return json(400, { error: { message: "the body is not JSON" } })
      }
      if (route.endsWith("/messages/count_tokens")) {
        return json(200, { input_tokens: Math.ceil(JSON.stringify(body).length / 4) }, { api: "anthropic", model: body.model })
      }
      /** @type {Api} */
      let api
      if (route.endsWith("/chat/completions")) api = "openai"
      else if (route.endsWith("/messages")) api = "anthropic"
      else return json(404, { error: { message: `unexpected ${method} ${url}` } })

      requests.push(body)
      const tools = offeredTools(body)
      const toolOutputs = toolResultsOf(api, body)
      /** @type {LogEntry} */
      const entry = { method, url, api, model: body.model, stream: body.stream === true, tools, lastToolResult: toolOutputs[toolOutputs.length - 1], status: 200 }
      log.push(entry)
      /** @type {Reply} */
      let reply
      if (tools.length === 0) {
        reply = { text: "Scripted run" }
      } else {
        agentRequests.push(body)
        const turn = turnOf(body)
        entry.turn = turn
        const step = steps[turn]
        try {
          const scripted = step ? step({ api, request: body, turn, tools, toolOutputs, lastToolOutput: toolOutputs[toolOutputs.length - 1] }) : { text: "Done." }
          reply = {
            text: scripted.text,
            calls: scripted.calls?.map((call) => ({ name: matchTool(call.name, tools), args: /** @type {Record<string, unknown>} */ (fillRefs(call.args, toolOutputs)) })),
          }
        } catch (err) {
          errors.push(`turn ${turn}: ${err instanceof Error ? err.stack : String(err)}`)
          reply = { text: "The script could not continue." }
        }
      }
      entry.answered = reply.calls?.map((c) => c.name) ?? []
      res.writeHead(200, body.stream ? { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" } : { "content-type": "application/json" })
      if (api === "openai") sendOpenAI(res, body, reply)
      else sendAnthropic(res, body, reply)
    })
  })

  /**
   * @param {http.ServerResponse} res
   * @param {ChatRequest} body
   * @param {Reply} reply
   */
  function sendOpenAI(res, body, reply) {
    const id = `chatcmpl-${requests.length}`
    const created = Math.floor(Date.now() / 1000)
    const model = body.model ?? "m"
    const calls = (reply.calls ?? []).map((call, index) => ({
      index,
      id: `call_${++callCounter}`,
      type: "function",
      function: { name: call.name, arguments: JSON.stringify(call.args) },
    }))
    const finish = calls.length > 0 ? "tool_calls" : "stop"
    const text = reply.text ?? ""
    const usage = { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 }

    if (!body.stream) {
      res.end(
        JSON.stringify({
          id,
          object: "chat.completion",
          created,
          model,
          choices: [
            {
              index: 0,
              message: { role: "assistant", content: text || null, ...(calls.length ? { tool_calls: calls.map(({ index, ...c }) => c) } : {}) },
              finish_reason: finish,
            },
          ],
          usage,
        }),
      )
      return
    }
    /** @param {unknown} data */
    const event = (data) => res.write(`data: ${JSON.stringify(data)}\n\n`)
    /** @param {Record<string, unknown>} delta @param {string | null} finishReason */
    const chunk = (delta, finishReason = null) =>
      event({ id, object: "chat.completion.chunk", created, model, choices: [{ index: 0, delta, finish_reason: finishReason }] })
    chunk({ role: "assistant", content: "" })
    if (text) chunk({ content: text })
    for (const call of calls) chunk({ tool_calls: [call] })
    chunk({}, finish)
    event({ id, object: "chat.completion.chunk", created, model, choices: [], usage })
    res.write("data: [DONE]\n\n")
    res.end()
  }

  /**
   * @param {http.ServerResponse} res
   * @param {ChatRequest} body
   * @param {Reply} reply
   */
  function sendAnthropic(res, body, reply) {
    const id = `msg_${requests.length}`
    const model = body.model ?? "m"
    /** @type {Array<Record<string, any>>} */
    const content = []
    if (reply.text) content.push({ type: "text", text: reply.text })
    for (const call of reply.calls ?? []) content.push({ type: "tool_use", id: `toolu_${++callCounter}`, name: call.name, input: call.args })
    if (content.length === 0) content.push({ type: "text", text: "" })
    const stop = (reply.calls ?? []).length > 0 ? "tool_use" : "end_turn"
    const usage = { input_tokens: 10, output_tokens: 10 }

    if (!body.stream) {
      res.end(JSON.stringify({ id, type: "message", role: "assistant", model, content, stop_reason: stop, stop_sequence: null, usage }))
      return
    }
    /** @param {string} name @param {Record<string, unknown>} data */
    const event = (name, data) => res.write(`event: ${name}\ndata: ${JSON.stringify({ type: name, ...data })}\n\n`)
    event("message_start", { message: { id, type: "message", role: "assistant", model, content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 10, output_tokens: 1 } } })
    content.forEach((block, index) => {
      if (block.type === "text") {
        event("content_block_start", { index, content_block: { type: "text", text: "" } })
        event("content_block_delta", { index, delta: { type: "text_delta", text: block.text } })
      } else {
        event("content_block_start", { index, content_block: { type: "tool_use", id: block.id, name: block.name, input: {} } })
        event("content_block_delta", { index, delta: { type: "input_json_delta", partial_json: JSON.stringify(block.input) } })
      }
      event("content_block_stop", { index })
    })
    event("message_delta", { delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: 10 } })
    event("message_stop", {})
    res.end()
  }

  await new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(undefined)))
  const address = server.address()
  if (!address || typeof address === "string") throw new Error("the scripted server has no port")
  const origin = `http://127.0.0.1:${address.port}`

  return {
    /** The OpenAI base URL (`…/v1`), as OpenAI-compatible providers take it. */
    url: `${origin}/v1`,
    /** The bare origin, as `ANTHROPIC_BASE_URL` takes it. */
    origin,
    port: address.port,
    requests,
    agentRequests,
    log,
    errors,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve(undefined))
      }),
  }
}
