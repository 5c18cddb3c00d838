import type { ArtifactRecord, JobFailed, JobSucceeded } from '../job/events.js'
import type { JobState } from '../job/decider.js'
import type { DomainEvent } from '../streams.js'
import type { WebhookPingRequested } from './events.js'

/** What a mapping row knows of the recorded event besides its fields. */
export interface SourceEnvelope {
  readonly event_id: string
  readonly org_id: string
  readonly occurred_at: string
}

/**
 * What the rows of a job event are given besides the event: the job as its stream folds (its spec, tags), loaded by
 * the dispatcher. This is where a recipe job's `data.recipe` comes from once jobs carry a recipe block.
 */
export interface SourceContext {
  readonly job?: JobState
}

/** One webhook event a domain event calls for. `key` tells apart several webhook events of one domain event. */
export interface WebhookEventDraft {
  readonly kind: WebhookKind
  readonly key: string
  readonly data: Readonly<Record<string, unknown>>
  /** Only this endpoint gets it (a `ping`), whatever its subscriptions. */
  readonly only_endpoint?: string
}

type Row<Tag extends DomainEvent['_tag']> = {
  /** The webhook kinds this row can produce (subscribable kinds derive from them). */
  readonly kinds: readonly WebhookKind[]
  /** Whether the row needs the job's folded state in its context. */
  readonly needs_job: boolean
  readonly map: (event: Extract<DomainEvent, { _tag: Tag }>, envelope: SourceEnvelope, context: SourceContext) => readonly WebhookEventDraft[]
}

export const WEBHOOK_KINDS = [
  'job.completed', 'artifact.ready', 'schedule.monitor_activated', 'schedule.change_detected', 'schedule.run_skipped', 'schedule.monitor_paused', 'ping',
] as const
export type WebhookKind = (typeof WEBHOOK_KINDS)[number]

const artifactView = (jobId: string, artifact: ArtifactRecord) => ({
  job_id: jobId, artifact_id: artifact.artifact_id, artifact_type: artifact.artifact_type, content_type: artifact.content_type,
  size: artifact.size, sha256: artifact.sha256, created_at: artifact.created_at,
})

const jobCompleted = (event: JobSucceeded | JobFailed, context: SourceContext): WebhookEventDraft => {
  const job = context.job
  const spec = job && job.status !== 'none' ? job.spec : undefined
  const artifacts = event.artifacts ?? []
  return {
    kind: 'job.completed',
    key: 'job.completed',
    data: {
      job_id: event.job_id,
      status: event._tag === 'JobSucceeded' ? 'succeeded' : 'failed',
      failure_reason: event._tag === 'JobFailed' ? event.failure_reason : null,
      ...(event._tag === 'JobFailed' ? { message: event.message } : {}),
      job_type: spec?.job_type ?? null,
      target_url: spec?.target_url ?? null,
      tags: spec?.tags ?? [],
      finished_at: event.finished_at,
      artifacts: artifacts.map((artifact) => artifactView(event.job_id, artifact)),
    },
  }
}

const artifactsReady = (event: JobSucceeded | JobFailed): WebhookEventDraft[] =>
  (event.artifacts ?? []).map((artifact) => ({ kind: 'artifact.ready', key: `artifact.ready:${artifact.artifact_id}`, data: artifactView(event.job_id, artifact) }))

/**
 * THE mapping from domain events to webhook events: every webhook kind and payload is defined here and nowhere
 * else, as a projection of the log. A domain event without a row sends nothing.
 */
export const WEBHOOK_MAPPING: { readonly [Tag in DomainEvent['_tag']]?: Row<Tag> } = {
  JobSucceeded: { kinds: ['job.completed', 'artifact.ready'], needs_job: true, map: (event, _envelope, context) => [jobCompleted(event, context), ...artifactsReady(event)] },
  JobFailed: { kinds: ['job.completed', 'artifact.ready'], needs_job: true, map: (event, _envelope, context) => [jobCompleted(event, context), ...artifactsReady(event)] },
  MonitorBaselineRecorded: {
    kinds: ['schedule.monitor_activated'], needs_job: false,
    // Only the first baseline activates a monitor; a reset or a new normalization re-baselines silently.
    map: (event) => event.reason !== 'first_run' ? [] : [{
      kind: 'schedule.monitor_activated', key: 'schedule.monitor_activated',
      data: { monitor_id: event.monitor_id, run_id: event.run_id, activated_at: event.recorded_at },
    }],
  },
  ChangeDetected: {
    kinds: ['schedule.change_detected'], needs_job: false,
    // A change inside the monitor's cooldown, or one whose monitor does not notify by webhook, sends nothing.
    map: (event) => !event.notified_channels.includes('webhook') ? [] : [{
      kind: 'schedule.change_detected', key: 'schedule.change_detected',
      data: {
        monitor_id: event.monitor_id, change_id: event.change_id, run_id: event.run_id, job_id: event.job_id, change_ratio: event.change_ratio,
        has_diff: event.has_diff, diff_path: event.has_diff ? `/v1/monitors/${event.monitor_id}/changes/${event.change_id}/diff` : null,
        detected_at: event.detected_at,
      },
    }],
  },
  MonitorRunSkipped: {
    kinds: ['schedule.run_skipped'], needs_job: false,
    map: (event) => [{
      kind: 'schedule.run_skipped', key: 'schedule.run_skipped',
      data: { monitor_id: event.monitor_id, run_id: event.run_id, status: event.status, detail: event.detail, skipped_at: event.skipped_at },
    }],
  },
  MonitorPaused: {
    kinds: ['schedule.monitor_paused'], needs_job: false,
    map: (event) => [{
      kind: 'schedule.monitor_paused', key: 'schedule.monitor_paused',
      data: { monitor_id: event.monitor_id, reason: event.reason, detail: event.detail, paused_at: event.paused_at },
    }],
  },
  WebhookPingRequested: {
    kinds: ['ping'], needs_job: false,
    map: (event: WebhookPingRequested) => [{ kind: 'ping', key: 'ping', data: { endpoint_id: event.endpoint_id, requested_at: event.requested_at }, only_endpoint: event.endpoint_id }],
  },
}

/** The row of a domain event, if it has one. */
export const mappingOf = (event: DomainEvent): Row<DomainEvent['_tag']> | undefined =>
  WEBHOOK_MAPPING[event._tag] as Row<DomainEvent['_tag']> | undefined

/** Kinds an endpoint can subscribe to: every kind the table produces but `ping`, which goes to the endpoint that asked for it. */
export const SUBSCRIBABLE_KINDS: readonly WebhookKind[] = [...new Set(Object.values(WEBHOOK_MAPPING).flatMap((row) => row.kinds))]
  .filter((kind) => kind !== 'ping')
