import { ScrapeworksError } from './errors.js'
import { makeTransport, type Transport, type TransportOptions } from './transport.js'
import type { Answer, Body, Format, Job, JobRequest, Query, Tier } from './types.js'
import { verifyWebhook } from './webhooks.js'

export type ScrapeworksOptions = TransportOptions

/** The options of `scrape`: every field of a job request but the URL, with the tier as `tier` (light unless told). */
export type ScrapeOptions = Omit<JobRequest, 'job_type' | 'target_url' | 'formats'> & {
  readonly tier?: Tier
  /** The formats the result carries inline (markdown unless told). */
  readonly formats?: readonly Format[]
  readonly wait?: WaitOptions
}

export interface WaitOptions {
  /** Seconds each long poll of the result is held by the service (default 30; the service caps it). */
  readonly pollSeconds?: number
  /** Give up after this many milliseconds in all (default: wait as long as the job runs). */
  readonly timeoutMs?: number
}

type Formats = NonNullable<Job['formats']>
/** A succeeded job's result, with its formats at the top (null when not asked for or not made). */
export interface ScrapeResult {
  readonly jobId: string
  readonly status: Job['status']
  readonly markdown: string | null
  readonly html: string | null
  readonly rawHtml: string | null
  readonly text: string | null
  readonly links: string[] | null
  readonly metadata: Record<string, unknown> | null
  readonly json: unknown
  readonly artifacts: NonNullable<Job['artifacts']>
  /** Formats cut at the inline cap, with the artifact that holds all of it. */
  readonly truncated: NonNullable<Job['formats_truncated']>
  /** The whole result record. */
  readonly job: Job
}

const ENDED: ReadonlySet<string> = new Set(['succeeded', 'failed'])
const path = (template: string, ...ids: string[]) => {
  let i = 0
  return template.replace(/\{[^}]+\}/g, () => encodeURIComponent(ids[i++] ?? ''))
}

const resultOf = (job: Job): ScrapeResult => {
  const formats: Formats = job.formats ?? {}
  const pick = <T>(name: string) => (formats[name] ?? null) as T | null
  return {
    jobId: job.job_id as string, status: job.status, job,
    markdown: pick('markdown'), html: pick('html'), rawHtml: pick('rawHtml'), text: pick('text'),
    links: pick('links'), metadata: pick('metadata'), json: formats.json ?? null,
    artifacts: job.artifacts ?? [], truncated: job.formats_truncated ?? {},
  }
}

/** A client of the Scrapeworks v1 API. */
export class Scrapeworks {
  private readonly call: Transport

  constructor(options: ScrapeworksOptions) {
    this.call = makeTransport(options)
  }

  /** Submits a job for `url`, waits for it to end and answers its result; a failed job throws (`job_failed`). */
  async scrape(url: string, options: ScrapeOptions = {}): Promise<ScrapeResult> {
    const { tier = 'light', formats = ['markdown'], wait, ...rest } = options
    const submitted = await this.jobs.submit({ ...rest, job_type: tier, target_url: url, formats: [...formats] })
    const job = await this.jobs.wait(submitted.job_id as string, wait)
    if (job.status !== 'succeeded') {
      throw new ScrapeworksError(`job ${job.job_id} failed: ${job.failure_reason}: ${job.failure_message}`, 0, 'job_failed')
    }
    return resultOf(job)
  }

  readonly jobs = {
    submit: (request: Body<'/v1/jobs', 'post'>) => this.call<Answer<'/v1/jobs', 'post'>>('post', '/v1/jobs', { body: request }),
    get: (jobId: string) => this.call<Answer<'/v1/jobs/{job_id}', 'get'>>('get', path('/v1/jobs/{job_id}', jobId)),
    list: (query: Query<'/v1/jobs', 'get'> = {}) => this.call<Answer<'/v1/jobs', 'get'>>('get', '/v1/jobs', { query }),
    /** The result of an ended job; a job still queued or running answers 409 `result_not_ready` unless `wait` seconds pass first. */
    result: (jobId: string, query: Query<'/v1/jobs/{job_id}/result', 'get'> = {}) =>
      this.call<Answer<'/v1/jobs/{job_id}/result', 'get'>>('get', path('/v1/jobs/{job_id}/result', jobId), { query }),
    /** Long-polls the result until the job ends (succeeded or failed) and answers it. */
    wait: async (jobId: string, options: WaitOptions = {}): Promise<Job> => {
      const deadline = options.timeoutMs === undefined ? Infinity : Date.now() + options.timeoutMs
      for (;;) {
        const left = Math.ceil((deadline - Date.now()) / 1000)
        try {
          const job = await this.jobs.result(jobId, { wait: Math.max(0, Math.min(options.pollSeconds ?? 30, left)) })
          if (ENDED.has(job.status as string)) return job
        } catch (error) {
          if (!(error instanceof ScrapeworksError && error.code === 'result_not_ready')) throw error
        }
        if (Date.now() >= deadline) throw new ScrapeworksError(`job ${jobId} did not end in ${options.timeoutMs} ms`, 0, 'wait_timeout')
      }
    },
    /**
     * Asks for the deletion of a finished job and its artifacts (the API has no cancellation of a running job: it
     * answers 409 `job_not_finished` while the job is queued or running).
     */
    delete: (jobId: string) => this.call<Answer<'/v1/jobs/{job_id}', 'delete'>>('delete', path('/v1/jobs/{job_id}', jobId)),
    /** A fresh signed download link of one of the job's artifacts. */
    artifact: (jobId: string, artifactId: string) =>
      this.call<Answer<'/v1/jobs/{job_id}/artifacts/{artifact_id}', 'get'>>('get', path('/v1/jobs/{job_id}/artifacts/{artifact_id}', jobId, artifactId)),
  }

