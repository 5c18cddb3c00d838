/**
 * The process's CPU pool (fair-pool.ts) and the deadlines of its work (docs/limits.md). Fetchers, the detector and
 * the content-monitor runner hand customer-driven CPU work to it and await the outcome; none of it runs on the main
 * thread, which serves the API, the scheduler and the dispatchers.
 */
import { FairWorkerPool, type PoolOutcome } from './fair-pool.js'
import type { CpuTaskKind, CpuTasks } from './tasks.js'

export { FairWorkerPool, type PoolOutcome } from './fair-pool.js'

/** Hard deadline of one job's extraction (all its hooks) in a worker; past it the job fails with `extraction_timeout`. */
export const EXTRACTION_DEADLINE_MS = 15_000
/** Hard deadline of one change-detection step (normalising a page, diffing two contents) in a worker. */
export const DETECTION_DEADLINE_MS = 10_000
/** Hard deadline of a page's views made from its markup (reader, text, links, page_metadata: page-views/index.ts). */
export const PAGE_VIEWS_DEADLINE_MS = 10_000

let shared: FairWorkerPool | undefined
const pool = (): FairWorkerPool => (shared ??= new FairWorkerPool())

/** Runs one task of `org` in the process's pool. */
export const offThread = <K extends CpuTaskKind>(org: string, kind: K, input: CpuTasks[K]['input'], deadlineMs: number): Promise<PoolOutcome<CpuTasks[K]['output']>> =>
  pool().run(org, { kind, input }, deadlineMs)

/** Starts the pool's workers ahead of the first task (a worker loads its code in a second or more). */
export const warmCpuPool = (): Promise<void> => pool().warm()

export async function closeCpuPool(): Promise<void> {
  const current = shared
  shared = undefined
  await current?.close()
}
