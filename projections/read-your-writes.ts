import { Effect } from 'effect'
import { getDoc, type Collection, type Stored } from './projection.js'

const PATIENCE_MS = 3_000

/**
 * The document once it reflects the log position a command returned (documents carry the `_position` of the last
 * event applied to them), or null when the read model has not caught up in ~3 s. A command's answer and the next
 * query then agree. Polls quickly at first and backs off, so many waiting requests do not flood a slow store.
 */
export const waitForPosition = <D extends Stored<object>>(collection: Collection<D>, id: string, position: number) =>
  Effect.gen(function* () {
    for (let waited = 0, delay = 2; ; waited += delay, delay = Math.min(100, delay * 2)) {
      const doc = yield* getDoc(collection, id)
      if (doc !== null && doc._position >= position) return doc
      if (waited >= PATIENCE_MS) return null
      yield* Effect.sleep(delay)
    }
  })
