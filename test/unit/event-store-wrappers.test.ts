import { randomUUID } from 'node:crypto'
import { Effect, Layer } from 'effect'
import t from 'tap'
import { MemoryEventStoreLayer } from '../../infra/memory/event-store.js'
import { SealingEventStore } from '../../infra/sealing-event-store.js'
import { SignallingEventStore } from '../../infra/stream-appends.js'
import { SecretBox } from '../../domain/secret-box.js'
import { EventStore, type NewEvent } from '../../ports/event-store.js'
import { StreamAppends } from '../../ports/stream-appends.js'

const endpointCreated = (secret: string): NewEvent => ({
  event_id: randomUUID(), type: 'WebhookEndpointCreated', org_id: 'org-1', occurred_at: '2024-05-01T12:00:00.000Z',
  data: { secret }, metadata: { correlation_id: 'c', causation_id: null, actor: 'test' },
})

// The wrappers must do to a synchronous append what they do to the effect's: an append through appendNow is no way around them.
t.test('appendNow through the sealing and signalling stores seals secrets and signals the stream', async (t) => {
  const layer = SignallingEventStore.pipe(Layer.provideMerge(SealingEventStore(new SecretBox('k'.repeat(32))).pipe(Layer.provide(MemoryEventStoreLayer))))
  const { store, appends } = await Effect.runPromise(Effect.provide(Effect.all({ store: EventStore, appends: StreamAppends }), layer))
  const signalled: (readonly string[])[] = []
  const stop = appends.listen('webhook-1', (types) => signalled.push(types))
  store.appendNow!('webhook-1', [endpointCreated('plain')], 'no_stream')
  await Effect.runPromise(store.append('webhook-1', [endpointCreated('plain too')], 0))
  stop()
  const stored = store.readStreamNow!('webhook-1')
  t.ok(stored.every((event) => SecretBox.isSealed(event.data.secret as string)), 'both appends sealed the secret')
  t.same(signalled, [['WebhookEndpointCreated'], ['WebhookEndpointCreated']], 'both appends signalled')
})
