import { Effect } from 'effect'
import type { Projection } from './projection.js'
import { updateDoc } from './projection.js'

export const AUDIT = 'audit'

/** Fields that never enter the audit log (secrets and their hashes, bulky payloads). */
const OMITTED = new Set(['key_hash', 'password_hash', 'token_hash', 'spec', 'manifest', 'artifacts'])

/** One entry per event of an organization: who did what, when, caused by what. */
export const auditProjection: Projection = {
  name: 'projection.audit',
  categories: ['org', 'job', 'user'],
  collections: [AUDIT],
  concurrency: 8,
  ordering: 'stream',
  apply: (event) => updateDoc(AUDIT, event.event_id, event, () => ({
    org_id: event.org_id,
    position: event.position,
    type: event.type,
    stream: event.stream,
    occurred_at: event.occurred_at,
    actor: event.metadata.actor,
    correlation_id: event.metadata.correlation_id,
    detail: Object.fromEntries(Object.entries(event.data).filter(([k]) => !OMITTED.has(k))),
  })).pipe(Effect.asVoid),
}
