import type { Allowlist } from '../../domain/address-policy.js'

/** One address a host name resolved to. */
export interface ResolvedAddress {
  readonly address: string
  readonly family: 4 | 6
}

/** Resolves a host name to all its addresses (tests inject one to simulate DNS answers). */
export type Resolver = (hostname: string) => Promise<readonly ResolvedAddress[]>

/** One gateway decision. Never carries credentials, tokens, paths or query strings. */
export interface EgressLogEntry {
  readonly decision: 'allowed' | 'denied' | 'error'
  readonly method: 'HTTP' | 'CONNECT'
  readonly host: string
  readonly port: number
  readonly connectionId: number
  /** Addresses the connection is pinned to. */
  readonly addresses?: readonly string[]
  readonly reason?: string
  /** `host:port` of the customer proxy the request is chained to. */
  readonly upstream?: string
}

export type EgressLog = (entry: EgressLogEntry) => void

export interface EgressGatewayOptions {
  readonly allowlist: Allowlist
  /** Listen address; default 127.0.0.1. */
  readonly host?: string
  /** Listen port; default 0 (any free port). */
  readonly port?: number
  readonly log?: EgressLog
  /** Default: the system resolver (`dns.lookup`, which honours /etc/hosts). */
  readonly resolver?: Resolver
  readonly dnsTimeoutMs?: number
  /**
   * Makes this gateway a dedicated listener for one customer proxy: every request whose host does not match
   * `bypass` is chained to `url`, with no credentials asked of the client. Browsers send proxy credentials only
   * after a 407 challenge, so they cannot use withUpstream's token; they get a listener of their own instead.
   */
  readonly upstream?: DedicatedUpstream
  /** For listeners that serve browsers: refuse the browser vendor's background service hosts (browser-background.ts). */
  readonly refuseBrowserBackground?: boolean
}

export interface DedicatedUpstream {
  /** `http(s)://[user:pass@]host:port`; holds the credentials, so it is never logged or echoed. */
  readonly url: string
  /** Hosts reached without the customer proxy (still through this gateway's SSRF policy): Chromium's bypass-list syntax. */
  readonly bypass?: string
}

export interface UpstreamRegistration {
  /** `http://<token>:x@127.0.0.1:PORT`: requests authenticated with the token are chained to the upstream proxy. */
  readonly proxyUrl: string
  /** Forgets the token; later requests carrying it are answered 407. */
  release(): void
}

export interface EgressGateway {
  /** `http://127.0.0.1:PORT` */
  readonly url: string
  readonly port: number
  close(): Promise<void>
  /** Registers a customer proxy (`http(s)://[user:pass@]host:port`). Throws when the URL is not an http(s) proxy URL. */
  withUpstream(upstreamProxyUrl: string): UpstreamRegistration
}
