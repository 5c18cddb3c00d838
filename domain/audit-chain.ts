import { createHash, createHmac, sign, timingSafeEqual, verify, type KeyObject } from 'node:crypto'

/**
 * The tamper-evident audit chain (docs/audit.md). Every recorded event gets, when it is appended, two links keyed with
 * an HMAC-SHA256 key the operator holds: one in the global chain (every event, in log order) and, for an event of an
 * organization's audit trail, one in that organization's chain. A link covers the previous link and the event's
 * sealed body; the body is a function of the stored event alone, so a later edit of the stored event, a removed or
 * reordered event, or an export rewritten without the key no longer matches. Signed checkpoints (Ed25519) record the
 * chains' heads from time to time, for copies kept outside the operator's reach.
 */

/** The `prev` of a chain's first link. */
export const GENESIS = '0'.repeat(64)

/** A key JavaScript orders before all others, by number, whatever the order it was added in. */
const INDEX_LIKE_KEY = /^(?:0|[1-9]\d*)$/

/** `value` rebuilt with object keys inserted in sorted order, or null when an object has a key that order cannot hold. */
const sortedCopy = (value: unknown): unknown => {
  if (typeof value === 'function' || typeof value === 'symbol') return null
  if (value === null || typeof value !== 'object') return value
  if (Array.isArray(value)) {
    const items = new Array<unknown>(value.length)
    for (let i = 0; i < value.length; i++) {
      const item = sortedCopy(value[i])
      if ((item === null && value[i] !== null) || item === undefined) return null
      items[i] = item
    }
    return items
  }
  const keys = Object.keys(value).sort()
  const copy: Record<string, unknown> = {}
  for (const key of keys) {
    if (INDEX_LIKE_KEY.test(key)) return null
    const field = (value as Record<string, unknown>)[key]
    const sorted = sortedCopy(field)
    if (sorted === null && field !== null) return null
    copy[key] = sorted
  }
  return copy
}

/** The same text as canonicalJson, key by key: for objects with index-like keys, which JavaScript would reorder. */
const canonicalJsonByKey = (value: unknown): string => {
  if (value === null || typeof value !== 'object') return JSON.stringify(value)
  let out: string
  if (Array.isArray(value)) {
    out = '['
    for (let i = 0; i < value.length; i++) out += `${i > 0 ? ',' : ''}${canonicalJsonByKey(value[i]) ?? ''}`
    return `${out}]`
  }
  out = '{'
  for (const key of Object.keys(value).sort()) {
    const field = (value as Record<string, unknown>)[key]
    if (field === undefined) continue
    out += `${out.length > 1 ? ',' : ''}${JSON.stringify(key)}:${canonicalJsonByKey(field)}`
  }
  return `${out}}`
}

/**
 * JSON with object keys sorted at every depth: the bytes a link covers do not depend on key order. Every appended
 * event is canonicalized in the append's transaction, so the usual case is a sorted copy given to JSON.stringify (half
 * the time of writing it key by key); an object with an index-like key ("200"), which JavaScript would move first, and
 * a value JSON cannot hold (undefined in an array, a function) are written key by key.
 */
export const canonicalJson = (value: unknown): string => {
  const sorted = sortedCopy(value)
  return sorted === null && value !== null ? canonicalJsonByKey(value) : JSON.stringify(sorted)
}

/**
 * Fields that never enter the audit log: secrets and their hashes, job specs (they may hold proxy credentials),
 * signed links (bearer URLs), and bulky or scraped payloads (a webhook body, a response excerpt, a page snapshot).
 */
export const UNAUDITED_FIELDS: ReadonlySet<string> = new Set([
  '_tag', 'key_hash', 'password_hash', 'token_hash', 'secret', 'spec', 'job', 'manifest', 'artifacts',
  'body', 'signed_links', 'response_excerpt', 'snapshot',
])

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex')
const digestOf = (value: unknown) => `sha256:${sha256(canonicalJson(value))}`

/**
 * A stored event's data as an export shows it: an unaudited field (and a recipe run's scraped `output`) is replaced by
 * the SHA-256 of its canonical JSON, so the record is still covered by its link without carrying the field.
 */
