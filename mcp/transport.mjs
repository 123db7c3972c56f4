// @ts-check
// The MCP server's stdio transport: one JSON-RPC message per line. It
// replaces the SDK's, which stops reading for good at the first message over
// 10 MB and says nothing to the client. Here a message of any size up to
// the limit is read (in time linear in its size), a larger one is skipped
// without being held in memory and answered with a JSON-RPC error carrying
// its id, a line that is not JSON-RPC gets a JSON-RPC error too, and the
// server keeps serving.
//
// Its memory is bounded whatever the client does: at most `MAX_IN_FLIGHT`
// requests are being answered at once, and no further request is taken
// while more than `MAX_UNSENT_BYTES` of answers wait to be written (a client
// that does not read its output). Meanwhile the transport stops reading
// its input, so a client that keeps sending waits on its own full pipe;
// reading resumes as answers go out.
import { ErrorCode, JSONRPCMessageSchema } from "@modelcontextprotocol/sdk/types.js"

/**
 * @typedef {import("@modelcontextprotocol/sdk/types.js").JSONRPCMessage} JSONRPCMessage
 * @typedef {import("@modelcontextprotocol/sdk/shared/transport.js").Transport} Transport
 * @typedef {string | number | null} Id
 */

const NEWLINE = 0x0a
const QUOTE = 0x22
const BACKSLASH = 0x5c

/** Requests answered at once: as many as the engine has threads. */
export const MAX_IN_FLIGHT = 4
/** Answers waiting to be written past which no request is taken. */
export const MAX_UNSENT_BYTES = 8 * 1024 * 1024

/**
 * The key a request's id is counted under while it is answered.
 * @param {unknown} id
 */
const idKey = (id) => JSON.stringify(id)

/**
 * Finds the top-level `"id"` of a JSON object streamed through it, without
 * keeping the rest: how a message too large to read is still answered with
 * its id.
 */
export class IdScanner {
  depth = 0
  inString = false
  escaped = false
  /** The next string at depth 1 is a key. */
  expectKey = false
  /** @type {number[] | null} the bytes of the key being read, while short enough to be "id" */
  key = null
  /** The key just read was "id" and its value comes after the colon. */
  idNext = false
  /** @type {number[] | null} the bytes of the id's value being read */
  value = null
  /** @type {Id | undefined} */
  id = undefined

  /** @param {Uint8Array} bytes */
  feed(bytes) {
    let i = 0
    while (i < bytes.length) {
      if (this.inString) {
        if (this.escaped) {
          this.escaped = false
          this.keep(bytes[i])
          i += 1
          continue
        }
        if (this.key === null && this.value === null) {
          // Nothing of this string is kept: jump to its next quote or escape.
          const quote = bytes.indexOf(QUOTE, i)
          const escape = bytes.indexOf(BACKSLASH, i)
          const next = quote === -1 ? escape : escape === -1 ? quote : Math.min(quote, escape)
          if (next === -1) return
          i = next
        }
        const b = bytes[i]
        if (b === BACKSLASH) this.escaped = true
        if (b === QUOTE) this.endString()
        else this.keep(b)
        i += 1
        continue
      }
      this.structural(bytes[i])
      i += 1
    }
  }

  /** @param {number} b */
  keep(b) {
    if (this.key !== null) {
      this.key.push(b)
      if (this.key.length > 4) this.key = null
    }
    if (this.value !== null) {
      this.value.push(b)
      if (this.value.length > 256) this.value = null
    }
  }

  endString() {
    this.inString = false
    if (this.key !== null) {
      this.idNext = String.fromCharCode(...this.key) === "id"
      this.key = null
    } else if (this.value !== null) {
      this.value.push(QUOTE)
      this.endValue()
    }
  }

