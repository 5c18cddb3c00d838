import { createHash, randomBytes, randomUUID } from 'node:crypto'
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Effect } from 'effect'
import t from 'tap'
import { canonicalJson, GENESIS, linkMac, verifyExport, type Checkpoint, type ExportRecord } from '../../domain/audit-chain.js'
import { encodeEvent } from '../../domain/events.js'
import { OrgCreated } from '../../domain/org/events.js'
import { LegalHoldPlaced, LegalHoldReleased, RetentionPolicySet } from '../../domain/retention/events.js'
import { STREAMS, type DomainEvent } from '../../domain/streams.js'
import { EmailClaimed } from '../../domain/user/events.js'
import { loadAuditKeys, rotateAuditKey } from '../../infra/audit-keys.js'
import { makeMemoryDocumentStore } from '../../infra/memory/document-store.js'
import { makeSqliteAuditChain } from '../../infra/sqlite/audit-chain.js'
import { makeSqliteAuditTrail } from '../../infra/sqlite/audit-trail.js'
import { storedCheckpoints, verifyStoredChain } from '../../infra/sqlite/audit-verify.js'
import { makeSqliteEventStore } from '../../infra/sqlite/event-store.js'
import { DocumentStore } from '../../ports/document-store.js'
import type { NewEvent } from '../../ports/event-store.js'
import { auditTrailOfReadModel } from '../../projections/audit-queries.js'
import { runCliRaw } from '../helpers/process.js'

/**
 * The audit chain: made when events are appended and stored with them, keyed with the operator's HMAC key, checkpointed
 * with Ed25519 signatures. A forged export, an edited event store and an event put in the store from outside fail.
 */
const dir = mkdtempSync(join(tmpdir(), 'audit-chain-'))
t.teardown(() => rmSync(dir, { recursive: true, force: true }))
const keysFile = join(dir, 'audit-keys.json')
const file = join(dir, 'events.db')
const settings = () => ({ keys: loadAuditKeys(keysFile).current, checkpointEvery: 1000, checkpointIntervalSeconds: 3600 })
const open = () => makeSqliteEventStore(file, (db) => makeSqliteAuditChain(db, settings()).link)

const ORG = randomUUID()
const OTHER = randomUUID()
const at = (minute: number) => new Date(Date.UTC(2030, 0, 1, 0, minute)).toISOString()
const stored = (orgId: string, event: DomainEvent, minute: number, actor: string): NewEvent => ({
  event_id: randomUUID(), ...encodeEvent(event), org_id: orgId, occurred_at: at(minute), metadata: { correlation_id: `c${minute}`, causation_id: null, actor },
})

let store = open()
const append = (stream: string, events: readonly NewEvent[]) => Effect.runSync(store.append(stream, events, 'any'))
append(STREAMS.org.stream(ORG), [stored(ORG, new OrgCreated({ org_id: ORG, name: 'A', plan: 'pro', created_at: at(0) }), 0, 'cli')])
append(STREAMS.org.stream(OTHER), [stored(OTHER, new OrgCreated({ org_id: OTHER, name: 'B', plan: 'pro', created_at: at(1) }), 1, 'cli')])
append(STREAMS.email.stream('e'), [stored('', new EmailClaimed({ email_hash: 'e'.repeat(64), user_id: randomUUID(), claimed_at: at(2) }), 2, 'cli')])
append(STREAMS.retention.stream(ORG), [stored(ORG, new RetentionPolicySet({ org_id: ORG, retention_days: 30, legal_hold_enabled: true, policy_version: 1, set_at: at(3) }), 3, 'api_key:k1')])
const HOLD = randomUUID()
const placed = stored(ORG, new LegalHoldPlaced({ hold_id: HOLD, org_id: ORG, scope_type: 'org', scope_ref: ORG, justification: 'case 1', placed_at: at(4) }), 4, 'api_key:k1')
append(STREAMS.hold.stream(HOLD), [placed])
append(STREAMS.hold.stream(HOLD), [stored(ORG, new LegalHoldReleased({ hold_id: HOLD, org_id: ORG, justification: 'case 1 closed', released_at: at(5) }), 5, 'api_key:k1')])

// A checkpoint after the history (the first append made checkpoint 1), as `cli audit checkpoint` makes one.
store.db.transaction(() => makeSqliteAuditChain(store.db, settings()).checkpointNow(at(6))).immediate()

