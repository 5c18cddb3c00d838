/**
 * The detector: reacts to a monitor's delivered runs by reading the run's job content in the monitor's detection
 * mode, fingerprinting and diffing it (domain/detection) and recording the baseline, the evaluation or the change
 * in the monitor's stream. Idempotent on the run id (the decider ignores a run already evaluated) and on the change
 * id (derived from monitor and run). Content and diffs are blobs: `detection/<monitor>/content/<fingerprint>` (the
 * normalized lines, content-addressed) and `detection/<monitor>/changes/<change_id>.diff`.
 */
import { Effect } from 'effect'
import { deterministicId } from '../commands/handle.js'
import { loadDetection, runDetectionCommand } from '../commands/detection.js'
import { decideRun, type Observation } from '../domain/detection/decide.js'
import { totalDiff } from '../domain/detection/diff.js'
import { fingerprintOf } from '../domain/detection/fingerprint.js'
import { isJsonType, normalizeExtraction, type Normalized } from '../domain/detection/normalize.js'
import { decodeEvent } from '../domain/events.js'
import type { ExtractionResult } from '../domain/extraction.js'
import type { ArtifactRecord, JobEvent } from '../domain/job/events.js'
import { noiseOf, type DetectionConfig } from '../domain/monitor/detection-config.js'
import { DETECTION_SOURCES } from '../domain/monitor/run-job.js'
import { STREAMS } from '../domain/streams.js'
import { DETECTION_DEADLINE_MS, offThread } from '../fetchers/workers/index.js'
import type { CpuTasks } from '../fetchers/workers/tasks.js'
import { BlobStore } from '../ports/blob-store.js'
import { Clock } from '../ports/clock.js'
import { DocumentStore } from '../ports/document-store.js'
import { EventStore, type EventEnvelope } from '../ports/event-store.js'
import type { Mailer } from '../ports/mail.js'
import { noticeChange, type ChangeNoticeOptions } from './change-notices.js'
import { defineProcessor } from './processor.js'
import type { Run } from './runner.js'

const encoder = new TextEncoder()
const decoder = new TextDecoder()

/** Blob keys allow no colon: the fingerprint `n1:<hex>` is stored as `n1-<hex>`. */
export const contentKey = (monitorId: string, fingerprint: string) => `detection/${monitorId}/content/${fingerprint.replace(":", "-")}`
export const diffKey = (monitorId: string, changeId: string) => `detection/${monitorId}/changes/${changeId}.diff`
export const changeIdOf = (monitorId: string, runId: string) => deterministicId(`change:${monitorId}:${runId}`)

/** The artifacts a job stored when it succeeded (none for a job that did not). */
const jobArtifacts = (jobId: string) => Effect.gen(function* () {
  const history = yield* (yield* EventStore).readStream(STREAMS.job.stream(jobId))
  const succeeded = history.map((r) => decodeEvent(r.type, r.data) as JobEvent).find((e) => e._tag === 'JobSucceeded')
  return succeeded?._tag === 'JobSucceeded' ? succeeded.artifacts : []
})

const artifactOf = (artifacts: readonly ArtifactRecord[], type: string) => artifacts.find((a) => a.artifact_type === type)

const artifactText = (artifact: ArtifactRecord | undefined) => Effect.gen(function* () {
  if (!artifact) return undefined
  const blob = yield* (yield* BlobStore).get(artifact.blob_key).pipe(Effect.catchTag('BlobNotFound', () => Effect.succeed(undefined)))
  return blob && decoder.decode(blob.bytes)
})

/** Normalises in a worker, in the lane of the organization; past DETECTION_DEADLINE_MS the content is unreadable. */
const normalizeOffThread = <K extends 'normalize_html' | 'normalize_body' | 'normalize_json'>(orgId: string, kind: K, input: CpuTasks[K]['input']) =>
  Effect.promise(() => offThread(orgId, kind, input, DETECTION_DEADLINE_MS)).pipe(
    Effect.map((outcome): Normalized => (outcome.ok ? outcome.value : { ok: false, reason: 'too_large' })),
  )

/**
 * The run's content in the monitor's mode, from the artifacts the mode reads (DETECTION_SOURCES; the run's job asked
 * for them). Mode text reads a JSON answer (by its content type) as canonical JSON, else the page, else the raw answer
 * by its content type (a JSON, plain-text or markup body for which no page was made). json falls back to the `html`
 * artifact (the response text on the light tier) for jobs stored before runs asked for the raw body. Content the mode
 * cannot read is `unreadable`, never a change. The monitor's noise steps are quietened in every mode but extract.
 * Pages are normalised in a worker thread (normalizeOffThread): a page over the caps of docs/limits.md, or one whose
 * normalisation passes DETECTION_DEADLINE_MS, is unreadable.
 */
