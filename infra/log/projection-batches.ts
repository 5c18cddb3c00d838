import { Cause, Effect, Exit, Runtime } from 'effect'
import { streamCategory } from '../../domain/streams.js'
import { DocumentStore, type DocumentStoreService } from '../../ports/document-store.js'
import type { EventLogService, Subscription } from '../../ports/event-log.js'
import type { RecordedEvent } from '../../ports/event-store.js'
import type { Projection } from '../../projections/projection.js'
import { readModelsApplied } from '../../projections/read-your-writes.js'
import { DocumentNeeded } from '../../projections/document-view.js'
import { keptDocuments } from '../kept-documents.js'
import { replayDocuments } from '../replay-documents.js'
import { documentCheckpoints, saveCheckpointsNow } from './document-checkpoints.js'
import { retryPauseMs } from './dispatcher.js'

/** Attempts at one projection's event (after its batch failed) before it is given up on and logged. */
const ATTEMPTS = 5
/** A projection that folds nothing for this long still saves its position now and then, so a restart reads little again. */
const SAVE_LAG = 1000

type DocumentsAtOnce = DocumentStoreService & Required<Pick<DocumentStoreService, 'inBatchNow' | 'getNow' | 'findNow' | 'putNow' | 'deleteNow'>>

/** The store, when its batches are atomic and it answers in the calling turn (SQLite): what projectInBatches needs. */
export const documentsAtOnce = (docs: DocumentStoreService): DocumentsAtOnce | null =>
  docs.atomicBatches && docs.inBatchNow && docs.getNow && docs.findNow && docs.putNow && docs.deleteNow ? (docs as DocumentsAtOnce) : null

export interface ProjectionBatches extends Subscription {
  /** Position of the last event the named projection has folded (or skipped as not of its categories). */
  readonly position: (name: string) => number
}

/**
 * Every projection folded by one reader of the store's own log: each batch of events is folded into all the
 * projections in memory (the projections' synchronous folds, as replay runs them), then each document changed is
 * written once, together with the projections' positions (kept in the same store), in one transaction of the document
 * store run at once, through its synchronous entries (nothing else runs meanwhile). So a read model and its position
 * never disagree (exactly-once), and a batch costs one commit and no effect run, instead of one of each per event and
 * projection.
 * A batch that fails is rolled back and folded again one event and projection at a time, so one poison event is
 * retried, then logged and passed over, without holding back the others.
 *
 * Needs a log that can hand batches (`readBatches`) and a document store with atomic batches and synchronous entries.
 * A position is read as the larger of the one kept here and the log's own checkpoint of the same name (where
 * projections kept theirs before, and where replay leaves it): both only ever trail their read model.
 */
