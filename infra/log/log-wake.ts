import type { EventEmitter } from 'node:events'

/**
 * When a log's readers look for new events: at once after an append of this process, else after the poll interval
 * (appends of other processes). One timer and one append listener per log, however many readers wait. Each call to
 * `fire` starts a new generation; a reader that read during an older one does not wait at all, so an append made
 * while it was busy is never missed.
 */
export const makeLogWake = (pollMs: number, appended?: EventEmitter) => {
  let generation = 0
  let waiters: (() => void)[] = []
  let timer: NodeJS.Timeout | null = null
  let readers = 0

  const fire = () => {
    generation += 1
    if (timer !== null) clearTimeout(timer)
    timer = null
    const woken = waiters
    waiters = []
    for (const resolve of woken) resolve()
  }

  return {
    fire,
    /** The current generation: read it before reading the log. */
    generation: () => generation,
    /** Calls `woken` at the first wake after generation `seen` (at once when there was one already). */
    onNext: (seen: number, woken: () => void): void => {
      if (generation !== seen) return woken()
      timer ??= setTimeout(fire, pollMs)
      waiters.push(woken)
    },
    /** A reader starts or stops: the append listener is held while any reader runs. */
    join: () => {
      if (readers++ === 0) appended?.on('append', fire)
    },
    leave: () => {
      if (--readers > 0) return
      appended?.off('append', fire)
      if (timer !== null) clearTimeout(timer)
      timer = null
    },
  }
}
