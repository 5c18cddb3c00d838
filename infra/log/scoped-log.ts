import { Effect, type Scope } from 'effect'
import type { EventHandler, EventLogService, Subscription, SubscriptionOptions } from '../../ports/event-log.js'
import { subscriptionOf, type Processor } from '../../processors/processor.js'

/**
 * Ties a log's subscriptions to a scope: whatever is still subscribed when the scope closes is stopped then, so
 * disposing the runtime leaves no poll loop or Kafka consumer behind even when a role did not stop its own.
 */
export const scopedEventLog = (log: EventLogService): Effect.Effect<EventLogService, never, Scope.Scope> =>
  Effect.gen(function* () {
    const live = new Set<Subscription>()
    yield* Effect.addFinalizer(() => Effect.promise(() => Promise.all([...live].map((subscription) => subscription.stop()))))
    const track = (subscription: Subscription) => {
      let stopping: Promise<void> | undefined
      const tracked: Subscription = {
        checkpoint: subscription.checkpoint,
        stop: () => {
          live.delete(tracked)
          stopping ??= subscription.stop()
          return stopping
        },
      }
      live.add(tracked)
      return tracked
    }
    const { subscribeBatches, readBatches } = log
    return {
      setCheckpoint: log.setCheckpoint,
      subscribe: (options, handler) => Effect.map(log.subscribe(options, handler), track),
      ...(subscribeBatches ? { subscribeBatches: (options, handler) => Effect.map(subscribeBatches(options, handler), track) } : {}),
      ...(log.checkpointOf ? { checkpointOf: log.checkpointOf } : {}),
      ...(readBatches ? { readBatches: (options, handler) => Effect.map(readBatches(options, handler), track) } : {}),
    } satisfies EventLogService
  })

/** A subscription for the lifetime of a scope: stopped (its in-flight handlers settled) when the scope closes. */
export const scopedSubscription = (log: EventLogService, options: SubscriptionOptions, handler: EventHandler) =>
  untilScopeCloses(log.subscribe(options, handler))

/** A processor's subscription (its name, categories and event types) for the lifetime of a scope. */
export const scopedProcessor = (log: EventLogService, processor: Processor, concurrency: number) =>
  scopedSubscription(log, subscriptionOf(processor, concurrency), processor.handle)

/** Ends a subscription when the scope closes. */
export const untilScopeCloses = <E>(subscribing: Effect.Effect<Subscription, E>) =>
  Effect.acquireRelease(subscribing, (subscription) => Effect.promise(() => subscription.stop()))
