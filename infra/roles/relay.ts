import { Effect, Option } from 'effect'
import { StoreLog } from '../../ports/event-log.js'
import { KafkaCluster } from '../kafka/client.js'
import { relayToKafka } from '../kafka/relay.js'
import type { Logger } from '../logger.js'

/** The relay role: publishes the store's log to Kafka (scale-out). Without Kafka, subscribers read the store directly. */
export const relayRole = (logger: Logger, alone: boolean) => Effect.gen(function* () {
  const cluster = yield* Effect.serviceOption(KafkaCluster)
  if (Option.isNone(cluster)) {
    if (alone) logger.warn('the relay role has nothing to do without EVENT_LOG=kafka: subscribers read the event store directly')
    return
  }
  yield* relayToKafka({ kafka: cluster.value.client, topics: cluster.value.topics, source: yield* StoreLog })
})