export const sealedDetail = (data: Readonly<Record<string, unknown>>): Record<string, unknown> => {
  const detail: Record<string, unknown> = {}
  for (const [field, value] of Object.entries(data)) {
    if (UNAUDITED_FIELDS.has(field)) detail[field] = digestOf(value)
    else if (field === 'recipe' && value !== null && typeof value === 'object' && 'output' in value) {
      detail[field] = { ...(value as Record<string, unknown>), output: digestOf((value as Record<string, unknown>).output) }
    } else detail[field] = value
  }
  return detail
}

/** An event as stored: the envelope and data the links are computed from. */
export interface StoredEvent {
  readonly event_id: string
  readonly position: number
  readonly stream: string
  readonly revision: number
  readonly type: string
  readonly org_id: string
  readonly occurred_at: string
  readonly data: Readonly<Record<string, unknown>>
  readonly metadata: object
}

/** What a link covers and an export record carries (besides its link). */
export const sealedBody = (event: StoredEvent) => ({
  event_id: event.event_id, position: event.position, stream: event.stream, revision: event.revision, type: event.type,
  org_id: event.org_id, occurred_at: event.occurred_at, metadata: event.metadata, detail: sealedDetail(event.data),
})
export type SealedBody = ReturnType<typeof sealedBody>

/** One chain's link of one event: the key it was made with, the previous link and its own MAC (hex). */
export interface ChainLink {
  readonly key_id: string
  readonly prev: string
  readonly mac: string
}

export type ChainName = 'global' | 'org'

/**
 * A link's MAC: HMAC-SHA256 over the chain's name, the previous link's MAC and the body's canonical JSON (given as
 * `canonicalJson(body)`, made once for both chains of an event).
 */
export const linkMac = (chain: ChainName, key: Uint8Array, prev: string, canonicalBody: string): string =>
  createHmac('sha256', key).update(`${chain}\n${prev}\n${canonicalBody}`).digest('hex')

const sameHex = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b))

/** Whether `link` is the MAC of `body` after `link.prev` with the key of its key id (an unknown key id is not). */
export const linkHolds = (chain: ChainName, keys: ReadonlyMap<string, Uint8Array>, body: unknown, link: ChainLink): boolean => {
  const key = keys.get(link.key_id)
  return key !== undefined && typeof link.mac === 'string' && sameHex(link.mac, linkMac(chain, key, link.prev, canonicalJson(body)))
}

/** A chain's head at a checkpoint: the position of its last event and that event's MAC. */
export interface ChainHead {
  readonly position: number
  readonly mac: string
}

/** What a checkpoint signs: the global head and the heads of the organizations whose chain moved since the previous one. */
export interface CheckpointBody {
  readonly seq: number
  /** The digest of the previous checkpoint (GENESIS for the first): a removed checkpoint breaks the sequence. */
  readonly previous: string
  readonly made_at: string
  readonly global: ChainHead
  readonly orgs: readonly ({ readonly org_id: string } & ChainHead)[]
  readonly signing_key_id: string
}

export interface Checkpoint extends CheckpointBody {
  /** Ed25519 over the body's canonical JSON, base64. */
  readonly signature: string
}

export const checkpointDigest = (checkpoint: Checkpoint): string => sha256(canonicalJson(checkpoint))

export const signCheckpoint = (body: CheckpointBody, privateKey: KeyObject): Checkpoint =>
  ({ ...body, signature: sign(null, Buffer.from(canonicalJson(body)), privateKey).toString('base64') })

export const checkpointSignatureHolds = (checkpoint: Checkpoint, publicKeys: ReadonlyMap<string, KeyObject>): boolean => {
  const { signature, ...body } = checkpoint
  const key = publicKeys.get(checkpoint.signing_key_id)
  if (key === undefined || typeof signature !== 'string') return false
  try {
    return verify(null, Buffer.from(canonicalJson(body)), key, Buffer.from(signature, 'base64'))
  } catch {
    return false
  }
}

/** The first checkpoint whose signature or sequence does not hold, with why; null when all hold. */
export const brokenCheckpoint = (checkpoints: readonly Checkpoint[], publicKeys: ReadonlyMap<string, KeyObject>): { readonly seq: number; readonly reason: string } | null => {
  const sorted = [...checkpoints].sort((a, b) => a.seq - b.seq)
  for (const [i, checkpoint] of sorted.entries()) {
    if (!checkpointSignatureHolds(checkpoint, publicKeys)) return { seq: checkpoint.seq, reason: 'its signature does not hold (unknown signing key, or the checkpoint was changed)' }
    const before = sorted[i - 1]
    if (before !== undefined && before.seq === checkpoint.seq - 1 && checkpoint.previous !== checkpointDigest(before)) {
      return { seq: checkpoint.seq, reason: 'it does not follow the checkpoint before it (a checkpoint was replaced)' }
    }
  }
  return null
}

