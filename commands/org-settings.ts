import { STREAMS } from '../domain/streams.js'
import { orgDecider } from '../domain/org/decider.js'
import type { EventMetadata } from '../ports/event-store.js'
import { handle } from './handle.js'

/** `caller_ip`: the requesting address, which the list must include (PUT /v1/org/ip-allowlist); absent for operators. */
export const setOrgIpAllowlist = (input: { readonly org_id: string; readonly ip_allowlist: readonly string[]; readonly caller_ip?: string; readonly metadata: EventMetadata }) =>
  handle(orgDecider, STREAMS.org.stream(input.org_id), {
    _tag: 'SetOrgIpAllowlist', org_id: input.org_id, ip_allowlist: input.ip_allowlist, caller_ip: input.caller_ip, now: new Date().toISOString(),
  }, { org_id: input.org_id, metadata: input.metadata })
