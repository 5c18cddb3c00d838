import { Effect } from 'effect'
import { STREAMS } from '../domain/streams.js'
import { orgDecider } from '../domain/org/decider.js'
import type { OrgEvent } from '../domain/org/events.js'
import { EventStore, type EventMetadata } from '../ports/event-store.js'
import { currentTime } from './clock.js'
import { handle, foldHistory } from './handle.js'

/** `caller_ip`: the requesting address, which the list must include (PUT /v1/org/ip-allowlist); absent for operators. */
export const setOrgIpAllowlist = (input: { readonly org_id: string; readonly ip_allowlist: readonly string[]; readonly caller_ip?: string; readonly metadata: EventMetadata }) =>
  Effect.flatMap(currentTime, (now) => handle(orgDecider, STREAMS.org.stream(input.org_id), {
    _tag: 'SetOrgIpAllowlist', org_id: input.org_id, ip_allowlist: input.ip_allowlist, caller_ip: input.caller_ip, now: now.toISOString(),
  }, { org_id: input.org_id, metadata: input.metadata }))

/** Operators switch change summaries per organization (`cli org set --org ID --summaries on|off`). */
export const setOrgSummaries = (input: { readonly org_id: string; readonly enabled: boolean; readonly now: string; readonly metadata: EventMetadata }) =>
  handle(orgDecider, STREAMS.org.stream(input.org_id), {
    _tag: 'SetOrgSummaries', org_id: input.org_id, enabled: input.enabled, now: input.now,
  }, { org_id: input.org_id, metadata: input.metadata })

/** Operators move an organization to another plan (`cli org set --org ID --plan NAME`); the same plan records nothing. */
export const changeOrgPlan = (input: { readonly org_id: string; readonly plan: string; readonly now: string; readonly metadata: EventMetadata }) =>
  handle(orgDecider, STREAMS.org.stream(input.org_id), {
    _tag: 'ChangeOrgPlan', org_id: input.org_id, plan: input.plan, now: input.now,
  }, { org_id: input.org_id, metadata: input.metadata })

/** Whether the organization's changes get summaries (an unknown organization gets none). */
export const orgSummariesEnabled = (orgId: string) =>
  Effect.gen(function* () {
    const history = yield* (yield* EventStore).readStream(STREAMS.org.stream(orgId))
    const state = foldHistory(orgDecider, history)
    return state.exists && state.summaries
  })
