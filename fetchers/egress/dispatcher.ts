import { type Dispatcher, ProxyAgent } from 'undici'
import type { EgressGateway } from './types.js'

/**
 * An undici dispatcher that sends the service's own outbound calls (webhooks) through the egress gateway.
 * `proxyTunnel: false` sends http:// requests in absolute form, so the gateway sees the scheme; https:// uses CONNECT.
 */
export const egressDispatcher = (gateway: Pick<EgressGateway, 'url'>): Dispatcher =>
  new ProxyAgent({ uri: gateway.url, proxyTunnel: false })
