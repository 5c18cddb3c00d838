import { Context, Data, type Effect } from 'effect'
import type { StoreUnavailable } from './event-store.js'

export interface StoredBlob {
  readonly key: string
  readonly size: number
  /** Hex SHA-256 of the bytes, computed when written. */
  readonly sha256: string
}

export interface SignedUrl {
  readonly url: string
  readonly expires_at: string
}

export class BlobNotFound extends Data.TaggedError('BlobNotFound')<{ readonly key: string }> {}

export interface BlobStoreService {
  readonly put: (key: string, bytes: Uint8Array, contentType: string) => Effect.Effect<StoredBlob, StoreUnavailable>
  /**
   * Optional, for stores that write small blobs in the calling turn (local folder, memory): `put` done at once, without
   * an effect run, throwing StoreUnavailable where `put` fails with it. Null, with nothing written, for a blob the
   * store writes only in the background: `put` stores that one.
   */
  readonly putNow?: (key: string, bytes: Uint8Array, contentType: string) => StoredBlob | null
  readonly get: (key: string) => Effect.Effect<{ readonly bytes: Uint8Array; readonly contentType: string }, BlobNotFound | StoreUnavailable>
  readonly delete: (key: string) => Effect.Effect<void, StoreUnavailable>
  /** A short-lived URL that downloads the blob without further credentials. */
  readonly signedUrl: (key: string, ttlSeconds: number, downloadName: string) => Effect.Effect<SignedUrl, StoreUnavailable>
}

export class BlobStore extends Context.Tag('BlobStore')<BlobStore, BlobStoreService>() {}
