import { orgStream } from '../domain/events.js'
import { orgDecider } from '../domain/org/decider.js'
import type { EventMetadata } from '../ports/event-store.js'
import { handle } from './handle.js'

export const setOrgIpAllowlist = (input: { readonly org_id: string; readonly ip_allowlist: readonly string[]; readonly metadata: EventMetadata }) =>
  handle(orgDecider, orgStream(input.org_id), { _tag: 'SetOrgIpAllowlist', org_id: input.org_id, ip_allowlist: input.ip_allowlist, now: new Date().toISOString() }, { org_id: input.org_id, metadata: input.metadata })
