/**
 * The dashboard talks to the same public API as everyone: the account API with the session cookie, and the v1 API
 * with an API key the dashboard creates for the signed-in user's organization (POST /api-keys), keeps in this tab's
 * sessionStorage and revokes at sign-out.
 */
const KEY_STORAGE = 'scrapeworks.dashboard.key'

export interface ErrorDetail { readonly field?: string; readonly code: string; readonly message?: string }
export class ApiError extends Error {
  constructor(readonly status: number, readonly code: string, message: string, readonly details: readonly ErrorDetail[] = []) { super(message) }
}

export interface SessionKey { readonly key_id: string; readonly api_key: string }

export const sessionKey = (): SessionKey | null => {
  const raw = sessionStorage.getItem(KEY_STORAGE)
  return raw ? (JSON.parse(raw) as SessionKey) : null
}
export const setSessionKey = (key: SessionKey | null) => {
  if (key) sessionStorage.setItem(KEY_STORAGE, JSON.stringify(key))
  else sessionStorage.removeItem(KEY_STORAGE)
}

const sentence = (code: string) => code.charAt(0).toUpperCase() + code.slice(1).replaceAll('_', ' ')

const ACCOUNT_MESSAGES: Readonly<Record<string, string>> = {
  invalid_credentials: 'Unknown e-mail or wrong password.',
  validation_error: 'Please correct the fields below.',
  email_already_used: 'This e-mail address is registered already: sign in instead.',
  invalid_or_expired_token: 'This link is unknown, expired or was used already.',
  too_many_attempts: 'Too many attempts: wait a minute and try again.',
  too_many_failed_logins: 'Too many failed sign-ins for this address: wait a little and try again.',
  email_not_verified: 'Verify your e-mail address first.',
  not_authenticated: 'Please sign in.',
}

const errorOf = (status: number, body: unknown): ApiError => {
  const error = (body as { error?: unknown } | null)?.error
  if (error && typeof error === 'object') {
    const e = error as { code?: string; message?: string; details?: ErrorDetail[] }
    return new ApiError(status, e.code ?? `http_${status}`, e.message ?? `request failed (${status})`, e.details ?? [])
  }
  if (typeof error === 'string') return new ApiError(status, error, sentence(error))
  // The account API answers `{detail: code, errors?: [{field, code, message}]}`.
  const account = body as { detail?: unknown; errors?: ErrorDetail[] } | null
  if (account && typeof account.detail === 'string') {
    return new ApiError(status, account.detail, ACCOUNT_MESSAGES[account.detail] ?? sentence(account.detail), account.errors ?? [])
  }
  return new ApiError(status, `http_${status}`, `request failed (${status})`)
}

/** One call to the API; a non-2xx answer rejects with its `{error: {code, message, details}}` as an ApiError. */
export const call = async <T>(method: string, path: string, options: { body?: unknown; v1?: boolean } = {}): Promise<T> => {
  const headers: Record<string, string> = {}
  if (options.body !== undefined) headers['content-type'] = 'application/json'
  if (options.v1) {
    const key = sessionKey()
    if (!key) throw new ApiError(401, 'not_authenticated', 'sign in again')
    headers['x-api-key'] = key.api_key
  }
  let response: Response
  try {
    response = await fetch(path, { method, headers, credentials: 'same-origin', ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}) })
  } catch {
    throw new ApiError(0, 'network_error', 'the service could not be reached; check your connection and retry')
  }
  const text = await response.text()
  let body: unknown = null
  try { body = text ? JSON.parse(text) : null } catch { body = text }
  if (!response.ok) throw errorOf(response.status, body)
  return body as T
}

export const v1 = <T>(method: string, path: string, body?: unknown) => call<T>(method, path, { v1: true, ...(body !== undefined ? { body } : {}) })

export interface User { readonly id: string; readonly email: string; readonly isVerified: boolean }
export interface Artifact { readonly artifact_id: string; readonly artifact_type: string; readonly content_type: string; readonly size: number; readonly sha256: string }
export interface Job {
  readonly job_id: string; readonly status: 'queued' | 'running' | 'succeeded' | 'failed'; readonly job_type: string; readonly target_url: string
  readonly tags: readonly string[]; readonly credit_weight: number; readonly failure_reason: string | null; readonly failure_message: string | null
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
