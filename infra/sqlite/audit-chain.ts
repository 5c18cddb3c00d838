import type Database from 'better-sqlite3'
import type { KeyObject } from 'node:crypto'
import {
  canonicalJson, checkpointDigest, GENESIS, linkMac, sealedBody, signCheckpoint, type Checkpoint, type StoredEvent,
} from '../../domain/audit-chain.js'
import { eventTypesOf } from '../../domain/events.js'
import { AUDITED_CATEGORIES } from '../../projections/audit.js'

/**
 * The audit chain's tables in the event store's file: a link per event (global chain; organization chain for an event
 * of an organization's audit trail) and the signed checkpoints. Written in the append's transaction, so the links
 * follow the log's positions exactly, whichever process appends (the service, the CLI).
 */
const SCHEMA = `
create table if not exists audit_chain (
  position integer primary key,
  key_id text not null,
  global_prev text not null,
  global_mac text not null,
  org_id text,
  org_prev text,
  org_mac text
);
create index if not exists audit_chain_by_org on audit_chain (org_id, position) where org_id is not null;
create table if not exists audit_checkpoints (seq integer primary key, position integer not null, made_at text not null, checkpoint text not null);
`

/** The keys the chain is made with now: the current HMAC key and the current checkpoint signing key, with their ids. */
export interface AuditChainKeys {
  readonly hmacKeyId: string
  readonly hmacKey: Uint8Array
  readonly signingKeyId: string
  readonly signingKey: KeyObject
}

export interface AuditChainSettings {
  readonly keys: AuditChainKeys
  /** A checkpoint is made once this many events were chained since the last one... */
  readonly checkpointEvery: number
  /** ...or once an appended event occurred this long after the last one was made. */
  readonly checkpointIntervalSeconds: number
}

export interface EventRow {
  position: number; event_id: string; stream: string; revision: number; type: string
  org_id: string; occurred_at: string; data: string; metadata: string
}

export const storedEventOf = (row: EventRow): StoredEvent => ({ ...row, data: JSON.parse(row.data), metadata: JSON.parse(row.metadata) })

/** The event types whose events are links of their organization's chain: those of its audit trail. */
const ORG_CHAIN_TYPES: ReadonlySet<string> = new Set(AUDITED_CATEGORIES.flatMap((category) => [...eventTypesOf(category)]))
export const inOrgChain = (event: { readonly type: string; readonly org_id: string }) => event.org_id !== '' && ORG_CHAIN_TYPES.has(event.type)

/** Creates the chain's tables when missing (also for a reader that verifies a file written before them). */
export const ensureAuditChainTables = (db: Database.Database) => db.exec(SCHEMA)

/** Events read at a time when chaining a file written before the chain existed. */
const BACKLOG_BATCH = 1000

export interface SqliteAuditChain {
  /**
   * Links `appended` after the chain's head and makes a checkpoint when one is due; given no events (at opening), chains
   * a file written before the chain existed. Runs in the caller's write transaction.
   */
  readonly link: (appended: readonly StoredEvent[]) => void
  /** Makes a checkpoint of the chains' heads now, unless nothing was chained since the last; in a write transaction. */
  readonly checkpointNow: (madeAt: string) => Checkpoint | null
}

