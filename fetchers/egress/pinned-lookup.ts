import type { LookupFunction } from 'node:net'
import type { ResolvedAddress } from './types.js'

/**
 * A `lookup` that answers with the addresses the policy already checked, whatever name it is asked for.
 * Handing it to the socket makes the checked address the connected one: no second DNS query, no rebinding.
 */
export const pinnedLookup =
  (addresses: readonly ResolvedAddress[]): LookupFunction =>
  (_hostname, options, callback) => {
    const family = options.family === 'IPv4' ? 4 : options.family === 'IPv6' ? 6 : (options.family ?? 0)
    const candidates = addresses.filter((a) => family === 0 || a.family === family)
    const first = candidates[0]
    if (first === undefined) {
      const error: NodeJS.ErrnoException = Object.assign(new Error('no checked address of the requested family'), { code: 'ENOTFOUND' })
      callback(error, '', 0)
      return
    }
    if (options.all) callback(null, candidates.map((a) => ({ address: a.address, family: a.family })))
    else callback(null, first.address, first.family)
  }
