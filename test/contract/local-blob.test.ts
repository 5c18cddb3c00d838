import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { Effect, Either } from 'effect'
import t from 'tap'
import { makeLocalBlobStore } from '../../infra/blob/local-folder.js'
import { SMALL_BLOB_MAX_BYTES } from '../../infra/blob/small-blob-file.js'
import { blobStoreContract } from './blob-store.contract.js'

const SECRET = 'test-signing-secret'
const BASE = 'http://127.0.0.1:8080/artifacts/download'

const fixture = (now?: () => number) => {
  const root = mkdtempSync(join(tmpdir(), 'sw-blobs-'))
  const store = makeLocalBlobStore({ root, downloadBase: BASE, signingSecret: SECRET, log: () => {}, ...(now ? { now } : {}) })
  return { store, root, cleanup: async () => { await store.close(); rmSync(root, { recursive: true, force: true }) } }
}

blobStoreContract(t, 'local folder', async () => fixture())

/** The parameters a download request carries, as the API route reads them. */
const paramsOf = (url: string) => {
  const q = new URL(url).searchParams
  return { key: q.get('key')!, expires: Number(q.get('expires')), name: q.get('name')!, sig: q.get('sig')! }
}

t.test('local folder: signed download URLs', async (t) => {
  let clock = Date.parse('2024-05-01T12:00:00.000Z')
  const { store, cleanup } = fixture(() => clock)
  t.teardown(cleanup)
  const signed = await Effect.runPromise(store.signedUrl('jobs/j1/page.html', 60, 'page.html'))
  t.ok(signed.url.startsWith(`${BASE}?`), 'served by the API download route')
  t.equal(signed.expires_at, '2024-05-01T12:01:00.000Z', 'expiry = injected now + ttl')
  const p = paramsOf(signed.url)
  t.same(p.key, 'jobs/j1/page.html')

  t.same(store.verify(p.key, p.expires, p.name, p.sig), { ok: true }, 'the URL as issued verifies')
  t.same(store.verify('jobs/j2/page.html', p.expires, p.name, p.sig), { ok: false, reason: 'bad_signature' }, 'tampered key')
  t.same(store.verify(p.key, p.expires, 'evil.exe', p.sig), { ok: false, reason: 'bad_signature' }, 'tampered name')
  t.same(store.verify(p.key, p.expires + 3600, p.name, p.sig), { ok: false, reason: 'bad_signature' }, 'extended expiry')
  const flipped = (p.sig[0] === 'A' ? 'B' : 'A') + p.sig.slice(1)
  t.same(store.verify(p.key, p.expires, p.name, flipped), { ok: false, reason: 'bad_signature' }, 'tampered signature')
  t.same(store.verify(p.key, p.expires, p.name, ''), { ok: false, reason: 'bad_signature' }, 'missing signature')

  const other = makeLocalBlobStore({ root: '/nonexistent', downloadBase: BASE, signingSecret: 'another-secret', log: () => {}, now: () => clock })
  t.same(other.verify(p.key, p.expires, p.name, p.sig), { ok: false, reason: 'bad_signature' }, 'another secret rejects it')

  clock += 60_000
  t.same(store.verify(p.key, p.expires, p.name, p.sig), { ok: true }, 'still valid at the expiry instant')
  clock += 1_000
  t.same(store.verify(p.key, p.expires, p.name, p.sig), { ok: false, reason: 'expired' }, 'rejected after expiry')
})

t.test('local folder: keys that could escape the root are refused', async (t) => {
  const { store, root, cleanup } = fixture()
  t.teardown(cleanup)
  const bytes = new TextEncoder().encode('x')
  for (const key of ['../outside', 'a/../../outside', 'a/../b', 'a/./b', '/etc/passwd', 'a//b/..', '..', 'a\\..\\..\\b']) {
    const put = await Effect.runPromise(Effect.either(store.put(key, bytes, 'text/plain')))
    t.ok(Either.isLeft(put), `put refuses ${JSON.stringify(key)}`)
    const get = await Effect.runPromise(Effect.either(store.get(key)))
    t.ok(Either.isLeft(get), `get refuses ${JSON.stringify(key)}`)
  }
  t.notOk(existsSync(join(root, '..', 'outside')), 'nothing written next to the root')
})

