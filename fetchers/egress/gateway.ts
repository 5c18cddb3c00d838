import http from 'node:http'
import https from 'node:https'
import type dns from 'node:dns'
import { type PrepareRequestFunctionOpts, type PrepareRequestFunctionResult, RequestError, Server } from 'proxy-chain'
import { forbiddenHostReason, forbiddenPortReason, isAllowlisted } from '../../domain/address-policy.js'
import { BROWSER_BACKGROUND_REASON, isBrowserBackgroundHost } from './browser-background.js'
import { checkDestination, type DestinationContext } from './destination.js'
import { EGRESS_DENIED_HEADER, EGRESS_ERROR_HEADER } from './gateway-answers.js'
import { pinnedLookup } from './pinned-lookup.js'
import { systemResolver } from './system-resolver.js'
import type { EgressGateway, EgressGatewayOptions, EgressLogEntry, ResolvedAddress } from './types.js'
import { parseBypassList } from './proxy-bypass.js'
import { parseUpstreamProxyUrl, type UpstreamProxy, UpstreamRegistry } from './upstream-registry.js'

const DEFAULT_DNS_TIMEOUT_MS = 10_000

/**
 * Starts the egress gateway: a local forward proxy (absolute-form HTTP and CONNECT) that resolves DNS itself,
 * applies the SSRF policy to every address, and pins the socket to the checked address.
 */
export const startEgressGateway = async (opts: EgressGatewayOptions): Promise<EgressGateway> => {
  const log = opts.log ?? (() => {})
  const ctx: DestinationContext = {
    allowlist: opts.allowlist,
    resolver: opts.resolver ?? systemResolver,
    dnsTimeoutMs: opts.dnsTimeoutMs ?? DEFAULT_DNS_TIMEOUT_MS,
  }
  const registry = new UpstreamRegistry()
  // Parsed before listening, so a bad customer proxy URL fails here (without echoing it), not per request.
  const dedicated = opts.upstream
    ? { proxy: parseUpstreamProxyUrl(opts.upstream.url), bypass: parseBypassList(opts.upstream.bypass) }
    : undefined
  // No keep-alive: a pooled socket must never serve a request whose decision it was not opened for.
  const httpAgent = new http.Agent({ keepAlive: false })
  const httpsAgent = new https.Agent({ keepAlive: false })

  const pinned = (addresses: readonly ResolvedAddress[]) => pinnedLookup(addresses) as unknown as typeof dns.lookup

  const prepare = async (req: PrepareRequestFunctionOpts): Promise<PrepareRequestFunctionResult> => {
    const base = { method: req.isHttp ? 'HTTP' : 'CONNECT', host: req.hostname, port: req.port, connectionId: req.connectionId } as const
    const refuse = (status: number, reason: string, extra: Partial<EgressLogEntry> = {}): never => {
      // 502 is a resolution failure, not a policy decision: logged and labelled apart so callers can tell.
      log({ ...base, ...extra, decision: status === 502 ? 'error' : 'denied', reason })
      const header = status === 502 ? EGRESS_ERROR_HEADER : EGRESS_DENIED_HEADER
      throw new RequestError(`Egress refused: ${reason}`, status, { [header]: reason })
    }

    // Before anything else: such a call never leaves, whichever way it was routed.
    if (opts.refuseBrowserBackground && isBrowserBackgroundHost(req.hostname)) refuse(403, BROWSER_BACKGROUND_REASON)

    let upstream: UpstreamProxy | undefined
    if (req.username) {
      upstream = registry.get(req.username)
      if (!upstream) {
        log({ ...base, decision: 'denied', reason: 'unknown_token' })
        throw new RequestError('Unknown or released egress token', 407)
      }
    } else if (dedicated && !dedicated.bypass(req.hostname, req.port)) upstream = dedicated.proxy

    if (upstream) {
      // The customer proxy resolves the target, so only what is visible here can be checked: the host text and port.
      if (!isAllowlisted(opts.allowlist, req.hostname, req.port)) {
        const reason = forbiddenHostReason(req.hostname) ?? forbiddenPortReason(req.port)
        if (reason) refuse(403, reason, { upstream: upstream.label })
      }
      const proxy = await checkDestination(upstream.host, upstream.port, ctx)
      if (!proxy.ok) return refuse(proxy.status, `upstream_${proxy.reason}`, { upstream: upstream.label })
      log({ ...base, decision: 'allowed', upstream: upstream.label, addresses: proxy.addresses.map((a) => a.address) })
      // proxy-chain uses dnsLookup for the socket to the upstream proxy: it is pinned like a direct target.
      return { upstreamProxyUrl: upstream.url, dnsLookup: pinned(proxy.addresses), httpAgent, httpsAgent }
    }

    const target = await checkDestination(req.hostname, req.port, ctx)
    if (!target.ok) return refuse(target.status, target.reason, { host: target.host })
    log({ ...base, host: target.host, decision: 'allowed', addresses: target.addresses.map((a) => a.address) })
    return { dnsLookup: pinned(target.addresses), httpAgent, httpsAgent }
  }

  const listenHost = opts.host ?? '127.0.0.1'
  const server = new Server({ host: listenHost, port: opts.port ?? 0, authRealm: 'egress-gateway', prepareRequestFunction: prepare })
  // Unexpected failures: report the kind only, since proxy-chain messages can embed the upstream URL.
  server.on('requestFailed', ({ error, request }: { error: Error; request: http.IncomingMessage }) =>
    log({ decision: 'error', method: request.method === 'CONNECT' ? 'CONNECT' : 'HTTP', host: '', port: 0, connectionId: -1, reason: error.name }),
  )
  await server.listen()

  const dialHost = listenHost === '0.0.0.0' || listenHost === '::' ? '127.0.0.1' : listenHost.includes(':') ? `[${listenHost}]` : listenHost
  const origin = `${dialHost}:${server.port}`
  return {
    url: `http://${origin}`,
    port: server.port,
    close: async () => {
      await server.close(true)
      httpAgent.destroy()
      httpsAgent.destroy()
    },
    withUpstream: (upstreamProxyUrl) => {
      const { token, release } = registry.register(upstreamProxyUrl)
      return { proxyUrl: `http://${token}:x@${origin}`, release }
    },
  }
}
