/**
 * The dashboard talks to the same public API as everyone: the account API with the session cookie, and the v1 API
 * with an API key the dashboard creates for the signed-in user's organization (POST /api-keys), keeps in this tab's
 * sessionStorage and revokes at sign-out. The key lives one hour: the open tab replaces it before it runs out, so a tab
 * closed without signing out leaves a key that stops working within the hour.
 */
const KEY_STORAGE = 'scrapeworks.dashboard.key'
const KEY_LIFETIME_SECONDS = 3600
/** A key with less than this left is replaced before the next v1 call. */
const RENEW_BEFORE_MS = 10 * 60_000

export interface ErrorDetail { readonly field?: string; readonly code: string; readonly message?: string }
export class ApiError extends Error {
  constructor(readonly status: number, readonly code: string, message: string, readonly details: readonly ErrorDetail[] = []) { super(message) }
}

export interface SessionKey { readonly key_id: string; readonly api_key: string; readonly expires_at: string }

export const sessionKey = (): SessionKey | null => {
  const raw = sessionStorage.getItem(KEY_STORAGE)
  return raw ? (JSON.parse(raw) as SessionKey) : null
}
export const setSessionKey = (key: SessionKey | null) => {
  if (key) sessionStorage.setItem(KEY_STORAGE, JSON.stringify(key))
  else sessionStorage.removeItem(KEY_STORAGE)
}

const sentence = (code: string) => code.charAt(0).toUpperCase() + code.slice(1).replaceAll('_', ' ')

export const REGISTRATION_CLOSED = 'Sign-up is closed on this server: ask its operator for an account.'

const ACCOUNT_MESSAGES: Readonly<Record<string, string>> = {
  invalid_credentials: 'Unknown e-mail or wrong password.',
  validation_error: 'Please correct the fields below.',
  email_already_used: 'This e-mail address is registered already: sign in instead.',
  invalid_or_expired_token: 'This link is unknown, expired or was used already.',
  too_many_attempts: 'Too many attempts: wait a minute and try again.',
  too_many_failed_logins: 'Too many failed sign-ins for this address: wait a little and try again.',
  email_not_verified: 'Verify your e-mail address first.',
  registration_closed: REGISTRATION_CLOSED,
  not_authenticated: 'Please sign in.',
}

const errorOf = (status: number, body: unknown): ApiError => {
  const error = (body as { error?: unknown } | null)?.error
  if (error && typeof error === 'object') {
    const e = error as { code?: string; message?: string; details?: ErrorDetail[] }
    return new ApiError(status, e.code ?? `http_${status}`, e.message ?? `request failed (${status})`, e.details ?? [])
  }
  if (typeof error === 'string') return new ApiError(status, error, sentence(error))
  // A failed scrape (POST /scrapes: 422, 502, 504) answers the scrape itself with its `errorCode` and `errorMessage`.
  const scrape = body as { errorCode?: unknown; errorMessage?: unknown } | null
  if (scrape && typeof scrape.errorCode === 'string') {
    return new ApiError(status, scrape.errorCode, typeof scrape.errorMessage === 'string' ? scrape.errorMessage : sentence(scrape.errorCode))
  }
  // The account API answers `{detail: code, errors?: [{field, code, message}]}`.
  const account = body as { detail?: unknown; errors?: ErrorDetail[] } | null
  if (account && typeof account.detail === 'string') {
    return new ApiError(status, account.detail, ACCOUNT_MESSAGES[account.detail] ?? sentence(account.detail), account.errors ?? [])
  }
  return new ApiError(status, `http_${status}`, `request failed (${status})`)
}

const send = async <T>(method: string, path: string, body: unknown, apiKey: string | null): Promise<T> => {
  const headers: Record<string, string> = {}
  if (body !== undefined) headers['content-type'] = 'application/json'
  if (apiKey !== null) headers['x-api-key'] = apiKey
  let response: Response
  try {
    response = await fetch(path, { method, headers, credentials: 'same-origin', ...(body !== undefined ? { body: JSON.stringify(body) } : {}) })
  } catch {
    throw new ApiError(0, 'network_error', 'the service could not be reached; check your connection and retry')
  }
  const text = await response.text()
  let answer: unknown = null
  try { answer = text ? JSON.parse(text) : null } catch { answer = text }
  if (!response.ok) throw errorOf(response.status, answer)
  return answer as T
}

