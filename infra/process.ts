import type { FastifyInstance } from 'fastify'
import { Effect } from 'effect'
import { buildApp } from '../api/app.js'
import { startEgressGateway } from '../fetchers/egress/index.js'
import { closeRegexPool } from '../fetchers/extraction/index.js'
import type { EgressGateway, EgressLogEntry } from '../fetchers/egress/types.js'
import { makeStandardEngine } from '../fetchers/standard/engine.js'
import { makeStealthEngine } from '../fetchers/stealth/engine.js'
import { makeLightEngine } from '../fetchers/light/engine.js'
import { makeJobRunner } from '../processors/job-runner.js'
import { makeMailerProcessor } from '../processors/mailer.js'
import { PROJECTIONS } from '../projections/index.js'
import type { Config, Role } from './config.js'
import { SecretBox } from '../domain/secret-box.js'
import type { JobSpec } from '../domain/job/spec.js'
import { openProxyPassword, sealSpecSecrets } from '../domain/job/spec-secrets.js'
import { makeMailServices } from './mail/index.js'
import type { Subscription } from '../ports/event-log.js'
import type { EventStoreService } from '../ports/event-store.js'
import type { ProcessAdapters } from './adapters.js'
import { startRelay } from './kafka/relay.js'
import { makeRuntime } from './runtime.js'

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
  readonly adapters: ProcessAdapters
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

export const startRoles = async (config: Config, rawAdapters: ProcessAdapters, roles: readonly Role[], logger: Logger): Promise<RunningProcess> => {
  const secretBox = new SecretBox(config.signingSecret)
  const adapters: ProcessAdapters = { ...rawAdapters, eventStore: sealingEventStore(rawAdapters.eventStore, secretBox) }
  const { runtime, run } = makeRuntime(adapters)
  const subscriptions: Subscription[] = []
  const stoppers: (() => Promise<void>)[] = []

  if (roles.includes('relay')) {
    if (adapters.kafka) {
      const relay = await startRelay({ kafka: adapters.kafka.client, topics: { prefix: adapters.kafka.prefix, partitions: adapters.kafka.partitions }, source: adapters.storeLog })
      stoppers.push(() => relay.stop())
    } else if (roles.length === 1) {
      logger.warn('the relay role has nothing to do without EVENT_LOG=kafka: subscribers read the event store directly')
    }
  }

  if (roles.includes('projector')) {
    for (const projection of PROJECTIONS) {
      const source = projection.ordering === 'log' ? adapters.storeLog : adapters.eventLog
      subscriptions.push(await Effect.runPromise(source.subscribe(
        { name: projection.name, categories: projection.categories, concurrency: projection.concurrency },
        (event) => run(projection.apply(event)),
      )))
    }
  }

  let gateway: EgressGateway | undefined
  if (roles.includes('fetcher')) {
    const egressLog = (entry: EgressLogEntry) => { if (entry.decision !== 'allowed') logger.warn('egress', entry) }
    gateway = await startEgressGateway({ allowlist: config.ssrfAllowlist, log: egressLog })
    // Browser engines launch Chromium lazily, on their first job, with the gateway as their only way out.
    const browserSettings = { ...config.browser, proxyUrl: gateway.url }
    const engines = {
      light: makeLightEngine({ proxyUrl: gateway.url, allowlist: config.ssrfAllowlist }),
      standard: makeStandardEngine(browserSettings),
      stealth: makeStealthEngine({
        ...browserSettings,
        // A customer proxy gets a gateway listener of its own per job, under the same SSRF policy.
        startGateway: (upstream) => startEgressGateway({ allowlist: config.ssrfAllowlist, log: egressLog, upstream }),
        openPassword: (spec) => openProxyPassword(spec, secretBox),
      }),
    }
    const runner = makeJobRunner({ engines, workerId: config.workerId, log: logger.error }, run)
    const subscription = await Effect.runPromise(adapters.eventLog.subscribe(
      { name: 'processor.fetcher', categories: ['job'], concurrency: config.fetcherConcurrency },
      runner.handle,
    ))
    stoppers.push(async () => {
      runner.abort()
      await closeRegexPool()
      await subscription.stop()
      await Promise.all(Object.values(engines).map((e) => e.close()))
    })
  }

  // Registration (api) stages verification tokens that the mailer sends: both use the same mail services.
  const mail = makeMailServices({
    dataDir: config.dataDir, smtpUrl: config.smtpUrl, mailFrom: config.mailFrom,
    ...(config.adapters.documents.kind === 'mongodb' ? { sharedStore: adapters.documents } : {}),
  })
  stoppers.push(() => mail.mailer.close())
  if (roles.includes('mailer')) {
    const mailer = makeMailerProcessor({ publicBaseUrl: config.publicBaseUrl, log: logger.error }, (effect) => run(mail.provide(effect)))
    const subscription = await Effect.runPromise(adapters.eventLog.subscribe({ name: 'processor.mailer', categories: ['user'], concurrency: 4 }, mailer.handle))
    stoppers.push(() => subscription.stop())
  }

  let app: FastifyInstance | undefined
  if (roles.includes('api')) {
    app = await buildApp({
      run,
      settings: { publicBaseUrl: config.publicBaseUrl, artifactUrlTtlSeconds: config.artifactUrlTtlSeconds, ssrfAllowlist: config.ssrfAllowlist },
      ...(adapters.verifyDownload ? { verifyDownload: adapters.verifyDownload } : {}),
    }, {
      logger: config.logLevel === 'silent' ? false : { level: config.logLevel },
      trustProxy: config.trustProxy,
      account: {
        run: (effect) => run(mail.provide(effect)),
        settings: {
          jwtSecret: config.jwtSecret, accessTokenTtlSeconds: config.accessTokenTtlSeconds, sessionTtlSeconds: config.sessionTtlSeconds,
          verificationTokenTtlSeconds: config.verificationTokenTtlSeconds, loginAttemptsPerMinute: config.loginAttemptsPerMinute,
          secureCookies: config.publicBaseUrl.startsWith('https://'),
        },
      },
    })
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
