import { UNAUDITED_FIELDS } from '../domain/audit-chain.js'
import { CATEGORIES, type Category } from '../domain/streams.js'
import type { AuditEntry } from '../ports/audit-trail.js'
import type { EventEnvelope } from '../ports/event-store.js'
import { collection, defineProjection, updateDoc, type Stored } from './projection.js'

/** One entry per event of an organization (as the audit trail answers it, plus its organization), keyed by event id. */
export type AuditEntryDoc = Stored<Omit<AuditEntry, 'event_id'> & { readonly org_id: string }>

export const AUDIT = collection<AuditEntryDoc>('audit')

/**
 * The categories whose events are the audit trail's entries: every category of an organization's streams (monitors,
 * content monitors, scrapes, recipe runs as jobs, keys and plan changes as the organization's, webhooks, retention,
 * holds, purges). Only the e-mail claims are left out: they belong to no organization.
 */
export const AUDITED_CATEGORIES: readonly Exclude<Category, 'email'>[] = CATEGORIES.filter((category): category is Exclude<Category, 'email'> => category !== 'email')

/**
 * An event's fields as the audit log keeps them. A recipe run's record keeps its outcome, pages and credits but not its
 * `output`: that is scraped data (up to 256 KB), which would otherwise outlive the job's purge in the audit log.
 */
const auditDetail = (event: object): Record<string, unknown> => {
  // A loop rather than entries/filter/map: replay builds one per event, and the intermediate arrays were most of it.
  const detail: Record<string, unknown> = {}
  for (const [field, value] of Object.entries(event)) {
    if (UNAUDITED_FIELDS.has(field)) continue
    if (field !== 'recipe' || value === null || typeof value !== 'object') {
      detail[field] = value
      continue
    }
    const { output: _output, ...run } = value as Record<string, unknown>
    detail[field] = run
  }
  return detail
}

/** An event's audit entry as the read model keeps it (its document's fields besides the id and position guard). */
export const auditFields = (event: { readonly _tag: string }, envelope: EventEnvelope) => ({
  org_id: envelope.org_id,
  position: envelope.position,
  type: event._tag,
  stream: envelope.stream,
  occurred_at: envelope.occurred_at,
  actor: envelope.metadata.actor,
  correlation_id: envelope.metadata.correlation_id,
  detail: auditDetail(event),
})

/**
 * The audit trail as a read model. Only where the audit trail is not read from the event log itself (scale-out: its
 * log is Kafka, whose events cannot be queried by organization); embedded, infra/sqlite/audit-trail.ts reads the log.
 */
export const auditProjection = defineProjection({
  name: 'projection.audit',
  categories: AUDITED_CATEGORIES,
  collections: [AUDIT.name],
  indexes: [{ collection: AUDIT.name, fields: [['org_id', 1], ['position', -1]] }],
  // Keyed by event id: each entry is written once, by its event.
  writeOnce: [AUDIT.name],
  concurrency: 8,
  ordering: 'stream',
  fold: (event, envelope, view) => updateDoc(view, AUDIT, envelope.event_id, envelope, () => auditFields(event, envelope)),
})
