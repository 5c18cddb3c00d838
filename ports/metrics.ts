import { Context } from 'effect'

/** How a finished job ended, for counting: its tier, outcome and how long its engine (or recipe) ran. */
export interface FinishedJob {
  readonly tier: string
  readonly outcome: 'succeeded' | 'failed'
  readonly seconds: number
  readonly credits: number
}

/**
 * Operational measurements, recorded where the facts are (processors, roles) and exposed by infra (Prometheus). Only
 * counters and observations of this process: nothing here is business state, and losing it on restart is expected.
 */
export interface MetricsService {
  readonly jobFinished: (job: FinishedJob) => void
  /** One webhook delivery attempt recorded: `succeeded`, `retrying`, `exhausted` (no retry left) or `gone` (410). */
  readonly webhookAttempt: (outcome: string) => void
  /** A scheduled run fired `seconds` after its instant, by schedule source (`monitors`, `content-monitors`). */
  readonly monitorFired: (source: string, seconds: number) => void
  /** What one purge sweep did: jobs and artifacts tombstoned, blobs deleted. */
  readonly purged: (counts: { readonly jobs: number; readonly artifacts: number; readonly blobs: number }) => void
  readonly httpRequest: (request: { readonly method: string; readonly route: string; readonly status: number; readonly seconds: number }) => void
  /** Gauges read at scrape time (browser pool sizes, ...): `read` answers the current values by label. */
  readonly gauge: (name: string, help: string, labelName: string, read: () => Readonly<Record<string, number>>) => void
  /** Totals read at scrape time from a monotonic source (browser recycles, ...), by label. */
  readonly total: (name: string, help: string, labelName: string, read: () => Readonly<Record<string, number>>) => void
}

export class Metrics extends Context.Tag('Metrics')<Metrics, MetricsService>() {}
