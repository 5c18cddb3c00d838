import type { FastifyInstance } from 'fastify'

export interface RequestObservation {
  readonly method: string
  /** The route template (`/v1/jobs/:id`), never the raw URL: ids would make one series per job. */
  readonly route: string
  readonly status: number
  readonly seconds: number
}

/** The metrics the API reports and exposes; given by infra (Prometheus). */
export interface ApiMetrics {
  readonly observe: (request: RequestObservation) => void
  /** Serves `/metrics` on the API port when given (absent when metrics have a listener of their own). */
  readonly exposition?: { readonly contentType: string; readonly render: () => Promise<string> }
}

/** Requests no route matched share one label, so a scan of random paths cannot grow the series without bound. */
export const UNMATCHED_ROUTE = 'unmatched'

export const observeRequests = (app: FastifyInstance, metrics: ApiMetrics) => {
  app.addHook('onResponse', async (request, reply) => {
    metrics.observe({ method: request.method, route: request.routeOptions.url ?? UNMATCHED_ROUTE, status: reply.statusCode, seconds: reply.elapsedTime / 1000 })
  })
  const exposition = metrics.exposition
  if (exposition) {
    app.get('/metrics', { schema: { hide: true } }, async (_request, reply) => {
      reply.header('content-type', exposition.contentType)
      return exposition.render()
    })
  }
}
