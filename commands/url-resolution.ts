import { Effect } from 'effect'
import { checkResolvedTarget, hostToResolve, type Allowlist } from '../domain/address-policy.js'
import { fieldError, ValidationFailed } from '../domain/errors.js'
import { HostResolver } from '../ports/host-resolver.js'

/**
 * Refuses a URL whose host name resolves only to forbidden addresses (422 `code` on `field`): job targets, webhook
 * endpoints. The egress gateway checks again at every connection, so a name whose answers change later still fails.
 */
export const checkUrlResolution = (url: URL, allowlist: Allowlist, field: string, code: string) =>
  Effect.suspend(() => {
    const host = hostToResolve(url, allowlist)
    // Most targets need no lookup (an address, or a name the allowlist lets through): nothing more to run.
    if (host === null) return Effect.void
    return Effect.gen(function* () {
      const addresses = yield* (yield* HostResolver).resolve(host)
      const checked = checkResolvedTarget(url, addresses ?? [], allowlist)
      if (!checked.ok) return yield* Effect.fail(new ValidationFailed({ errors: [fieldError(field, code, checked.message.replace(/^target_url/, field))] }))
    })
  })
