import { createRequire } from 'node:module'
import { Worker } from 'node:worker_threads'
import { Effect, type Scope } from 'effect'
import { StoreUnavailable, type LogReader, type RecordedEvent } from '../../ports/event-store.js'
import { REPLAY_THREAD_PRELUDE } from './replay-thread-prelude.js'

/**
 * Body of the reader thread, plain JavaScript run with `eval: true` (no TypeScript loader in the thread). It answers
 * each `read` with the events after a position: their short fields as an array of strings, positions and revisions in
 * a typed array, and their data and metadata JSON end to end in one string with their lengths. Copying those to the
 * process's thread costs a fraction of reading the rows there (SQLite's step and a string per column).
 */
const READER_SOURCE = `${REPLAY_THREAD_PRELUDE}
const db = new Database(workerData.file, { readonly: true, fileMustExist: true })
const read = db.prepare('select position, revision, event_id, stream, type, org_id, occurred_at, data, metadata from events where position > ? order by position limit ?').raw()
parentPort.on('message', (message) => {
  if (message.op === 'end') {
    db.close()
    parentPort.close()
    return
  }
  try {
    const rows = read.all(message.after, message.limit)
    const numbers = new Float64Array(rows.length * 2)
    const fields = new Array(rows.length * 5)
    const lengths = new Uint32Array(rows.length * 2)
    const json = new Array(rows.length * 2)
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i]
      numbers[2 * i] = row[0]
      numbers[2 * i + 1] = row[1]
      for (let f = 0; f < 5; f++) fields[5 * i + f] = row[2 + f]
      json[2 * i] = row[7]
      json[2 * i + 1] = row[8]
      lengths[2 * i] = row[7].length
      lengths[2 * i + 1] = row[8].length
    }
    parentPort.postMessage({ numbers, fields, lengths, text: json.join('') }, [numbers.buffer, lengths.buffer])
  } catch (cause) {
    parentPort.postMessage({ error: String(cause && cause.stack || cause) })
  }
})
`

const driver = createRequire(import.meta.url).resolve('better-sqlite3')

interface Batch {
  readonly numbers?: Float64Array
  readonly fields?: readonly string[]
  readonly lengths?: Uint32Array
  readonly text?: string
  readonly error?: string
}

/** The events of one batch, as the event store's readAll answers them. */
const recordedOf = ({ numbers, fields, lengths, text }: Required<Omit<Batch, 'error'>>): RecordedEvent[] => {
  const events = new Array<RecordedEvent>(numbers.length / 2)
  for (let i = 0, at = 0; i < events.length; i++) {
    const dataEnd = at + lengths[2 * i]!
    const end = dataEnd + lengths[2 * i + 1]!
    events[i] = {
      position: numbers[2 * i]!, event_id: fields[5 * i]!, stream: fields[5 * i + 1]!, revision: numbers[2 * i + 1]!, type: fields[5 * i + 2]!,
      org_id: fields[5 * i + 3]!, occurred_at: fields[5 * i + 4]!, data: JSON.parse(text.slice(at, dataEnd)), metadata: JSON.parse(text.slice(dataEnd, end)),
    }
    at = end
  }
  return events
}

/**
 * Reads the log of a SQLite event store file from `after` on, `limit` events at a time, on a thread of its own with a
 * read-only connection, one batch ahead of the caller: the thread reads the next batch while the caller works on this
 * one. Each batch is read as readAll reads it (its own statement, so a batch sees every commit before it). The thread
 * ends with the scope.
 */
export const readLogOffThread = (file: string, after: number, limit: number): Effect.Effect<LogReader, never, Scope.Scope> =>
  Effect.map(
    Effect.acquireRelease(
      Effect.sync(() => new Worker(READER_SOURCE, { eval: true, workerData: { driver, file } })),
      (worker) => Effect.promise(() => worker.terminate()),
    ),
    (worker) => {
      let failure: Error | null = null
      let waiting: ((batch: Batch) => void) | null = null
      let arrived: Batch | null = null
      worker.on('message', (batch: Batch) => {
        if (waiting) {
          const resolve = waiting
          waiting = null
          resolve(batch)
        } else arrived = batch
      })
      const fail = (error: Error) => {
        failure = error
        waiting?.({ error: String(error) })
        waiting = null
      }
      worker.on('error', fail)
      worker.on('exit', (code) => fail(new Error(`the log reader thread exited (${code})`)))
      const request = (from: number) => worker.postMessage({ op: 'read', after: from, limit })
      const received = (): Promise<Batch> => {
        if (arrived) {
          const batch = arrived
          arrived = null
          return Promise.resolve(batch)
        }
        if (failure) return Promise.resolve({ error: String(failure) })
        return new Promise((resolve) => { waiting = resolve })
      }
      let done = false
      request(after)
      const next: Effect.Effect<readonly RecordedEvent[], StoreUnavailable> = Effect.suspend(() => {
        if (done) return Effect.succeed([])
        return Effect.flatMap(Effect.promise(received), (batch) => {
          if (batch.error !== undefined) return Effect.fail(new StoreUnavailable({ cause: new Error(`the log reader thread: ${batch.error}`) }))
          const count = batch.numbers!.length / 2
          // The next batch is read while this one is worked on; an empty one is the log's end.
          if (count > 0) request(batch.numbers![2 * (count - 1)]!)
          else done = true
          return Effect.succeed(recordedOf(batch as Required<Omit<Batch, 'error'>>))
        })
      })
      return { next }
    },
  )
