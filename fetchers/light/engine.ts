import { makeTransportPool } from './transport-pool.js'
import { checkTargetUrl, type Allowlist } from '../../domain/address-policy.js'
import type { HttpMethod, JobSpec } from '../../domain/job/spec.js'
import { failure, type Engine, type EngineOutcome } from '../engine.js'
import { commonArtifacts, isHtml, PageWorkFailed } from '../page-artifacts.js'
import { jobManifest, jobTiming, type ObservedResponse } from '../manifest.js'
import { BodyRefused } from '../body-limit.js'
import { discardBody, readResponseBody } from './response-body.js'
import { jobSignal } from './job-signal.js'
import { ClientUnavailable, makeChromiumClient, TunnelRefused, type ClientResponse } from './chromium-client.js'
import { CHROMIUM_MAJOR, requestHeaders } from './chromium-profile.js'
import { EGRESS_DENIED_HEADER, EGRESS_ERROR_HEADER, isGatewayFailureStatus } from '../egress/gateway-answers.js'

/** What the light tier presents to targets (chromium-profile.ts): recorded in each job's manifest. */
export const IMPERSONATED_BROWSER = `chromium_${CHROMIUM_MAJOR}`

export interface LightEngineOptions {
  /** The egress gateway every request is sent through. */
  readonly proxyUrl: string
  readonly allowlist: Allowlist
  /** A PEM file of CAs trusted beside the system's CA bundle (Mozilla's roots); null for none. */
  readonly extraCaFile: string | null
}

interface Hop { readonly url: string; readonly status: number; readonly location: string }

class JobFailure extends Error {
  constructor(readonly reason: string, message: string) { super(message) }
}

const redirectMethod = (status: number, method: HttpMethod): HttpMethod =>
  status === 303 || ((status === 301 || status === 302) && method === 'POST') ? 'GET' : method

const headersOf = (response: ClientResponse): Record<string, string> => {
  const out: Record<string, string> = {}
  response.headers.forEach((value, name) => { out[name] = name in out ? `${out[name]}, ${value}` : value })
  return out
}

const classifyError = (error: unknown, timedOut: boolean): JobFailure => {
  if (error instanceof JobFailure) return error
  if (error instanceof BodyRefused || error instanceof PageWorkFailed) return new JobFailure(error.reason, error.message)
  if (error instanceof ClientUnavailable) return new JobFailure('tier_unavailable', error.message)
  if (timedOut) return new JobFailure('timeout', 'the target did not answer within timeout_ms')
  const name = (error as Error)?.constructor?.name ?? ''
  const message = (error as Error)?.message ?? String(error)
  if (/Timeout/i.test(name) || /timed? ?out/i.test(message)) return new JobFailure('timeout', 'the target did not answer within timeout_ms')
  return new JobFailure('network_error', `could not reach the target: ${message.slice(0, 300)}`)
}