  readonly monitors = {
    create: (request: Body<'/v1/monitors', 'post'>) => this.call<Answer<'/v1/monitors', 'post'>>('post', '/v1/monitors', { body: request }),
    get: (monitorId: string) => this.call<Answer<'/v1/monitors/{monitor_id}', 'get'>>('get', path('/v1/monitors/{monitor_id}', monitorId)),
    list: (query: Query<'/v1/monitors', 'get'> = {}) => this.call<Answer<'/v1/monitors', 'get'>>('get', '/v1/monitors', { query }),
    update: (monitorId: string, changes: Body<'/v1/monitors/{monitor_id}', 'patch'>) =>
      this.call<Answer<'/v1/monitors/{monitor_id}', 'patch'>>('patch', path('/v1/monitors/{monitor_id}', monitorId), { body: changes }),
    delete: (monitorId: string) => this.call<void>('delete', path('/v1/monitors/{monitor_id}', monitorId)),
    pause: (monitorId: string) => this.call<Answer<'/v1/monitors/{monitor_id}/pause', 'post'>>('post', path('/v1/monitors/{monitor_id}/pause', monitorId)),
    resume: (monitorId: string) => this.call<Answer<'/v1/monitors/{monitor_id}/resume', 'post'>>('post', path('/v1/monitors/{monitor_id}/resume', monitorId)),
    runs: (monitorId: string, query: Query<'/v1/monitors/{monitor_id}/runs', 'get'> = {}) =>
      this.call<Answer<'/v1/monitors/{monitor_id}/runs', 'get'>>('get', path('/v1/monitors/{monitor_id}/runs', monitorId), { query }),
  }

  readonly webhooks = {
    /** Creates an endpoint; its answer carries the signing `secret`, shown this once. */
    create: (request: Body<'/v1/webhook-endpoints', 'post'>) =>
      this.call<Answer<'/v1/webhook-endpoints', 'post'>>('post', '/v1/webhook-endpoints', { body: request }),
    get: (endpointId: string) =>
      this.call<Answer<'/v1/webhook-endpoints/{endpoint_id}', 'get'>>('get', path('/v1/webhook-endpoints/{endpoint_id}', endpointId)),
    list: () => this.call<Answer<'/v1/webhook-endpoints', 'get'>>('get', '/v1/webhook-endpoints'),
    update: (endpointId: string, changes: Body<'/v1/webhook-endpoints/{endpoint_id}', 'patch'>) =>
      this.call<Answer<'/v1/webhook-endpoints/{endpoint_id}', 'patch'>>('patch', path('/v1/webhook-endpoints/{endpoint_id}', endpointId), { body: changes }),
    delete: (endpointId: string) =>
      this.call<Answer<'/v1/webhook-endpoints/{endpoint_id}', 'delete'>>('delete', path('/v1/webhook-endpoints/{endpoint_id}', endpointId)),
    rotateSecret: (endpointId: string) =>
      this.call<Answer<'/v1/webhook-endpoints/{endpoint_id}/rotate-secret', 'post'>>('post', path('/v1/webhook-endpoints/{endpoint_id}/rotate-secret', endpointId)),
    /** Checks a delivery's Standard Webhooks signature with the endpoint's secret and answers its event. */
    verifyWebhook,
  }

  readonly recipes = {
    list: () => this.call<Answer<'/v1/recipes', 'get'>>('get', '/v1/recipes'),
    /** Runs a recipe, waits for its job to end and answers the result (the recipe's `output`). */
    run: async (slug: string, request: Body<'/v1/recipes/{slug}/runs', 'post'>, wait?: WaitOptions): Promise<Job> => {
      const run = await this.call<Answer<'/v1/recipes/{slug}/runs', 'post'>>('post', path('/v1/recipes/{slug}/runs', slug), { body: request })
      return this.jobs.wait(run.job_id as string, wait)
    },
  }
}
