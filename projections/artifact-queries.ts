import { Effect } from 'effect'
import { NotFound } from '../domain/errors.js'
import type { ArtifactRecord } from '../domain/job/events.js'
import { BlobStore } from '../ports/blob-store.js'
import { getJob } from './job-queries.js'

const extensionOf = (contentType: string) =>
  contentType.includes('html') ? 'html' : contentType.includes('json') ? 'json' : contentType.includes('png') ? 'png' : contentType.includes('pdf') ? 'pdf' : 'bin'

/** An artifact's public description with a short-lived download URL. */
export const signedArtifact = (artifact: ArtifactRecord, ttlSeconds: number) =>
  Effect.flatMap(BlobStore, (blobs) => blobs.signedUrl(artifact.blob_key, ttlSeconds, `${artifact.artifact_type}-${artifact.artifact_id}.${extensionOf(artifact.content_type)}`)).pipe(
    Effect.map((signed) => ({
      artifact_id: artifact.artifact_id, artifact_type: artifact.artifact_type, content_type: artifact.content_type,
      size: artifact.size, sha256: artifact.sha256, ...signed,
    })),
  )

/** A short-lived download URL for one artifact of the organization's job; another organization's is a 404. */
export const artifactDownload = (orgId: string, jobId: string, artifactId: string, ttlSeconds: number) =>
  Effect.gen(function* () {
    const job = yield* getJob(orgId, jobId)
    const artifact = job.artifacts.find((a) => a.artifact_id === artifactId)
    if (!artifact) return yield* Effect.fail(new NotFound({ resource: 'artifact', id: artifactId }))
    return yield* signedArtifact(artifact, ttlSeconds)
  })

/** The bytes behind a verified download URL, or null when the artifact was purged. */
export const artifactBytes = (blobKey: string) =>
  Effect.flatMap(BlobStore, (blobs) => blobs.get(blobKey)).pipe(Effect.catchTag('BlobNotFound', () => Effect.succeed(null)))
