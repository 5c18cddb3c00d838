import { randomBytes } from 'node:crypto'
import { effectivePort } from '../../domain/address-policy.js'

/** A customer proxy the gateway chains to. `url` holds the credentials: hand it to proxy-chain only, never to a log. */
export interface UpstreamProxy {
  readonly url: string
  readonly host: string
  readonly port: number
  /** `host:port`, safe to log. */
  readonly label: string
}

/** Parses a customer proxy URL. Error messages never echo the URL, which may carry a password. */
export const parseUpstreamProxyUrl = (raw: string): UpstreamProxy => {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    throw new Error('upstream proxy URL is not a valid URL')
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('upstream proxy URL must use http or https')
  if (url.pathname !== '/' || url.search || url.hash) throw new Error('upstream proxy URL must not have a path, query or fragment')
  const port = effectivePort(url)
  return { url: url.href, host: url.hostname, port, label: `${url.hostname}:${port}` }
}

/** Builds an upstream proxy URL from the stealth `proxy` fields, percent-encoding the credentials. */
export const upstreamProxyUrl = (server: string, username?: string, password?: string): string => {
  const url = new URL(server)
  if (username !== undefined) url.username = encodeURIComponent(username)
  if (password !== undefined) url.password = encodeURIComponent(password)
  return url.href
}

/** Random per-registration tokens that select a customer proxy (sent as proxy credentials to the gateway). */
export class UpstreamRegistry {
  readonly #byToken = new Map<string, UpstreamProxy>()

  register(raw: string): { readonly token: string; release(): void } {
    const upstream = parseUpstreamProxyUrl(raw)
    const token = randomBytes(24).toString('base64url')
    this.#byToken.set(token, upstream)
    return { token, release: () => void this.#byToken.delete(token) }
  }

  get(token: string): UpstreamProxy | undefined {
    return this.#byToken.get(token)
  }
}
