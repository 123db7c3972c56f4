// @ts-check
// A scripted stand-in for an OpenAI-compatible chat-completions endpoint. It
// plays the model: each answer is computed from the conversation so far, the
// way a model would read refs out of earlier tool output.
import http from "node:http"

/**
 * @typedef {{ role: string, content?: any, tool_calls?: Array<{ id: string, function: { name: string, arguments: string } }>, tool_call_id?: string }} ChatMessage
 * @typedef {{ model?: string, messages: ChatMessage[], tools?: Array<{ type: string, function: { name: string, description?: string, parameters?: any } }>, stream?: boolean }} ChatRequest
 * @typedef {{ name: string, args: Record<string, unknown> }} ToolCall
 * @typedef {{ text: string } | { calls: ToolCall[] }} Reply
 * @typedef {{ request: ChatRequest, turn: number, toolOutputs: string[], lastToolOutput: string | undefined }} TurnContext
 * @typedef {(ctx: TurnContext) => Reply} Step
 */

/** @param {any} content */
function textOf(content) {
  if (typeof content === "string") return content
  if (Array.isArray(content)) {
    return content.map((part) => (typeof part === "string" ? part : typeof part?.text === "string" ? part.text : "")).join("")
  }
  return ""
}

/**
 * Starts the server. `steps[i]` answers the agent's i-th request of the run;
 * requests that offer no tools (titles, summaries) get a short text.
 * @param {Step[]} steps
 */
export async function startScriptedServer(steps) {
  /** @type {ChatRequest[]} */
  const requests = []
  /** @type {ChatRequest[]} */
  const agentRequests = []
  /** @type {string[]} */
  const errors = []
  let callCounter = 0

  const server = http.createServer((req, res) => {
    const chunks = /** @type {Buffer[]} */ ([])
    req.on("data", (chunk) => chunks.push(chunk))
    req.on("end", () => {
      if (req.method !== "POST" || !req.url?.endsWith("/chat/completions")) {
        res.writeHead(404, { "content-type": "application/json" })
        res.end(JSON.stringify({ error: { message: `unexpected ${req.method} ${req.url}` } }))
        return
      }
      /** @type {ChatRequest} */
      let body
      try {
        body = JSON.parse(Buffer.concat(chunks).toString("utf8"))
      } catch (err) {
        res.writeHead(400)
        res.end()
        return
      }
      requests.push(body)
      /** @type {Reply} */
      let reply
      if (!body.tools || body.tools.length === 0) {
        reply = { text: "Scripted run" }
      } else {
        const turn = agentRequests.length
        agentRequests.push(body)
        const toolOutputs = body.messages.filter((m) => m.role === "tool").map((m) => textOf(m.content))
        const step = steps[turn]
        try {
          reply = step
            ? step({ request: body, turn, toolOutputs, lastToolOutput: toolOutputs[toolOutputs.length - 1] })
            : { text: "Done." }
        } catch (err) {
          errors.push(`step ${turn}: ${err instanceof Error ? err.stack : String(err)}`)
          reply = { text: "The script could not continue." }
        }
      }
      send(res, body, reply)
    })
  })

  /**
   * @param {http.ServerResponse} res
   * @param {ChatRequest} body
   * @param {Reply} reply
   */
  function send(res, body, reply) {
    const id = `chatcmpl-${requests.length}`
    const created = Math.floor(Date.now() / 1000)
    const model = body.model ?? "m"
    const calls =
      "calls" in reply
        ? reply.calls.map((call, index) => ({
            index,
            id: `call_${++callCounter}`,
            type: "function",
            function: { name: call.name, arguments: JSON.stringify(call.args) },
          }))
        : []
    const finish = calls.length > 0 ? "tool_calls" : "stop"
    const text = "text" in reply ? reply.text : ""
    const usage = { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 }

    if (!body.stream) {
      res.writeHead(200, { "content-type": "application/json" })
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

    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" })
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

  await new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(undefined)))
  const address = server.address()
  if (!address || typeof address === "string") throw new Error("the scripted server has no port")

  return {
    url: `http://127.0.0.1:${address.port}/v1`,
    requests,
    agentRequests,
    errors,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve(undefined))
      }),
  }
}