const exportOf = (orgId: string) => Effect.runSync(makeSqliteAuditTrail(store.db).records(orgId, {}, -1, 1000)).map((record) => JSON.stringify(record))
const keys = () => loadAuditKeys(keysFile).verification
const checkpoints = () => storedCheckpoints(store.db)
type Editable = { metadata: { actor: string }; detail: Record<string, unknown> }
const edit = (lines: readonly string[], index: number, change: (record: Editable) => void) => {
  const record = JSON.parse(lines[index]!) as Editable
  change(record)
  return lines.map((line, i) => (i === index ? JSON.stringify(record) : line))
}

t.test('an untouched export and store verify; the export holds the organization\'s events only', async (t) => {
  const lines = exportOf(ORG)
  t.same(lines.map((line) => JSON.parse(line).type), ['OrgCreated', 'RetentionPolicySet', 'LegalHoldPlaced', 'LegalHoldReleased'])
  t.match(verifyExport(lines, keys(), checkpoints()), { ok: true, records: 4, org_id: ORG, checkpoints: 2 })
  t.match(verifyStoredChain(store.db, keys()), { ok: true, events: 6, checkpoints: 2 })
  const first = JSON.parse(lines[0]!) as ExportRecord
  t.equal(first.chain.prev, GENESIS, 'the organization\'s chain starts at its first event')
  t.same(Object.keys(first.chain), ['key_id', 'prev', 'mac'])
  const trail = makeSqliteAuditTrail(store.db)
  const head = Effect.runSync(trail.records(ORG, {}, -1, 2))
  const rest = Effect.runSync(trail.records(ORG, {}, head.at(-1)!.position, 10))
  t.same([...head, ...rest].map((record) => JSON.stringify(record)), lines, 'a keyset walk answers the same records')
  t.same(Effect.runSync(trail.records(ORG, { type: 'LegalHoldPlaced', actor: 'api_key:k1' }, -1, 10)).map((record) => record.event_id), [placed.event_id], 'filters combine')
  t.same(Effect.runSync(trail.records(OTHER, {}, -1, 10)).map((record) => record.type), ['OrgCreated'], 'another organization\'s chain')
})

t.test('a forged export fails: a rewritten actor or justification, a dropped record, a chain recomputed without the key', async (t) => {
  const lines = exportOf(ORG)
  const hold = lines.findIndex((line) => JSON.parse(line).type === 'LegalHoldPlaced')
  const actor = verifyExport(edit(lines, hold, (r) => { r.metadata.actor = 'api_key:someone-else' }), keys(), checkpoints())
  t.match(actor, { ok: false, line: hold + 1, event_id: placed.event_id, reason: /changed/ })
  const justification = verifyExport(edit(lines, hold, (r) => { r.detail.justification = 'no case' }), keys(), checkpoints())
  t.match(justification, { ok: false, line: hold + 1, event_id: placed.event_id, reason: /changed/ })

  t.match(verifyExport(lines.filter((_, i) => i !== hold), keys(), []), { ok: false, line: hold + 1, reason: /removed, added or reordered/ }, 'a record dropped in the middle')
  t.match(verifyExport(lines.slice(0, -1), keys(), checkpoints()), { ok: false, reason: /checkpoint 2: the export ends before/ }, 'the last record dropped: its checkpoint names it')

  // The forger rewrites the justification and makes every link again, with a key of their own under the same key id, or unkeyed.
  for (const [name, mac] of [
    ['a key of the forger', (prev: string, body: unknown) => linkMac('org', randomBytes(32), prev, canonicalJson(body))],
    ['unkeyed SHA-256', (prev: string, body: unknown) => createHash('sha256').update(`${prev}${canonicalJson(body)}`).digest('hex')],
  ] as const) {
    let prev = GENESIS
    const forged = edit(lines, hold, (r) => { r.detail.justification = 'no case' }).map((line) => {
      const { chain, ...body } = JSON.parse(line) as ExportRecord
      const record = { ...body, chain: { ...chain, prev, mac: mac(prev, body) } }
      prev = record.chain.mac
      return JSON.stringify(record)
    })
    t.match(verifyExport(forged, keys(), []), { ok: false, line: 1, reason: /changed/ }, name)
  }
  const oldFormat = lines.map((line) => { const { chain: _chain, ...body } = JSON.parse(line) as ExportRecord; return JSON.stringify({ ...body, prev_hash: GENESIS, hash: 'x' }) })
  t.match(verifyExport(oldFormat, keys(), []), { ok: false, line: 1, reason: /no chain link/ }, 'a record without a stored link')
})

