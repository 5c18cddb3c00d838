/** The target's answer as the manifest reports it. */
export interface ObservedResponse {
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
}

export interface ManifestParts {
  /** `{mode: 'managed'}` or `{mode: 'custom', proxy_host}`; null when the job never got as far as choosing. */
  readonly egress: Readonly<Record<string, unknown>> | null
  readonly engine: Readonly<Record<string, unknown>>
  readonly timing: Readonly<Record<string, unknown>> | null
  /** The target's last answer; null when none arrived (refused, unreachable, timed out before headers). */
  readonly response: ObservedResponse | null
  /** Tier-specific keys (final_url, redirects, title, ...). */
  readonly details?: Readonly<Record<string, unknown>>
}

/**
 * Every job manifest, on every tier and on failed jobs too, has `http_status`, `response_headers`, `timing` and
 * `egress` (null where there is nothing to report), plus `engine`; the tier's own keys come in between.
 */
export const jobManifest = (parts: ManifestParts): Record<string, unknown> => ({
  http_status: parts.response?.status ?? null,
  response_headers: parts.response?.headers ?? null,
  ...parts.details,
  egress: parts.egress,
  engine: parts.engine,
  timing: parts.timing,
})

/**
 * The manifest's `timing`: when the job started and finished, plus tier-specific durations. Real time, not the
 * Clock's: it reports how long the fetch really took, and no rule reads it.
 */
export const jobTiming = (startedAt: number, extra: Readonly<Record<string, unknown>> = {}) => ({
  started_at: new Date(startedAt).toISOString(), finished_at: new Date().toISOString(), duration_ms: Date.now() - startedAt, ...extra,
})
