import type { ArtifactRecord, JobFailed, JobSucceeded } from '../job/events.js'
import type { JobState } from '../job/decider.js'
import type { RecipeRunRecord, RecipeRunSpec } from '../recipe/run-spec.js'
import type { ChangeMemo } from '../monitor/detection-decider.js'
import type { ChangeSummarized, ChangeSummaryUnavailable } from '../monitor/detection-events.js'
import type { DomainEvent } from '../streams.js'
import type { SignedLink, WebhookPingRequested } from './events.js'

/** What a mapping row knows of the recorded event besides its fields. */
export interface SourceEnvelope {
  readonly event_id: string
  readonly org_id: string
  readonly occurred_at: string
}

/**
 * What a row is given besides the event, loaded by the fan-out as the row asks: the job as its stream folds (its
 * spec, tags, a recipe job's recipe block for `data.recipe`), or the change a summary
 * event settles, as the monitor's stream folds.
 */
export interface SourceContext {
  readonly job?: JobState
  readonly change?: ChangeMemo
}

export type ContextNeed = 'none' | 'job' | 'change'

/** One webhook event a domain event calls for. `key` tells apart several webhook events of one domain event. */
export interface WebhookEventDraft {
  readonly kind: WebhookKind
  readonly key: string
  readonly data: Readonly<Record<string, unknown>>
  /** Only this endpoint gets it (a `ping`), whatever its subscriptions. */
  readonly only_endpoint?: string
  /** Links the dispatcher signs into `data` at each attempt. */
  readonly signed_links?: readonly SignedLink[]
}

type Row<Tag extends DomainEvent['_tag']> = {
  /** The webhook kinds this row can produce (subscribable kinds derive from them). */
  readonly kinds: readonly WebhookKind[]
  /** What the row needs in its context. */
  readonly needs: ContextNeed
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
  const largeOutput = artifacts.find((artifact) => artifact.artifact_id === event.recipe?.output_artifact_id)
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
      ...(spec?.recipe ? { recipe: recipeView(spec.recipe, event.recipe) } : {}),
    },
    ...(largeOutput ? { signed_links: [{ field: 'recipe.result_url', blob_key: largeOutput.blob_key, download_name: `recipe-output-${event.job_id}.json` }] } : {}),
  }
}

/**
 * A recipe job's `data.recipe` (SPEC 6): the run and its outcome, and the output itself when it is at most 256 KB;
 * a larger one is an artifact whose `result_url` is signed at each attempt.
 */
const recipeView = (block: RecipeRunSpec, run: RecipeRunRecord | undefined) => ({
  slug: block.slug, contract: block.contract, impl: block.impl, outcome: run?.outcome ?? null,
  result: run?.output ?? null, result_url: null, result_url_expires_at: null,
})

const artifactsReady = (event: JobSucceeded | JobFailed): WebhookEventDraft[] =>
  (event.artifacts ?? []).map((artifact) => ({ kind: 'artifact.ready', key: `artifact.ready:${artifact.artifact_id}`, data: artifactView(event.job_id, artifact) }))

/**
 * A change once its summary is settled (recorded, or recorded as unavailable), so the webhook carries the summary
 * when there is one. The diff link is signed at each attempt; `diff_path` is the API route (needs an API key).
 */
const changeDetected = (event: ChangeSummarized | ChangeSummaryUnavailable, context: SourceContext): WebhookEventDraft[] => {
  const change = context.change
  // A change inside the monitor's cooldown, or one whose monitor does not notify by webhook, sends nothing.
  if (!change || !change.notified_channels.includes('webhook')) return []
  const diffPath = `/v1/monitors/${event.monitor_id}/changes/${change.change_id}/diff`
  return [{
    kind: 'schedule.change_detected', key: 'schedule.change_detected',
    data: {
      monitor_id: event.monitor_id, change_id: change.change_id, run_id: change.run_id, job_id: change.job_id, change_ratio: change.change_ratio,
      ...(event._tag === 'ChangeSummarized' ? { summary: event.summary } : {}),
      has_diff: change.has_diff, diff_path: change.has_diff ? diffPath : null, diff_url: null, diff_url_expires_at: null, detected_at: change.detected_at,
    },
    ...(change.has_diff ? { signed_links: [{ field: 'diff_url', blob_key: change.diff_key, download_name: `diff-${change.change_id}.txt` }] } : {}),
  }]
}

/**
 * THE mapping from domain events to webhook events: every webhook kind and payload is defined here and nowhere
 * else, as a projection of the log. A domain event without a row sends nothing.
 */
export const WEBHOOK_MAPPING: { readonly [Tag in DomainEvent['_tag']]?: Row<Tag> } = {
  JobSucceeded: { kinds: ['job.completed', 'artifact.ready'], needs: 'job', map: (event, _envelope, context) => [jobCompleted(event, context), ...artifactsReady(event)] },
  JobFailed: { kinds: ['job.completed', 'artifact.ready'], needs: 'job', map: (event, _envelope, context) => [jobCompleted(event, context), ...artifactsReady(event)] },
  MonitorBaselineRecorded: {
    kinds: ['schedule.monitor_activated'], needs: 'none',
    // Only the first baseline activates a monitor; a reset or a new normalization re-baselines silently.
    map: (event) => event.reason !== 'first_run' ? [] : [{
      kind: 'schedule.monitor_activated', key: 'schedule.monitor_activated',
      data: { monitor_id: event.monitor_id, run_id: event.run_id, activated_at: event.recorded_at },
    }],
  },
  ChangeSummarized: { kinds: ['schedule.change_detected'], needs: 'change', map: (event, _envelope, context) => changeDetected(event, context) },
  ChangeSummaryUnavailable: { kinds: ['schedule.change_detected'], needs: 'change', map: (event, _envelope, context) => changeDetected(event, context) },
  MonitorRunSkipped: {
    kinds: ['schedule.run_skipped'], needs: 'none',
    map: (event) => [{
      kind: 'schedule.run_skipped', key: 'schedule.run_skipped',
      data: { monitor_id: event.monitor_id, run_id: event.run_id, status: event.status, detail: event.detail, skipped_at: event.skipped_at },
    }],
  },
  MonitorPaused: {
    kinds: ['schedule.monitor_paused'], needs: 'none',
    map: (event) => [{
      kind: 'schedule.monitor_paused', key: 'schedule.monitor_paused',
      data: { monitor_id: event.monitor_id, reason: event.reason, detail: event.detail, paused_at: event.paused_at },
    }],
  },
  WebhookPingRequested: {
    kinds: ['ping'], needs: 'none',
    map: (event: WebhookPingRequested) => [{ kind: 'ping', key: 'ping', data: { endpoint_id: event.endpoint_id, requested_at: event.requested_at }, only_endpoint: event.endpoint_id }],
  },
}

/** The row of a domain event, if it has one. */
export const mappingOf = (event: DomainEvent): Row<DomainEvent['_tag']> | undefined =>
  WEBHOOK_MAPPING[event._tag] as Row<DomainEvent['_tag']> | undefined

/** Kinds an endpoint can subscribe to: every kind the table produces but `ping`, which goes to the endpoint that asked for it. */
export const SUBSCRIBABLE_KINDS: readonly WebhookKind[] = [...new Set(Object.values(WEBHOOK_MAPPING).flatMap((row) => row.kinds))]
  .filter((kind) => kind !== 'ping')
