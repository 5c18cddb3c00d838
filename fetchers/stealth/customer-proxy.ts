import type { JobSpec } from '../../domain/job/spec.js'
import { upstreamProxyUrl } from '../egress/upstream-registry.js'
import type { DedicatedUpstream, EgressGateway } from '../egress/types.js'
import { MANAGED_EGRESS, type JobEgress } from '../browser/engine.js'
import { JobFailure } from '../browser/failures.js'

export interface CustomerProxyDeps {
  /** Starts a gateway listener chained to one customer proxy (infra passes startEgressGateway with the SSRF allowlist). */
  readonly startGateway: (upstream: DedicatedUpstream) => Promise<Pick<EgressGateway, 'url' | 'close'>>
  /** The proxy password in clear, opened from its sealed form in the recorded spec. */
  readonly openPassword: (spec: JobSpec) => string | undefined
}

/**
 * A stealth job's egress. With a customer `proxy`, the job's browser context gets a gateway listener of its own that
 * chains every request to that proxy (credentials go to the proxy, from memory, for this job only); the SSRF policy
 * and pinning still apply. The manifest names the proxy host, never its credentials.
 */
export const customerProxyEgress = (deps: CustomerProxyDeps) => async (spec: JobSpec): Promise<JobEgress> => {
  const proxy = spec.proxy
  if (!proxy) return MANAGED_EGRESS
  let password: string | undefined
  try {
    password = deps.openPassword(spec)
  } catch {
    throw new JobFailure('proxy_error', 'the customer proxy password could not be opened with this deployment\'s key')
  }
  const server = new URL(proxy.server)
  let gateway: Pick<EgressGateway, 'url' | 'close'>
  try {
    gateway = await deps.startGateway({
      url: upstreamProxyUrl(proxy.server, proxy.username, password),
      ...(proxy.bypass !== undefined ? { bypass: proxy.bypass } : {}),
    })
  } catch (error) {
    // The gateway's own messages never echo the proxy URL; still, only its first line is kept.
    throw new JobFailure('proxy_error', `the customer proxy could not be used: ${String((error as Error)?.message ?? error).split('\n')[0]}`)
  }
  return { manifest: { mode: 'custom', proxy_host: server.host }, proxyServer: gateway.url, close: () => gateway.close() }
}
