import { Worker } from 'node:worker_threads'
import { Effect } from 'effect'
import type { Doc, DocumentRebuild, Filter } from '../../ports/document-store.js'
import { StoreUnavailable } from '../../ports/event-store.js'

/** What the rebuild's worker thread is asked, in order (document-rebuild-worker.ts answers each with a reply). */
export type RebuildRequest =
  | { readonly op: 'begin'; readonly collections: readonly string[] }
  | { readonly op: 'put'; readonly collection: string; readonly docs: readonly Doc[] }
  | { readonly op: 'delete'; readonly collection: string; readonly ids: readonly string[] }
  | { readonly op: 'get'; readonly collection: string; readonly id: string }
  | { readonly op: 'find'; readonly collection: string; readonly filter: Filter }
  | { readonly op: 'commit' }
  | { readonly op: 'rollback' }

export type RebuildReply = { readonly seq: number } & ({ readonly ok: true; readonly value?: unknown } | { readonly ok: false; readonly error: string })

/** Documents sent to the worker and not yet written: above it, a put waits for the worker (bounds memory). */
const DOCUMENTS_IN_FLIGHT = 100_000

const WORKER_URL = new URL('./document-rebuild-worker.ts', import.meta.url).href
/** The process runs TypeScript through tsx, whose loader a worker thread does not inherit: the worker loads through it. */
const BOOTSTRAP = `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then(({ tsImport }) => tsImport(${JSON.stringify(WORKER_URL)}, ${JSON.stringify(WORKER_URL)}))`

/** A worker thread with its own connection to `file`, answering requests in the order they were sent. */
const startWorker = (file: string) => {
  const worker = new Worker(BOOTSTRAP, { eval: true, workerData: { file } })
  const waiting = new Map<number, (reply: RebuildReply) => void>()
  let sent = 0
  let gone: string | null = null
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()))
  const fail = (error: string) => {
    gone ??= error
    for (const [seq, answer] of waiting) answer({ seq, ok: false, error: gone })
    waiting.clear()
  }
  worker.on('message', (reply: RebuildReply) => {
    waiting.get(reply.seq)?.(reply)
    waiting.delete(reply.seq)
  })
  worker.on('error', (error) => fail(`the rebuild's worker failed: ${String(error)}`))
  worker.on('exit', (code) => fail(`the rebuild's worker exited (code ${code})`))
  const send = (request: RebuildRequest) => new Promise<RebuildReply>((answer) => {
    const seq = sent++
    if (gone !== null) return answer({ seq, ok: false, error: gone })
    waiting.set(seq, answer)
    worker.postMessage({ seq, ...request })
  })
  return { send, exited, terminate: () => worker.terminate() }
}

const outcome = (reply: RebuildReply) =>
  reply.ok ? Effect.succeed(reply.value) : Effect.fail(new StoreUnavailable({ cause: new Error(reply.error) }))

/**
 * Rebuilds collections of the SQLite read-model file on a worker thread: the worker's own connection clears them and
 * writes the rebuild in one transaction, while the caller goes on folding. Documents cross as structured clones, which
 * cost the caller about half of turning them into JSON (the worker does that). Puts and deletes are sent without
 * waiting unless DOCUMENTS_IN_FLIGHT are unwritten; reads wait for their answer, which reflects every earlier write. The
 * models change only at `commit`; a scope closed without it rolls the transaction back (and a process that dies
 * leaves it uncommitted).
 */
export const sqliteRebuild = (file: string) => (collections: readonly string[]) => Effect.gen(function* () {
  let committed = false
  const worker = yield* Effect.acquireRelease(Effect.sync(() => startWorker(file)), (started) => Effect.promise(async () => {
    if (!committed) await started.send({ op: 'rollback' })
    // The worker closes its connection and ends itself; one that does not answer is stopped.
    const timeout = setTimeout(() => void started.terminate(), 10_000)
    await started.exited
    clearTimeout(timeout)
  }))
  const call = (request: RebuildRequest) => Effect.flatMap(Effect.promise(() => worker.send(request)), outcome)
  /** Writes sent and not answered yet, oldest first. */
  const pending: { readonly reply: Promise<RebuildReply>; readonly documents: number }[] = []
  let inFlight = 0
  const settleWrites = (limit: number) => Effect.promise(async () => {
    while (pending.length > 0 && inFlight > limit) {
      const oldest = pending.shift()!
      inFlight -= oldest.documents
      const reply = await oldest.reply
      if (!reply.ok) return reply
    }
    return null
  }).pipe(Effect.flatMap((failed) => (failed === null ? Effect.void : outcome(failed))))
  const write = (request: RebuildRequest, documents: number) => Effect.zipRight(settleWrites(DOCUMENTS_IN_FLIGHT - documents), Effect.sync(() => {
    pending.push({ reply: worker.send(request), documents })
    inFlight += documents
  }))
  const putMany = (collection: string, docs: readonly Doc[]) => write({ op: 'put', collection, docs }, docs.length)

  // Not waited for: the worker starts (about a second of loading) while the caller folds; a failed start fails the
  // first read, the first put over the limit, or the commit.
  yield* write({ op: 'begin', collections }, 0)
  const rebuild: DocumentRebuild = {
    get: (collection, id) => call({ op: 'get', collection, id }) as Effect.Effect<Doc | null, StoreUnavailable>,
    find: (collection, filter) => call({ op: 'find', collection, filter }) as Effect.Effect<readonly Doc[], StoreUnavailable>,
    put: (collection, doc) => putMany(collection, [doc]),
    putMany,
    delete: (collection, id) => write({ op: 'delete', collection, ids: [id] }, 1),
    // Every write is answered before the commit: one that failed fails the rebuild (the worker then refuses to commit).
    commit: Effect.zipRight(settleWrites(-1), Effect.tap(call({ op: 'commit' }), () => { committed = true })),
  }
  return rebuild
})