t.test('a checkpoint changed or signed by another key fails', async (t) => {
  const checkpoint = checkpoints()[0]
  const moved: Checkpoint = { ...checkpoint!, global: { ...checkpoint!.global, position: checkpoint!.global.position + 1 } }
  t.match(verifyExport(exportOf(ORG), keys(), [moved]), { ok: false, reason: /checkpoint 1: its signature does not hold/ })
  const stranger: Checkpoint = { ...checkpoint!, signing_key_id: 'ed25519-unknown' }
  t.match(verifyExport(exportOf(ORG), keys(), [stranger]), { ok: false, reason: /signature does not hold/ })
})

t.test('an edited event row fails the store\'s verification, naming that event; reopening the store signs nothing again', async (t) => {
  store.db.prepare(`update events set data = json_set(data, '$.justification', 'edited') where event_id = ?`).run(placed.event_id)
  const position = store.db.prepare('select position from events where event_id = ?').pluck().get(placed.event_id)
  t.match(verifyStoredChain(store.db, keys()), { ok: false, event_id: placed.event_id, position, reason: /no longer matches/ })
  t.match(verifyExport(exportOf(ORG), keys(), checkpoints()), { ok: false, event_id: placed.event_id, reason: /changed/ }, 'an export taken now fails too: its links are the stored ones')

  const cli = await runCliRaw({ DATA_DIR: dir, AUDIT_KEYS_FILE: keysFile }, ['audit', 'verify'])
  t.equal(cli.code, 1, 'cli audit verify exits 1')
  t.match(cli.stderr, `using data folder ${dir}\n`, 'names the data it verifies')
  t.match(JSON.parse(cli.stdout), { ok: false, event_id: placed.event_id, position, reason: /no longer matches/ })

  store.db.close()
  store = open()
  t.match(verifyStoredChain(store.db, keys()), { ok: false, event_id: placed.event_id }, 'opened again (a restart, a replay): still named')
  store.db.prepare(`update events set data = json_set(data, '$.justification', 'case 1') where event_id = ?`).run(placed.event_id)
  t.match(verifyStoredChain(store.db, keys()), { ok: true }, 'put back as it was, it verifies')
})

t.test('an event put in the store from outside has no link, and opening the store does not give it one', async (t) => {
  const forged = stored(ORG, new LegalHoldReleased({ hold_id: HOLD, org_id: ORG, justification: 'forged', released_at: at(6) }), 6, 'api_key:k1')
  store.db.prepare('insert into events (event_id, stream, revision, type, org_id, occurred_at, data, metadata) values (?, ?, 99, ?, ?, ?, ?, ?)')
    .run(forged.event_id, STREAMS.hold.stream(HOLD), forged.type, ORG, forged.occurred_at, JSON.stringify(forged.data), JSON.stringify(forged.metadata))
  store.db.close()
  store = open()
  t.match(verifyStoredChain(store.db, keys()), { ok: false, event_id: forged.event_id, reason: /no link/ })
  store.db.prepare('delete from events where event_id = ?').run(forged.event_id)
})

t.test('a rotated key: new links carry the new key id, older ones still verify with the older key', async (t) => {
  const before = loadAuditKeys(keysFile).current.hmacKeyId
  const rotated = rotateAuditKey(keysFile, 'hmac')
  store.db.close()
  store = open()
  append(STREAMS.retention.stream(ORG), [stored(ORG, new RetentionPolicySet({ org_id: ORG, retention_days: 60, legal_hold_enabled: true, policy_version: 2, set_at: at(7) }), 7, 'api_key:k1')])
  const lines = exportOf(ORG)
  t.equal(JSON.parse(lines.at(-1)!).chain.key_id, rotated)
  t.match(verifyExport(lines, keys(), checkpoints()), { ok: true, records: 5, key_ids: [before, rotated] })
  t.match(verifyStoredChain(store.db, keys()), { ok: true, key_ids: [before, rotated] })
  const withoutOld = { ...keys(), hmac: new Map([...keys().hmac].filter(([id]) => id !== before)) }
  t.match(verifyExport(lines, withoutOld, []), { ok: false, line: 1, reason: /not a known key/ }, 'the older key is needed for the older records')
})

