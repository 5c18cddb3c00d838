import type { Consumer } from 'kafkajs'

/**
 * Commits, per partition, the offset after the last message finished with every earlier one (at-least-once: a
 * restart resumes there). One commit at a time; offsets reached meanwhile leave together in the next. An offset never
 * moves back: after a rebalance the same messages may be delivered again, and finishing them again changes nothing.
 * A commit that fails (a rebalance in progress) is retried with the next one.
 */
export const makeFinishedOffsets = (consumer: Consumer, log: (message: string, detail?: unknown) => void) => {
  /** Per `topic/partition`: the next offset to consume, and whether it was committed. */
  const wanted = new Map<string, { readonly topic: string; readonly partition: number; readonly offset: number; committed: boolean }>()
  let committing: Promise<void> | null = null
  const commit = (): Promise<void> => {
    committing ??= (async () => {
      for (;;) {
        const due = [...wanted.values()].filter((entry) => !entry.committed)
        if (due.length === 0) return
        const offsets = due.map(({ topic, partition, offset }) => ({ topic, partition, offset: String(offset) }))
        for (const entry of due) entry.committed = true
        try {
          await consumer.commitOffsets(offsets)
        } catch (error) {
          for (const entry of due) entry.committed = false
          log('could not commit consumed offsets (retried with the next ones)', error)
          return
        }
      }
    })().finally(() => { committing = null })
    return committing
  }
  return {
    /** The message at `offset` of a partition finished, with every earlier one. */
    finished: (topic: string, partition: number, offset: number) => {
      const key = `${topic}/${partition}`
      const entry = wanted.get(key)
      if (entry && entry.offset > offset) return
      wanted.set(key, { topic, partition, offset: offset + 1, committed: false })
      void commit()
    },
    /** Commits what finished since the last commit (when stopping). */
    flush: async () => {
      while (committing) await committing
      await commit()
    },
  }
}
