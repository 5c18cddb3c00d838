import { Schema } from 'effect'
import { JobEvent } from './job/events.js'
import { OrgEvent } from './org/events.js'
import { EmailClaimEvent, UserEvent } from './user/events.js'

/** Every event of the service. New streams add their union here. */
export const DomainEvent = Schema.Union(JobEvent, OrgEvent, UserEvent, EmailClaimEvent)
export type DomainEvent = typeof DomainEvent.Type

export const SCHEMA_VERSION = 1

const decode = Schema.decodeUnknownSync(DomainEvent)
const encode = Schema.encodeSync(DomainEvent)

/** Stored form: the tag becomes `type`, the rest is `data`. */
export const encodeEvent = (event: DomainEvent): { type: string; data: Record<string, unknown> } => {
  const { _tag, ...data } = encode(event) as { _tag: string } & Record<string, unknown>
  return { type: _tag, data }
}

export const decodeEvent = (type: string, data: unknown): DomainEvent =>
  decode({ ...(data as object), _tag: type })

export const isKnownEventType = (type: string): boolean => KNOWN_TYPES.has(type)
// A stream with a single event type has that event's schema as its "union" (Schema.Union of one member is the member).
const KNOWN_TYPES = new Set(DomainEvent.members.flatMap((union) => ('members' in union ? union.members : [union]).map((m) => m.identifier)))

/** Stream ids are `<category>-<id>`; the category names the Kafka topic in the scale-out profile. */
export const streamCategory = (stream: string): string => {
  const dash = stream.indexOf('-')
  return dash < 0 ? stream : stream.slice(0, dash)
}
export const jobStream = (jobId: string) => `job-${jobId}`
export const orgStream = (orgId: string) => `org-${orgId}`
