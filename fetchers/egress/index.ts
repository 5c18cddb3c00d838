export { startEgressGateway } from './gateway.js'
export { egressDispatcher } from './dispatcher.js'
export { postThroughGateway, type PostOutcome } from './post.js'
export { upstreamProxyUrl } from './upstream-registry.js'
export type {
  EgressGateway,
  EgressGatewayOptions,
  EgressLog,
  EgressLogEntry,
  ResolvedAddress,
  Resolver,
  UpstreamRegistration,
} from './types.js'