export const readContent = (orgId: string, detection: DetectionConfig, jobId: string) => Effect.gen(function* () {
  const artifacts = yield* jobArtifacts(jobId)
  const unreadable: Normalized = { ok: false, reason: 'no_extraction' }
  const noise = noiseOf(detection)
  const ignoreSelectors = detection.ignore_selectors
  const source = yield* artifactText(artifactOf(artifacts, DETECTION_SOURCES[detection.mode].artifact_type))
  switch (detection.mode) {
    case 'text': {
      const raw = artifactOf(artifacts, 'response_body')
      if (source !== undefined && !(raw && isJsonType(raw.content_type))) {
        return yield* normalizeOffThread(orgId, 'normalize_html', { html: source, selector: null, ignoreSelectors, noise })
      }
      const body = yield* artifactText(raw)
      return body === undefined ? unreadable : yield* normalizeOffThread(orgId, 'normalize_body', { body, contentType: raw!.content_type, ignoreSelectors, noise })
    }
    case 'selector':
      return source === undefined ? unreadable : yield* normalizeOffThread(orgId, 'normalize_html', { html: source, selector: detection.selector, ignoreSelectors, noise })
    case 'json': {
      const body = source ?? (yield* artifactText(artifactOf(artifacts, 'html')))
      return body === undefined ? unreadable : yield* normalizeOffThread(orgId, 'normalize_json', { body, noise })
    }
    case 'extract': {
      if (source === undefined) return unreadable
      try {
        return normalizeExtraction(JSON.parse(source) as ExtractionResult)
      } catch {
        return unreadable
      }
    }
  }
})

const readLines = (key: string) => Effect.gen(function* () {
  const blob = yield* (yield* BlobStore).get(key).pipe(Effect.catchTag('BlobNotFound', () => Effect.succeed(undefined)))
  return blob ? (JSON.parse(decoder.decode(blob.bytes)) as string[]) : undefined
})

/** Evaluates one delivered run of a monitor; does nothing for a run already evaluated or a monitor without detection. */
export const evaluateRun = (monitorId: string, runId: string, jobId: string, envelope: EventEnvelope) => Effect.gen(function* () {
  const state = yield* loadDetection(monitorId)
  const monitor = state.monitor
  if (!monitor || state.deleted || !monitor.detection.enabled || state.memory.evaluated_runs.has(runId)) return
  const blobs = yield* BlobStore
  const now = (yield* Clock).now().toISOString()
  const content = yield* readContent(monitor.org_id, monitor.detection, jobId)
  let observation: Observation
  let diffAgainst: string | null = null
  const changeId = changeIdOf(monitorId, runId)
  if (!content.ok) {
    observation = { ok: false, reason: content.reason === 'selector_missing' ? 'selector_missing' : 'unreadable' }
  } else {
    const fingerprint = fingerprintOf(content.lines)
    yield* blobs.put(contentKey(monitorId, fingerprint), encoder.encode(JSON.stringify(content.lines)), 'application/json')
    observation = { ok: true, fingerprint }
    const preview = decideRun(monitor.detection, state.memory, { run_id: runId, observation, now })
    if (preview.kind === 'needs_diff') {
      const before = yield* readLines(contentKey(monitorId, preview.against))
      // Without the baseline's content there is nothing to diff against: the run becomes the new baseline's candidate.
      // A diff past its worker's deadline counts as a total change, as one past diff.ts's own bounds does.
      const diffed = yield* Effect.promise(() => offThread(monitor.org_id, 'diff', { before: before ?? [], after: content.lines }, DETECTION_DEADLINE_MS))
      const diff = diffed.ok ? diffed.value : totalDiff(before ?? [], content.lines)
      observation = { ok: true, fingerprint, diff }
      diffAgainst = preview.against
      const decided = decideRun(monitor.detection, state.memory, { run_id: runId, observation, now })
      if (decided.kind === 'change') {
        yield* blobs.put(diffKey(monitorId, changeId), encoder.encode(diff.lines.join('\n')), 'text/plain; charset=utf-8')
      }
    }
  }
  yield* runDetectionCommand(
    { _tag: 'EvaluateRun', monitor_id: monitorId, run_id: runId, job_id: jobId, observation, diff_against: diffAgainst, change_id: changeId, diff_key: diffKey(monitorId, changeId), now },
    {
      org_id: monitor.org_id, idSeed: `detect:${runId}`,
      metadata: { correlation_id: envelope.metadata.correlation_id, causation_id: envelope.event_id, actor: 'detector' },
    },
  )
})

export interface DetectorOptions extends ChangeNoticeOptions {
  /** Called when a digest became due sooner than the digest loop planned (a new digested change). */
  readonly digestsChanged: () => void
}

/**
 * The detector processor: evaluates delivered runs, then follows up each recorded change (summary, e-mails, the
 * digest's due time). Processors never call each other: what it records, webhooks and read models pick up.
 */
export const makeDetector = (options: DetectorOptions, run: Run<EventStore | BlobStore | Clock | DocumentStore | Mailer>) => {
  const metadataOf = (envelope: EventEnvelope) => ({ correlation_id: envelope.metadata.correlation_id, causation_id: envelope.event_id, actor: 'detector' })
  return defineProcessor({
    name: 'processor.detector',
    categories: ['monitor'],
    types: ['MonitorRunCompleted', 'ChangeDetected'],
    log: options.log,
    handle: async (event, envelope) => {
      if (event._tag === 'MonitorRunCompleted' && event.status === 'delivered' && event.job_id !== null) {
        await run(evaluateRun(event.monitor_id, event.run_id, event.job_id, envelope))
      } else if (event._tag === 'ChangeDetected') {
        await run(noticeChange(options, event, metadataOf(envelope)))
        if (event.notified_channels.includes('digest')) options.digestsChanged()
      }
    },
  })
}
