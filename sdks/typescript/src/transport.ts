import { errorOfAnswer, ScrapeworksError } from './errors.js'
import { nextDelayMs, parseRetryAfter, RETRIED_STATUSES, type RetryOptions, retryDefaults } from './retry.js'

export interface TransportOptions {
  readonly apiKey: string
  /** The service's address, e.g. `http://127.0.0.1:8080`. */
  readonly baseUrl: string
  readonly retry?: RetryOptions
  /** How the SDK waits between attempts (default a timer); a test or a scheduler may pass its own. */
  readonly sleep?: (ms: number) => Promise<void>
  /** The fetch to use (default the global one of Node 20+). */
  readonly fetch?: typeof fetch
}

export interface RequestInit {
  readonly query?: Readonly<Record<string, string | number | boolean | undefined>>
  readonly body?: unknown
}

const timer = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/** One HTTP exchange with the API: the key, JSON in and out, the retries of 429 and 503, and the error mapping. */
export const makeTransport = (options: TransportOptions) => {
  if (!options.apiKey) throw new ScrapeworksError('apiKey is required', 0, 'missing_api_key')
  const base = new URL(options.baseUrl)
  const retry = retryDefaults(options.retry)
  const sleep = options.sleep ?? timer
  const doFetch = options.fetch ?? fetch

  const urlOf = (path: string, query: RequestInit['query']) => {
    const url = new URL(path, base)
    for (const [name, value] of Object.entries(query ?? {})) if (value !== undefined) url.searchParams.set(name, String(value))
    return url
  }

  const once = async (method: string, url: URL, body: unknown) => {
    try {
      return await doFetch(url, {
        method,
        headers: { 'x-api-key': options.apiKey, accept: 'application/json', ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      })
    } catch (cause) {
      const reason = (cause as { cause?: { code?: string } }).cause?.code ?? String(cause)
      throw new ScrapeworksError(`cannot reach ${base.origin} (${reason})`, 0, 'connection_failed', [], null, { cause })
    }
  }

  return async <T>(method: string, path: string, init: RequestInit = {}): Promise<T> => {
    const url = urlOf(path, init.query)
    for (let attempt = 1; ; attempt++) {
      const response = await once(method.toUpperCase(), url, init.body)
      const text = await response.text()
      let parsed: unknown
      try { parsed = text === '' ? undefined : JSON.parse(text) } catch { parsed = text }
      if (response.ok) return parsed as T
      const retryAfter = parseRetryAfter(response.headers.get('retry-after'))
      const error = errorOfAnswer(response.status, parsed, retryAfter)
      const delay = RETRIED_STATUSES.has(response.status) ? nextDelayMs(retry, attempt, retryAfter) : null
      if (delay === null) throw error
      await sleep(delay)
    }
  }
}

export type Transport = ReturnType<typeof makeTransport>
