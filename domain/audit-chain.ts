import { createHash } from 'node:crypto'

/** The `prev_hash` of the first record of an export. */
export const GENESIS_HASH = '0'.repeat(64)

/** JSON with object keys sorted at every depth: the bytes a record's hash covers do not depend on key order. */
export const canonicalJson = (value: unknown): string => {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`
  }
  return JSON.stringify(value)
}

const hashOf = (body: Record<string, unknown>): string => createHash('sha256').update(canonicalJson(body)).digest('hex')

/** Links one audit entry to the chain: it carries the previous record's hash, and its own hash covers both. */
export const chainRecord = (entry: Record<string, unknown>, prevHash: string): Record<string, unknown> & { readonly hash: string } => {
  const body = { ...entry, prev_hash: prevHash }
  return { ...body, hash: hashOf(body) }
}

export type ChainVerdict =
  | { readonly ok: true; readonly records: number; readonly last_hash: string }
  | { readonly ok: false; readonly records: number; readonly line: number; readonly event_id: string | null; readonly reason: string }

/** Checks an NDJSON export line by line and names the first record that breaks the chain (1-based line). */
export const verifyChain = (lines: readonly string[]): ChainVerdict => {
  let prev = GENESIS_HASH
  let count = 0
  for (const [index, line] of lines.entries()) {
    if (line.trim() === '') continue
    const broken = (reason: string, eventId: string | null = null): ChainVerdict => ({ ok: false, records: count, line: index + 1, event_id: eventId, reason })
    let record: unknown
    try { record = JSON.parse(line) } catch { return broken('not a JSON record') }
    if (record === null || typeof record !== 'object' || Array.isArray(record)) return broken('not a JSON object')
    const { hash, ...body } = record as Record<string, unknown>
    const eventId = typeof body.event_id === 'string' ? body.event_id : null
    if (body.prev_hash !== prev) return broken('prev_hash does not match the previous record (a record was removed, added or reordered)', eventId)
    if (hash !== hashOf(body)) return broken('hash does not match the record (the record was changed)', eventId)
    prev = hash as string
    count++
  }
  return { ok: true, records: count, last_hash: prev }
}
