// @ts-check
// The MCP server's stdio transport: one JSON-RPC message per line. It
// replaces the SDK's, which stops reading for good at the first message over
// 10 MB and says nothing to the client. Here a message of any size up to
// the limit is read (in time linear in its size), a larger one is skipped
// without being held in memory and answered with a JSON-RPC error carrying
// its id, a line that is not JSON-RPC gets a JSON-RPC error too, and the
// server keeps serving.
//
// Its memory is bounded whatever the client does, and no client can starve
// it:
// - At most `MAX_IN_FLIGHT` requests are being answered at once; the others
//   wait in order, at most `MAX_WAITING` of them (`MAX_WAITING_BYTES`), and
//   input is read on only while there is room for more.
// - A request leaves its slot when it is answered, or at once when the
//   client cancels it (the SDK sends no answer to a cancelled request); one
//   cancelled while it waits is dropped, never started.
// - Cancellations, pings, other notifications and answers need no slot: they
//   are handed on as soon as they are read, ahead of the requests waiting,
//   so a client can always reach a server whose slots are busy.
// - Every byte written counts, error replies to malformed lines included:
//   while more than `MAX_UNSENT_BYTES` wait to be written (a client that does
//   not read its output), no request is taken and no further line is read,
//   even of a chunk already received; a client that keeps sending waits on
//   its own full pipe, and reading resumes once output drains.
// - A request whose id is one not answered yet is refused, and so is a bad
//   message carrying such an id, without it: the answer would read as the
//   other request's.
// Nothing the server waits on comes from the client but its reading: the
// requests in its slots end on their own, so the waits above always end.
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
/** Bytes waiting to be written past which no request is taken and no input read. */
export const MAX_UNSENT_BYTES = 8 * 1024 * 1024
/** Requests read and waiting for a slot past which input is not read. */
export const MAX_WAITING = 64
/** The same in bytes (one request larger than this may still wait alone). */
export const MAX_WAITING_BYTES = 8 * 1024 * 1024

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

/**
 * A request read and not yet answered: waiting for a slot, in a slot, or a
 * ping (which needs none).
 * @typedef {"waiting" | "running" | "ping"} RequestState
 */

/**
 * Why `json` cannot be a JSON-RPC 2.0 message, if its shape says so.
 * @param {unknown} json
 * @returns {string | undefined}
 */
