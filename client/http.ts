/**
 * The public v1 API over HTTP, as `scrapeworks` uses it: the key in X-API-Key, JSON both ways, and every refusal an
 * ApiError whose message is one line a user can act on.
 */

export const DEFAULT_BASE_URL = 'http://127.0.0.1:8080'

export interface ErrorBody { readonly error?: { readonly code?: string; readonly message?: string; readonly details?: readonly { readonly field: string; readonly code: string; readonly message: string }[] } }

/** Exit codes: 1 the API refused or the job failed, 2 bad usage, 3 the key was refused, 4 rate limited. */
export const EXIT = { failed: 1, usage: 2, auth: 3, rateLimited: 4 } as const

export class ApiError extends Error {
  constructor(message: string, readonly exitCode: number, readonly status?: number, readonly code?: string) { super(message) }
}

const describe = (status: number, body: ErrorBody, headers: Headers): ApiError => {
  const code = body.error?.code ?? `http_${status}`
  const message = body.error?.message ?? 'no error message'
  if (status === 401) return new ApiError(`the API key was refused (401 ${code}): ${message}; check SCRAPEWORKS_API_KEY`, EXIT.auth, status, code)
  if (status === 403) return new ApiError(`not allowed (403 ${code}): ${message}`, EXIT.auth, status, code)
  if (status === 429) {
    const wait = headers.get('retry-after')
    return new ApiError(`rate limited (429 ${code}): ${message}${wait ? `; retry in ${wait} s` : ''}`, EXIT.rateLimited, status, code)
  }
  const fields = body.error?.details?.map((d) => `${d.field}: ${d.message}`).join('; ')
  return new ApiError(`${status} ${code}: ${fields || message}`, EXIT.failed, status, code)
}

export interface Api {
  readonly baseUrl: string
  /** The answer's JSON; an ApiError for any status outside 2xx but those in `accept`. */
  readonly call: <T = any>(method: string, path: string, body?: unknown, accept?: readonly number[]) => Promise<{ readonly status: number; readonly body: T }>
  /** The bytes behind a URL the API handed out (a signed artifact link: the signature is its credential). */
  readonly download: (url: string) => Promise<Uint8Array>
}

export const makeApi = (baseUrl: string, apiKey: string): Api => {
  const base = baseUrl.replace(/\/+$/, '')
  const send = async (url: string, init: RequestInit): Promise<Response> => {
    try {
      return await fetch(url, init)
    } catch (error) {
      const cause = (error as { cause?: { code?: string; message?: string } }).cause
      throw new ApiError(`cannot reach ${base} (${cause?.code ?? cause?.message ?? (error as Error).message}); is the service running? SCRAPEWORKS_URL sets its address`, EXIT.failed)
    }
  }
  return {
    baseUrl: base,
    call: async (method, path, body, accept = []) => {
      const response = await send(`${base}${path}`, {
        method,
        headers: { 'x-api-key': apiKey, accept: 'application/json', ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      })
      const text = await response.text()
      let parsed: unknown = null
      try { parsed = text === '' ? null : JSON.parse(text) } catch { /* not JSON: described by its status */ }
      if (!response.ok && !accept.includes(response.status)) throw describe(response.status, (parsed ?? {}) as ErrorBody, response.headers)
      return { status: response.status, body: parsed as never }
    },
    download: async (url) => {
      const response = await send(url, {})
      if (!response.ok) throw new ApiError(`downloading an artifact answered ${response.status}`, EXIT.failed, response.status)
      return new Uint8Array(await response.arrayBuffer())
    },
  }
}
