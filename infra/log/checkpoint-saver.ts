import { Effect } from 'effect'
import type { CheckpointStore } from './catch-up.js'

/**
 * How long a moved checkpoint may wait before it is saved. Subscriptions move theirs after nearly every event; saving
 * the moved ones together a few times a second costs one write of the store instead of one per subscription and
 * event. A checkpoint only bounds redelivery after a crash (handlers are idempotent), so the wait costs no guarantee.
 */
export const CHECKPOINT_SAVE_MS = 100

/** Saves the durable checkpoints of a log's subscriptions: those that moved, together, at most every CHECKPOINT_SAVE_MS. */
export const makeCheckpointSaver = (checkpoints: CheckpointStore, log: (message: string, detail?: unknown) => void) => {
  const due = new Set<() => void>()
  let timer: NodeJS.Timeout | null = null
  const saveDue = () => {
    timer = null
    const saves = [...due]
    due.clear()
    for (const save of saves) save()
  }

  return {
    /** The checkpoint of subscriber `name`, saved as `start`. */
    track: (name: string, start: number) => {
      let persisted = start
      let wanted = start
      // One save in flight at a time; positions reached meanwhile are saved (the latest only) after it.
      let saving: Promise<void> | null = null
      const save = () => {
        if (saving !== null || wanted <= persisted) return
        const position = wanted
        saving = Effect.runPromise(checkpoints.save(name, position)).then(
          () => {
            persisted = position
            saving = null
            if (wanted > persisted) later()
          },
          (e: unknown) => {
            saving = null
            log(`subscriber ${name} could not save its checkpoint`, e)
          },
        )
      }
      const later = () => {
        due.add(save)
        timer ??= setTimeout(saveDue, CHECKPOINT_SAVE_MS).unref()
      }
      return {
        /** The checkpoint moved forward (to a position past finished events only). */
        moved: (position: number) => {
          if (position <= wanted) return
          wanted = position
          later()
        },
        /** Saves the latest position at once; resolves once it is written (or its failure logged). */
        flush: async () => {
          due.delete(save)
          if (saving !== null) await saving
          save()
          if (saving !== null) await saving
        },
      }
    },
  }
}
