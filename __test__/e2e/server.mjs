// @ts-check
// A scripted stand-in for a model provider on 127.0.0.1. One server speaks
// the wire formats the agent hosts use: OpenAI chat completions
// (`POST …/chat/completions`), the OpenAI Responses API (`POST …/responses`,
// Codex), Anthropic messages (`POST …/messages`) and the Gemini API
// (`POST …/models/M:streamGenerateContent` or `:generateContent`), each
// streamed (SSE) or plain. It plays the model: each answer is computed from
// the conversation so far, the way a model reads refs out of earlier tool
// output, so every edit it sends cites a ref the engine really showed.
import http from "node:http"

/**
 * @typedef {"openai" | "anthropic" | "responses" | "gemini"} Api
 * @typedef {{ role: string, content?: any, tool_calls?: Array<{ id: string, function: { name: string, arguments: string } }>, tool_call_id?: string }} ChatMessage
 * @typedef {{ type?: string, role?: string, content?: any, name?: string, namespace?: string, output?: any, tools?: Array<any> }} ResponsesItem
 * @typedef {{ role?: string, parts?: Array<any> }} GeminiContent
 * @typedef {{ model?: string, messages: ChatMessage[], input?: ResponsesItem[], contents?: GeminiContent[], tools?: Array<any>, stream?: boolean, system?: any }} ChatRequest
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
 * The tools of a Responses API list by the name a model calls them: a
 * namespace's tools as `NAMESPACE__NAME` (Codex groups an MCP server's tools
 * so, `mcp__hashline`), and the hosted tool search as `tool_search`.
 * @param {Array<any>} tools
 * @returns {Array<{ name: string, kind: "function" | "custom" | "tool_search", namespace?: string, bare: string }>}
 */
function responsesTools(tools) {
  return tools.flatMap((tool) => {
    if (tool?.type === "namespace") return (tool.tools ?? []).map((/** @type {any} */ inner) => ({ name: `${tool.name}__${inner.name}`, kind: /** @type {const} */ ("function"), namespace: tool.name, bare: inner.name }))
    if (tool?.type === "tool_search") return [{ name: "tool_search", kind: /** @type {const} */ ("tool_search"), bare: "tool_search" }]
    if ((tool?.type === "function" || tool?.type === "custom") && typeof tool.name === "string") return [{ name: tool.name, kind: tool.type, bare: tool.name }]
    return []
  })
}

/**
 * A Responses API request's tools: those it lists and those an earlier tool
 * search brought into the conversation.
 * @param {ChatRequest} body
 */
function responsesOffered(body) {
  const found = (body.input ?? []).filter((item) => item?.type === "tool_search_output").flatMap((item) => item.tools ?? [])
  return responsesTools([...(body.tools ?? []), ...found])
}

/**
 * The wire format of a request body.
 * @param {ChatRequest} body
 * @returns {Api}
 */
function apiOf(body) {
  if (Array.isArray(body.contents)) return "gemini"
  if (Array.isArray(body.input)) return "responses"
  return Array.isArray(body.system) || typeof body.system === "string" ? "anthropic" : "openai"
}

/**
 * The name of each tool a request offers, in any of the wire formats.
 * @param {ChatRequest} body
 */
export function offeredTools(body) {
  const api = apiOf(body)
  if (api === "responses") return responsesOffered(body).map((tool) => tool.name)
  if (api === "gemini") return (body.tools ?? []).flatMap((tool) => (tool.functionDeclarations ?? []).map((/** @type {{ name: string }} */ f) => f.name))
  return (body.tools ?? []).map((tool) => tool?.function?.name ?? tool?.name).filter((name) => typeof name === "string")
}

/**
 * Every string in a value, joined by line breaks: the text a model reads in
 * a structured tool result (a Gemini function response).
 * @param {unknown} value
 * @returns {string}
 */
function stringsIn(value) {
  if (typeof value === "string") return value
  if (Array.isArray(value)) return value.map(stringsIn).filter(Boolean).join("\n")
  if (value && typeof value === "object") return Object.values(value).map(stringsIn).filter(Boolean).join("\n")
  return ""
}

/**
 * The tool results a request carries, oldest first, as the model reads them.
 * @param {Api} api
 * @param {ChatRequest} body
 */
export function toolResultsOf(api, body) {
  if (api === "openai") return body.messages.filter((m) => m.role === "tool").map((m) => textOf(m.content))
  if (api === "responses") {
    return (body.input ?? []).filter((item) => item?.type === "function_call_output" || item?.type === "custom_tool_call_output").map((item) => textOf(item.output))
  }
  if (api === "gemini") {
    return (body.contents ?? []).flatMap((content) => (content.parts ?? []).filter((part) => part?.functionResponse).map((part) => stringsIn(part.functionResponse.response)))
  }
  /** @type {string[]} */
  const results = []
  for (const message of body.messages) {
    if (message.role !== "user" || !Array.isArray(message.content)) continue
    for (const block of message.content) if (block?.type === "tool_result") results.push(textOf(block.content))
  }
  return results
}

