import { Schema } from 'effect'
import { JobEvent } from './job/events.js'
import { MonitorEvent } from './monitor/events.js'
import { MonitorQuotaEvent } from './monitor/quota.js'
import { OrgEvent } from './org/events.js'
import { ScrapeEvent } from './scrape/events.js'
import { ContentMonitorEvent, ContentMonitorQuotaEvent } from './content-monitor/events.js'
import { HoldEvent, RetentionEvent } from './retention/events.js'
import { EmailClaimEvent, UserEvent } from './user/events.js'
import { WebhookEndpointQuotaEvent } from './webhook/endpoint-quota.js'
import { WebhookDeliveryEvent, WebhookEndpointEvent } from './webhook/events.js'

/** One category of streams: its streams are named `<category>-<id>` and hold the events of one union. */
const category = <const Name extends string, Events extends Schema.Schema.AnyNoContext>(name: Name, events: Events) => ({
  name,
  events,
  stream: (id: string): string => `${name}-${id}`,
})

/**
 * The stream catalogue: every category of the service, its stream names and its events. Stream names, the event
 * union (DomainEvent) and the Kafka topics (`<prefix>.<category>s`) derive from it; a new stream is one entry here.
 */
const CATALOGUE = [
  category('job', JobEvent),
  category('org', OrgEvent),
  category('user', UserEvent),
  /** `email-<sha256(lower-cased address)>`: the uniqueness guard of e-mail addresses. */
  category('email', EmailClaimEvent),
  category('monitor', MonitorEvent),
  /** `monitor-quota-<org>`: the monitors an organization holds, claimed with the expected revision (plan limits). */
  category('monitor-quota', MonitorQuotaEvent),
  /** `scrape-<id>`: an account-API scrape (its id is the id of the job doing the fetch). */
  category('scrape', ScrapeEvent),
  category('webhook-endpoint', WebhookEndpointEvent),
  /** `webhook-delivery-<id>`, the id derived from (endpoint, source event): one webhook event owed to one endpoint. */
  category('webhook-delivery', WebhookDeliveryEvent),
  /** `webhook-endpoint-quota-<org>`: the organization's webhook endpoints, claimed with the expected revision (20 at most). */
  category('webhook-endpoint-quota', WebhookEndpointQuotaEvent),
  /** `content-monitor-<id>`: an account-API content monitor and its runs (a run's job has the run's id). */
  category('content-monitor', ContentMonitorEvent),
  /** `content-monitor-quota-<user>`: the user's active content monitors, claimed with the expected revision (50 at most). */
  category('content-monitor-quota', ContentMonitorQuotaEvent),
  /** `retention-<org>`: the organization's retention policy. */
  category('retention', RetentionEvent),
  /** `hold-<id>`: one legal hold. */
  category('hold', HoldEvent),
] as const

type Catalogue = typeof CATALOGUE
type EventsOf<Entries> = { -readonly [K in keyof Entries]: Entries[K] extends { readonly events: infer Events } ? Events : never }
export type Category = Catalogue[number]['name']

export const STREAMS = Object.fromEntries(CATALOGUE.map((entry) => [entry.name, entry])) as {
  readonly [Entry in Catalogue[number] as Entry['name']]: Entry
}
export const CATEGORIES: readonly Category[] = CATALOGUE.map((entry) => entry.name)

/** Every event of the service. */
export const DomainEvent = Schema.Union(...(CATALOGUE.map((entry) => entry.events) as EventsOf<Catalogue>))
export type DomainEvent = typeof DomainEvent.Type

/** The events of some categories' streams. */
export type EventOf<C extends Category> = Schema.Schema.Type<(typeof STREAMS)[C]['events']>

/** Longest name first, so a category whose name extends another's (`content-monitor`, `monitor`) is told apart. */
const BY_LENGTH = [...CATEGORIES].sort((a, b) => b.length - a.length).map((name) => ({ name, prefix: `${name}-` }))

/**
 * The category of a stream id (`job-…` is `job`); it names the Kafka topic in the scale-out profile. A stream
 * outside the catalogue answers what precedes its first dash.
 */
export const streamCategory = (stream: string): string => {
  // The prefixes are made once: this runs for every event every subscriber and replay fold gets.
  for (const { name, prefix } of BY_LENGTH) if (stream.startsWith(prefix)) return name
  const dash = stream.indexOf('-')
  return dash < 0 ? stream : stream.slice(0, dash)
}

export const isCategory = (name: string): name is Category => (CATEGORIES as readonly string[]).includes(name)