t.test('checkpoints are copied out as files and an export verifies against the copies', async (t) => {
  const env = { DATA_DIR: dir, AUDIT_KEYS_FILE: keysFile }
  store.db.transaction(() => makeSqliteAuditChain(store.db, settings()).checkpointNow(at(8))).immediate()
  const out = join(dir, 'published')
  const copied = await runCliRaw(env, ['audit', 'checkpoints', '--out', out])
  t.match(JSON.parse(copied.stdout), { checkpoints: 3 }, copied.stderr)
  t.same(readdirSync(out).sort(), ['checkpoint-00000001.json', 'checkpoint-00000002.json', 'checkpoint-00000003.json', 'public-keys.json'])
  const copies = readdirSync(out).filter((name) => name.startsWith('checkpoint-')).map((name) => JSON.parse(readFileSync(join(out, name), 'utf8')) as Checkpoint)
  t.match(verifyExport(exportOf(ORG), keys(), copies), { ok: true, records: 5, checkpoints: 3 }, 'the organization\'s heads in each checkpoint')

  const exportFile = join(dir, 'export.ndjson')
  writeFileSync(exportFile, `${exportOf(ORG).join('\n')}\n`)
  const copy = join(out, 'checkpoint-00000002.json')
  writeFileSync(copy, readFileSync(copy, 'utf8').replace(/"made_at":"[^"]+"/, '"made_at":"2000-01-01T00:00:00.000Z"'))
  const broken = await runCliRaw(env, ['audit', 'verify', exportFile, '--checkpoints', out])
  t.equal(broken.code, 1, 'a changed checkpoint copy fails cli audit verify FILE')
  t.match(JSON.parse(broken.stdout), { ok: false, reason: /checkpoint 2: its signature does not hold/ })
})

t.test('the audit read model (EventStoreDB, whose appends make no links) has no export: 503 audit_chain_not_kept', async (t) => {
  const trail = Effect.runSync(auditTrailOfReadModel.pipe(Effect.provideService(DocumentStore, makeMemoryDocumentStore())))
  const failed = Effect.runSync(Effect.flip(trail.records(ORG, {}, -1, 10)))
  t.match(failed, { _tag: 'Unavailable', code: 'audit_chain_not_kept' })
})

t.test('a file written before the chain existed is chained once, when first opened', async (t) => {
  const legacy = join(dir, 'legacy.db')
  const plain = makeSqliteEventStore(legacy)
  Effect.runSync(plain.append(STREAMS.org.stream(ORG), [stored(ORG, new OrgCreated({ org_id: ORG, name: 'A', plan: 'pro', created_at: at(0) }), 0, 'cli')], 'no_stream'))
  plain.db.close()
  const upgraded = makeSqliteEventStore(legacy, (db) => makeSqliteAuditChain(db, settings()).link)
  t.match(verifyStoredChain(upgraded.db, keys()), { ok: true, events: 1 })
  upgraded.db.close()
})

t.test('canonical JSON sorts keys at every depth, whatever order JavaScript keeps them in', async (t) => {
  t.equal(canonicalJson({ b: 1, a: [{ d: 2, c: { f: 1, e: null } }] }), '{"a":[{"c":{"e":null,"f":1},"d":2}],"b":1}')
  // Index-like keys are iterated first by JavaScript: sorted as text all the same, as links made before keep them.
  t.equal(canonicalJson({ a: 1, 9: 'nine', 10: 'ten', 200: 'ok' }), '{"10":"ten","200":"ok","9":"nine","a":1}')
  t.equal(canonicalJson({ headers: { 'x-b': '2', 404: 'x', 'x-a': '1' } }), '{"headers":{"404":"x","x-a":"1","x-b":"2"}}')
  t.equal(canonicalJson({ gone: undefined, kept: [1, null, 'x'] }), '{"kept":[1,null,"x"]}', 'an undefined field is left out')
  t.equal(canonicalJson([undefined, 1]), '[,1]', 'as written before in an array')
  t.equal(canonicalJson({ at: new Date(0), n: Number.NaN }), '{"at":{},"n":null}')
})
