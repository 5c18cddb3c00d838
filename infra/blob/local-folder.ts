import { createHash, createHmac, timingSafeEqual } from 'node:crypto'
import { mkdirSync } from 'node:fs'
import { readFile, rm, writeFile, rename } from 'node:fs/promises'
import { dirname, join, resolve, sep } from 'node:path'
import { Context, Effect, Layer } from 'effect'
import { BlobNotFound, BlobStore, type BlobStoreService } from '../../ports/blob-store.js'
import { StoreUnavailable } from '../../ports/event-store.js'
import { SMALL_BLOB_MAX_BYTES, smallBlobFile } from './small-blob-file.js'
import type { CheckpointLog } from '../sqlite/wal-checkpointer.js'

export interface LocalBlobOptions {
  readonly root: string
  /** Base of the download route served by the API, e.g. https://scrape.example.com/artifacts/download */
  readonly downloadBase: string
  readonly signingSecret: string
  readonly now?: () => number
  /** Where the small blobs' file tells that its checkpointer stopped (see infra/sqlite/wal-checkpointer.ts). */
  readonly log: CheckpointLog
}

const KEY_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._\/-]{0,511}$/

/** Folders this store made lately, so later blobs in them skip the mkdir (forgotten past this many). */
const KNOWN_FOLDERS = 4096

/** Write then rename, so a reader never sees half a file. */
const writeReplacing = async (path: string, bytes: readonly Uint8Array[]) => {
  const tmp = `${path}.${process.pid}.${Date.now()}.tmp`
  await writeFile(tmp, bytes)
  await rename(tmp, path)
}

const exists = (error: unknown) => (error as NodeJS.ErrnoException).code === 'EEXIST'

/**
 * A blob under a new key (a job's artifact ids are new) is written in place, created exclusively, which saves the
 * rename (and a file name) per artifact: a key is read only once a put of it returned and it was recorded. A put that
 * stopped half-way (the process died) left a key nobody recorded; the retry of that key, like any put of a key that
 * exists, writes aside and renames over it, so a reader of an existing key never sees half a file.
 * Files are written on the thread pool, also small ones: creating a file can cost the kernel hundreds of microseconds
 * on a busy disk (measured: about 500 of CPU, against about 65 for the pool's round trips), which a blocking call
 * would charge to the event loop.
 */
const writeWhole = async (path: string, bytes: readonly Uint8Array[]) => {
  try {
    await writeFile(path, bytes, { flag: 'wx' })
    return
  } catch (error) {
    if (!exists(error)) {
      // Created by this call and left half-written (a full disk): removed, so the key stays absent.
      await rm(path, { force: true })
      throw error
    }
  }
  await writeReplacing(path, bytes)
}

/**
 * A blob's file: one line of JSON naming its content type, then its bytes, so a put is one file written and renamed
 * (JSON escapes line breaks, so the first one ends the header). Written as two pieces: a large blob is never copied.
 */
const HEADER_END = 0x0a
const withHeader = (bytes: Uint8Array, contentType: string): readonly Uint8Array[] =>
  [Buffer.from(`${JSON.stringify({ contentType })}\n`), bytes]
const withoutHeader = (file: Buffer) => {
  const end = file.indexOf(HEADER_END)
  return { bytes: new Uint8Array(file.buffer, file.byteOffset + end + 1, file.length - end - 1), contentType: (JSON.parse(file.toString('utf8', 0, end)) as { contentType: string }).contentType }
}

/** Bytes hashed in one turn of the event loop: about a millisecond. */
const HASH_SLICE_BYTES = 1 << 20

/** A large blob's SHA-256, a slice per turn: hashing a 20 MB page at once would hold the event loop for 30 ms and more. */
const sha256InSlices = async (bytes: Uint8Array) => {
  const hash = createHash('sha256')
  for (let start = 0; start < bytes.byteLength; start += HASH_SLICE_BYTES) {
    if (start > 0) await new Promise((resolve) => setImmediate(resolve))
    hash.update(bytes.subarray(start, start + HASH_SLICE_BYTES))
  }
  return hash.digest('hex')
}

/** The signed content: the key, its expiry and the file name it downloads as. */
const signature = (secret: string, key: string, expires: number, name: string) =>
  createHmac('sha256', secret).update(`${key}\n${expires}\n${name}`).digest('base64url')

export type VerifyResult = { ok: true } | { ok: false; reason: 'expired' | 'bad_signature' }

export const verifyDownload = (secret: string, key: string, expires: number, name: string, sig: string, nowMs: number): VerifyResult => {
  const expected = Buffer.from(signature(secret, key, expires, name))
  const given = Buffer.from(sig)
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return { ok: false, reason: 'bad_signature' }
  if (!Number.isFinite(expires) || expires * 1000 < nowMs) return { ok: false, reason: 'expired' }
  return { ok: true }
}

