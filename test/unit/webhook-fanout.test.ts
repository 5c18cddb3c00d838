/**
 * Which endpoints a webhook event goes to: exactly those whose creation event was recorded before the source event,
 * however far the endpoints read model lags. The fan-out and the real webhooks projection run on in-memory stores;
 * the test decides when the projection applies the endpoint's creation.
 */
import { Effect } from 'effect'
import t from 'tap'
import { handle } from '../../commands/handle.js'
import { MonitorRunSkipped } from '../../domain/monitor/events.js'
import { STREAMS } from '../../domain/streams.js'
import { endpointDecider } from '../../domain/webhook/endpoint-decider.js'
import { makeManualClock } from '../../infra/clock/manual.js'
import { makeMemoryBlobStore } from '../../infra/memory/blob-store.js'
import { makeMemoryEventStore } from '../../infra/memory/event-store.js'
import { makeSqliteDocumentStore } from '../../infra/sqlite/document-store.js'
import { Clock } from '../../ports/clock.js'
import type { RecordedEvent } from '../../ports/event-store.js'
import { makeWebhookFanout } from '../../processors/webhook-fanout.js'
import { rememberedSubscribedWebhookEndpoints, subscribedWebhookEndpoints, webhookEndpointShown } from '../../projections/webhook-queries.js'
import { webhooksProjection } from '../../projections/webhooks.js'
import { memoryServices, newEvents, storeServices, TEST_METADATA } from '../helpers/memory-services.js'

const ORG = 'org-f'

// With subscribersNow, the endpoints remembered while unchanged are peeked at without a run: the same deliveries.
for (const peeking of [false, true]) t.test(`an endpoint receives exactly the events recorded after its creation event, whatever the read model lag${peeking ? ' (endpoints peeked at)' : ''}`, async (t) => {
  // A store that tells its generations (the SQLite one) lets a reading be remembered, hence peeked at.
  const services = peeking ? storeServices(makeMemoryEventStore(), makeSqliteDocumentStore(':memory:'), makeMemoryBlobStore()) : memoryServices()
  const clock = makeManualClock('2026-11-24T09:00:00.000Z')
  const run = <A, E>(effect: Effect.Effect<A, E, any>) => services.run(Effect.provideService(effect, Clock, clock) as Effect.Effect<A, E, never>)
  let fanoutRuns = 0
  const woken: string[] = []
  const fanout = makeWebhookFanout({
    subscribers: subscribedWebhookEndpoints, endpointShown: webhookEndpointShown, scheduled: (d) => woken.push(d.delivery_id), log: () => undefined,
    ...(peeking ? { subscribersNow: (orgId: string, kinds: readonly string[], before: number) => rememberedSubscribedWebhookEndpoints(services.docs, orgId, kinds, before) } : {}),
  }, (effect) => { fanoutRuns += 1; return run(effect) })

  const skipped = async (runId: string) => {
    const event = new MonitorRunSkipped({ monitor_id: 'm1', org_id: ORG, run_id: runId, status: 'skipped_quota', detail: 'no credits', skipped_at: clock.now().toISOString() })
    await run(Effect.flatMap(Effect.succeed(services.events), (store) => store.append(STREAMS.monitor.stream('m1'), newEvents(ORG, [event]), 'any')))
  }
  const all = () => run(services.events.readAll(0, 1000))
  const last = async () => (await all()).at(-1)!
  const deliveriesFor = async (endpointId: string) =>
    (await all()).filter((r) => r.type === 'WebhookDeliveryScheduled' && r.data.endpoint_id === endpointId).map((r) => String(r.data.source_event_id))

  await skipped('before')
  const before = await last()
  await run(handle(endpointDecider, STREAMS['webhook-endpoint'].stream('e1'), {
    _tag: 'CreateEndpoint', endpoint_id: 'e1', org_id: ORG, url: 'https://hooks.example.com/a', enabled_events: ['schedule.run_skipped'],
    description: null, secret: 'whsec_x', now: clock.now().toISOString(),
  }, { org_id: ORG, metadata: TEST_METADATA }))
  const created = await last()
  await skipped('after-1')
  const after1 = await last()
  await skipped('after-2')
  const after2 = await last()
  t.ok(before.position < created.position && created.position < after1.position, 'positions in recording order')

  const applyProjection = (recorded: RecordedEvent) => run(webhooksProjection.apply(recorded))

  await fanout.handle(after1)
  t.same(await deliveriesFor('e1'), [], 'the read model does not show the endpoint yet: nothing from the event itself')
  await applyProjection(created)
  await fanout.handle(after2)
  t.same(await deliveriesFor('e1'), [after2.event_id], 'once shown, a later event goes to it')
  await fanout.handle(created)
  t.same((await deliveriesFor('e1')).sort(), [after1.event_id, after2.event_id].sort(), 'its creation schedules what it missed, and nothing twice')
  const runsBefore = fanoutRuns
  await fanout.handle(before)
  t.equal(fanoutRuns - runsBefore, peeking ? 0 : 1, peeking ? 'an event nobody is subscribed to, the endpoints known: no run' : 'the endpoints read in a run')
  await fanout.handle(after1)
  t.same((await deliveriesFor('e1')).sort(), [after1.event_id, after2.event_id].sort(), 'an event recorded before its creation never goes to it; a redelivered one adds nothing')
  t.equal(woken.length, 2, 'the dispatcher is woken once per delivery scheduled')
})
