import { Effect } from 'effect'
import { openProxyPassword } from '../../domain/job/spec-secrets.js'
import { SecretBox } from '../../domain/secret-box.js'
import { startEgressGateway } from '../../fetchers/egress/index.js'
import type { EgressLogEntry } from '../../fetchers/egress/types.js'
import { defaultPerKey, withReserve } from '../../fetchers/fair-lanes.js'
import { warmCpuPool } from '../../fetchers/workers/index.js'
import { makeLightEngine } from '../../fetchers/light/engine.js'
import { makeStandardEngine } from '../../fetchers/standard/engine.js'
import { makeStealthEngine } from '../../fetchers/stealth/engine.js'
import { BlobStore } from '../../ports/blob-store.js'
import { Clock } from '../../ports/clock.js'
import { EventLog } from '../../ports/event-log.js'
import { EventStore } from '../../ports/event-store.js'
import { Metrics } from '../../ports/metrics.js'
import { makeJobRunner } from '../../processors/job-runner.js'
import type { Config } from '../config.js'
import type { Logger } from '../logger.js'
import { currentRunner } from '../runtime.js'
import { subscriptionOf } from '../../processors/processor.js'

/**
 * The fetcher role: runs requested jobs on the engines, every connection through the egress gateway. Released in
 * reverse: in-flight jobs are abandoned un-checkpointed (they run again after a restart), then the engines close,
 * then the gateway. Answers the gateway (tests read its log).
 */
export const fetcherRole = (config: Config, logger: Logger) => Effect.gen(function* () {
  const run = yield* currentRunner
  const eventLog = yield* EventLog
  const secretBox = new SecretBox(config.signingSecret)
  const egressLog = (entry: EgressLogEntry) => { if (entry.decision !== 'allowed') logger.warn('egress', entry) }
  const gateway = yield* Effect.acquireRelease(
    Effect.promise(() => startEgressGateway({ allowlist: config.ssrfAllowlist, log: egressLog })),
    (started) => Effect.promise(() => started.close()),
  )
  // Browsers get a listener of their own, which also refuses the browser vendor's background services.
  const browserGateway = yield* Effect.acquireRelease(
    Effect.promise(() => startEgressGateway({ allowlist: config.ssrfAllowlist, log: egressLog, refuseBrowserBackground: true })),
    (started) => Effect.promise(() => started.close()),
  )
  // Browser engines launch Chromium lazily, on their first job, with the gateway as their only way out.
  const engines = yield* Effect.acquireRelease(Effect.sync(() => {
    const browserSettings = { ...config.browser, proxyUrl: browserGateway.url, allowlist: config.ssrfAllowlist }
    return {
      light: makeLightEngine({ proxyUrl: gateway.url, allowlist: config.ssrfAllowlist, extraCaFile: config.extraCaFile }),
      standard: makeStandardEngine(browserSettings),
      stealth: makeStealthEngine({
        ...browserSettings,
        // A customer proxy gets a gateway listener of its own per job, under the same SSRF policy.
        startGateway: (upstream) => startEgressGateway({ allowlist: config.ssrfAllowlist, log: egressLog, upstream, refuseBrowserBackground: true }),
        openPassword: (spec) => openProxyPassword(spec, secretBox),
      }),
    }
  }), (started) => Effect.promise(() => Promise.all(Object.values(started).map((engine) => engine.close()))))
  const metrics = yield* Metrics
  const browserTiers = [engines.standard, engines.stealth]
  const byTier = (read: (browsers: { open: number; recycled: number }) => number) => () =>
    Object.fromEntries(browserTiers.flatMap((engine) => (engine.browsers ? [[engine.tier, read(engine.browsers())]] : [])))
  metrics.gauge('scrapeworks_browser_pool_size', 'Browser processes open in the pool, by tier', 'tier', byTier((b) => b.open))
  metrics.total('scrapeworks_browser_recycles', 'Browser processes retired for page count or memory growth, by tier', 'tier', byTier((b) => b.recycled))
  void warmCpuPool() // workers load their code while the fetcher subscribes, not when the first job needs one
  const limits = (slots: number) => ({ slots, perKey: Math.min(slots, config.fetcherOrgConcurrency ?? defaultPerKey(slots)) })
  const light = config.fetcherOrgConcurrency === null ? withReserve(config.fetcherConcurrency) : limits(config.fetcherConcurrency)
  const slots = { light, standard: limits(config.browser.poolSize), stealth: limits(config.browser.poolSize) }
  const runner = makeJobRunner({ engines, workerId: config.workerId, log: logger.error, recipes: config.recipes, metrics, clock: yield* Clock, events: yield* EventStore, blobs: yield* BlobStore, slots }, run)
  // The subscription hands over far more jobs than run at once, so the slots see every organization's waiting jobs
  // (a backlog of one does not hide another's job behind it), at least every slot's worth.
  const lookahead = Math.max(config.fetcherLookahead, config.fetcherConcurrency + 2 * config.browser.poolSize)
  yield* Effect.acquireRelease(
    eventLog.subscribe(subscriptionOf(runner, lookahead), runner.handle),
    // Abort first, so stopping does not wait for jobs to finish: an aborted job's event stays unhandled.
    (subscription) => Effect.promise(async () => {
      runner.abort()
      await subscription.stop()
    }),
  )
  return gateway
})
