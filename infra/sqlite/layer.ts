import { Context, Effect, Layer } from 'effect'
import { AuditTrail } from '../../ports/audit-trail.js'
import { StoreLog } from '../../ports/event-log.js'
import { EventStore } from '../../ports/event-store.js'
import { loadAuditKeys } from '../audit-keys.js'
import type { AuditConfig } from '../config.js'
import type { CatchUpOptions } from '../log/catch-up.js'
import { scopedEventLog } from '../log/scoped-log.js'
import { makeSqliteAuditChain } from './audit-chain.js'
import { makeSqliteAuditTrail } from './audit-trail.js'
import { sqliteCatchUpLog } from './checkpoints.js'
import { sqliteEventStore } from './event-store.js'

/**
 * The embedded event store and its own log: catch-up subscriptions with checkpoints in the same SQLite file, woken by
 * this process's appends, and the audit trail read from it. Every append links its events into the audit chain in its
 * transaction, with the keys of the audit keys file (made on first use). Releasing the layer stops the subscriptions,
 * then closes the file.
 */
export const SqliteEventStoreLive = (file: string, catchUp: Omit<CatchUpOptions, 'appended'> & Required<Pick<CatchUpOptions, 'log'>>, audit: AuditConfig) => Layer.scopedContext(Effect.gen(function* () {
  const { current } = yield* Effect.sync(() => loadAuditKeys(audit.keysFile))
  const settings = { keys: current, checkpointEvery: audit.checkpointEvery, checkpointIntervalSeconds: audit.checkpointIntervalSeconds }
  const store = yield* sqliteEventStore(file, catchUp.log, (db) => makeSqliteAuditChain(db, settings).link)
  const log = yield* scopedEventLog(sqliteCatchUpLog(store, catchUp))
  return Context.make(EventStore, store).pipe(Context.add(StoreLog, log), Context.add(AuditTrail, makeSqliteAuditTrail(store.db)))
}))
