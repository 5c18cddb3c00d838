/**
 * Worker threads for CPU-bound work on customer input (tasks.ts), shared fairly between organizations:
 *
 * - one lane (queue) per organization; lanes are served round-robin, so a tenant with a hundred queued tasks delays
 *   another tenant's task by at most one task per worker, not by its whole queue;
 * - an organization holds at most `perOrgLimit` workers at once (half the pool), so another tenant always finds one;
 * - every task has a hard deadline: a worker still running at it is terminated, its task alone ends with
 *   `timeout`, and a fresh worker replaces it. A worker that dies (memory cap) fails its task with `failed`.
 *
 * Nothing here blocks the calling thread: callers await a promise.
 */
import { availableParallelism } from 'node:os'
import { extname } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Worker } from 'node:worker_threads'
import type { CpuTask, CpuTaskKind, CpuTasks } from './tasks.js'

export type PoolOutcome<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly reason: 'timeout' | 'failed' | 'closed'; readonly message: string }

export interface FairPoolOptions {
  /** Worker threads; at least 2, so one busy tenant never holds them all. */
  readonly size?: number
  /** Workers one organization may hold at once. */
  readonly perOrgLimit?: number
  /** Heap cap of each worker (MB): a page whose DOM exceeds it fails its own task only. */
  readonly maxHeapMb?: number
}

interface Job {
  readonly org: string
  readonly task: CpuTask
  readonly deadlineMs: number
  readonly done: (outcome: PoolOutcome<unknown>) => void
}

interface Slot {
  readonly worker: Worker
  ready: boolean
  job?: Job
  timer?: NodeJS.Timeout
}

/** A worker that has not loaded its code in this time is treated as broken (start-up is not charged to a task). */
const STARTUP_LIMIT_MS = 60_000
/** Same extension as this module: `.ts` under tsx (`npm start`, tests), `.js` when compiled. */
const WORKER_URL = new URL(`./cpu-worker${extname(fileURLToPath(import.meta.url))}`, import.meta.url)

/**
 * A worker does not inherit tsx's loader from `node --import tsx`: for TypeScript sources it registers tsx first (a
 * two-line bootstrap), then imports the worker module, which the type checker sees like any other.
 */
const newWorker = (options: { readonly resourceLimits: { readonly maxOldGenerationSizeMb: number } }): Worker => {
  if (!WORKER_URL.pathname.endsWith('.ts')) return new Worker(WORKER_URL, options)
  const bootstrap = `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))})
    .then((tsx) => { tsx.register(); return import(${JSON.stringify(WORKER_URL.href)}) })`
  return new Worker(bootstrap, { ...options, eval: true })
}

export const defaultPoolSize = () => Math.max(2, availableParallelism())

export class FairWorkerPool {
  readonly size: number
  readonly perOrgLimit: number
  private readonly maxHeapMb: number
  /** Organizations with queued jobs, in round-robin order (a lane served moves to the back). */
  private readonly lanes = new Map<string, Job[]>()
  private readonly running = new Map<string, number>()
  private readonly slots = new Set<Slot>()
  private ids = 0
  private closed = false
  /** Workers in a row that failed to start: past a few, workers are started only when work is waiting. */
  private failedStarts = 0

  constructor(options: FairPoolOptions = {}) {
    this.size = Math.max(2, options.size ?? defaultPoolSize())
    this.perOrgLimit = Math.max(1, options.perOrgLimit ?? Math.floor(this.size / 2))
    this.maxHeapMb = options.maxHeapMb ?? 768
  }

  /** Runs `task` for `org` in a worker, ending it at `deadlineMs` after it starts running. */
  run<K extends CpuTaskKind>(org: string, task: { readonly kind: K; readonly input: CpuTasks[K]['input'] }, deadlineMs: number): Promise<PoolOutcome<CpuTasks[K]['output']>> {
    if (this.closed) return Promise.resolve({ ok: false, reason: 'closed', message: 'the worker pool is closed' })
    return new Promise((done) => {
      const lane = this.lanes.get(org)
      // Workers are unref'd, so a task keeps the process alive itself until it ends.
      const keepAlive = setInterval(() => {}, 2 ** 30)
      const job: Job = { org, task: task as CpuTask, deadlineMs, done: (outcome) => { clearInterval(keepAlive); (done as Job['done'])(outcome) } }
      if (lane) lane.push(job)
      else this.lanes.set(org, [job])
      this.dispatch()
    })
  }

