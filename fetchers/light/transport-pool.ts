/**
 * One light-tier transport per organization, shared by that organization's jobs and closed when idle.
 *
 * Building a transport (its TLS certificate store) costs milliseconds of main-thread CPU, which a transport per job
 * would pay on every job. Sharing one across organizations would let a target link two customers' jobs by a reused
 * connection or TLS session; sharing within one organization only reveals what the customer already knows.
 */
export interface PooledTransport {
  readonly close: () => Promise<void>
}

export interface TransportPoolOptions<T extends PooledTransport> {
  readonly create: () => Promise<T>
  /** A transport no job has used for this long is closed (its connections with it). */
  readonly idleMs: number
  /** At most this many organizations keep an idle transport; the least recently used one is closed first. */
  readonly maxIdle: number
  /** Runs `fire` after `ms` and answers how to cancel it; a test passes its own. Defaults to an unref'ed timer. */
  readonly setTimer?: (fire: () => void, ms: number) => () => void
}

const unrefTimer = (fire: () => void, ms: number) => {
  const timer = setTimeout(fire, ms)
  timer.unref()
  return () => clearTimeout(timer)
}

interface Entry<T> {
  readonly transport: Promise<T>
  leases: number
  lastUsed: number
  cancelIdleTimer?: () => void
}

export interface TransportPool<T> {
  /** The organization's transport; call `release` once the job is done with it. */
  readonly lease: (orgId: string) => Promise<{ readonly transport: T; readonly release: () => void }>
  readonly close: () => Promise<void>
}

export const makeTransportPool = <T extends PooledTransport>(options: TransportPoolOptions<T>): TransportPool<T> => {
  const entries = new Map<string, Entry<T>>()
  const setTimer = options.setTimer ?? unrefTimer

  const discard = (orgId: string, entry: Entry<T>) => {
    entry.cancelIdleTimer?.()
    entries.delete(orgId)
    void entry.transport.then((t) => t.close()).catch(() => {})
  }

  // Housekeeping only (no business decision): keeps the number of idle transports and their connections bounded.
  const trimIdle = () => {
    const idle = [...entries].filter(([, e]) => e.leases === 0).sort(([, a], [, b]) => a.lastUsed - b.lastUsed)
    for (const [orgId, entry] of idle.slice(0, Math.max(0, idle.length - options.maxIdle))) discard(orgId, entry)
  }

  const release = (orgId: string, entry: Entry<T>) => {
    entry.leases -= 1
    entry.lastUsed = performance.now()
    if (entry.leases > 0) return
    entry.cancelIdleTimer = setTimer(() => { if (entries.get(orgId) === entry && entry.leases === 0) discard(orgId, entry) }, options.idleMs)
    trimIdle()
  }

  return {
    lease: async (orgId) => {
      let entry = entries.get(orgId)
      if (!entry) {
        entry = { transport: options.create(), leases: 0, lastUsed: performance.now() }
        entries.set(orgId, entry)
        const created = entry
        // A transport that could not be built is forgotten, so the next job tries again.
        created.transport.catch(() => { if (entries.get(orgId) === created) entries.delete(orgId) })
      }
      entry.cancelIdleTimer?.()
      entry.leases += 1
      const leased = entry
      try {
        const transport = await leased.transport
        let released = false
        return { transport, release: () => { if (!released) { released = true; release(orgId, leased) } } }
      } catch (error) {
        leased.leases -= 1
        throw error
      }
    },
    close: async () => {
      const all = [...entries]
      entries.clear()
      await Promise.all(all.map(async ([, entry]) => {
        entry.cancelIdleTimer?.()
        await (await entry.transport.catch(() => null))?.close()
      }))
    },
  }
}
