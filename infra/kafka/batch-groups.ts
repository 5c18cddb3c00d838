import type { RecordedEvent } from '../../ports/event-store.js'

interface Group {
  readonly events: RecordedEvent[]
  readonly done: Promise<void>
  readonly settle: (outcome: { readonly failed: unknown } | null) => void
}

const newGroup = (): Group => {
  let settle: Group['settle'] = () => {}
  const done = new Promise<void>((resolve, reject) => { settle = (outcome) => (outcome ? reject(outcome.failed) : resolve()) })
  done.catch(() => {}) // the partitions that added to the group receive the failure
  return { events: [], done, settle }
}

/**
 * Gathers what the partitions of one consumer hand over into groups handled one at a time: whatever arrives while a
 * group is handled (or within one turn of the event loop when idle, which is when a fetch's partitions arrive) forms
 * the next group. Each `add` resolves when its group was handled. One stream lives in one partition, and a partition
 * hands over its next events only after the previous ones were handled, so a group keeps each stream's order.
 */
export const makeBatchGroups = (handle: (events: readonly RecordedEvent[]) => Promise<void>) => {
  let gathering: Group | null = null
  let busy = false
  const start = () => {
    const group = gathering
    if (busy || group === null) return
    gathering = null
    busy = true
    handle(group.events).then(() => group.settle(null), (failed: unknown) => group.settle({ failed })).finally(() => {
      busy = false
      start()
    })
  }
  return (events: readonly RecordedEvent[]): Promise<void> => {
    if (gathering === null) {
      gathering = newGroup()
      if (!busy) setImmediate(start)
    }
    gathering.events.push(...events)
    return gathering.done
  }
}
