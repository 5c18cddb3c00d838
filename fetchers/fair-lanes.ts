/**
 * Slots shared by organizations, handed out fairly (docs/fair-queueing.md): each organization (any key) waits in a
 * lane of its own, a freed slot goes to the next lane in turn (round-robin, not first come first served), and one
 * key holds at most `perKey` slots at once, so one organization's slow work always leaves slots for the others.
 */
export interface FairLanesLimits {
  /** Slots in all. */
  readonly slots: number
  /** Slots one key may hold at once (at most `slots`). */
  readonly perKey: number
}

interface Waiter {
  readonly grant: () => void
  readonly reject: (reason: unknown) => void
}

interface Lane {
  held: number
  readonly waiters: Waiter[]
}

/**
 * The slots a key may hold at once by default: all of a small pool (2 browser contexts stay usable by one
 * organization alone), otherwise all but a quarter, which stays for the others.
 */
export const defaultPerKey = (slots: number) => (slots <= 2 ? slots : slots - Math.ceil(slots / 4))

/**
 * Limits where a slot is cheap to add (a light fetch is a socket, not a browser): one organization alone keeps all
 * `perKey` slots, so a single-tenant installation loses nothing to fairness, and a reserve of a quarter more exists
 * only for the others.
 */
export const withReserve = (perKey: number): FairLanesLimits => ({ slots: perKey + Math.ceil(perKey / 4), perKey })

export class FairLanes {
  readonly #limits: FairLanesLimits
  readonly #lanes = new Map<string, Lane>()
  /** Keys with waiters and room under `perKey`, in the order they are served. */
  readonly #turns: string[] = []
  #held = 0

  constructor(limits: FairLanesLimits) {
    this.#limits = { slots: Math.max(1, limits.slots), perKey: Math.max(1, Math.min(limits.perKey, limits.slots)) }
  }

  /** Slots one key holds now. */
  heldBy(key: string): number {
    return this.#lanes.get(key)?.held ?? 0
  }

  /** Takes a slot at once (true) when one is free for the key and no lane waits before it; false otherwise. */
  tryAcquire(key: string): boolean {
    const lane = this.#lanes.get(key)
    if (this.#held >= this.#limits.slots || this.#turns.length > 0) return false
    if (lane && (lane.held >= this.#limits.perKey || lane.waiters.length > 0)) return false
    this.#take(lane ?? this.#lane(key))
    return true
  }

  /** Waits for the key's turn; rejects with the signal's reason when it aborts first (the place is given up). */
  acquire(key: string, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(signal.reason)
    if (this.tryAcquire(key)) return Promise.resolve()
    const lane = this.#lane(key)
    return new Promise<void>((resolve, reject) => {
      const onAbort = () => {
        const i = lane.waiters.indexOf(waiter)
        if (i >= 0) lane.waiters.splice(i, 1)
        if (lane.waiters.length === 0) this.#leaveTurns(key)
        this.#forgetIfIdle(key, lane)
        reject(signal?.reason)
      }
      const waiter: Waiter = {
        grant: () => { signal?.removeEventListener('abort', onAbort); resolve() },
        reject: (reason) => { signal?.removeEventListener('abort', onAbort); reject(reason) },
      }
      signal?.addEventListener('abort', onAbort, { once: true })
      lane.waiters.push(waiter)
      if (lane.waiters.length === 1 && lane.held < this.#limits.perKey) this.#turns.push(key)
      this.#serve()
    })
  }

  /** Gives back one of the key's slots: the next lane in turn gets it. */
  release(key: string): void {
    const lane = this.#lanes.get(key)
    if (!lane || lane.held === 0) return
    lane.held -= 1
    this.#held -= 1
    // Back under its own limit: the lane takes its turn again.
    if (lane.held === this.#limits.perKey - 1 && lane.waiters.length > 0) this.#turns.push(key)
    this.#forgetIfIdle(key, lane)
    this.#serve()
  }

  /** Fails every waiter (shutdown). */
  rejectAll(reason: unknown): void {
    this.#turns.length = 0
    for (const [key, lane] of this.#lanes) {
      for (const waiter of lane.waiters.splice(0)) waiter.reject(reason)
      this.#forgetIfIdle(key, lane)
    }
  }

  /** Runs `work` in one of the key's slots. */
  async run<A>(key: string, work: () => Promise<A>, signal?: AbortSignal): Promise<A> {
    if (!this.tryAcquire(key)) await this.acquire(key, signal)
    try { return await work() } finally { this.release(key) }
  }

  #lane(key: string): Lane {
    let lane = this.#lanes.get(key)
    if (!lane) {
      lane = { held: 0, waiters: [] }
      this.#lanes.set(key, lane)
    }
    return lane
  }

  #take(lane: Lane) {
    lane.held += 1
    this.#held += 1
  }

  #leaveTurns(key: string) {
    const i = this.#turns.indexOf(key)
    if (i >= 0) this.#turns.splice(i, 1)
  }

  #forgetIfIdle(key: string, lane: Lane) {
    if (lane.held === 0 && lane.waiters.length === 0) this.#lanes.delete(key)
  }

  /** Hands free slots to the lanes in turn: each served lane goes to the back while it still waits and has room. */
  #serve() {
    while (this.#held < this.#limits.slots && this.#turns.length > 0) {
      const key = this.#turns.shift()!
      const lane = this.#lanes.get(key)
      const waiter = lane?.waiters.shift()
      if (!lane || !waiter) continue
      this.#take(lane)
      if (lane.waiters.length > 0 && lane.held < this.#limits.perKey) this.#turns.push(key)
      waiter.grant()
    }
  }
}
