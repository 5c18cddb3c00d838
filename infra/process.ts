import type { FastifyInstance } from 'fastify'
import { Effect } from 'effect'
import { buildApp } from '../api/app.js'
import { startEgressGateway } from '../fetchers/egress/index.js'
import type { EgressGateway } from '../fetchers/egress/types.js'
import { makeLightEngine } from '../fetchers/light/engine.js'
import { makeJobRunner } from '../processors/job-runner.js'
import { PROJECTIONS } from '../projections/index.js'
import type { Config, Role } from './config.js'
import { SecretBox } from '../domain/secret-box.js'
import type { JobSpec } from '../domain/job/spec.js'
import { sealSpecSecrets } from '../domain/job/spec-secrets.js'
import type { Subscription } from './ports/event-log.js'
import type { EventStoreService } from './ports/event-store.js'
import { makeRuntime, type Adapters } from './runtime.js'

export interface Logger {
  info: (msg: string, detail?: unknown) => void
  warn: (msg: string, detail?: unknown) => void
  error: (msg: string, detail?: unknown) => void
}

export const consoleLogger = (level: string): Logger => {
  const quiet = level === 'silent'
  const write = (lvl: string) => (msg: string, detail?: unknown) => {
    if (quiet) return
    const line = { level: lvl, time: new Date().toISOString(), msg, ...(detail !== undefined ? { detail: detail instanceof Error ? detail.message : detail } : {}) }
    process.stderr.write(`${JSON.stringify(line)}\n`)
  }
  return { info: level === 'info' || level === 'debug' ? write('info') : () => {}, warn: write('warn'), error: write('error') }
}

export interface RunningProcess {
  readonly app?: FastifyInstance
  readonly gateway?: EgressGateway
  readonly adapters: Adapters
  readonly run: ReturnType<typeof makeRuntime>['run']
  /** Graceful shutdown: stop accepting requests, abandon in-flight jobs (they run again after restart), close stores. */
  readonly close: () => Promise<void>
}

/**
 * Seals job secrets at the one place every event is recorded: a JobRequested is appended with its customer proxy
 * password encrypted, whoever submitted it (API, monitors, replays), so the event store and read models never hold it.
 */
const sealingEventStore = (store: EventStoreService, box: SecretBox): EventStoreService => ({
  ...store,
  append: (stream, events, expected) => store.append(stream, events.map((event) => event.type === 'JobRequested'
    ? { ...event, data: { ...event.data, spec: sealSpecSecrets(event.data.spec as JobSpec, box) } }
    : event), expected),
})

export const startRoles = async (config: Config, rawAdapters: Adapters, roles: readonly Role[], logger: Logger): Promise<RunningProcess> => {
  const secretBox = new SecretBox(config.signingSecret)
  const adapters: Adapters = { ...rawAdapters, eventStore: sealingEventStore(rawAdapters.eventStore, secretBox) }
  const { runtime, run } = makeRuntime(adapters)
  const subscriptions: Subscription[] = []
  const stoppers: (() => Promise<void>)[] = []

  if (roles.includes('projector')) {
    for (const projection of PROJECTIONS) {
      subscriptions.push(await Effect.runPromise(adapters.eventLog.subscribe(
        { name: projection.name, categories: projection.categories, concurrency: projection.concurrency },
        (event) => run(projection.apply(event)),
      )))
    }
  }

  let gateway: EgressGateway | undefined
  if (roles.includes('fetcher')) {
    gateway = await startEgressGateway({
      allowlist: config.ssrfAllowlist,
      log: (entry) => { if (entry.decision !== 'allowed') logger.warn('egress', entry) },
    })
    const engines = { light: makeLightEngine({ proxyUrl: gateway.url, allowlist: config.ssrfAllowlist }) }
    const runner = makeJobRunner({ engines, workerId: config.workerId, log: logger.error }, run)
    const subscription = await Effect.runPromise(adapters.eventLog.subscribe(
      { name: 'processor.fetcher', categories: ['job'], concurrency: config.fetcherConcurrency },
      runner.handle,
    ))
    stoppers.push(async () => {
      runner.abort()
      await subscription.stop()
      await Promise.all(Object.values(engines).map((e) => e.close()))
    })
  }

  let app: FastifyInstance | undefined
  if (roles.includes('api')) {
    app = await buildApp({
      run,
      settings: { publicBaseUrl: config.publicBaseUrl, artifactUrlTtlSeconds: config.artifactUrlTtlSeconds, ssrfAllowlist: config.ssrfAllowlist },
      ...(adapters.verifyDownload ? { verifyDownload: adapters.verifyDownload } : {}),
    }, { logger: config.logLevel === 'silent' ? false : { level: config.logLevel } })
    await app.listen({ port: config.port, host: config.host })
  }

  return {
    ...(app ? { app } : {}),
    ...(gateway ? { gateway } : {}),
    adapters,
    run,
    close: async () => {
      await app?.close()
      await Promise.all(stoppers.map((stop) => stop()))
      await Promise.all(subscriptions.map((s) => s.stop()))
      await gateway?.close()
      await runtime.dispose()
      await adapters.close()
    },
  }
}
