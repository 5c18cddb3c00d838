import { Effect } from 'effect'
import { DocumentStore, type DocumentStoreService } from '../ports/document-store.js'

/** Answers remembered per reading and document store (all forgotten past this many). */
const REMEMBERED = 1024

/**
 * A reading of some collections that is kept while none of them changes: the document store's generation of the
 * collections is taken before the read and compared at each later call, so the first call after any change (a write,
 * a rolled back batch, another process's commit) reads again, and a write during the read is never remembered as
 * read. From a store that cannot tell its generations (`generation` left out), every call reads. Only answers `keep`
 * accepts are remembered. Callers must not change what they get: it is shared by every call until a change.
 */
export const rememberedWhileUnchanged = <A, E>(
  collections: readonly string[],
  read: (key: string) => Effect.Effect<A, E, DocumentStore>,
  keep: (answer: A) => boolean = () => true,
) => {
  const remembered = new WeakMap<DocumentStoreService, Map<string, { readonly generation: number; readonly answer: A }>>()
  /** The answer remembered for `key` while the collections are unchanged, without reading (undefined: not known). */
  const peek = (docs: DocumentStoreService, key: string): A | undefined => {
    if (!docs.generation) return undefined
    const hit = remembered.get(docs)?.get(key)
    return hit && hit.generation === docs.generation(collections) ? hit.answer : undefined
  }
  const recall = (key: string): Effect.Effect<A, E, DocumentStore> => Effect.flatMap(DocumentStore, (docs) => {
    if (!docs.generation) return read(key)
    const generation = docs.generation(collections)
    let known = remembered.get(docs)
    if (!known) remembered.set(docs, (known = new Map()))
    const hit = known.get(key)
    if (hit && hit.generation === generation) return Effect.succeed(hit.answer)
    return Effect.tap(read(key), (answer) => {
      if (!keep(answer)) return
      if (known.size >= REMEMBERED) known.clear()
      known.set(key, { generation, answer })
    })
  })
  return Object.assign(recall, { peek })
}
