import type { HoldScope } from '../domain/retention/events.js'
import { collection, defineProjection, updateDoc, type Stored } from './projection.js'

/** An organization's retention policy once changed; an organization without one has its plan's default. */
export type RetentionPolicyDoc = Stored<{
  readonly org_id: string
  readonly retention_days: number
  readonly legal_hold_enabled: boolean
  readonly policy_version: number
  readonly updated_at: string
}>

export type LegalHoldDoc = Stored<{
  readonly hold_id: string
  readonly org_id: string
  readonly scope_type: HoldScope
  readonly scope_ref: string
  readonly status: 'active' | 'released'
  readonly justification: string
  readonly placed_at: string
  readonly placed_by: string
  readonly released_at: string | null
  readonly released_by: string | null
  readonly release_justification: string | null
}>

export const RETENTION_POLICIES = collection<RetentionPolicyDoc>('retention_policies')
export const LEGAL_HOLDS = collection<LegalHoldDoc>('legal_holds')

/** Retention policies and legal holds, read by the retention API and by the purger before every purge. */
export const retentionProjection = defineProjection({
  name: 'projection.retention',
  categories: ['retention', 'hold'],
  collections: [RETENTION_POLICIES.name, LEGAL_HOLDS.name],
  indexes: [{ collection: LEGAL_HOLDS.name, fields: [['org_id', 1], ['status', 1], ['placed_at', -1]] }],
  concurrency: 8,
  ordering: 'stream',
  fold: (event, envelope, view) => {
    switch (event._tag) {
      case 'RetentionPolicySet':
        return updateDoc(view, RETENTION_POLICIES, event.org_id, envelope, () => ({
          org_id: event.org_id, retention_days: event.retention_days, legal_hold_enabled: event.legal_hold_enabled,
          policy_version: event.policy_version, updated_at: event.set_at,
        }))
      case 'LegalHoldPlaced':
        return updateDoc(view, LEGAL_HOLDS, event.hold_id, envelope, () => ({
          hold_id: event.hold_id, org_id: event.org_id, scope_type: event.scope_type, scope_ref: event.scope_ref, status: 'active' as const,
          justification: event.justification, placed_at: event.placed_at, placed_by: envelope.metadata.actor,
          released_at: null, released_by: null, release_justification: null,
        }))
      case 'LegalHoldReleased':
        return updateDoc(view, LEGAL_HOLDS, event.hold_id, envelope, (doc) => doc && {
          ...doc, status: 'released' as const, released_at: event.released_at, released_by: envelope.metadata.actor, release_justification: event.justification,
        })
    }
  },
})
