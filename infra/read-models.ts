import { Context, Layer } from 'effect'
import { auditProjection } from '../projections/audit.js'
import { auditTrailOfReadModel } from '../projections/audit-queries.js'
import { PROJECTIONS } from '../projections/index.js'
import type { Projection } from '../projections/projection.js'
import { AuditTrail } from '../ports/audit-trail.js'
import type { AdapterSettings } from './config.js'

/** The read models the process keeps (projector) and rebuilds (`cli replay`). */
export class ReadModels extends Context.Tag('ReadModels')<ReadModels, readonly Projection[]>() {}

/**
 * Every projection, except the audit trail's where the event store serves it from its own log (SQLite, whose layer
 * provides the AuditTrail): there it is not a read model, so nothing writes an entry per event and replay skips it.
 */
export const readModelsOf = (settings: AdapterSettings): readonly Projection[] =>
  settings.eventStore.kind === 'sqlite' ? PROJECTIONS.filter((projection) => projection !== auditProjection) : PROJECTIONS

export const ReadModelsLive = (settings: AdapterSettings) => Layer.succeed(ReadModels, readModelsOf(settings))

/** The audit trail where the event store does not serve it: the audit read model, in the document store. */
export const AuditTrailOfReadModelLive = Layer.effect(AuditTrail, auditTrailOfReadModel)
