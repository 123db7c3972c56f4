// @ts-check
// How many tool calls the engine runs at once. The transport frees a
// cancelled request's slot at once, but the engine stops a cancelled call
// only at its next safe point (one waiting for a folder's lock waits it
// out), so the calls still under way are counted here until they end,
// cancelled or not: a client that cancels every call it makes cannot pile
// up work and the memory it holds. A call cancelled while it waits for its
// turn leaves at once, never started. (p-limit and p-queue would add a
// dependency for what this does in a few lines, and p-limit cannot drop a
// call that waits.)

/** The error of a call cancelled before its turn: nothing was written. */
function cancelled() {
  return Object.assign(new Error("Cancelled before anything was written: the call was stopped, and the files are as they were."), { name: "AbortError", code: "CANCELLED" })
}

export class Gate {
  #free
  /** @type {Set<() => void>} the calls waiting for their turn, in order */
  #queue = new Set()

  /** @param {number} limit calls at once */
  constructor(limit) {
    this.#free = limit
  }

  /**
   * Runs `work` once fewer than the limit are running, unless `signal`
   * aborts first.
   * @template T
   * @param {AbortSignal} signal
   * @param {() => Promise<T>} work
   * @returns {Promise<T>}
   */
  async run(signal, work) {
    if (signal.aborted) throw cancelled()
    if (this.#free > 0) this.#free -= 1
    else await this.#turn(signal)
    try {
      return await work()
    } finally {
      this.#release()
    }
  }

  /** @param {AbortSignal} signal */
  #turn(signal) {
    return new Promise((resolve, reject) => {
      const start = () => {
        signal.removeEventListener("abort", stop)
        resolve(undefined)
      }
      const stop = () => {
        this.#queue.delete(start)
        reject(cancelled())
      }
      signal.addEventListener("abort", stop, { once: true })
      this.#queue.add(start)
    })
  }

  /** Hands the place on to the first call waiting, if one is. */
  #release() {
    const [next] = this.#queue
    if (next) {
      this.#queue.delete(next)
      next()
    } else {
      this.#free += 1
    }
  }
}
