/**
 * Counts a page's requests in flight, so the job can wait for lazy content a scroll triggered before capturing.
 * Long-lived requests (long polling, event streams) never finish: waiting is always bounded by a timeout.
 */
export class InFlightRequests {
  readonly #pending = new Set<unknown>()
  #lastChange = Date.now()

  started(request: unknown): void {
    this.#pending.add(request)
    this.#lastChange = Date.now()
  }

  ended(request: unknown): void {
    if (this.#pending.delete(request)) this.#lastChange = Date.now()
  }

  async quiet(quietMs: number, timeoutMs: number): Promise<void> {
    const until = Date.now() + timeoutMs
    while (Date.now() < until) {
      if (this.#pending.size === 0 && Date.now() - this.#lastChange >= quietMs) return
      await new Promise((r) => setTimeout(r, 50))
    }
  }
}
