import { fileURLToPath } from 'node:url'
import { Effect, Option } from 'effect'
import { buildApp } from '../../api/app.js'
import { validUnsubscribeToken } from '../../domain/detection/unsubscribe.js'
import { Clock } from '../../ports/clock.js'
import { DocumentStore } from '../../ports/document-store.js'
import { EventStore } from '../../ports/event-store.js'
import { Usage } from '../../ports/usage.js'
import { rememberedPrincipal } from '../../projections/key-queries.js'
import { DownloadVerifier } from '../blob/local-folder.js'
import type { Config } from '../config.js'
import { Prometheus } from '../metrics/layer.js'
import { currentRunner } from '../runtime.js'
import { StartupError } from '../startup-error.js'
import { lightClientState } from '../../fetchers/light/chromium-client.js'

/** Where `npm run build:dashboard` writes the dashboard (see scripts/build-dashboard.mjs). */
const DASHBOARD_DIST = fileURLToPath(new URL('../../web/dist', import.meta.url))

/** The api role: the HTTP server, listening until the scope closes (then it stops taking requests first). */
export const apiRole = (config: Config) => Effect.gen(function* () {
  const run = yield* currentRunner
  const verifyDownload = yield* Effect.serviceOption(DownloadVerifier)
  const metrics = yield* Prometheus
  const docs = yield* DocumentStore
  const clock = yield* Clock
  const events = yield* EventStore
  const usage = yield* Usage
  const build = async () => {
    const app = await buildApp({
      run, clock,
      settings: { publicBaseUrl: config.publicBaseUrl, artifactUrlTtlSeconds: config.artifactUrlTtlSeconds, resultWaitMaxSeconds: config.resultWaitMaxSeconds, ssrfAllowlist: config.ssrfAllowlist, recipes: config.recipes,
        unavailableTiers: lightClientState() === 'missing' ? ['light'] : [],
      },
      rememberedPrincipal: (secret) => rememberedPrincipal(docs, secret, clock.now()),
      services: { events, docs, usage, clock },
      ...(Option.isSome(verifyDownload) ? { verifyDownload: verifyDownload.value } : {}),
      verifyUnsubscribe: (monitorId, recipient, token) => validUnsubscribeToken(config.signingSecret, monitorId, recipient, token),
    }, {
      logger: config.logLevel === 'silent' ? false : { level: config.logLevel },
      trustProxy: config.trustProxy,
      serverLimits: config.serverLimits,
      dashboardDir: DASHBOARD_DIST,
      // Served here unless METRICS_PORT gives /metrics a listener of its own.
      metrics: { observe: metrics.httpRequest, ...(config.metricsPort === null ? { exposition: metrics } : {}) },
      account: {
        run,
        settings: {
          jwtSecret: config.jwtSecret, accessTokenTtlSeconds: config.accessTokenTtlSeconds, sessionTtlSeconds: config.sessionTtlSeconds,
          verificationTokenTtlSeconds: config.verificationTokenTtlSeconds, loginAttemptsPerMinute: config.loginAttemptsPerMinute,
          registrationsPerHour: config.registrationsPerHour,
          loginFailuresBeforeBackoff: config.loginFailuresBeforeBackoff,
          secureCookies: config.publicBaseUrl.startsWith('https://'),
          scrapesPerMinute: config.scrapesPerMinute, ssrfAllowlist: config.ssrfAllowlist, artifactUrlTtlSeconds: config.artifactUrlTtlSeconds,
          registration: config.registration, defaultPlan: config.defaultPlan,
        },
      },
    })
    await app.listen({ port: config.port, host: config.host }).catch(async (error: unknown) => {
      await app.close()
      if ((error as { code?: string }).code === 'EADDRINUSE') {
        throw new StartupError(`port ${config.port} on ${config.host} is in use by another process: stop it, or set PORT to a free port`)
      }
      throw error
    })
    return app
  }
  return yield* Effect.acquireRelease(Effect.promise(build), (app) => Effect.promise(() => app.close()))
})
