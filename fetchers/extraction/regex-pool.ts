/**
 * Runs regular expressions off the main thread with a time budget. A pattern that backtracks
 * catastrophically cannot be interrupted inside V8, so a task over budget gets its worker
 * terminated (and replaced on the next task) instead of stalling the fetcher.
 */
import { randomUUID } from 'node:crypto'
import { availableParallelism } from 'node:os'
import { Worker } from 'node:worker_threads'
import { REGEX_WORKER_SOURCE } from './regex-worker.js'

export const REGEX_TIME_BUDGET_MS = 1000
/** A worker that does not come up in this time is treated as failed (start-up is not charged to the budget). */
const STARTUP_LIMIT_MS = 15_000

/** Text to search; `id` lets a worker that already holds this text skip receiving it again. */
export interface Corpus {
  readonly id: string
  readonly text: string
}
export const corpus = (text: string): Corpus => ({ id: randomUUID(), text })

export interface RegexQuery {
  readonly pattern: string
  readonly flags: string
  /** Capture group to return; 0 is the whole match. */
  readonly group: number
  /** How many values to return; every match is still counted. */
  readonly take: number
}

export type RegexOutcome = { readonly values: Array<string | null>; readonly total: number } | { readonly error: string }

interface Task {
  readonly corpus: Corpus
  readonly query: RegexQuery
  readonly budgetMs: number
  readonly done: (outcome: RegexOutcome) => void
}

interface Slot {
  readonly worker: Worker
  online: boolean
  corpusId: string
  task?: Task
  timer?: NodeJS.Timeout
}

export class RegexPool {
  private readonly slots = new Set<Slot>()
  private readonly queue: Task[] = []
  private taskIds = 0

  constructor(private readonly size = Math.max(1, Math.min(2, availableParallelism()))) {}

  search(corpus: Corpus, query: RegexQuery, budgetMs = REGEX_TIME_BUDGET_MS): Promise<RegexOutcome> {
    return new Promise((done) => {
      this.queue.push({ corpus, query, budgetMs, done })
      this.dispatch()
    })
  }

  /** Stop every worker (tests, shutdown); queued tasks end with an error. */
  async close(): Promise<void> {
    for (const task of this.queue.splice(0)) task.done({ error: 'regex workers closed' })
    await Promise.all([...this.slots].map((slot) => this.retire(slot, { error: 'regex workers closed' })))
  }

  private dispatch() {
    while (this.queue.length > 0) {
      let slot = [...this.slots].find((s) => !s.task)
      if (!slot && this.slots.size < this.size) slot = this.spawn()
      if (!slot) return
      slot.task = this.queue.shift()!
      if (slot.online) this.start(slot)
    }
  }

  private spawn(): Slot {
    const worker = new Worker(REGEX_WORKER_SOURCE, { eval: true, resourceLimits: { maxOldGenerationSizeMb: 256 } })
    worker.unref() // idle workers must not keep the process alive; a running task's timer does
    const slot: Slot = { worker, online: false, corpusId: '' }
    slot.timer = setTimeout(() => void this.retire(slot, { error: 'regex worker did not start' }), STARTUP_LIMIT_MS)
    worker.on('online', () => {
      clearTimeout(slot.timer)
      slot.online = true
      if (slot.task) this.start(slot)
    })
    worker.on('message', (msg: { error?: string; values?: Array<string | null>; total?: number }) => {
      const task = slot.task
      if (!task) return
      clearTimeout(slot.timer)
      slot.task = undefined
      task.done(msg.error !== undefined ? { error: `pattern failed: ${msg.error}` } : { values: msg.values ?? [], total: msg.total ?? 0 })
      this.dispatch()
    })
    worker.on('error', (e) => void this.retire(slot, { error: `regex worker failed: ${e.message}` }))
    worker.on('exit', () => void this.retire(slot, { error: 'regex worker exited' }))
    this.slots.add(slot)
    return slot
  }

  private start(slot: Slot) {
    const task = slot.task!
    const sendText = slot.corpusId !== task.corpus.id
    slot.corpusId = task.corpus.id
    slot.worker.postMessage({ id: ++this.taskIds, ...task.query, ...(sendText ? { text: task.corpus.text } : {}) })
    slot.timer = setTimeout(() => void this.retire(slot, { error: `regex exceeded its time budget of ${task.budgetMs} ms` }), task.budgetMs)
  }

  /** Stop a worker for good, failing its task; the next dispatch spawns a fresh one. */
  private async retire(slot: Slot, outcome: RegexOutcome): Promise<void> {
    if (!this.slots.delete(slot)) return
    clearTimeout(slot.timer)
    const task = slot.task
    slot.task = undefined
    task?.done(outcome)
    this.dispatch()
    await slot.worker.terminate()
  }
}

let shared: RegexPool | undefined
/** The process-wide pool used by regex hooks. */
export const regexPool = (): RegexPool => (shared ??= new RegexPool())

export async function closeRegexPool(): Promise<void> {
  const pool = shared
  shared = undefined
  await pool?.close()
}