function notJsonRpc(json) {
  if (!json || typeof json !== "object" || Array.isArray(json)) return "it is not a JSON object"
  const message = /** @type {Record<string, unknown>} */ (json)
  if (message.jsonrpc !== "2.0") return 'its "jsonrpc" is not "2.0"'
  if ("method" in message || ("id" in message && ("result" in message || "error" in message))) return undefined
  return 'it has no "method" (a request or a notification) and no "id" with a "result" or an "error" (an answer)'
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
  /** @type {Buffer | null} the part of a chunk received and not read yet, while reading waits */
  #unread = null
  #paused = false
  #closed = false
  /** The input ended: close once every request read is answered. */
  #ending = false
  /** @type {{ message: JSONRPCMessage, key: string, bytes: number }[]} requests waiting for a slot, in order */
  #waiting = []
  #waitingBytes = 0
  /** @type {Map<string, RequestState>} the requests read and not answered, by id */
  #requests = new Map()
  /** Requests in a slot. */
  #running = 0

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
    this.output.on("drain", this.#onDrain)
    this.output.on("error", this.#onOutputError)
  }

  /**
   * Writes at once: what waits to be written is bounded by reading and
   * taking no more, not by holding each sender (and all its request held)
   * until the client reads.
   * @param {JSONRPCMessage} message
   * @returns {Promise<void>}
   */
  async send(message) {
    if ("id" in message && ("result" in message || "error" in message)) {
      const key = idKey(message.id)
      const state = this.#requests.get(key)
      // A request cancelled while it was answered has left its slot already.
      if (state === "running") this.#running -= 1
      if (state === "running" || state === "ping") this.#requests.delete(key)
    }
    this.#write(message)
  }

  /** @param {JSONRPCMessage} message */
  #write(message) {
    if (this.#closed) return
    this.output.write(`${JSON.stringify(message)}\n`)
    this.#pump()
  }

  /** Bytes written and not yet taken by the client. */
  #unsent() {
    return /** @type {{ writableLength?: number }} */ (this.output).writableLength ?? 0
  }

  /** Whether the next line of input may be read. */
  #canRead() {
    return !this.#closed && this.#unsent() <= MAX_UNSENT_BYTES && this.#waiting.length < MAX_WAITING && this.#waitingBytes <= MAX_WAITING_BYTES
  }

  /**
   * Hands on the requests waiting while a slot is free and output is not
   * backed up, then reads on if there is room again.
   */
  #pump() {
    while (!this.#closed && this.#waiting.length > 0 && this.#running < MAX_IN_FLIGHT && this.#unsent() <= MAX_UNSENT_BYTES) {
      const { message, key, bytes } = /** @type {{ message: JSONRPCMessage, key: string, bytes: number }} */ (this.#waiting.shift())
      this.#waitingBytes -= bytes
      this.#requests.set(key, "running")
      this.#running += 1
      this.onmessage?.(message)
    }
    if (this.#paused && this.#canRead()) {
      this.#paused = false
      const unread = this.#unread
      this.#unread = null
      if (unread) this.#read(unread)
      if (!this.#paused && !this.#closed) this.input.resume()
    }
    if (this.#ending && !this.#paused && this.#waiting.length === 0 && this.#requests.size === 0) void this.close()
  }

  async close() {
    if (this.#closed) return
    this.#closed = true
    this.input.off("data", this.#onData)
    this.input.off("end", this.#onEnd)
    this.input.off("error", this.#onError)
    this.output.off("drain", this.#onDrain)
    this.output.off("error", this.#onOutputError)
    if (this.input.listenerCount("data") === 0) this.input.pause()
    this.#pieces = []
    this.#skipping = null
    this.#unread = null
    this.#waiting = []
    this.#requests.clear()
    this.onclose?.()
  }

  #onEnd = () => {
    this.#ending = true
    this.#pump()
  }

  #onDrain = () => {
    this.#pump()
  }

  /** @param {Error} error */
  #onError = (error) => {
    this.onerror?.(error)
  }

  /**
   * The client stopped taking output (it closed its end): nothing more can
   * be answered.
   * @param {Error} error
   */
  #onOutputError = (error) => {
    this.onerror?.(error)
    void this.close()
  }

  /** @param {Buffer | string} chunk */
  #onData = (chunk) => {
    const bytes = typeof chunk === "string" ? Buffer.from(chunk, "utf8") : chunk
    if (this.#unread) this.#unread = Buffer.concat([this.#unread, bytes])
    else this.#read(bytes)
  }

  /**
   * Reads the lines of `bytes` while there is room, keeping the rest
   * unread and input paused once there is none.
   * @param {Buffer} bytes
   */
  #read(bytes) {
    let start = 0
    while (start < bytes.length) {
      if (!this.#canRead()) {
        this.#unread = bytes.subarray(start)
        if (!this.#paused && !this.#closed) {
          this.#paused = true
          this.input.pause()
        }
        return
      }
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
    // The shape first: a schema's failure costs far more than a line's
    // reading, and its report is kilobytes long.
    const wrong = notJsonRpc(json)
    const parsed = wrong ? undefined : JSONRPCMessageSchema.safeParse(json)
    if (!parsed?.success) {
      const id = json && typeof json === "object" && Object.hasOwn(json, "id") ? /** @type {{ id: unknown }} */ (json).id : null
      const why = wrong ?? 'a field has a type JSON-RPC 2.0 does not give it ("method" a string, "id" a string or a number, "params" an object)'
      this.#refuse(typeof id === "string" || typeof id === "number" ? id : null, ErrorCode.InvalidRequest, `The message is not a JSON-RPC 2.0 message: ${why}.`)
      return
    }
    this.#dispatch(parsed.data, line.length)
  }

  /**
   * A request waits for a slot (a ping needs none); a cancellation frees
   * its request's slot, or drops it if it is still waiting; anything else
   * is handed on at once.
   * @param {JSONRPCMessage} message
   * @param {number} bytes its size as read
   */
  #dispatch(message, bytes) {
    if ("method" in message && "id" in message) {
      const key = idKey(message.id)
      if (this.#requests.has(key)) {
        this.#refuse(message.id, ErrorCode.InvalidRequest, `The id ${key} is already the id of a request not answered yet: give each request an id of its own.`)
        return
      }
      if (message.method === "ping") {
        this.#requests.set(key, "ping")
        this.onmessage?.(message)
        return
      }
      this.#requests.set(key, "waiting")
      this.#waiting.push({ message, key, bytes })
      this.#waitingBytes += bytes
      this.#pump()
      return
    }
    if ("method" in message && message.method === "notifications/cancelled") {
      const key = idKey(/** @type {{ params?: { requestId?: unknown } }} */ (message).params?.requestId)
      const state = this.#requests.get(key)
      if (state === "waiting") {
        const at = this.#waiting.findIndex((w) => w.key === key)
        this.#waitingBytes -= this.#waiting[at].bytes
        this.#waiting.splice(at, 1)
        this.#requests.delete(key)
        this.#pump()
        return
      }
      if (state === "running") {
        this.#requests.delete(key)
        this.#running -= 1
        // The SDK stops the call; its slot is free now.
        this.onmessage?.(message)
        this.#pump()
        return
      }
    }
    this.onmessage?.(message)
  }

  /**
   * Answers a message that is not handed on. With the id of a request not
   * answered yet, the answer would read as that request's: it goes without.
   * @param {Id} id
   * @param {number} code
   * @param {string} message
   */
  #refuse(id, code, message) {
    const own = id !== null && this.#requests.has(idKey(id)) ? null : id
    this.#write(/** @type {JSONRPCMessage} */ ({ jsonrpc: "2.0", id: own, error: { code, message } }))
  }
}