t.test('local folder: blobs of the earlier layout (bytes at the key, content type under .meta/) are read and deleted', async (t) => {
  const { store, root, cleanup } = fixture()
  t.teardown(cleanup)
  const key = 'jobs/org-1/job-1/artifact-1'
  mkdirSync(dirname(join(root, key)), { recursive: true })
  mkdirSync(dirname(join(root, '.meta', key)), { recursive: true })
  writeFileSync(join(root, key), 'legacy bytes')
  writeFileSync(join(root, '.meta', key), JSON.stringify({ contentType: 'text/html' }))
  const got = await Effect.runPromise(store.get(key))
  t.equal(Buffer.from(got.bytes).toString(), 'legacy bytes')
  t.equal(got.contentType, 'text/html')
  await Effect.runPromise(store.put(key, new TextEncoder().encode('new bytes'), 'text/plain'))
  const replaced = await Effect.runPromise(store.get(key))
  t.equal(Buffer.from(replaced.bytes).toString(), 'new bytes', 'a put over a legacy blob is what get answers')
  t.equal(replaced.contentType, 'text/plain')
  await Effect.runPromise(store.delete(key))
  t.notOk(existsSync(join(root, key)), 'the legacy bytes are deleted')
  t.notOk(existsSync(join(root, '.meta', key)), 'the legacy content type is deleted')
  const gone = await Effect.runPromise(Effect.either(store.get(key)))
  t.ok(Either.isLeft(gone) && gone.left._tag === 'BlobNotFound', 'nothing is left to read')
})

/** Bytes past the size kept in the small blobs' file, so stored as a file. */
const large = (text: string) => Buffer.concat([Buffer.from(text), Buffer.alloc(SMALL_BLOB_MAX_BYTES)])

t.test('local folder: a job\'s artifacts share their organization\'s folder (no folder per job)', async (t) => {
  const { store, root, cleanup } = fixture()
  t.teardown(cleanup)
  for (const job of ['job-1', 'job-2']) await Effect.runPromise(store.put(`jobs/org-1/${job}/a1`, large(job), 'text/plain'))
  t.same(readdirSync(join(root, '.blobs', 'jobs', 'org-1')).sort(), ['job-1~a1', 'job-2~a1'])
  t.same(Buffer.from((await Effect.runPromise(store.get('jobs/org-1/job-2/a1'))).bytes), large('job-2'))
})

t.test('local folder: small blobs are rows of one SQLite file, larger ones files; a key answers its last put, whichever kind', async (t) => {
  const { store, root, cleanup } = fixture()
  t.teardown(cleanup)
  const key = 'jobs/org-1/job-1/a1'
  const text = async () => Buffer.from((await Effect.runPromise(store.get(key))).bytes)
  await Effect.runPromise(store.put(key, Buffer.from('small'), 'text/html'))
  t.notOk(existsSync(join(root, '.blobs')), 'no file made for a small blob')
  t.ok(existsSync(join(root, '.small-blobs.db')))
  t.same(await text(), Buffer.from('small'))
  await Effect.runPromise(store.put(key, large('large'), 'text/html'))
  t.same(await text(), large('large'), 'a large put replaces a small blob')
  t.same(store.putNow!(key, Buffer.from('small again'), 'text/plain')?.size, 11, 'putNow writes a small blob at once')
  t.same(await text(), Buffer.from('small again'), 'a small put replaces a large blob')
  t.equal(store.putNow!(key, large('x'), 'text/plain'), null, 'putNow declines a large blob')
  t.same(await text(), Buffer.from('small again'), 'a declined putNow writes nothing')
  await Effect.runPromise(store.put(key, large('large again'), 'text/html'))
  await Effect.runPromise(store.delete(key))
  const gone = await Effect.runPromise(Effect.either(store.get(key)))
  t.ok(Either.isLeft(gone) && gone.left._tag === 'BlobNotFound', 'a delete removes the row and the file')
  t.notOk(existsSync(join(root, '.blobs', 'jobs', 'org-1', 'job-1~a1')))
  await store.close()
  await Effect.runPromise(store.put('jobs/org-1/job-2/a1', Buffer.from('after close'), 'text/plain'))
  t.same(Buffer.from((await Effect.runPromise(store.get('jobs/org-1/job-2/a1'))).bytes), Buffer.from('after close'), 'a use after close opens the file again')
})
