import { buildApp } from '../../api/app.js'
import { systemClock } from '../../infra/clock/system.js'

/** The OpenAPI document the API serves, read from an app that runs no effects; `close` when done. */
export const servedOpenApi = async () => {
  const app = await buildApp({
    run: () => Promise.reject(new Error('no effects run while reading the document')),
    clock: systemClock,
    settings: { publicBaseUrl: 'http://127.0.0.1', artifactUrlTtlSeconds: 60, resultWaitMaxSeconds: 60, ssrfAllowlist: new Set() },
  })
  await app.ready()
  return { doc: app.swagger() as any, close: () => app.close() }
}
