import type { RouteOptions } from 'fastify'
import { ACCOUNT_OPENAPI_TAG } from './account/openapi.js'

const errorRef = { $ref: 'ErrorBody#' }

interface RouteSchema {
  tags?: readonly string[]
  security?: readonly Record<string, unknown>[]
  params?: unknown
  querystring?: unknown
  body?: unknown
  response?: Record<string, unknown>
  hide?: boolean
}

/**
 * The answers every v1 route can give besides its own, declared in one place so OpenAPI matches behaviour: every
 * API-key call can answer 401, 403 (scope, IP allowlist) and 429 (requests per minute), and 503 when the store is
 * unavailable; a route with path parameters 414 (a parameter over the router's length limit) and 422 (a parameter
 * outside its schema); a route with a query string 422; a route with a body 400, 413 and 422.
 */
export const declareCommonResponses = (route: RouteOptions) => {
  const schema = route.schema as RouteSchema | undefined
  // The account API answers errors in bodies of its own and declares them itself (api/account/schemas.ts).
  if (!schema || schema.hide || schema.tags?.includes(ACCOUNT_OPENAPI_TAG.name)) return
  const common: number[] = []
  if (schema.security?.some((s) => 'apiKey' in s)) common.push(401, 403, 429, 503)
  if (schema.params) common.push(414, 422)
  if (schema.querystring) common.push(422)
  if (schema.body) common.push(400, 413, 422)
  if (common.length === 0) return
  const declared = schema.response ?? {}
  schema.response = { ...Object.fromEntries(common.filter((code) => !(code in declared)).map((code) => [code, errorRef])), ...declared }
}
