import { Counter, Gauge, Histogram, Registry } from 'prom-client'
import type { MetricsService } from '../../ports/metrics.js'

/** What the scrape reads from the stores at scrape time (not counted in memory, so it is right after a restart). */
export interface ScrapeSources {
  /** Jobs requested but not started (the jobs read model's `queued`). */
  readonly queueDepth: () => Promise<number>
  /** The newest log position, given a known lower bound (reads forward from it). */
  readonly headPosition: (atLeast: number) => Promise<number>
  /** Webhook deliveries not yet delivered nor given up (first attempt or retry still due). */
  readonly webhookBacklog: () => Promise<number>
}

/** The process's Prometheus registry: the port's recordings plus exposition and subscriber tracking for infra. */
export interface PrometheusMetrics extends MetricsService {
  readonly render: () => Promise<string>
  readonly contentType: string
  /** Reports `checkpoint` as a subscriber of `log` until the answered function is called (the subscription stopped). */
  readonly trackSubscriber: (log: 'store' | 'event', name: string, checkpoint: () => number) => () => void
}

const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]
const JOB_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300]
// A fire is due at its instant; the scheduler polls every SCHEDULER_POLL_MS, and catch-ups after downtime are late by hours.
const FIRE_DELAY_BUCKETS = [0.1, 0.5, 1, 2, 5, 10, 30, 60, 300, 3600, 86_400]

/**
 * One registry per process (never prom-client's global one: tests run several processes in one Node). Names follow
 * Prometheus conventions: `_total` counters, `_seconds` histograms, `scrapeworks_` prefix.
 */
export const makePrometheusMetrics = (sources: ScrapeSources): PrometheusMetrics => {
  const registry = new Registry()
  const httpRequests = new Counter({ name: 'scrapeworks_http_requests_total', help: 'HTTP requests answered, by route template, method and status', labelNames: ['route', 'method', 'status'], registers: [registry] })
  const httpLatency = new Histogram({ name: 'scrapeworks_http_request_duration_seconds', help: 'HTTP request latency by route template and method', labelNames: ['route', 'method'], buckets: LATENCY_BUCKETS, registers: [registry] })
  const jobs = new Counter({ name: 'scrapeworks_jobs_finished_total', help: 'Jobs finished by this process, by tier and outcome', labelNames: ['tier', 'outcome'], registers: [registry] })
  const jobDuration = new Histogram({ name: 'scrapeworks_job_duration_seconds', help: 'Time from a job\'s start to its recorded outcome, by tier and outcome', labelNames: ['tier', 'outcome'], buckets: JOB_BUCKETS, registers: [registry] })
  const credits = new Counter({ name: 'scrapeworks_credits_charged_total', help: 'Credits charged for jobs finished by this process, by tier', labelNames: ['tier'], registers: [registry] })

  const webhookAttempts = new Counter({ name: 'scrapeworks_webhook_delivery_attempts_total', help: 'Webhook delivery attempts recorded by this process, by outcome (succeeded, retrying, exhausted, gone)', labelNames: ['outcome'], registers: [registry] })
  const fireDelay = new Histogram({ name: 'scrapeworks_monitor_fire_delay_seconds', help: 'Time from a scheduled run\'s instant to its fire, by schedule source', labelNames: ['source'], buckets: FIRE_DELAY_BUCKETS, registers: [registry] })
  const purged = new Counter({ name: 'scrapeworks_purged_total', help: 'Purges done by this process\'s purger: jobs and artifacts tombstoned, blobs deleted', labelNames: ['kind'], registers: [registry] })

  new Gauge({
    name: 'scrapeworks_queue_depth', help: 'Jobs requested but not started (all organizations)', registers: [registry],
    async collect() { this.set(await sources.queueDepth()) },
  })

  new Gauge({
    name: 'scrapeworks_webhook_retry_backlog', help: 'Webhook deliveries pending (first attempt or a retry still due), all organizations', registers: [registry],
    async collect() { this.set(await sources.webhookBacklog()) },
  })

  const subscribers = new Map<string, { readonly log: string; readonly name: string; readonly checkpoint: () => number }>()
  let head = 0
  new Gauge({
    name: 'scrapeworks_log_lag_positions', help: 'Log positions between the head and a subscriber\'s checkpoint (catch-up subscribers of this process)',
    labelNames: ['log', 'subscriber'], registers: [registry],
    async collect() {
      this.reset()
      const checkpoints = [...subscribers.values()].map((s) => ({ ...s, at: s.checkpoint() }))
      head = await sources.headPosition(Math.max(head, ...checkpoints.map((s) => s.at)))
      for (const s of checkpoints) this.set({ log: s.log, subscriber: s.name }, Math.max(0, head - s.at))
    },
  })

  const fromSource = (kind: 'gauge' | 'total') => (name: string, help: string, labelName: string, read: () => Readonly<Record<string, number>>) => {
    const collect = function (this: Gauge) {
      this.reset()
      for (const [label, value] of Object.entries(read())) this.set({ [labelName]: label }, value)
    }
    // A total read from a monotonic source is exposed as a counter: prom-client counters cannot be set, so a gauge
    // with the counter type would lie; the `_total` name and rate() still work on the gauge.
    new Gauge({ name: kind === 'total' ? `${name}_total` : name, help, labelNames: [labelName], registers: [registry], collect })
  }

  return {
    contentType: registry.contentType,
    render: () => registry.metrics(),
    httpRequest: ({ method, route, status, seconds }) => {
      httpRequests.inc({ route, method, status: String(status) })
      httpLatency.observe({ route, method }, seconds)
    },
    jobFinished: ({ tier, outcome, seconds, credits: charged }) => {
      jobs.inc({ tier, outcome })
      jobDuration.observe({ tier, outcome }, seconds)
      if (charged > 0) credits.inc({ tier }, charged)
    },
    webhookAttempt: (outcome) => { webhookAttempts.inc({ outcome }) },
    monitorFired: (source, seconds) => { fireDelay.observe({ source }, Math.max(0, seconds)) },
    purged: ({ jobs: jobCount, artifacts, blobs }) => {
      if (jobCount > 0) purged.inc({ kind: 'job' }, jobCount)
      if (artifacts > 0) purged.inc({ kind: 'artifact' }, artifacts)
      if (blobs > 0) purged.inc({ kind: 'blob' }, blobs)
    },
    gauge: fromSource('gauge'),
    total: fromSource('total'),
    trackSubscriber: (log, name, checkpoint) => {
      const key = `${log}:${name}`
      subscribers.set(key, { log, name, checkpoint })
      return () => { subscribers.delete(key) }
    },
  }
}