export const makeSqliteAuditChain = (db: Database.Database, settings: AuditChainSettings): SqliteAuditChain => {
  ensureAuditChainTables(db)
  const { keys } = settings
  const chainHead = db.prepare<[], { position: number; global_mac: string }>('select position, global_mac from audit_chain order by position desc limit 1')
  const orgHead = db.prepare<[string], { org_mac: string }>('select org_mac from audit_chain where org_id = ? order by position desc limit 1')
  const insertLink = db.prepare('insert into audit_chain (position, key_id, global_prev, global_mac, org_id, org_prev, org_mac) values (?, ?, ?, ?, ?, ?, ?)')
  const eventsAfter = db.prepare<[number, number], EventRow>('select * from events where position > ? order by position limit ?')
  const lastCheckpoint = db.prepare<[], { seq: number; position: number; made_at: string; checkpoint: string }>('select * from audit_checkpoints order by seq desc limit 1')
  const lastCheckpointMade = db.prepare<[], { position: number; made_at: string }>('select position, made_at from audit_checkpoints order by seq desc limit 1')
  // SQLite answers the bare org_mac from the row holding max(position).
  const movedOrgs = db.prepare<[number], { org_id: string; position: number; org_mac: string }>(
    'select org_id, max(position) as position, org_mac from audit_chain where position > ? and org_id is not null group by org_id order by org_id')
  const insertCheckpoint = db.prepare('insert into audit_checkpoints (seq, position, made_at, checkpoint) values (?, ?, ?, ?)')

  const linkEach = (events: readonly StoredEvent[], head: { position: number; global_mac: string }) => {
    const orgHeads = new Map<string, string>()
    for (const event of events) {
      const body = canonicalJson(sealedBody(event))
      const globalMac = linkMac('global', keys.hmacKey, head.global_mac, body)
      let orgPrev: string | null = null
      let orgMac: string | null = null
      if (inOrgChain(event)) {
        orgPrev = orgHeads.get(event.org_id) ?? orgHead.get(event.org_id)?.org_mac ?? GENESIS
        orgMac = linkMac('org', keys.hmacKey, orgPrev, body)
        orgHeads.set(event.org_id, orgMac)
      }
      insertLink.run(event.position, keys.hmacKeyId, head.global_mac, globalMac, orgMac === null ? null : event.org_id, orgPrev, orgMac)
      head = { position: event.position, global_mac: globalMac }
    }
    return head
  }

  const checkpointNow = (madeAt: string): Checkpoint | null => {
    const head = chainHead.get()
    const last = lastCheckpoint.get()
    if (head === undefined || head.position === last?.position) return null
    const body = {
      seq: (last?.seq ?? 0) + 1,
      previous: last ? checkpointDigest(JSON.parse(last.checkpoint) as Checkpoint) : GENESIS,
      made_at: madeAt,
      global: { position: head.position, mac: head.global_mac },
      orgs: movedOrgs.all(last?.position ?? 0).map(({ org_id, position, org_mac }) => ({ org_id, position, mac: org_mac })),
      signing_key_id: keys.signingKeyId,
    }
    const checkpoint = signCheckpoint(body, keys.signingKey)
    insertCheckpoint.run(checkpoint.seq, head.position, madeAt, JSON.stringify(checkpoint))
    return checkpoint
  }

  /**
   * A file written before the chain existed: its events are chained once, in log order, when it is first opened by a
   * version with the chain. Never again afterwards: an event found without a link later was put there outside the
   * service, and `cli audit verify` names it rather than the chain vouching for it.
   */
  const chainHistory = () => {
    if (chainHead.get() !== undefined || lastCheckpointMade.get() !== undefined) return
    let head = { position: 0, global_mac: GENESIS }
    for (let batch = eventsAfter.all(0, BACKLOG_BATCH); batch.length > 0; batch = eventsAfter.all(head.position, BACKLOG_BATCH)) {
      head = linkEach(batch.map(storedEventOf), head)
    }
  }

  const checkpointIfDue = (at: string, head: { readonly position: number }) => {
    const last = lastCheckpointMade.get()
    const due = last === undefined
      || head.position - last.position >= settings.checkpointEvery
      || Date.parse(at) - Date.parse(last.made_at) >= settings.checkpointIntervalSeconds * 1000
    if (due) checkpointNow(at)
  }

  return {
    link: (appended) => {
      if (appended.length === 0) return chainHistory()
      const head = linkEach(appended, chainHead.get() ?? { position: 0, global_mac: GENESIS })
      checkpointIfDue(appended.at(-1)!.occurred_at, head)
    },
    checkpointNow,
  }
}
