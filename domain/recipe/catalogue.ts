import type { Recipe } from './types.js'

/** The recipes this deployment serves, by slug (loaded once at start-up from the recipes/ folder). */
export type RecipeCatalogue = ReadonlyMap<string, Recipe>

/**
 * RECIPE_ORIGIN_OVERRIDES: a real origin (`https://api.github.com`) mapped to a local base URL
 * (`http://127.0.0.1:9000/github`); the request's path and query are appended to the base. A testing and mirroring
 * aid: the egress gateway still checks every connection (SSRF_ALLOWLIST).
 */
export type OriginOverrides = ReadonlyMap<string, string>

export const overriddenUrl = (url: string, overrides: OriginOverrides): string => {
  const parsed = new URL(url)
  const base = overrides.get(parsed.origin)
  return base === undefined ? url : `${base.replace(/\/+$/, '')}${parsed.pathname}${parsed.search}`
}

/** Parses RECIPE_ORIGIN_OVERRIDES; throws with a message naming the bad entry. */
export const parseOriginOverrides = (text: string | undefined): OriginOverrides => {
  if (text === undefined || text.trim() === '') return new Map()
  const parsed: unknown = JSON.parse(text)
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('RECIPE_ORIGIN_OVERRIDES must be a JSON object')
  return new Map(Object.entries(parsed).map(([origin, base]) => {
    if (typeof base !== 'string' || !/^https?:\/\//.test(base)) throw new Error(`RECIPE_ORIGIN_OVERRIDES: ${origin} must map to an http(s) URL`)
    if (new URL(origin).origin !== origin) throw new Error(`RECIPE_ORIGIN_OVERRIDES: ${origin} is not an origin (scheme://host[:port])`)
    return [origin, base]
  }))
}
