import { overriddenUrl, type OriginOverrides } from '../../domain/recipe/catalogue.js'
import type { JobSpec } from '../../domain/job/spec.js'
import type { Engine, EngineRequest } from '../engine.js'
import type { RecipeFetch } from './runtime.js'

const BODY_ONLY = {
  include_html: false, include_response_body: true, include_extraction: false, include_screenshot: false, include_har: false,
  include_reader: false, include_links: false, include_text: false, include_page_metadata: false, include_console: false,
} as const

/**
 * The recipe runtime's fetch on an engine: each request is one exchange of the engine, with the job's settings,
 * through the egress gateway like any job. RECIPE_ORIGIN_OVERRIDES move the connection to a local origin; the
 * response keeps the real URL, so relative links resolve against the site.
 */
export const engineFetch = (engine: Engine, job: Pick<EngineRequest, 'job_id' | 'org_id'>, spec: JobSpec, overrides: OriginOverrides, signal: AbortSignal): RecipeFetch =>
  async (request) => {
    const { extraction: _unused, ...base } = spec
    const outcome = await engine.run({
      ...job, signal,
      spec: {
        ...base, target_url: overriddenUrl(request.url, overrides), method: request.method, headers: request.headers,
        body: request.body ?? null, artifact_options: { ...spec.artifact_options, ...BODY_ONLY },
      },
    })
    const manifest = outcome.manifest ?? {}
    const status = manifest.http_status
    if (typeof status !== 'number') {
      const reason = outcome.ok ? 'no_response' : outcome.failure_reason
      return { ok: false, outcome: reason === 'timeout' ? 'timeout' : 'error', message: outcome.ok ? 'no response' : `${reason}: ${outcome.message}` }
    }
    const body = outcome.artifacts?.find((a) => a.artifact_type === 'response_body')
    const headers = Object.fromEntries(Object.entries((manifest.response_headers ?? {}) as Record<string, string>).map(([k, v]) => [k.toLowerCase(), v]))
    return { ok: true, response: { status, headers, body: body ? new TextDecoder().decode(body.bytes) : '', url: request.url } }
  }
