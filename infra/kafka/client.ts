import { Context, Layer } from 'effect'
import { Kafka, logLevel } from 'kafkajs'
import type { TopicSettings } from './topics.js'

export interface KafkaSettings {
  /** Holds no connection itself: producers, consumers and admins made from it connect and disconnect on their own. */
  readonly client: Kafka
  readonly topics: TopicSettings
  /** Consumer group of a subscriber: `<groupPrefix>.<subscription name>`. */
  readonly groupPrefix: string
  readonly sessionTimeoutMs: number
}

/** The scale-out Kafka cluster: what the Kafka event log and the relay role connect to. */
export class KafkaCluster extends Context.Tag('KafkaCluster')<KafkaCluster, KafkaSettings>() {}

export interface KafkaClusterOptions {
  readonly clientId: string
  readonly brokers: readonly string[]
  readonly topicPrefix: string
  readonly partitions: number
  readonly groupPrefix: string
  readonly sessionTimeoutMs: number
}

export const KafkaClusterLive = (options: KafkaClusterOptions) => Layer.sync(KafkaCluster, () => ({
  client: new Kafka({ clientId: options.clientId, brokers: [...options.brokers], logLevel: logLevel.ERROR }),
  topics: { prefix: options.topicPrefix, partitions: options.partitions },
  groupPrefix: options.groupPrefix,
  sessionTimeoutMs: options.sessionTimeoutMs,
}))
