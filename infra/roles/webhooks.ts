import { Effect } from 'effect'
import { SecretBox } from '../../domain/secret-box.js'
import { egressDispatcher, startEgressGateway } from '../../fetchers/egress/index.js'
import { DocumentStore } from '../../ports/document-store.js'
import { EventLog } from '../../ports/event-log.js'
import { Metrics } from '../../ports/metrics.js'
import { makeWebhookDispatcher } from '../../processors/webhook-dispatcher.js'
import { makeWebhookFanout } from '../../processors/webhook-fanout.js'
import { makeWebhookNotices } from '../../processors/webhook-notices.js'
import { listOrgUsers } from '../../projections/user-queries.js'
import {
  dueWebhookDeliveries, nextWebhookAttemptAt, rememberedSubscribedWebhookEndpoints, subscribedWebhookEndpoints, webhookEndpointShown, webhookEndpointVersion,
} from '../../projections/webhook-queries.js'
import type { Config } from '../config.js'
import { scopedProcessor } from '../log/scoped-log.js'
import type { Logger } from '../logger.js'
import { currentRunner } from '../runtime.js'

/**
 * The webhooks role: turns domain events into deliveries (fan-out), sends due deliveries through an egress gateway
 * of its own (dispatcher), and mails the organization when an endpoint is disabled. Released in reverse: the
 * dispatcher stops (an interrupted POST is sent again after a restart), then the subscriptions, then the gateway.
 */
export const webhooksRole = (config: Config, logger: Logger) => Effect.gen(function* () {
  const run = yield* currentRunner
  const eventLog = yield* EventLog
  const box = new SecretBox(config.signingSecret)
  const gateway = yield* Effect.acquireRelease(
    Effect.promise(() => startEgressGateway({ allowlist: config.ssrfAllowlist, log: (entry) => { if (entry.decision !== 'allowed') logger.warn('egress', entry) } })),
    (started) => Effect.promise(() => started.close()),
  )
  const http = egressDispatcher(gateway)
  yield* Effect.addFinalizer(() => Effect.promise(() => http.close()))
  const dispatcher = makeWebhookDispatcher({
    ladder: config.webhooks.retryLadder, timeoutMs: config.webhooks.timeoutMs, pollMs: config.webhooks.pollMs,
    concurrency: config.webhooks.concurrency, orgConcurrency: config.webhooks.orgConcurrency, endpointConcurrency: config.webhooks.endpointConcurrency, circuit: config.webhooks.circuit, linkTtlSeconds: config.artifactUrlTtlSeconds,
    http, openSecret: (sealed) => (SecretBox.isSealed(sealed) ? box.open(sealed) : sealed),
    dueDeliveries: dueWebhookDeliveries, nextAttemptAt: nextWebhookAttemptAt, endpointVersion: webhookEndpointVersion, log: logger.error, metrics: yield* Metrics,
  })
  const docs = yield* DocumentStore
  const fanout = makeWebhookFanout({
    subscribers: subscribedWebhookEndpoints, subscribersNow: (orgId, kinds, before) => rememberedSubscribedWebhookEndpoints(docs, orgId, kinds, before),
    endpointShown: webhookEndpointShown, scheduled: dispatcher.wake, log: logger.error,
  }, run)
  const notices = makeWebhookNotices({ orgUsers: listOrgUsers, log: logger.error }, run)
  yield* scopedProcessor(eventLog, fanout, 8)
  yield* scopedProcessor(eventLog, notices, 4)
  yield* Effect.forkScoped(dispatcher.loop)
})