  /** Starts the workers and resolves once every one has loaded its code (service start-up, tests). */
  async warm(): Promise<void> {
    this.dispatch()
    while (!this.closed && [...this.slots].some((s) => !s.ready)) await new Promise((resolve) => setTimeout(resolve, 20))
  }

  /** Tasks waiting and running, per organization (metrics, tests). */
  load(): { readonly queued: number; readonly running: number } {
    let queued = 0
    for (const lane of this.lanes.values()) queued += lane.length
    return { queued, running: [...this.slots].filter((s) => s.job).length }
  }

  async close(): Promise<void> {
    this.closed = true
    for (const lane of this.lanes.values()) for (const job of lane) job.done({ ok: false, reason: 'closed', message: 'the worker pool is closed' })
    this.lanes.clear()
    await Promise.all([...this.slots].map((slot) => this.retire(slot, { ok: false, reason: 'closed', message: 'the worker pool is closed' })))
  }

  /** The next job, round-robin over lanes whose organization is under its worker limit. */
  private next(): Job | undefined {
    for (const [org, lane] of this.lanes) {
      if ((this.running.get(org) ?? 0) >= this.perOrgLimit) continue
      const job = lane.shift()!
      this.lanes.delete(org)
      if (lane.length > 0) this.lanes.set(org, lane) // to the back of the round
      return job
    }
    return undefined
  }

  private dispatch() {
    if (this.closed) return
    for (const slot of this.slots) {
      if (!slot.ready || slot.job) continue
      const job = this.next()
      if (!job) break
      this.start(slot, job)
    }
    // Workers are started ahead of need, so a replaced one is warm by the time the next task arrives.
    const waiting = this.lanes.size > 0
    while (this.slots.size < this.size && (waiting || this.failedStarts < 3)) this.spawn()
  }

  private spawn() {
    const worker = newWorker({ resourceLimits: { maxOldGenerationSizeMb: this.maxHeapMb } })
    const slot: Slot = { worker, ready: false }
    slot.timer = setTimeout(() => void this.broken(slot, 'a worker did not start'), STARTUP_LIMIT_MS)
    slot.timer.unref()
    worker.on('message', (message: { ready?: true; id?: number; ok?: boolean; value?: unknown; error?: string }) => {
      if (message.ready) {
        clearTimeout(slot.timer)
        slot.ready = true
        this.failedStarts = 0
        this.dispatch()
        return
      }
      const job = slot.job
      if (!job) return
      clearTimeout(slot.timer)
      this.finish(slot, message.ok ? { ok: true, value: message.value } : { ok: false, reason: 'failed', message: message.error ?? 'the task failed' })
      this.dispatch()
    })
    worker.on('error', (e) => void (slot.ready ? this.retire(slot, { ok: false, reason: 'failed', message: `the worker failed: ${e.message}` }) : this.broken(slot, e.message)))
    worker.on('exit', () => void this.retire(slot, { ok: false, reason: 'failed', message: 'the worker exited' }))
    // Idle workers must not keep the process alive (a running task's timer does). After the listeners: adding a
    // 'message' listener refs the worker's port again.
    worker.unref()
    this.slots.add(slot)
  }

  private start(slot: Slot, job: Job) {
    slot.job = job
    this.running.set(job.org, (this.running.get(job.org) ?? 0) + 1)
    slot.worker.postMessage({ id: ++this.ids, task: job.task })
    slot.timer = setTimeout(() => void this.retire(slot, {
      ok: false, reason: 'timeout', message: `the work did not finish within its deadline of ${job.deadlineMs} ms`,
    }), job.deadlineMs)
  }

  private finish(slot: Slot, outcome: PoolOutcome<unknown>) {
    const job = slot.job
    if (!job) return
    slot.job = undefined
    const left = (this.running.get(job.org) ?? 1) - 1
    if (left > 0) this.running.set(job.org, left)
    else this.running.delete(job.org)
    job.done(outcome)
  }

  /** A worker that could not load its code: queued work would wait for ever, so it fails instead. */
  private async broken(slot: Slot, message: string) {
    const failure = { ok: false as const, reason: 'failed' as const, message: `the worker could not start: ${message}` }
    this.failedStarts++
    for (const lane of this.lanes.values()) for (const job of lane) job.done(failure)
    this.lanes.clear()
    await this.retire(slot, failure)
  }

  /** Stops a worker for good, failing its task alone; dispatch starts a fresh one. */
  private async retire(slot: Slot, outcome: PoolOutcome<unknown>): Promise<void> {
    if (!this.slots.delete(slot)) return
    clearTimeout(slot.timer)
    this.finish(slot, outcome)
    this.dispatch()
    await slot.worker.terminate()
  }
}
