import { Context, type Effect } from 'effect'

/** Name resolution as the egress gateway would see it, used to refuse inward targets at submission. */
export interface HostResolverService {
  /** The addresses a host name resolves to; null when it cannot be resolved now (no answer, timeout). Never fails. */
  readonly resolve: (hostname: string) => Effect.Effect<readonly string[] | null>
}

export class HostResolver extends Context.Tag('HostResolver')<HostResolver, HostResolverService>() {}