  /** @param {number} b */
  structural(b) {
    const ch = String.fromCharCode(b)
    if (ch === '"') {
      this.inString = true
      if (this.depth === 1 && this.expectKey) {
        this.expectKey = false
        this.key = []
      } else if (this.value !== null) {
        this.value.push(b)
      }
      return
    }
    if (ch === "{" || ch === "[") {
      this.depth += 1
      if (this.depth === 1) this.expectKey = ch === "{"
      // An object or array is no id.
      this.value = null
      return
    }
    if (ch === "}" || ch === "]" || ch === ",") {
      if (this.depth === 1) this.endValue()
      if (ch === ",") this.expectKey = this.depth === 1
      else this.depth -= 1
      return
    }
    if (ch === ":") {
      if (this.depth === 1 && this.idNext) this.value = []
      this.idNext = false
      return
    }
    if (ch === " " || ch === "\t" || ch === "\r" || ch === "\n") {
      if (this.value !== null && this.value.length > 0) this.endValue()
      return
    }
    if (this.value !== null) this.value.push(b)
  }

  endValue() {
    if (this.value === null || this.value.length === 0) return
    try {
      const id = JSON.parse(Buffer.from(this.value).toString("utf8"))
      if (typeof id === "string" || typeof id === "number") this.id = id
    } catch {
      // Not an id JSON-RPC allows: the reply goes out with a null id.
    }
    this.value = null
  }
}

/** @implements {Transport} */
export class LineTransport {
  /** @type {Transport["onmessage"]} */
  onmessage = undefined
  /** @type {Transport["onerror"]} */
  onerror = undefined
  /** @type {Transport["onclose"]} */
  onclose = undefined

  /** @type {Buffer[]} the pieces of the line being read */
  #pieces = []
  #size = 0
  /** @type {{ scanner: IdScanner, bytes: number } | null} a message over the limit, being skipped */
  #skipping = null
  #decoder = new TextDecoder("utf-8", { fatal: true })
  #closed = false
  /** @type {JSONRPCMessage[]} messages read and not yet handed on */
  #waiting = []
  /** @type {Map<string, number>} the requests handed on and not yet answered, by id */
  #inFlight = new Map()
  #paused = false
  /** The input ended: close once every message read is answered. */
  #ending = false

  /**
   * @param {{ input?: NodeJS.ReadableStream, output?: NodeJS.WritableStream, maxMessageBytes: number }} options
   */
  constructor({ input = process.stdin, output = process.stdout, maxMessageBytes }) {
    this.input = input
    this.output = output
    this.maxMessageBytes = maxMessageBytes
  }

