import { Effect, Exit } from 'effect'
import type { CheckpointStore } from './catch-up.js'

/**
 * How long a moved checkpoint may wait before it is saved. Subscriptions move theirs after nearly every event; saving
 * the moved ones together a few times a second costs one write of the store instead of one per subscription and
 * event. A checkpoint only bounds redelivery after a crash (handlers are idempotent), so the wait costs no guarantee.
 */
export const CHECKPOINT_SAVE_MS = 100

interface Tracked {
  readonly name: string
  persisted: number
  wanted: number
}

/**
 * Saves the durable checkpoints of a log's subscriptions: those that moved, together in one write (one effect run for
 * all of them), at most every CHECKPOINT_SAVE_MS. One write in flight at a time; positions reached meanwhile are
 * saved (the latest only) by the next.
 */
export const makeCheckpointSaver = (checkpoints: CheckpointStore, log: (message: string, detail?: unknown) => void) => {
  const due = new Set<Tracked>()
  let timer: NodeJS.Timeout | null = null
  let writing: Promise<void> | null = null

  const later = () => { timer ??= setTimeout(saveDue, CHECKPOINT_SAVE_MS).unref() }

  /** Writes the due checkpoints that moved past their saved position; resolves once written (or the failure logged). */
  const write = async (): Promise<void> => {
    const round = [...due].filter((tracked) => tracked.wanted > tracked.persisted)
    due.clear()
    if (round.length === 0) return
    const positions = new Map(round.map((tracked) => [tracked.name, tracked.wanted]))
    const exit = await Effect.runPromiseExit(checkpoints.saveAll(positions))
    for (const tracked of round) {
      if (Exit.isSuccess(exit)) tracked.persisted = Math.max(tracked.persisted, positions.get(tracked.name)!)
      else log(`subscriber ${tracked.name} could not save its checkpoint`, exit.cause)
    }
  }

  /** Starts a write unless one is in flight (then the moved ones wait for the next round); answers it. */
  function saveDue(): Promise<void> {
    timer = null
    if (writing !== null) {
      later()
      return writing
    }
    writing = write().finally(() => { writing = null })
    return writing
  }

  return {
    /** The checkpoint of subscriber `name`, saved as `start`. */
    track: (name: string, start: number) => {
      const tracked: Tracked = { name, persisted: start, wanted: start }
      return {
        /** The checkpoint moved forward (to a position past finished events only). */
        moved: (position: number) => {
          if (position <= tracked.wanted) return
          tracked.wanted = position
          due.add(tracked)
          later()
        },
        /** Saves the latest position at once; resolves once it is written (or its failure logged). */
        flush: async () => {
          while (writing !== null) await writing
          if (tracked.wanted <= tracked.persisted) return
          due.add(tracked)
          await saveDue()
        },
      }
    },
  }
}
