import type { ComponentChildren } from 'preact'
import { useCallback, useEffect, useState } from 'preact/hooks'
import { ApiError } from './api'

/** Loads data once per change of `deps`; answers the state and a reload function. */
export const useLoad = <T,>(load: () => Promise<T>, deps: readonly unknown[]) => {
  const [state, setState] = useState<{ data?: T; error?: ApiError; loading: boolean }>({ loading: true })
  const reload = useCallback(() => {
    setState((s) => ({ ...s, loading: true }))
    load().then((data) => setState({ data, loading: false }), (error: unknown) => setState({ error: asApiError(error), loading: false }))
  }, deps)
  useEffect(reload, [reload])
  return { ...state, reload }
}

export const asApiError = (error: unknown): ApiError =>
  error instanceof ApiError ? error : new ApiError(0, 'unexpected', error instanceof Error ? error.message : String(error))

export const Loading = ({ what }: { what: string }) => <p class="loading" role="status" aria-live="polite">Loading {what}…</p>

export const ErrorBox = ({ error, retry }: { error: ApiError; retry?: () => void }) => (
  <div class="error" role="alert">
    <p><strong>{error.message}</strong> <code>{error.code}</code></p>
    {error.details.length > 0 && <ul>{error.details.map((d) => <li key={`${d.field}-${d.code}`}>{d.field ? <b>{d.field}: </b> : null}{d.message ?? d.code} <code>{d.code}</code></li>)}</ul>}
    {retry && <button type="button" onClick={retry}>Retry</button>}
  </div>
)

export const Empty = ({ children }: { children: ComponentChildren }) => <div class="empty">{children}</div>

export const Field = ({ id, label, hint, children }: { id: string; label: string; hint?: string; children: ComponentChildren }) => (
  <div class="field">
    <label for={id}>{label}</label>
    {children}
    {hint && <small id={`${id}-hint`}>{hint}</small>}
  </div>
)

export const when = (iso: string | null) => (iso ? new Date(iso).toLocaleString() : '—')

export const StatusBadge = ({ status }: { status: string }) => <span class={`badge badge-${status}`}>{status}</span>