export const projectInBatches = (
  projections: readonly Projection[],
  storeLog: EventLogService,
  docs: DocumentStoreService,
  runtime: Runtime.Runtime<DocumentStore>,
  log: (message: string, detail?: unknown) => void,
) => Effect.gen(function* () {
  const readBatches = storeLog.readBatches
  const store = documentsAtOnce(docs)
  if (!readBatches || !store) return yield* Effect.dieMessage('projectInBatches needs a catch-up log and a document store with atomic batches and synchronous entries')
  const kept = documentCheckpoints(docs)
  /** Each projection's position as of the last committed transaction, and as last written. */
  const positions = new Map<string, number>()
  const saved = new Map<string, number>()
  for (const projection of projections) {
    const own = yield* kept.load(projection.name)
    const logs = storeLog.checkpointOf ? yield* storeLog.checkpointOf(projection.name) : 0
    positions.set(projection.name, Math.max(own, logs))
    saved.set(projection.name, own)
  }
  const collections = projections.flatMap((projection) => projection.collections)
  /** Documents the committed transactions read and wrote, kept for the next ones while nothing else changes them. */
  const keptDocs = keptDocuments(docs, collections)
  const writeOnce = new Set(projections.flatMap((projection) => projection.writeOnce ?? []))
  const byCategory = new Map<string, Projection[]>()
  for (const projection of projections) {
    for (const category of projection.categories) byCategory.set(category, [...(byCategory.get(category) ?? []), projection])
  }

  /**
   * One transaction, run at once: folds `events` into the projections of their categories (or into `only`) not past
   * them yet, moves every position to at least `passTo` (events no projection folds still count as passed), and saves
   * the positions that moved: those of projections that folded something (or every one, with `saveAll`), and any far
   * behind. Answers the positions reached and the ones saved, and the reasons events were skipped.
   */
  const transaction = (events: readonly RecordedEvent[], passTo: number, options: { only?: Projection; saveAll?: boolean } = {}) => () =>
    store.inBatchNow(() => {
      const reached = new Map(positions)
      const folded = new Set<string>()
      const skipped: string[] = []
      // The batch's documents are folded in memory and each written once, at the end, with its last value.
      const documents = replayDocuments(docs, collections, { cleared: false, kept: keptDocs, writeOnce })
      for (const event of events) {
        const category = streamCategory(event.stream)
        const concerned = options.only ? (options.only.categories.includes(category) ? [options.only] : []) : byCategory.get(category) ?? []
        for (const projection of concerned) {
          if (event.position <= reached.get(projection.name)!) continue
          for (;;) {
            const outcome = documents.fold(projection, event)
            if (outcome instanceof DocumentNeeded) {
              documents.loadNow(outcome)
              continue
            }
            if (outcome !== undefined) skipped.push(outcome)
            break
          }
          folded.add(projection.name)
          reached.set(projection.name, event.position)
        }
      }
      documents.flushNow()
      const written = new Map<string, number>()
      for (const [name, position] of reached) {
        const now = Math.max(position, passTo)
        reached.set(name, now)
        if (now > saved.get(name)! && (options.saveAll || folded.has(name) || now - saved.get(name)! >= SAVE_LAG)) written.set(name, now)
      }
      saveCheckpointsNow(store, written)
      return { reached, written, skipped }
    })

  const logSkipped = Runtime.runSync(runtime)
  /** Runs a transaction; once committed, its positions are the current ones and waiting reads wake. */
  const commit = (work: ReturnType<typeof transaction>): Exit.Exit<unknown, unknown> => {
    let committed: ReturnType<ReturnType<typeof transaction>>
    try {
      committed = work()
    } catch (error) {
      keptDocs.rolledBack()
      return Exit.fail(error)
    }
    keptDocs.committed()
    for (const [name, position] of committed.reached) positions.set(name, position)
    for (const [name, position] of committed.written) saved.set(name, position)
    readModelsApplied(docs)
    if (committed.skipped.length > 0) logSkipped(Effect.forEach(committed.skipped, (reason) => Effect.logWarning(reason), { discard: true }))
    return Exit.void
  }

  let stopped = false
  /** After a batch failed: each event and projection in a transaction of its own, retried, then given up on (logged). */
  const foldOneByOne = async (events: readonly RecordedEvent[]) => {
    for (const event of events) {
      for (const projection of byCategory.get(streamCategory(event.stream)) ?? []) {
        for (let attempt = 1; event.position > positions.get(projection.name)!; attempt++) {
          const exit = commit(transaction([event], 0, { only: projection }))
          if (Exit.isSuccess(exit)) break
          if (stopped) throw new Error('stopping: the batch is left for the next start')
          log(`projection ${projection.name} failed on ${event.type} at ${event.position} (attempt ${attempt})`, Cause.squash(exit.cause))
          if (attempt >= ATTEMPTS) {
            // Passed over, as the per-event subscriptions do, so one poison event cannot stall the log.
            positions.set(projection.name, event.position)
            break
          }
          await new Promise((resolve) => setTimeout(resolve, retryPauseMs(attempt)))
        }
      }
    }
    const passed = commit(transaction([], events.at(-1)!.position, { saveAll: true }))
    if (Exit.isFailure(passed)) throw Cause.squash(passed.cause)
  }

  readModelsApplied(docs) // from now on, waiting reads are woken by this reader's commits
  const reader = yield* readBatches({ name: 'projections', from: positions.size > 0 ? Math.min(...positions.values()) : 0 }, async (events) => {
    if (Exit.isSuccess(commit(transaction(events, events.at(-1)!.position)))) return
    await foldOneByOne(events)
  })
  return {
    position: (name: string) => positions.get(name) ?? 0,
    checkpoint: reader.checkpoint,
    stop: () => {
      stopped = true
      return reader.stop()
    },
  } satisfies ProjectionBatches
})
