import type { Server } from 'node:http'
import type { FastifyInstance } from 'fastify'
import { Context, Effect, Layer, ManagedRuntime } from 'effect'
import type { EgressGateway } from '../fetchers/egress/types.js'
import { appLayer, type AppLayerOptions } from './app-layer.js'
import type { Config, Role } from './config.js'
import type { Logger } from './logger.js'
import { closeCpuPool } from '../fetchers/workers/index.js'
import { metricsListener } from './metrics/listener.js'
import { apiRole } from './roles/api.js'
import { detectorRole } from './roles/detector.js'
import { fetcherRole } from './roles/fetcher.js'
import { mailerRole } from './roles/mailer.js'
import { ensureReadModelIndexes, projectorRole } from './roles/projector.js'
import { recipeHealthRole } from './roles/recipe-health.js'
import { purgerRole } from './roles/purger.js'
import { relayRole } from './roles/relay.js'
import { scrapeRecorderRole } from './roles/scrape-recorder.js'
import { webhooksRole } from './roles/webhooks.js'
import { contentMonitorRunnerRole } from './roles/content-monitor-runner.js'
import { schedulerRole } from './roles/scheduler.js'
import { promiseRunner, type Run } from './runtime.js'

/** What the started roles hand back: the HTTP server (api role) and the egress gateway (fetcher role). */
export class StartedRoles extends Context.Tag('StartedRoles')<StartedRoles, {
  readonly app?: FastifyInstance
  readonly gateway?: EgressGateway
  /** The metrics listener, when METRICS_PORT gives it a port of its own. */
  readonly metricsServer?: Server
}>() {}

/**
 * The selected roles, started on the application layer's services. Released before those services: the API closes
 * first (no request reaches a stopping role), then the other roles together, each in its own reverse order.
 */
const rolesLayer = (config: Config, roles: readonly Role[], logger: Logger) => Layer.scoped(StartedRoles, Effect.gen(function* () {
  // The CPU pool serves several roles (fetcher, detector, content-monitor runner): it closes after all of them.
  yield* Effect.addFinalizer(() => Effect.promise(closeCpuPool))
  if (roles.includes('projector') || roles.includes('api')) yield* ensureReadModelIndexes
  const gateway = yield* Effect.parallelFinalizers(Effect.gen(function* () {
    if (roles.includes('relay')) yield* Effect.sequentialFinalizers(relayRole(logger, roles.length === 1))
    if (roles.includes('projector')) yield* Effect.sequentialFinalizers(projectorRole(logger))
    const started = roles.includes('fetcher') ? yield* Effect.sequentialFinalizers(fetcherRole(config, logger)) : undefined
    if (roles.includes('fetcher')) yield* Effect.sequentialFinalizers(scrapeRecorderRole(logger))
    if (roles.includes('fetcher')) yield* Effect.sequentialFinalizers(contentMonitorRunnerRole(logger))
    if (roles.includes('mailer')) yield* Effect.sequentialFinalizers(mailerRole(config, logger))
    if (roles.includes('webhooks')) yield* Effect.sequentialFinalizers(webhooksRole(config, logger))
    if (roles.includes('detector')) yield* Effect.sequentialFinalizers(detectorRole(config, logger))
    if (roles.includes('recipe-health')) yield* recipeHealthRole(config, logger)
    if (roles.includes('scheduler')) yield* Effect.sequentialFinalizers(schedulerRole(config, logger))
    if (roles.includes('purger')) yield* purgerRole(config, logger)
    return started
  }))
  const metricsServer = config.metricsPort === null ? undefined : yield* metricsListener(config.metricsPort, config.host)
  const app = roles.includes('api') ? yield* apiRole(config) : undefined
  return { ...(app ? { app } : {}), ...(gateway ? { gateway } : {}), ...(metricsServer ? { metricsServer } : {}) }
}))

/** One process: the configured adapters plus the selected roles, as one layer (one ManagedRuntime). */
export const processLayer = (config: Config, roles: readonly Role[], logger: Logger, options: AppLayerOptions = {}) =>
  rolesLayer(config, roles, logger).pipe(Layer.provideMerge(appLayer(config, logger.error, { notice: logger.info, ...options })))

export interface RunningProcess {
  readonly app?: FastifyInstance
  readonly gateway?: EgressGateway
  readonly metricsServer?: Server
  /** Runs an effect on the process's services (commands, queries). */
  readonly run: Run
  /** Graceful shutdown: stop accepting requests, abandon in-flight jobs (they run again after restart), close stores. */
  readonly close: () => Promise<void>
}

export const startProcess = async (config: Config, roles: readonly Role[], logger: Logger, options: AppLayerOptions = {}): Promise<RunningProcess> => {
  const runtime = ManagedRuntime.make(processLayer(config, roles, logger, options))
  const started = await runtime.runPromise(StartedRoles).catch(async (error: unknown) => {
    await runtime.dispose()
    throw error
  })
  return { ...started, run: promiseRunner(runtime.runPromiseExit), close: () => runtime.dispose() }
}