/** One line of an export: the sealed body and the organization chain's link. */
export type ExportRecord = SealedBody & { readonly chain: ChainLink }

export type ExportVerdict =
  | { readonly ok: true; readonly records: number; readonly org_id: string | null; readonly last_mac: string; readonly key_ids: readonly string[]; readonly checkpoints: number }
  | { readonly ok: false; readonly records: number; readonly line: number | null; readonly event_id: string | null; readonly reason: string }

export interface VerificationKeys {
  /** The HMAC keys by key id: the current one and every older one. */
  readonly hmac: ReadonlyMap<string, Uint8Array>
  /** The checkpoints' public keys by key id. */
  readonly signing: ReadonlyMap<string, KeyObject>
}

const isLink = (value: unknown): value is ChainLink =>
  value !== null && typeof value === 'object' && ['key_id', 'prev', 'mac'].every((field) => typeof (value as Record<string, unknown>)[field] === 'string')

/**
 * Checks an NDJSON export of one organization's whole audit trail (no filter) line by line against its chain, the keys
 * and the checkpoints, and names the first record that breaks it (1-based line). Every checkpoint head of the
 * organization must be a record of the export: a record removed from the end is caught by a later checkpoint.
 */
export const verifyExport = (lines: readonly string[], keys: VerificationKeys, checkpoints: readonly Checkpoint[]): ExportVerdict => {
  const badCheckpoint = brokenCheckpoint(checkpoints, keys.signing)
  if (badCheckpoint !== null) return { ok: false, records: 0, line: null, event_id: null, reason: `checkpoint ${badCheckpoint.seq}: ${badCheckpoint.reason}` }
  let prev = GENESIS
  let orgId: string | null = null
  const macsByPosition = new Map<number, string>()
  const keyIds = new Set<string>()
  let lastPosition = -1
  for (const [index, line] of lines.entries()) {
    if (line.trim() === '') continue
    const records = macsByPosition.size
    const broken = (reason: string, eventId: string | null = null): ExportVerdict => ({ ok: false, records, line: index + 1, event_id: eventId, reason })
    let record: unknown
    try { record = JSON.parse(line) } catch { return broken('not a JSON record') }
    if (record === null || typeof record !== 'object' || Array.isArray(record)) return broken('not a JSON object')
    const { chain, ...body } = record as Record<string, unknown>
    const eventId = typeof body.event_id === 'string' ? body.event_id : null
    if (!isLink(chain)) return broken('the record carries no chain link', eventId)
    if (typeof body.position !== 'number' || typeof body.org_id !== 'string') return broken('the record has no position or organization', eventId)
    if (orgId !== null && body.org_id !== orgId) return broken('the record is of another organization', eventId)
    if (!keys.hmac.has(chain.key_id)) return broken(`the record's key id ${chain.key_id} is not a known key`, eventId)
    if (chain.prev !== prev) return broken('the link does not follow the previous record (a record was removed, added or reordered)', eventId)
    if (!linkHolds('org', keys.hmac, body, chain)) return broken('the link does not match the record (the record was changed)', eventId)
    orgId = body.org_id
    prev = chain.mac
    lastPosition = body.position
    keyIds.add(chain.key_id)
    macsByPosition.set(body.position, chain.mac)
  }
  let checked = 0
  for (const checkpoint of checkpoints) {
    for (const head of checkpoint.orgs.filter((h) => h.org_id === orgId)) {
      checked += 1
      const fail = (reason: string): ExportVerdict => ({ ok: false, records: macsByPosition.size, line: null, event_id: null, reason: `checkpoint ${checkpoint.seq}: ${reason}` })
      if (head.position > lastPosition) return fail(`the export ends before position ${head.position}, the organization's head then (records were removed from its end, or the export is older than the checkpoint)`)
      if (macsByPosition.get(head.position) !== head.mac) return fail(`the record at position ${head.position} is missing or differs from the organization's head then`)
    }
  }
  return { ok: true, records: macsByPosition.size, org_id: orgId, last_mac: prev, key_ids: [...keyIds], checkpoints: checked }
}
