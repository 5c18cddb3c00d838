import { createHash } from 'node:crypto'
import { Effect, Layer } from 'effect'
import {
  BlobSASPermissions, BlobServiceClient, generateBlobSASQueryParameters, StorageSharedKeyCredential, type ContainerClient,
} from '@azure/storage-blob'
import { BlobNotFound, BlobStore, type BlobStoreService } from '../../ports/blob-store.js'
import { StoreUnavailable } from '../../ports/event-store.js'

export interface AzureBlobOptions {
  /** A connection string with an account key (needed to sign SAS URLs). */
  readonly connectionString: string
  readonly container: string
  readonly now?: () => number
}

const parseConnectionString = (cs: string) => {
  const parts = Object.fromEntries(cs.split(';').filter(Boolean).map((kv) => {
    const i = kv.indexOf('=')
    return [kv.slice(0, i), kv.slice(i + 1)]
  }))
  if (!parts.AccountName || !parts.AccountKey) throw new Error('AZURE_BLOB_CONNECTION_STRING needs AccountName and AccountKey (SAS URLs are signed with the key)')
  return { accountName: parts.AccountName as string, accountKey: parts.AccountKey as string }
}

const attempt = <A>(f: () => Promise<A>) => Effect.tryPromise({ try: f, catch: (cause) => new StoreUnavailable({ cause }) })

/**
 * Artifacts in a private container; downloads go through short-lived read-only SAS URLs. The container is created
 * when missing. The client holds no connection between calls, so there is nothing to release.
 */
export const azureBlobStore = (options: AzureBlobOptions): Effect.Effect<BlobStoreService, StoreUnavailable> => Effect.gen(function* () {
  const { accountName, accountKey } = parseConnectionString(options.connectionString)
  const credential = new StorageSharedKeyCredential(accountName, accountKey)
  const service = BlobServiceClient.fromConnectionString(options.connectionString)
  const container: ContainerClient = service.getContainerClient(options.container)
  yield* attempt(() => container.createIfNotExists()) // no `access` option: the container stays private
  const now = options.now ?? Date.now

  return {
    put: (key, bytes, contentType) => attempt(async () => {
      const sha256 = createHash('sha256').update(bytes).digest('hex')
      await container.getBlockBlobClient(key).uploadData(bytes, { blobHTTPHeaders: { blobContentType: contentType }, metadata: { sha256 } })
      return { key, size: bytes.byteLength, sha256 }
    }),
    get: (key) => Effect.tryPromise({
      try: async () => {
        const blob = container.getBlockBlobClient(key)
        const [bytes, properties] = await Promise.all([blob.downloadToBuffer(), blob.getProperties()])
        return { bytes: new Uint8Array(bytes), contentType: properties.contentType ?? 'application/octet-stream' }
      },
      catch: (e) => ((e as { statusCode?: number }).statusCode === 404 ? new BlobNotFound({ key }) : new StoreUnavailable({ cause: e })),
    }),
    delete: (key) => attempt(async () => { await container.getBlockBlobClient(key).deleteIfExists() }),
    signedUrl: (key, ttlSeconds, downloadName) => Effect.sync(() => {
      const expiresOn = new Date(now() + ttlSeconds * 1000)
      const sas = generateBlobSASQueryParameters({
        containerName: options.container, blobName: key, permissions: BlobSASPermissions.parse('r'),
        startsOn: new Date(now() - 60_000), expiresOn, contentDisposition: `attachment; filename="${downloadName.replace(/[^\w.-]/g, '_')}"`,
      }, credential).toString()
      return { url: `${container.getBlockBlobClient(key).url}?${sas}`, expires_at: expiresOn.toISOString() }
    }),
  } satisfies BlobStoreService
})

export const AzureBlobStoreLive = (options: AzureBlobOptions) => Layer.effect(BlobStore, azureBlobStore(options))

