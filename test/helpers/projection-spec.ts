import { readdirSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { isDeepStrictEqual } from 'node:util'
import { Effect } from 'effect'
import type { Test } from 'tap'
import { streamCategory } from '../../domain/streams.js'
import { makeMemoryDocumentStore } from '../../infra/memory/document-store.js'
import { DocumentStore, type Doc } from '../../ports/document-store.js'
import type { RecordedEvent } from '../../ports/event-store.js'
import { PROJECTIONS } from '../../projections/index.js'
import type { Projection } from '../../projections/projection.js'

/** Every collection of a projection with its documents, in id order. */
export type Documents = Readonly<Record<string, readonly Doc[]>>

/** One area's projection spec (`test/unit/projection-specs/<area>.ts` exports it as `spec`). */
export interface ProjectionSpecFile {
  /** The events the expectations are about, recorded through the real deciders. */
  readonly history: () => Promise<readonly RecordedEvent[]>
  /** What each projection's documents must say after the history, by projection name. */
  readonly expectations: Readonly<Record<string, (t: Test, documents: Documents) => void>>
}

const SPECS_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', 'unit', 'projection-specs')

/**
 * For every area's spec file and every projection with events in its history: those events, and the documents applying
 * each alone (in log order) leaves, which a way of applying them in batches must leave too.
 */
export async function* specHistories() {
  for (const name of readdirSync(SPECS_DIR).filter((file) => file.endsWith('.ts')).sort()) {
    const { spec } = (await import(join(SPECS_DIR, name))) as { spec: ProjectionSpecFile }
    const history = await spec.history()
    for (const projection of PROJECTIONS) {
      const events = history.filter((event) => projection.categories.includes(streamCategory(event.stream)))
      if (events.length > 0) yield { name, projection, events, expected: await project(projection, events) }
    }
  }
}

/** Applies events in the given delivery order to a fresh in-memory document store and answers the documents. */
export const project = async (projection: Projection, deliveries: readonly RecordedEvent[]): Promise<Documents> => {
  const docs = makeMemoryDocumentStore()
  const provided = <A, E>(effect: Effect.Effect<A, E, DocumentStore>) => Effect.runPromise(Effect.provideService(effect, DocumentStore, docs))
  for (const event of deliveries) await provided(projection.apply(event))
  const collections = await Promise.all(projection.collections.map(async (name) => [name, await provided(docs.find(name, {}))] as const))
  return Object.fromEntries(collections)
}

/** A seeded generator in [0, 1) (mulberry32), so a failing order can be replayed from its seed. */
const seeded = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0
  let x = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x
  return ((x ^ (x >>> 14)) >>> 0) / 4294967296
}
type Random = () => number
const pick = <A>(random: Random, items: readonly A[]): A => items[Math.floor(random() * items.length)]!

/**
 * At-least-once delivery of one ordered sequence: after an event, sometimes one earlier event again (a retried
 * handler, a duplicate publish), sometimes everything again from an earlier point (a restart from an older checkpoint
 * or committed offset).
 */
const withRedelivery = (events: readonly RecordedEvent[], random: Random): RecordedEvent[] => {
  const out: RecordedEvent[] = []
  events.forEach((event, i) => {
    out.push(event)
    const roll = random()
    if (roll < 0.2) out.push(pick(random, events.slice(0, i + 1)))
    else if (roll < 0.35) out.push(...events.slice(Math.floor(random() * (i + 1)), i + 1))
  })
  return out
}

/** Streams delivered side by side in a random interleaving, each stream in its own order (Kafka partitions by stream). */
const interleavedStreams = (events: readonly RecordedEvent[], random: Random): RecordedEvent[] => {
  const queues = new Map<string, RecordedEvent[]>()
  for (const event of events) queues.set(event.stream, [...(queues.get(event.stream) ?? []), event])
  const pending = [...queues.values()].map((queue) => withRedelivery(queue, random))
  const out: RecordedEvent[] = []
  while (pending.length > 0) {
    const i = Math.floor(random() * pending.length)
    out.push(pending[i]!.shift()!)
    if (pending[i]!.length === 0) pending.splice(i, 1)
  }
  return out
}

/** The delivery orders the projection's log may produce: per-stream order only, or the log's total order. */
export const possibleDeliveries = (projection: Projection, events: readonly RecordedEvent[], seed: number): RecordedEvent[] =>
  projection.ordering === 'stream' ? interleavedStreams(events, seeded(seed)) : withRedelivery(events, seeded(seed))

const samePositions = (a: readonly RecordedEvent[], b: readonly RecordedEvent[]) =>
  a.length === b.length && a.every((event, i) => event.position === b[i]!.position)

/**
 * The projection spec every projection passes: the events of its categories, delivered in log order, give some
 * documents; delivered with every event twice, or in any order its log may deliver them with redeliveries (seeded,
 * `rounds` of them), they give the same documents. Answers the documents of the in-order delivery, for the caller to
 * check what they say.
 */
export const projectionSpec = async (t: Test, projection: Projection, history: readonly RecordedEvent[], rounds = 20): Promise<Documents> => {
  const categories = new Set(projection.categories)
  const events = history.filter((event) => categories.has(streamCategory(event.stream)))
  t.ok(events.length > 0, `the history has events of ${projection.categories.join(', ')}`)
  const inOrder = await project(projection, events)
  t.same(await project(projection, events.flatMap((event) => [event, event])), inOrder, 'every event delivered twice: same documents')
  let reordered = 0
  for (let seed = 1; seed <= rounds; seed++) {
    const deliveries = possibleDeliveries(projection, events, seed)
    if (!samePositions(deliveries, events)) reordered += 1
    const documents = await project(projection, deliveries)
    if (!isDeepStrictEqual(documents, inOrder)) {
      t.same(documents, inOrder, `${projection.ordering} delivery with redeliveries (seed ${seed}): same documents`)
      return inOrder
    }
  }
  const kind = projection.ordering === 'stream' ? 'interleavings of streams' : 'replays of the log'
  t.ok(reordered >= rounds / 2, `${rounds} ${kind} with redeliveries gave the same documents (${reordered} of them not in log order)`)
  return inOrder
}
