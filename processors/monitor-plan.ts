/**
 * Plan changes reach monitors: when an organization's plan changes, the monitors that no longer fit it pause with
 * reason `plan` (the pause mail tells the organization's users). Event-derived and idempotent: a redelivered change
 * finds its monitors already paused, and a change that a later one superseded does nothing (the later one decides).
 */
import { Effect } from 'effect'
import { pauseMonitorsOverPlan } from '../commands/monitors.js'
import { decodeEvent } from '../domain/events.js'
import type { OrgEvent, OrgPlanChanged } from '../domain/org/events.js'
import { isPlanName, PLANS } from '../domain/plans.js'
import { STREAMS } from '../domain/streams.js'
import { EventStore, type EventEnvelope } from '../ports/event-store.js'
import { defineProcessor } from './processor.js'
import type { Run } from './runner.js'

const isLatestPlanChange = (orgId: string, eventId: string) =>
  Effect.gen(function* () {
    const history = yield* (yield* EventStore).readStream(STREAMS.org.stream(orgId))
    const latest = history.filter((r) => (decodeEvent(r.type, r.data) as OrgEvent)._tag === 'OrgPlanChanged').at(-1)
    return latest?.event_id === eventId
  })

export const makeMonitorPlanProcessor = (options: { readonly log: (message: string, detail?: unknown) => void }, run: Run<EventStore>) => {
  const apply = (event: OrgPlanChanged, envelope: EventEnvelope) =>
    Effect.gen(function* () {
      if (!isPlanName(event.plan) || !(yield* isLatestPlanChange(event.org_id, envelope.event_id))) return
      yield* pauseMonitorsOverPlan({
        org_id: event.org_id, plan: PLANS[event.plan], now: new Date(event.changed_at),
        metadata: { correlation_id: envelope.metadata.correlation_id, causation_id: envelope.event_id, actor: 'plan-change' },
      })
    })
  return defineProcessor({
    name: 'processor.monitor-plan',
    categories: ['org'],
    types: ['OrgPlanChanged'],
    log: options.log,
    handle: async (event, envelope) => {
      if (event._tag === 'OrgPlanChanged') await run(apply(event, envelope))
    },
  })
}