/** One account API call (session cookie); a non-2xx answer rejects as an ApiError. */
export const call = <T>(method: string, path: string, options: { body?: unknown } = {}): Promise<T> => send<T>(method, path, options.body, null)

let renewing: Promise<SessionKey> | null = null

/** A fresh one-hour key for this tab (the session cookie asks for it); the one it replaces is revoked. */
const renewKey = () => {
  renewing ??= (async () => {
    const old = sessionKey()
    const created = await call<SessionKey>('POST', '/api-keys', { body: { name: `dashboard ${new Date().toISOString().slice(0, 16)}`, expires_in_seconds: KEY_LIFETIME_SECONDS } })
    const key = { key_id: created.key_id, api_key: created.api_key, expires_at: created.expires_at }
    setSessionKey(key)
    if (old) await send('DELETE', `/v1/keys/${old.key_id}`, undefined, key.api_key).catch(() => {})
    return key
  })().finally(() => { renewing = null })
  return renewing
}

/** The tab's key, made or replaced when it is missing or close to running out. */
export const ensureSessionKey = async () => {
  const key = sessionKey()
  return key && Date.parse(key.expires_at) - Date.now() > RENEW_BEFORE_MS ? key : renewKey()
}

/** A v1 call with the tab's key; a key that stopped working (expired while the computer slept) is replaced once. */
export const v1 = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
  const key = await ensureSessionKey()
  try {
    return await send<T>(method, path, body, key.api_key)
  } catch (error) {
    if (!(error instanceof ApiError) || error.status !== 401) throw error
    // Several calls may have been refused at once: the first renews, the others use its key.
    const current = sessionKey()
    const next = current && current.key_id !== key.key_id ? current : await renewKey()
    return send<T>(method, path, body, next.api_key)
  }
}

/** Sign-out: the tab's key is revoked and forgotten. */
export const dropSessionKey = async () => {
  const key = sessionKey()
  setSessionKey(null)
  if (key) await send('DELETE', `/v1/keys/${key.key_id}`, undefined, key.api_key).catch(() => {})
}

export interface User { readonly id: string; readonly email: string; readonly isVerified: boolean }
export interface Artifact { readonly artifact_id: string; readonly artifact_type: string; readonly content_type: string; readonly size: number; readonly sha256: string }
export interface Job {
  readonly job_id: string; readonly status: 'queued' | 'running' | 'succeeded' | 'failed'; readonly job_type: string; readonly target_url: string
  readonly tags: readonly string[]; readonly credit_weight: number; readonly credits_charged: number | null; readonly failure_reason: string | null; readonly failure_message: string | null
  readonly created_at: string; readonly started_at: string | null; readonly finished_at: string | null
  readonly artifacts: readonly Artifact[]; readonly manifest: Record<string, unknown> | null
}
export interface Page<T> { readonly items: readonly T[]; readonly total: number; readonly page: number; readonly page_count: number }
export interface Key {
  readonly key_id: string; readonly name: string; readonly key_prefix: string; readonly scopes: readonly string[]
  readonly status?: string; readonly revoked_at?: string | null; readonly created_at: string; readonly expires_at: string | null
}
export interface Usage {
  readonly month: string; readonly plan: string; readonly monthly_credits: number; readonly credits_used: number
  readonly credits_reserved: number; readonly credits_remaining: number; readonly jobs_charged: number
}
export interface Monitor {
  readonly id: string; readonly name: string; readonly status: 'active' | 'paused'; readonly paused_reason: string | null; readonly paused_detail: string | null
  readonly cron: string; readonly timezone: string; readonly next_run_at: string | null; readonly job_type: string; readonly target_url: string
  readonly detection: { readonly enabled: boolean; readonly mode: string; readonly selector: string | null; readonly health: { readonly status: string | null } }
  readonly failure_streak: number; readonly runs_fired: number; readonly skipped_fires: number; readonly missed_fires: number
}
/** The account API's pages (`perPage`, `pageCount`). */
export interface AccountPage<T> { readonly items: readonly T[]; readonly total: number; readonly page: number; readonly perPage: number; readonly pageCount: number }