export const makeLocalBlobStore = (options: LocalBlobOptions): BlobStoreService & {
  readonly verify: (key: string, expires: number, name: string, sig: string) => VerifyResult
  readonly close: () => Promise<void>
} => {
  const root = resolve(options.root)
  const now = options.now ?? Date.now
  const checked = (key: string) => {
    if (!KEY_PATTERN.test(key) || key.split('/').some((part) => part === '..' || part === '.')) throw new Error(`invalid blob key: ${key}`)
    return key
  }
  const inRoot = (path: string, key: string) => {
    if (!path.startsWith(root + sep)) throw new Error(`blob key escapes the root: ${key}`)
    return path
  }
  /**
   * The file of a blob, under `.blobs/` (keys start with a letter or digit, so no key's own path can collide with
   * it). A key's last two segments name one file, joined by `~` (which no key contains, so two keys never share a
   * file): a job's artifacts `jobs/{org}/{job}/{artifact}` then sit in their organization's folder, which exists
   * after the first job, instead of a new folder per job.
   */
  const fileOf = (key: string) => {
    const parts = checked(key).split('/')
    const name = parts.splice(-2).join('~')
    return inRoot(resolve(join(root, '.blobs', ...parts, name)), key)
  }
  // Blobs written before `.blobs/`: the bytes at the key's own path, the content type in a parallel `.meta/` tree.
  const legacyFilesOf = (key: string) => ({
    bytes: inRoot(resolve(join(root, checked(key))), key),
    meta: join(root, '.meta', key),
  })
  const fail = (cause: unknown) => new StoreUnavailable({ cause })
  const folders = new Set<string>()
  const ensureFolder = (folder: string) => {
    if (folders.has(folder)) return
    mkdirSync(folder, { recursive: true })
    if (folders.size >= KNOWN_FOLDERS) folders.clear()
    folders.add(folder)
  }
  /** Writes a file in its folder; a known folder someone removed since is made again. */
  const writeIn = async (path: string, bytes: readonly Uint8Array[]) => {
    ensureFolder(dirname(path))
    await writeWhole(path, bytes).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'ENOENT') throw error
      folders.delete(dirname(path))
      ensureFolder(dirname(path))
      return writeWhole(path, bytes)
    })
  }
  const readLegacy = async (key: string) => {
    const files = legacyFilesOf(key)
    const [bytes, meta] = await Promise.all([readFile(files.bytes), readFile(files.meta, 'utf8')])
    return { bytes: new Uint8Array(bytes), contentType: (JSON.parse(meta) as { contentType: string }).contentType }
  }

  /**
   * Small blobs (a light job's page) are rows of one SQLite file in the root (its name starts with a dot, as no key
   * does), written in the calling turn; larger ones are files. A key's row, when there is one, is its current blob: a
   * file put removes the row after writing, and a delete removes both.
   */
  const small = smallBlobFile(join(root, '.small-blobs.db'), options.log)
  const stored = (key: string, bytes: Uint8Array) => ({ key, size: bytes.byteLength, sha256: createHash('sha256').update(bytes).digest('hex') })
  const putNow = (key: string, bytes: Uint8Array, contentType: string) => {
    if (bytes.byteLength > SMALL_BLOB_MAX_BYTES) return null
    try {
      small.put(checked(key), bytes, contentType)
    } catch (cause) {
      throw fail(cause)
    }
    return stored(key, bytes)
  }

  return {
    put: (key, bytes, contentType) => Effect.suspend(() => {
      const atOnce = Effect.try({ try: () => putNow(key, bytes, contentType), catch: (e) => (e instanceof StoreUnavailable ? e : fail(e)) })
      return Effect.flatMap(atOnce, (done) => done ? Effect.succeed(done) : Effect.tryPromise({
        try: async () => {
          const [, sha256] = await Promise.all([writeIn(fileOf(key), withHeader(bytes, contentType)), sha256InSlices(bytes)])
          small.delete(key)
          return { key, size: bytes.byteLength, sha256 }
        },
        catch: fail,
      }))
    }),
    putNow,
    get: (key) => Effect.tryPromise({
      try: async () => {
        const file = fileOf(key)
        const row = small.get(key)
        if (row) return row
        return await readFile(file).then(withoutHeader, (error: NodeJS.ErrnoException) => {
          if (error.code !== 'ENOENT') throw error
          return readLegacy(key)
        })
      },
      catch: (e) => ((e as NodeJS.ErrnoException).code === 'ENOENT' ? new BlobNotFound({ key }) : fail(e)),
    }),
    delete: (key) => Effect.tryPromise({
      try: async () => {
        const file = fileOf(key)
        const legacy = legacyFilesOf(key)
        small.delete(key)
        await rm(file, { force: true })
        await rm(legacy.bytes, { force: true })
        await rm(legacy.meta, { force: true })
      },
      catch: fail,
    }),
    signedUrl: (key, ttlSeconds, downloadName) => Effect.sync(() => {
      const expires = Math.floor(now() / 1000) + ttlSeconds
      const query = new URLSearchParams({ key, expires: String(expires), name: downloadName, sig: signature(options.signingSecret, key, expires, downloadName) })
      return { url: `${options.downloadBase}?${query}`, expires_at: new Date(expires * 1000).toISOString() }
    }),
    verify: (key, expires, name, sig) => verifyDownload(options.signingSecret, key, expires, name, sig, now()),
    /** Closes the small blobs' file (after its last checkpoint); a later use opens it again. */
    close: small.close,
  }
}

/** Checks a signed download URL; only the local-folder blob store has one, since only then the API serves the bytes. */
export class DownloadVerifier extends Context.Tag('DownloadVerifier')<
  DownloadVerifier, (key: string, expires: number, name: string, sig: string) => VerifyResult
>() {}

/** Files are opened and closed per call; the small blobs' file is closed with the layer. */
export const LocalBlobStoreLive = (options: LocalBlobOptions) => Layer.scopedContext(Effect.map(
  Effect.acquireRelease(Effect.sync(() => makeLocalBlobStore(options)), (store) => Effect.promise(store.close)),
  (store) => Context.make(BlobStore, store).pipe(Context.add(DownloadVerifier, store.verify)),
))