  async start() {
    this.input.on("data", this.#onData)
    this.input.on("end", this.#onEnd)
    this.input.on("error", this.#onError)
  }

  /**
   * @param {JSONRPCMessage} message
   * @returns {Promise<void>}
   */
  send(message) {
    if ("id" in message && ("result" in message || "error" in message)) {
      const key = idKey(message.id)
      const count = this.#inFlight.get(key)
      if (count === 1) this.#inFlight.delete(key)
      else if (count !== undefined) this.#inFlight.set(key, count - 1)
    }
    return new Promise((resolve) => {
      if (this.output.write(`${JSON.stringify(message)}\n`)) {
        resolve()
        this.#pump()
      } else {
        this.output.once("drain", () => {
          resolve()
          this.#pump()
        })
      }
    })
  }

  /** Whether another request may be taken now. */
  #room() {
    const unsent = /** @type {{ writableLength?: number }} */ (this.output).writableLength ?? 0
    let inFlight = 0
    for (const count of this.#inFlight.values()) inFlight += count
    return inFlight < MAX_IN_FLIGHT && unsent <= MAX_UNSENT_BYTES
  }

  /** Hands on the messages read while there is room, and reads on only then. */
  #pump() {
    while (!this.#closed && this.#waiting.length > 0 && this.#room()) {
      const message = /** @type {JSONRPCMessage} */ (this.#waiting.shift())
      if ("method" in message && "id" in message) {
        const key = idKey(message.id)
        this.#inFlight.set(key, (this.#inFlight.get(key) ?? 0) + 1)
      }
      this.onmessage?.(message)
    }
    if (this.#ending && this.#waiting.length === 0 && this.#inFlight.size === 0) {
      void this.close()
      return
    }
    const stop = this.#waiting.length > 0 || !this.#room()
    if (stop && !this.#paused && !this.#closed) {
      this.#paused = true
      this.input.pause()
    } else if (!stop && this.#paused && !this.#closed) {
      this.#paused = false
      this.input.resume()
    }
  }

  async close() {
    if (this.#closed) return
    this.#closed = true
    this.input.off("data", this.#onData)
    this.input.off("end", this.#onEnd)
    this.input.off("error", this.#onError)
    if (this.input.listenerCount("data") === 0) this.input.pause()
    this.#pieces = []
    this.#skipping = null
    this.#waiting = []
    this.#inFlight.clear()
    this.onclose?.()
  }

  #onEnd = () => {
    this.#ending = true
    this.#pump()
  }

  /** @param {Error} error */
  #onError = (error) => {
    this.onerror?.(error)
  }

  /** @param {Buffer | string} chunk */
  #onData = (chunk) => {
    const bytes = typeof chunk === "string" ? Buffer.from(chunk, "utf8") : chunk
    let start = 0
    while (start < bytes.length) {
      const end = bytes.indexOf(NEWLINE, start)
      this.#take(bytes.subarray(start, end === -1 ? bytes.length : end))
      if (end === -1) return
      this.#endLine()
      start = end + 1
    }
  }

  /** @param {Buffer} piece */
  #take(piece) {
    if (this.#skipping) {
      this.#skipping.scanner.feed(piece)
      this.#skipping.bytes += piece.length
      return
    }
    if (this.#size + piece.length > this.maxMessageBytes) {
      const scanner = new IdScanner()
      for (const held of this.#pieces) scanner.feed(held)
      scanner.feed(piece)
      this.#skipping = { scanner, bytes: this.#size + piece.length }
      this.#pieces = []
      this.#size = 0
      return
    }
    this.#pieces.push(piece)
    this.#size += piece.length
  }

  #endLine() {
    const skipped = this.#skipping
    if (skipped) {
      this.#skipping = null
      this.#refuse(
        skipped.scanner.id ?? null,
        ErrorCode.InvalidRequest,
        `The message is ${skipped.bytes} bytes, over this server's limit of ${this.maxMessageBytes} bytes, and was not read. Send less in one call: edit a large file in several smaller edits.`,
      )
      return
    }
    const line = this.#pieces.length === 1 ? this.#pieces[0] : Buffer.concat(this.#pieces, this.#size)
    this.#pieces = []
    this.#size = 0
    this.#message(line)
  }

  /** @param {Buffer} line */
  #message(line) {
    let text
    try {
      text = this.#decoder.decode(line)
    } catch {
      this.#refuse(null, ErrorCode.ParseError, "The message is not valid UTF-8.")
      return
    }
    if (text.trim() === "") return
    /** @type {unknown} */
    let json
    try {
      json = JSON.parse(text)
    } catch (err) {
      this.#refuse(null, ErrorCode.ParseError, `The message is not valid JSON: ${err instanceof Error ? err.message : String(err)}`)
      return
    }
    const parsed = JSONRPCMessageSchema.safeParse(json)
    if (!parsed.success) {
      const id = json && typeof json === "object" && Object.hasOwn(json, "id") ? /** @type {{ id: unknown }} */ (json).id : null
      this.#refuse(typeof id === "string" || typeof id === "number" ? id : null, ErrorCode.InvalidRequest, `The message is not a JSON-RPC 2.0 message: ${parsed.error.message}`)
      return
    }
    this.#waiting.push(parsed.data)
    this.#pump()
  }

  /**
   * @param {Id} id
   * @param {number} code
   * @param {string} message
   */
  #refuse(id, code, message) {
    void this.send(/** @type {JSONRPCMessage} */ ({ jsonrpc: "2.0", id, error: { code, message } }))
  }
}
