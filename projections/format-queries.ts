import { Effect } from 'effect'
import { FORMAT_DEFINITIONS } from '../domain/job/formats.js'
import { inlineValue, needsBytes, type TruncatedFormat } from '../domain/job/inline-formats.js'
import { BlobStore } from '../ports/blob-store.js'
import { signedArtifact } from './artifact-queries.js'
import type { JobDoc } from './jobs.js'

/**
 * The formats a job was asked for, as its result carries them (domain/job/inline-formats.ts): text and JSON inline up
 * to the cap, screenshots and PDFs as short-lived download links, null for a format whose artifact the job did not make
 * (a failed job, markdown of a JSON response on light) or that was purged since.
 */
export const inlineFormats = (doc: JobDoc, ttlSeconds: number) =>
  Effect.gen(function* () {
    const formats: Record<string, unknown> = {}
    const truncated: Record<string, TruncatedFormat> = {}
    const blobs = yield* BlobStore
    for (const format of doc.formats ?? []) {
      const definition = FORMAT_DEFINITIONS[format]
      const artifact = doc.artifacts.find((a) => a.artifact_type === definition.artifact_type)
      if (!artifact) { formats[format] = null; continue }
      if (definition.inline === 'link') { formats[format] = yield* signedArtifact(artifact, ttlSeconds); continue }
      const bytes = needsBytes(format, artifact)
        ? yield* blobs.get(artifact.blob_key).pipe(Effect.map((blob) => blob.bytes), Effect.catchTag('BlobNotFound', () => Effect.succeed(null)))
        : new Uint8Array()
      if (bytes === null) { formats[format] = null; continue }
      const inline = inlineValue(format, artifact, bytes)
      formats[format] = inline.value
      if (inline.truncated) truncated[format] = { artifact_id: artifact.artifact_id, size: artifact.size }
    }
    return { formats, formats_truncated: truncated }
  })
