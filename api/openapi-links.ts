import type { RouteOptions } from 'fastify'

/** A JSON pointer to an operation of this document (a path's `/` is `~1` in a pointer). */
const operation = (method: string, path: string) => `#/paths/${path.replace(/~/g, '~0').replace(/\//g, '~1')}/${method}`

type Links = Readonly<Record<number, Readonly<Record<string, { readonly operationRef: string; readonly parameters: Readonly<Record<string, string>> }>>>>

/** The operations that take the id a creation answered, each with the path parameter the id fills. */
const follow = (id: string, parameter: string, targets: readonly (readonly [name: string, method: string, path: string])[]) =>
  Object.fromEntries(targets.map(([name, method, path]) => [name, { operationRef: operation(method, path), parameters: { [parameter]: `$response.body#/${id}` } }]))

const job = follow('job_id', 'job_id', [['GetJob', 'get', '/v1/jobs/{job_id}'], ['GetResult', 'get', '/v1/jobs/{job_id}/result'], ['DeleteJob', 'delete', '/v1/jobs/{job_id}']])
const monitor = follow('monitor_id', 'monitor_id', [
  ['GetMonitor', 'get', '/v1/monitors/{monitor_id}'], ['UpdateMonitor', 'patch', '/v1/monitors/{monitor_id}'], ['PauseMonitor', 'post', '/v1/monitors/{monitor_id}/pause'],
  ['ResumeMonitor', 'post', '/v1/monitors/{monitor_id}/resume'], ['MonitorRuns', 'get', '/v1/monitors/{monitor_id}/runs'], ['MonitorChanges', 'get', '/v1/monitors/{monitor_id}/changes'],
  ['DeleteMonitor', 'delete', '/v1/monitors/{monitor_id}'],
])
const endpoint = follow('endpoint_id', 'endpoint_id', [
  ['GetEndpoint', 'get', '/v1/webhook-endpoints/{endpoint_id}'], ['UpdateEndpoint', 'patch', '/v1/webhook-endpoints/{endpoint_id}'],
  ['RotateSecret', 'post', '/v1/webhook-endpoints/{endpoint_id}/rotate-secret'], ['Deliveries', 'get', '/v1/webhook-endpoints/{endpoint_id}/deliveries'],
  ['DeleteEndpoint', 'delete', '/v1/webhook-endpoints/{endpoint_id}'],
])
const contentMonitor = follow('id', 'id', [
  ['GetContentMonitor', 'get', '/content-monitors/{id}'], ['UpdateContentMonitor', 'patch', '/content-monitors/{id}'],
  ['ContentMonitorRuns', 'get', '/content-monitors/{id}/runs'], ['RequestRun', 'post', '/content-monitors/{id}/runs'],
])

/**
 * OpenAPI links from each creation to the operations on what it created, so a stateful fuzz (schemathesis) chains
 * them: create, read, change, delete, and read again. A link to an operation the document lacks is left out.
 */
const LINKS: Readonly<Record<string, Links>> = {
  'POST /v1/jobs': { 202: job, 200: job },
  'POST /v1/monitors': { 201: monitor },
  'POST /v1/webhook-endpoints': { 201: endpoint },
  'POST /v1/keys': { 201: follow('key_id', 'key_id', [['RevokeKey', 'delete', '/v1/keys/{key_id}']]) },
  'POST /v1/org/retention-holds': { 201: follow('hold_id', 'hold_id', [['ReleaseHold', 'post', '/v1/org/retention-holds/{hold_id}/release']]) },
  'POST /content-monitors': { 201: contentMonitor },
  'POST /scrapes': { 200: follow('id', 'id', [['GetScrape', 'get', '/scrapes/{id}']]) },
}

/** The OpenAPI path of a fastify route URL (`/v1/jobs/:job_id` is `/v1/jobs/{job_id}`). */
export const openApiPath = (url: string) => url.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, '{$1}')

/** onRoute: gives a creation its links (@fastify/swagger reads a route's top-level `links`). */
export const declareLinks = (route: RouteOptions) => {
  const links = [route.method].flat().map((method) => LINKS[`${method} ${openApiPath(route.url)}`]).find((found) => found !== undefined)
  if (links) (route as RouteOptions & { links?: Links }).links = links
}

/** Links whose target operation the document does not have (a renamed route): an empty list when all resolve. */
export const brokenLinks = (paths: Readonly<Record<string, Readonly<Record<string, unknown>>>>): string[] =>
  Object.values(LINKS).flatMap((byStatus) => Object.values(byStatus).flatMap((links) => Object.values(links)))
    .map((link) => link.operationRef)
    .filter((ref) => {
      const [, path, method] = /^#\/paths\/(.+)\/([a-z]+)$/.exec(ref) ?? []
      return !path || !method || !paths[path.replace(/~1/g, '/').replace(/~0/g, '~')]?.[method]
    })
