import { Effect } from 'effect'
import { systemResolver, withTimeout } from '../fetchers/egress/system-resolver.js'
import type { HostResolverService } from '../ports/host-resolver.js'

/** A slow resolver must not hold a submission long: the egress gateway checks every connection again anyway. */
const SUBMISSION_DNS_TIMEOUT_MS = 2_000

/** The system resolver (getaddrinfo, /etc/hosts included), as the egress gateway resolves. */
export const systemHostResolver: HostResolverService = {
  resolve: (hostname) => Effect.promise(() =>
    withTimeout(systemResolver(hostname), SUBMISSION_DNS_TIMEOUT_MS).then((answers) => answers.map((a) => a.address), () => null)),
}
