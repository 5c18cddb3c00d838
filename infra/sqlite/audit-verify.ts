import type Database from 'better-sqlite3'
import {
  brokenCheckpoint, GENESIS, linkHolds, sealedBody, type Checkpoint, type VerificationKeys,
} from '../../domain/audit-chain.js'
import { inOrgChain, storedEventOf, type EventRow } from './audit-chain.js'

export type StoreVerdict =
  | { readonly ok: true; readonly events: number; readonly key_ids: readonly string[]; readonly checkpoints: number }
  | { readonly ok: false; readonly events: number; readonly event_id: string | null; readonly position: number | null; readonly reason: string }

type Joined = Partial<EventRow> & {
  at: number; key_id: string | null; global_prev: string | null; global_mac: string | null
  link_org_id: string | null; org_prev: string | null; org_mac: string | null
}

/** The checkpoints stored in the event store's file, oldest first. */
export const storedCheckpoints = (db: Database.Database): Checkpoint[] =>
  (db.prepare('select checkpoint from audit_checkpoints order by seq').pluck().all() as string[]).map((json) => JSON.parse(json) as Checkpoint)

/**
 * Checks the events of the SQLite event store against the chain stored with them, in log order: every event has a
 * link, each link follows the one before it in its chains, and each still matches its event; then every stored
 * checkpoint is signed by a known key and names heads the chain has. Answers the first event that breaks it.
 */
export const verifyStoredChain = (db: Database.Database, keys: VerificationKeys): StoreVerdict => {
  const checkpoints = storedCheckpoints(db)
  const badCheckpoint = brokenCheckpoint(checkpoints, keys.signing)
  if (badCheckpoint !== null) return { ok: false, events: 0, event_id: null, position: null, reason: `checkpoint ${badCheckpoint.seq}: ${badCheckpoint.reason}` }
  // The heads the checkpoints name, to compare with the links met on the way.
  const wanted = new Map<number, { global?: string; org?: string }>()
  for (const checkpoint of checkpoints) {
    wanted.set(checkpoint.global.position, { ...wanted.get(checkpoint.global.position), global: checkpoint.global.mac })
    for (const head of checkpoint.orgs) wanted.set(head.position, { ...wanted.get(head.position), org: head.mac })
  }
  const rows = db.prepare(`
    select p.position as at, events.*, audit_chain.key_id, audit_chain.global_prev, audit_chain.global_mac,
      audit_chain.org_id as link_org_id, audit_chain.org_prev, audit_chain.org_mac
    from (select position from events union select position from audit_chain) as p
    left join events on events.position = p.position left join audit_chain on audit_chain.position = p.position
    order by p.position`).iterate() as IterableIterator<Joined>
  let prevGlobal = GENESIS
  const orgHeads = new Map<string, string>()
  const keyIds = new Set<string>()
  const met = new Set<number>()
  let count = 0
  for (const row of rows) {
    const broken = (reason: string): StoreVerdict => ({ ok: false, events: count, event_id: row.event_id ?? null, position: row.at, reason })
    if (row.event_id === null || row.event_id === undefined) return broken('the event at this position was removed (its link remains)')
    if (row.global_mac === null) return broken('the event has no link: it was put in the store outside the service')
    const event = storedEventOf(row as EventRow)
    const body = sealedBody(event)
    if (row.global_prev !== prevGlobal) return broken('the link does not follow the previous one (an event or a link was removed or replaced)')
    if (!keys.hmac.has(row.key_id!)) return broken(`the link's key id ${row.key_id} is not a known key`)
    if (!linkHolds('global', keys.hmac, body, { key_id: row.key_id!, prev: row.global_prev, mac: row.global_mac })) {
      return broken('the stored event no longer matches its link (its content was changed)')
    }
    if (inOrgChain(event)) {
      const prevOrg = orgHeads.get(event.org_id) ?? GENESIS
      if (row.link_org_id !== event.org_id || row.org_prev !== prevOrg) return broken('the organization\'s link does not follow its previous one (a link was removed or replaced)')
      if (!linkHolds('org', keys.hmac, body, { key_id: row.key_id!, prev: prevOrg, mac: row.org_mac! })) return broken('the organization\'s link does not match the stored event')
      orgHeads.set(event.org_id, row.org_mac!)
    } else if (row.link_org_id !== null) return broken('the event has an organization link it should not have')
    const expected = wanted.get(row.at)
    if (expected !== undefined) met.add(row.at)
    if (expected?.global !== undefined && expected.global !== row.global_mac) return broken('a checkpoint names another link at this position (the chain was made again)')
    if (expected?.org !== undefined && expected.org !== row.org_mac) return broken('a checkpoint names another organization link at this position (the chain was made again)')
    prevGlobal = row.global_mac
    keyIds.add(row.key_id!)
    count += 1
  }
  const missing = [...wanted.keys()].find((position) => !met.has(position))
  if (missing !== undefined) return { ok: false, events: count, event_id: null, position: missing, reason: 'a checkpoint names a position the store no longer has (events were removed from its end)' }
  return { ok: true, events: count, key_ids: [...keyIds], checkpoints: checkpoints.length }
}