/** The light tier: one HTTP exchange (plus redirects and retries) with TLS impersonation, all through the egress gateway. */
export const makeLightEngine = (options: LightEngineOptions): Engine => {
  // Every request goes through a CONNECT tunnel; the gateway's verdict (403 policy, 502 DNS) is the tunnel's status.
  const tunnelFailure = (error: unknown): unknown => {
    if (!(error instanceof TunnelRefused)) return error
    if (error.status === 403) return new JobFailure('egress_denied', 'the egress gateway refused the connection (SSRF policy)')
    if (error.status === 502) return new JobFailure('network_error', 'the target host could not be resolved or reached')
    return error
  }
  const client = makeChromiumClient({ extraCaFile: options.extraCaFile })
  let transportsMade = 0
  const transports = makeTransportPool({
    create: async () => {
      const id = `transport-${++transportsMade}`
      return { id, close: () => client.closeTransport(id) }
    },
    idleMs: 30_000,
    maxIdle: 64,
  })
  const run = async (orgId: string, spec: JobSpec, signal: AbortSignal): Promise<EngineOutcome> => {
    const started = Date.now()
    const aborting = jobSignal(signal, spec.timeout_ms)
    const combined = aborting.signal
    // The organization's own transport (transport-pool.ts). Requests keep no cookies (ephemeral).
    const { transport, release } = await transports.lease(orgId)
    const ownHeaders = { ...(spec.headers ?? {}), ...(spec.user_agent ? { 'user-agent': spec.user_agent } : {}) }
    const policy = spec.retry_policy
    let attempt = 0
    let redirects: Hop[] = []
    let lastResponse: ObservedResponse | null = null
    let ttfbMs: number | undefined
    const manifest = (details: Record<string, unknown> = {}) => jobManifest({
      egress: { mode: 'managed' },
      engine: { tier: 'light', impersonate: IMPERSONATED_BROWSER },
      timing: jobTiming(started, ttfbMs !== undefined ? { ttfb_ms: ttfbMs } : {}),
      response: lastResponse,
      details: { attempts: attempt, redirects, ...details },
    })

    try {
      for (;;) {
        attempt += 1
        redirects = []
        lastResponse = null
        let url = spec.target_url
        let method: HttpMethod = spec.method
        let body = spec.body ?? undefined
        let response: ClientResponse
        try {
          for (;;) {
            const sentAt = Date.now()
            response = await client.exchange({
              transport: transport.id, proxy: options.proxyUrl, method, url, headers: requestHeaders(new URL(url), ownHeaders),
              ...(body !== undefined ? { body } : {}), timeoutMs: Math.max(1, spec.timeout_ms - (Date.now() - started)), signal: combined,
            }).catch((error: unknown) => { throw tunnelFailure(error) })
            ttfbMs = Date.now() - sentAt
            if (response.headers.get(EGRESS_DENIED_HEADER)) {
              throw new JobFailure('egress_denied', `the egress gateway refused ${new URL(url).host}: ${response.headers.get(EGRESS_DENIED_HEADER)}`)
            }
            if (response.headers.get(EGRESS_ERROR_HEADER)) {
              throw new JobFailure('network_error', `could not reach ${new URL(url).host}: ${response.headers.get(EGRESS_ERROR_HEADER)}`)
            }
            if (isGatewayFailureStatus(response.status)) {
              await discardBody(response)
              throw new JobFailure('network_error', `could not reach ${new URL(url).host}: the egress gateway answered ${response.status} ${response.statusText}`.trim())
            }
            lastResponse = { status: response.status, headers: headersOf(response) }
            const location = response.headers.get('location')
            if (!spec.follow_redirects || response.status < 300 || response.status > 399 || !location) break
            if (redirects.length >= spec.max_redirects) throw new JobFailure('too_many_redirects', `more than ${spec.max_redirects} redirects`)
            const next = new URL(location, url).href
            const checked = checkTargetUrl(next, options.allowlist)
            if (!checked.ok) throw new JobFailure('unsafe_redirect', `redirect to a forbidden address: ${checked.message}`)
            redirects.push({ url, status: response.status, location: next })
            await discardBody(response)
            method = redirectMethod(response.status, method)
            if (method === 'GET') body = undefined
            url = checked.url.href
          }
        } catch (error) {
          const failed = classifyError(error, aborting.timedOut())
          if (signal.aborted) throw error
          const retryable = failed.reason === 'network_error' && attempt < policy.max_attempts && policy.retry_methods.includes(spec.method)
          if (retryable) { await backoff(attempt, combined); continue }
          throw failed
        }
        if (policy.retry_on_status.includes(response.status) && policy.retry_methods.includes(spec.method) && attempt < policy.max_attempts) {
          await discardBody(response)
          await backoff(attempt, combined)
          continue
        }
        const bytes = await readResponseBody(response)
        const contentType = response.headers.get('content-type') ?? undefined
        const details = { final_url: url, content_type: contentType ?? null, content_length: bytes.byteLength }
        const artifacts = await commonArtifacts(orgId, spec, {
          url, bodyIsHtml: isHtml(contentType), responseBody: bytes, ...(contentType ? { responseContentType: contentType } : {}),
        })
        if (response.status >= 500) return failure('upstream_error', `the target answered HTTP ${response.status}`, { manifest: manifest(details), artifacts })
        return { ok: true, manifest: manifest(details), artifacts }
      }
    } catch (error) {
      if (signal.aborted) throw new Error('job abandoned: shutting down')
      const failed = classifyError(error, aborting.timedOut())
      return failure(failed.reason, failed.message, { manifest: manifest() })
    } finally {
      aborting.done()
      release()
    }
  }

  return {
    tier: 'light',
    run: (request) => run(request.org_id, request.spec, request.signal),
    close: async () => { await transports.close(); await client.stop() },
  }
}

const backoff = (attempt: number, signal: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, Math.min(2000, 100 * 2 ** (attempt - 1)))
    signal.addEventListener('abort', () => { clearTimeout(timer); reject(new JobFailure('timeout', 'the target did not answer within timeout_ms')) }, { once: true })
  })
