import type { RouteOptions } from 'fastify'
import { ACCOUNT_OPENAPI_TAG } from './account/openapi.js'

const errorRef = { $ref: 'ErrorBody#' }
const ACCOUNT_TOO_LARGE = {
  type: 'object', required: ['detail'], description: 'The body is larger than the 2 MiB the API reads.',
  properties: { detail: { type: 'string', enum: ['payload_too_large'] } },
} as const

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
 * unavailable; a route with path parameters 422 (a parameter outside its schema, too long included); a route with a query string 422; a route with a body 400, 413 and 422. An account-API route
 * with a body declares 413 (its other answers it declares itself).
 */
export const declareCommonResponses = (route: RouteOptions) => {
  const schema = route.schema as RouteSchema | undefined
  if (!schema || schema.hide) return
  // The account API answers errors in bodies of its own and declares them itself (api/account/schemas.ts), except
  // the one every route with a body can give before it runs (api/account/errors.ts).
  if (schema.tags?.includes(ACCOUNT_OPENAPI_TAG.name)) {
    if (schema.body && !('413' in (schema.response ?? {}))) schema.response = { ...schema.response, 413: ACCOUNT_TOO_LARGE }
    return
  }
  const common: number[] = []
  if (schema.security?.some((s) => 'apiKey' in s)) common.push(401, 403, 429, 503)
  if (schema.params) common.push(422)
  if (schema.querystring) common.push(422)
  if (schema.body) common.push(400, 413, 422)
  if (common.length === 0) return
  const declared = schema.response ?? {}
  schema.response = { ...Object.fromEntries(common.filter((code) => !(code in declared)).map((code) => [code, errorRef])), ...declared }
}
