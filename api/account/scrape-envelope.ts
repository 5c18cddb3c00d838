import { Data, Effect } from 'effect'
import type { ArtifactRecord } from '../../domain/job/events.js'
import { GATEWAY_ERROR_CODE, SCRAPE_TIMEOUT_CODE, scrapeErrorCode } from '../../domain/scrape/outcome.js'
import type { JobEnd } from '../../commands/job-ends.js'
import { artifactBytes } from '../../projections/artifact-queries.js'

/** The POST /scrapes answer (SPEC 2.4): every field present, null where it does not apply. */
export interface ScrapeEnvelope {
  readonly id: string
  readonly jobId: string
  readonly resultId: string | null
  readonly resultKey: string | null
  readonly status: 'succeeded' | 'failed'
  readonly ok: boolean
  readonly statusCode: number | null
  readonly headers: Record<string, unknown> | null
  readonly html: string | null
  readonly htmlKey: string | null
  readonly screenshot: string | null
  readonly screenshotKey: string | null
  readonly errorCode: string | null
  readonly errorMessage: string | null
}

/** Keys name a job's artifact as `<jobId>/<artifactId>` (never the storage key). */
const keyOf = (jobId: string, artifact: ArtifactRecord | undefined) => artifact ? `${jobId}/${artifact.artifact_id}` : null

export const failedEnvelope = (scrapeId: string, errorCode: string, errorMessage: string, seen: Partial<Pick<ScrapeEnvelope, 'statusCode' | 'headers'>> = {}): ScrapeEnvelope => ({
  id: scrapeId, jobId: scrapeId, resultId: null, resultKey: null, status: 'failed', ok: false,
  statusCode: seen.statusCode ?? null, headers: seen.headers ?? null, html: null, htmlKey: null, screenshot: null, screenshotKey: null,
  errorCode, errorMessage,
})

export const timeoutEnvelope = (scrapeId: string, waitedSeconds: number) =>
  failedEnvelope(scrapeId, SCRAPE_TIMEOUT_CODE, `no result within ${waitedSeconds} s (timeout + 15 s); the scrape's late result is still recorded (GET /scrapes/${scrapeId})`)

/** Why a result could not be turned into an answer: the pipeline lost part of it. */
class ResultIncomplete extends Data.TaggedError('ResultIncomplete')<{ readonly message: string }> {}

const blobBytes = (artifact: ArtifactRecord) =>
  Effect.flatMap(artifactBytes(artifact.blob_key), (blob) => blob === null
    ? Effect.fail(new ResultIncomplete({ message: `the ${artifact.artifact_type} of the result is missing from storage` }))
    : Effect.succeed(blob))

/**
 * The envelope of a job's end. A succeeded job answers its page: `html` (when asked for) is the html artifact (the
 * rendered DOM on browsers) or, for a non-HTML answer on httpx, the response body as UTF-8; `screenshot` a
 * `data:image/png;base64,` URL. A job whose result lacks the body it was asked for is a pipeline failure (502), never an
 * `ok: true` with an empty body. A failed job answers its failure reason as errorCode.
 */
export const envelopeOf = (scrapeId: string, end: JobEnd, wanted: { readonly saveHtml: boolean; readonly takeScreenshot: boolean }) =>
  Effect.gen(function* () {
    const manifest = end.event.manifest ?? null
    const statusCode = typeof manifest?.http_status === 'number' ? manifest.http_status : null
    const headers = manifest?.response_headers !== null && typeof manifest?.response_headers === 'object' ? manifest.response_headers as Record<string, unknown> : null
    if (!end.succeeded) {
      return failedEnvelope(scrapeId, scrapeErrorCode(end.event.failure_reason), end.event.message, { statusCode, headers })
    }
    const artifacts = end.event.artifacts
    const body = artifacts.find((a) => a.artifact_type === 'html') ?? artifacts.find((a) => a.artifact_type === 'response_body')
    const shot = artifacts.find((a) => a.artifact_type === 'screenshot')
    if (wanted.saveHtml && !body) return yield* Effect.fail(new ResultIncomplete({ message: 'the job succeeded without the page body it was asked for' }))
    const html = wanted.saveHtml && body ? new TextDecoder().decode((yield* blobBytes(body)).bytes) : null
    const screenshot = wanted.takeScreenshot && shot ? `data:image/png;base64,${Buffer.from((yield* blobBytes(shot)).bytes).toString('base64')}` : null
    const envelope: ScrapeEnvelope = {
      id: scrapeId, jobId: scrapeId, resultId: wanted.saveHtml ? body?.artifact_id ?? null : null, resultKey: wanted.saveHtml ? keyOf(scrapeId, body) : null,
      status: 'succeeded', ok: true, statusCode, headers, html, htmlKey: wanted.saveHtml ? keyOf(scrapeId, body) : null,
      screenshot, screenshotKey: screenshot !== null ? keyOf(scrapeId, shot) : null, errorCode: null, errorMessage: null,
    }
    return envelope
  }).pipe(Effect.catchTag('ResultIncomplete', (e) => Effect.succeed(failedEnvelope(scrapeId, GATEWAY_ERROR_CODE, e.message))))
