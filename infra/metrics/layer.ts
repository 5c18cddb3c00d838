import { Context, Effect, Layer } from 'effect'
import { DocumentStore } from '../../ports/document-store.js'
import { EventLog, StoreLog, type EventLogService, type Subscription } from '../../ports/event-log.js'
import { EventStore } from '../../ports/event-store.js'
import { Metrics } from '../../ports/metrics.js'
import { JOBS } from '../../projections/jobs.js'
import { WEBHOOK_DELIVERIES } from '../../projections/webhooks.js'
import { makePrometheusMetrics, type PrometheusMetrics } from './prometheus.js'

/** The process's Prometheus registry (infra only: exposition and subscriber tracking). */
export class Prometheus extends Context.Tag('Prometheus')<Prometheus, PrometheusMetrics>() {}

const HEAD_BATCH = 1000

/** The registry, reading queue depth from the jobs read model and the log head from the event store. */
export const PrometheusLive = Layer.effect(Prometheus, Effect.gen(function* () {
  const store = yield* EventStore
  const docs = yield* DocumentStore
  const headPosition = async (atLeast: number) => {
    let head = atLeast
    for (;;) {
      const batch = await Effect.runPromise(store.readAll(head, HEAD_BATCH))
      head = batch.at(-1)?.position ?? head
      if (batch.length < HEAD_BATCH) return head
    }
  }
  return makePrometheusMetrics({
    queueDepth: () => Effect.runPromise(docs.count(JOBS.name, { status: 'queued' })),
    webhookBacklog: () => Effect.runPromise(docs.count(WEBHOOK_DELIVERIES.name, { status: 'pending' })),
    headPosition,
  })
}))

/** Every subscription made on the log is reported (its checkpoint) until it stops. */
const tracked = (metrics: PrometheusMetrics, log: 'store' | 'event', events: EventLogService): EventLogService => {
  const track = (name: string) => (subscription: Subscription): Subscription => {
    const untrack = metrics.trackSubscriber(log, name, subscription.checkpoint)
    return { checkpoint: subscription.checkpoint, stop: () => { untrack(); return subscription.stop() } }
  }
  const { subscribeBatches } = events
  return {
    ...events,
    subscribe: (options, handler) => Effect.map(events.subscribe(options, handler), track(options.name)),
    ...(subscribeBatches ? { subscribeBatches: (options, handler) => Effect.map(subscribeBatches(options, handler), track(options.name)) } : {}),
  }
}

/**
 * The Metrics port, and the logs decorated so each subscriber's lag can be read. Only catch-up subscribers report a
 * lag: on scale-out the EventLog's checkpoints are Kafka offsets, whose lag Kafka's own tooling reports per group.
 */
export const MetricsLive = Layer.effectContext(Effect.gen(function* () {
  const metrics = yield* Prometheus
  const storeLog = yield* StoreLog
  const eventLog = yield* EventLog
  const trackedStore = tracked(metrics, 'store', storeLog)
  return Context.make(Metrics, metrics).pipe(
    Context.add(StoreLog, trackedStore),
    Context.add(EventLog, eventLog === storeLog ? trackedStore : eventLog),
  )
})).pipe(Layer.provideMerge(PrometheusLive))