/** The items of a Responses API conversation that the model wrote. */
const MODEL_ITEMS = new Set(["function_call", "custom_tool_call", "tool_search_call", "reasoning"])

/**
 * The model's turn: how many answers it has already given in this
 * conversation. Counting them, rather than the requests, keeps a retried or
 * side request from moving the script on. In the Responses API an answer is
 * a run of items the model wrote (its calls and messages) between the
 * host's items.
 * @param {Api} api
 * @param {ChatRequest} body
 */
function turnOf(api, body) {
  if (api === "gemini") return (body.contents ?? []).filter((c) => c.role === "model").length
  if (api === "responses") {
    let turns = 0
    let inAnswer = false
    for (const item of body.input ?? []) {
      const byModel = MODEL_ITEMS.has(item?.type ?? "") || (item?.type === "message" && item.role === "assistant")
      if (byModel && !inAnswer) turns += 1
      inAnswer = byModel
    }
    return turns
  }
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
      if (route.endsWith(":countTokens")) return json(200, { totalTokens: Math.ceil(JSON.stringify(body).length / 4) }, { api: "gemini" })
      /** @type {Api} */
      let api
      if (route.endsWith("/chat/completions")) api = "openai"
      else if (route.endsWith("/responses")) api = "responses"
      else if (route.endsWith("/messages")) api = "anthropic"
      else if (/:(stream)?generateContent$/i.test(route)) {
        api = "gemini"
        // Gemini names the model in the path and asks for a stream by the method.
        body.model = decodeURIComponent(route.slice(route.lastIndexOf("/") + 1).split(":")[0])
        body.stream = /:streamGenerateContent$/i.test(route)
      } else return json(404, { error: { message: `unexpected ${method} ${url}` } })

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
        const turn = turnOf(api, body)
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
      else if (api === "responses") sendResponses(res, body, reply)
      else if (api === "gemini") sendGemini(res, body, reply)
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
   * A Responses API answer (Codex): each call as the item its tool takes (a
   * function call, in its namespace when it has one; a custom tool's input;
   * a tool search), then `response.completed`.
   * @param {http.ServerResponse} res
   * @param {ChatRequest} body
   * @param {Reply} reply
   */
  function sendResponses(res, body, reply) {
    const id = `resp_${requests.length}`
    const tools = responsesOffered(body)
    /** @type {Array<Record<string, unknown>>} */
    const output = []
    if (reply.text) output.push({ type: "message", id: `msg_${requests.length}`, role: "assistant", status: "completed", content: [{ type: "output_text", text: reply.text, annotations: [] }] })
    for (const call of reply.calls ?? []) {
      const tool = tools.find((t) => t.name === call.name)
      const callId = `call_${++callCounter}`
      if (tool?.kind === "tool_search") output.push({ type: "tool_search_call", call_id: callId, status: "completed", execution: "client", arguments: call.args })
      else if (tool?.kind === "custom") output.push({ type: "custom_tool_call", call_id: callId, status: "completed", name: tool.bare, input: String(call.args.input ?? "") })
      else output.push({ type: "function_call", call_id: callId, status: "completed", ...(tool?.namespace ? { namespace: tool.namespace } : {}), name: tool?.bare ?? call.name, arguments: JSON.stringify(call.args) })
    }
    const usage = { input_tokens: 10, output_tokens: 10, total_tokens: 20 }
    const response = { id, object: "response", status: "completed", model: body.model ?? "m", output, usage }
    if (!body.stream) {
      res.end(JSON.stringify(response))
      return
    }
    /** @param {string} name @param {Record<string, unknown>} data */
    const event = (name, data) => res.write(`event: ${name}\ndata: ${JSON.stringify({ type: name, ...data })}\n\n`)
    event("response.created", { response: { ...response, status: "in_progress", output: [] } })
    output.forEach((item, index) => {
      event("response.output_item.added", { output_index: index, item })
      event("response.output_item.done", { output_index: index, item })
    })
    event("response.completed", { response })
    res.end()
  }

  /**
   * A Gemini API answer: the text and function calls as one candidate's
   * parts, streamed as one SSE chunk or sent whole.
   * @param {http.ServerResponse} res
   * @param {ChatRequest} body
   * @param {Reply} reply
   */
  function sendGemini(res, body, reply) {
    const parts = [...(reply.text ? [{ text: reply.text }] : []), ...(reply.calls ?? []).map((call) => ({ functionCall: { name: call.name, args: call.args } }))]
    const answer = {
      candidates: [{ content: { role: "model", parts: parts.length > 0 ? parts : [{ text: "" }] }, finishReason: "STOP", index: 0 }],
      usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 10, totalTokenCount: 20 },
      modelVersion: body.model ?? "m",
    }
    res.end(body.stream ? `data: ${JSON.stringify(answer)}\n\n` : JSON.stringify(answer))
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
    /** The OpenAI base URL (`…/v1`), as OpenAI-compatible providers and Codex take it. */
    url: `${origin}/v1`,
    /** The bare origin, as `ANTHROPIC_BASE_URL` and `GOOGLE_GEMINI_BASE_URL` take it. */
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
