import { Effect } from 'effect'
import { createClaimedContentMonitor, finishRun, loadContentMonitor, releaseContentMonitorPlace } from '../commands/content-monitors.js'
import { jobEnd } from '../commands/job-ends.js'
import { loadJob } from '../commands/jobs.js'
import { loadUser } from '../commands/users.js'
import type { RunResult } from '../domain/content-monitor/decider.js'
import { AUTO_DISABLE_AFTER_FAILURES } from '../domain/content-monitor/limits.js'
import { observeOffThread } from './content-monitor-observe.js'
import { acceptsJobEndsFrom } from './job-ends-from.js'
import { BlobStore } from '../ports/blob-store.js'
import type { Clock } from '../ports/clock.js'
import { EventStore, type EventEnvelope } from '../ports/event-store.js'
import { Mailer } from '../ports/mail.js'
import { defineProcessor } from './processor.js'
import type { Run } from './runner.js'

/**
 * Job failures that are the target's own answer (an error status, a block page): the run observes that answer (its
 * status code is what `status_code_change` compares). Any other failure with a status (the body too large, a crash
 * after the answer) is a failed run that records the status it saw.
 */
const TARGET_VERDICTS = new Set(['upstream_error', 'stealth_blocked'])

const metadataOf = (envelope: EventEnvelope) => ({ correlation_id: envelope.metadata.correlation_id, causation_id: envelope.event_id, actor: 'content-monitor-runner' })

/**
 * Finishes content-monitor runs from their jobs (a run's job has the run's id and the monitor's tag): a job with an
 * HTTP answer gives a snapshot the rule is applied to (an error status still is an answer); one without, or whose job
 * failed on our side after the answer, gives a failed run. A job can end before its run is recorded as started, so
 * both events lead here. When a monitor is auto-disabled, frees its place and e-mails the owner once (message id from
 * the event). Completes a create whose request stopped after claiming its place (the claim records the creation).
 */
export const makeContentMonitorRunner = (options: { readonly log: (message: string, detail?: unknown) => void }, run: Run<EventStore | BlobStore | Mailer | Clock>) => {
  const finish = (monitorId: string, runId: string, envelope: EventEnvelope, jobOrgId?: string) => run(Effect.gen(function* () {
    const monitor = yield* loadContentMonitor(monitorId)
    if (!monitor.exists || monitor.runs.get(runId) !== 'running') return
    if (jobOrgId !== undefined && jobOrgId !== monitor.org_id) return
    const end = yield* jobEnd(runId)
    if (end === null) return
    const manifest = end.event.manifest ?? null
    const statusCode = typeof manifest?.http_status === 'number' ? manifest.http_status : null
    const artifacts = end.event.artifacts ?? []
    const body = artifacts.find((a) => a.artifact_type === 'html') ?? artifacts.find((a) => a.artifact_type === 'response_body')
    let result: RunResult
    if (statusCode === null || (!end.succeeded && !TARGET_VERDICTS.has(end.event.failure_reason))) {
      const failure = end.succeeded ? { code: 'no_answer', message: 'the job recorded no HTTP status' } : { code: end.event.failure_reason, message: end.event.message }
      result = { _tag: 'Failed', error_code: failure.code, error_message: failure.message, status_code: statusCode }
    } else {
      const blob = body ? yield* Effect.flatMap(BlobStore, (blobs) => blobs.get(body.blob_key)).pipe(Effect.catchTag('BlobNotFound', () => Effect.succeed(null))) : null
      const text = blob ? new TextDecoder().decode(blob.bytes) : ''
      const page = { body: text, statusCode, contentLength: blob?.bytes.byteLength ?? 0, capturedAt: end.event.finished_at }
      const observed = yield* Effect.promise(() => observeOffThread(monitor.org_id, page, monitor.rule))
      // A failed job's answer (an error status) has no stored body: only its status code is observed.
      result = observed._tag === 'Observed' && !blob
        ? { _tag: 'Observed', snapshot: { ...observed.snapshot, hash: null, preview: null, contentLength: null }, needle_present: null }
        : observed
    }
    yield* finishRun(monitor, runId, result, metadataOf(envelope))
  }))

  const disabled = (monitorId: string, failures: number, envelope: EventEnvelope) => run(Effect.gen(function* () {
    const monitor = yield* loadContentMonitor(monitorId)
    if (!monitor.exists) return
    yield* releaseContentMonitorPlace(monitor, metadataOf(envelope))
    const user = yield* loadUser(monitor.user_id)
    if (!user.exists) return
    yield* (yield* Mailer).send({
      id: `content-monitor-disabled-${envelope.event_id}`, to: user.email,
      subject: 'Your content monitor was disabled',
      text: [
        `Your content monitor for ${monitor.url} failed ${failures} times in a row (after ${AUTO_DISABLE_AFTER_FAILURES} consecutive failures a monitor is disabled).`,
        '',
        'Its last error is shown by GET /content-monitors/{id} (lastErrorCode, lastErrorMessage).',
        'Set its status back to active (PATCH /content-monitors/{id} {"status":"active"}) once the page answers again.',
        '',
      ].join('\n'),
    })
  }))

  return defineProcessor({
    name: 'processor.content-monitor-runner',
    categories: ['job', 'content-monitor', 'content-monitor-quota'],
    types: ['JobSucceeded', 'JobFailed', 'ContentMonitorRunStarted', 'ContentMonitorAutoDisabled', 'ContentMonitorPlaceClaimed'],
    accepts: acceptsJobEndsFrom('content_monitor_run'),
    log: options.log,
    handle: async (event, envelope) => {
      switch (event._tag) {
        case 'JobSucceeded':
        case 'JobFailed': {
          const { state } = await run(loadJob(event.job_id))
          // Only the run's own job (its id is the run id) finishes it, and only for a monitor of the job's organization.
          if (state.status === 'none' || state.origin._tag !== 'content_monitor_run' || state.origin.run_id !== event.job_id) return
          await finish(state.origin.monitor_id, event.job_id, envelope, state.org_id)
          return
        }
        case 'ContentMonitorRunStarted':
          return finish(event.monitor_id, event.run_id, envelope)
        case 'ContentMonitorAutoDisabled':
          return disabled(event.monitor_id, event.consecutive_failures, envelope)
        case 'ContentMonitorPlaceClaimed':
          // A create's claim: the monitor is created from it if the request stopped before doing so.
          if (event.creation) await run(createClaimedContentMonitor(event.user_id, event.monitor_id, event.creation, metadataOf(envelope)))
          return
      }
    },
  })
}
