/** A counting semaphore with FIFO waiters; a waiter whose signal aborts leaves the queue. */
export class Semaphore {
  #available: number
  readonly #waiters: { grant: () => void; reject: (e: unknown) => void }[] = []

  constructor(permits: number) {
    this.#available = permits
  }

  get waiting(): number {
    return this.#waiters.length
  }

  acquire(signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(signal.reason)
    if (this.#available > 0) {
      this.#available -= 1
      return Promise.resolve()
    }
    return new Promise<void>((resolve, reject) => {
      const onAbort = () => {
        const i = this.#waiters.indexOf(waiter)
        if (i >= 0) this.#waiters.splice(i, 1)
        reject(signal?.reason)
      }
      const waiter = {
        grant: () => { signal?.removeEventListener('abort', onAbort); resolve() },
        reject: (e: unknown) => { signal?.removeEventListener('abort', onAbort); reject(e) },
      }
      signal?.addEventListener('abort', onAbort, { once: true })
      this.#waiters.push(waiter)
    })
  }

  release(): void {
    const next = this.#waiters.shift()
    if (next) next.grant()
    else this.#available += 1
  }

  /** Fails every waiter (shutdown). */
  rejectAll(error: unknown): void {
    for (const waiter of this.#waiters.splice(0)) waiter.reject(error)
  }
}
