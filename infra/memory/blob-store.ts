import { createHash } from 'node:crypto'
import { Effect, Layer } from 'effect'
import { BlobNotFound, BlobStore, type BlobStoreService } from '../../ports/blob-store.js'

/**
 * Blobs in one process's memory, for fast tests. Its signed URLs name the blob but lead nowhere: nothing serves them,
 * so tests that download artifacts use the local-folder adapter behind the API.
 */
export const makeMemoryBlobStore = (now: () => number = Date.now): BlobStoreService => {
  const blobs = new Map<string, { readonly bytes: Uint8Array; readonly contentType: string }>()
  const putNow = (key: string, bytes: Uint8Array, contentType: string) => {
    blobs.set(key, { bytes: Uint8Array.from(bytes), contentType })
    return { key, size: bytes.byteLength, sha256: createHash('sha256').update(bytes).digest('hex') }
  }
  return {
    put: (key, bytes, contentType) => Effect.sync(() => putNow(key, bytes, contentType)),
    putNow,
    get: (key) => Effect.suspend(() => {
      const blob = blobs.get(key)
      return blob
        ? Effect.succeed({ bytes: Uint8Array.from(blob.bytes), contentType: blob.contentType })
        : Effect.fail(new BlobNotFound({ key }))
    }),
    delete: (key) => Effect.sync(() => { blobs.delete(key) }),
    signedUrl: (key, ttlSeconds, downloadName) => Effect.sync(() => {
      const expires = new Date(now() + ttlSeconds * 1000)
      const query = new URLSearchParams({ key, name: downloadName, expires: String(Math.floor(expires.getTime() / 1000)) })
      return { url: `memory://blobs/download?${query}`, expires_at: expires.toISOString() }
    }),
  }
}

export const MemoryBlobStoreLayer = Layer.sync(BlobStore, () => makeMemoryBlobStore())
