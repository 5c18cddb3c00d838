import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Effect } from 'effect'
import { Prometheus } from './layer.js'

/**
 * `/metrics` on a port of its own (METRICS_PORT), for any role, so processes without the api role (fetchers,
 * projectors on scale-out) can be scraped and the API port need not expose operational data. Answers the server.
 */
export const metricsListener = (port: number, host: string) => Effect.gen(function* () {
  const metrics = yield* Prometheus
  const start = () => new Promise<Server>((resolve, reject) => {
    const server = createServer((request, response) => {
      if (request.method !== 'GET' || request.url?.split('?')[0] !== '/metrics') {
        response.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n')
        return
      }
      metrics.render().then(
        (body) => response.writeHead(200, { 'content-type': metrics.contentType }).end(body),
        () => response.writeHead(503, { 'content-type': 'text/plain' }).end('metrics unavailable\n'),
      )
    })
    server.once('error', reject)
    server.listen(port, host, () => resolve(server))
  })
  return yield* Effect.acquireRelease(Effect.promise(start), (server) => Effect.promise(() => new Promise<void>((resolve) => {
    server.closeAllConnections()
    server.close(() => resolve())
  })))
})

export const listenerPort = (server: Server) => (server.address() as AddressInfo).port
