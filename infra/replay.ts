import { Effect } from 'effect'
import { streamCategory } from '../domain/events.js'
import type { Projection } from '../projections/projection.js'
import type { ProcessAdapters } from './adapters.js'

/**
 * Rebuilds read models from position 0: clears their collections, then folds the whole log in order.
 * Run it while no projector is running (the service stopped), or the live projector races the rebuild.
 */
export const replayProjections = async (
  adapters: ProcessAdapters,
  projections: readonly Projection[],
  run: <A, E>(effect: Effect.Effect<A, E, any>) => Promise<A>,
): Promise<Record<string, number>> => {
  const counts: Record<string, number> = {}
  for (const projection of projections) {
    for (const collection of projection.collections) await Effect.runPromise(adapters.documents.clear(collection))
    counts[projection.name] = 0
  }
  let after = 0
  for (;;) {
    const batch = await Effect.runPromise(adapters.eventStore.readAll(after, 1000))
    if (batch.length === 0) break
    for (const event of batch) {
      const category = streamCategory(event.stream)
      for (const projection of projections) {
        if (!projection.categories.includes(category)) continue
        await run(projection.apply(event))
        counts[projection.name]! += 1
      }
      after = event.position
    }
  }
  // The rebuilt models reflect the log up to `after`: live projectors resume from there.
  for (const projection of projections) {
    const log = projection.ordering === 'log' ? adapters.storeLog : adapters.eventLog
    await Effect.runPromise(log.setCheckpoint(projection.name, after))
  }
  return counts
}
