import { Effect, Queue } from 'effect'
import type { Dispatcher } from 'undici'
import {
  cancelWebhookDelivery, judgeWebhookEndpoint, loadWebhookDelivery, loadWebhookEndpoint, recordWebhookAttempt,
} from '../commands/webhooks.js'
import { circuitState, isUnreachable, type CircuitPolicy } from '../domain/webhook/circuit.js'
import type { AttemptResult } from '../domain/webhook/delivery-decider.js'
import { signingSecrets, type EndpointState } from '../domain/webhook/endpoint-decider.js'
import type { AttemptOutcome, SignedLink } from '../domain/webhook/events.js'
import { nextAttemptAt, RETRY_WINDOW_MS, retryAfterMs } from '../domain/webhook/retry-ladder.js'
import { signatureHeader } from '../domain/webhook/signing.js'
import { postThroughGateway, type PostOutcome } from '../fetchers/egress/index.js'
import { FairLanes } from '../fetchers/fair-lanes.js'
import { BlobStore } from '../ports/blob-store.js'
import { Clock } from '../ports/clock.js'
import type { StoreUnavailable } from '../ports/event-store.js'
import type { MetricsService } from '../ports/metrics.js'

/** The first kilobyte of a receiver's answer is kept with each attempt. */
export const RESPONSE_EXCERPT_BYTES = 1024

export interface WebhookDispatcherOptions<R> {
  /** Seconds to wait after each failed attempt (DEFAULT_RETRY_LADDER, or WEBHOOK_RETRY_SCHEDULE). */
  readonly ladder: readonly number[]
  /** A receiver answering later than this has failed the attempt (10 s). */
  readonly timeoutMs: number
  /** Deliveries sent at once. */
  readonly concurrency: number
  /**
   * Deliveries of one organization sent at once (within `concurrency`): each organization waits in a lane of its own,
   * served round-robin, so one organization's slow receivers never hold every slot (docs/fair-queueing.md).
   */
  readonly orgConcurrency: number
  /** Deliveries to one endpoint sent at once (within `concurrency`). No order among one endpoint's events is kept. */
  readonly endpointConcurrency: number
  /** When an endpoint that stopped answering is left alone (domain/webhook/circuit.ts). */
  readonly circuit: CircuitPolicy
  /** Lifetime of the signed links minted into a delivery at each attempt (a change's diff). */
  readonly linkTtlSeconds: number
  /** How often (real time) the dispatcher asks the clock and the read model what is due, besides being woken. */
  readonly pollMs: number
  /** The egress gateway's dispatcher: every delivery leaves through it. */
  readonly http: Dispatcher
  /** Opens a sealed signing secret. */
  readonly openSecret: (sealed: string) => string
  /** Pending deliveries due at `now` (the deliveries read model). */
  readonly dueDeliveries: (now: Date, limit: number) => Effect.Effect<readonly DueDelivery[], StoreUnavailable, R>
  /** The log position the endpoints read model has applied for an endpoint (null before it shows the endpoint). */
  readonly endpointVersion: (endpointId: string) => Effect.Effect<number | null, StoreUnavailable, R>
  /** When the earliest pending delivery is due. */
  readonly nextAttemptAt: Effect.Effect<Date | null, StoreUnavailable, R>
  readonly log: (message: string, detail?: unknown) => void
  /** Counts each recorded attempt by outcome. */
  readonly metrics?: Pick<MetricsService, 'webhookAttempt'>
  /** Math.random in production. */
  readonly random?: () => number
}

export interface DueDelivery {
  readonly delivery_id: string
  readonly endpoint_id: string
  readonly org_id: string
}

/** Endpoint states kept by the dispatcher; past this many it starts afresh (they reload from their streams). */
const ENDPOINT_CACHE_LIMIT = 10_000

/** The body as sent at one attempt: the recorded envelope with each signed link minted now. */
const withSignedLinks = (body: string, links: readonly SignedLink[] | undefined, ttlSeconds: number) =>
  Effect.gen(function* () {
    if (!links || links.length === 0) return body
    const blobs = yield* BlobStore
    const envelope = JSON.parse(body) as { data: Record<string, unknown> }
    for (const link of links) {
      const signed = yield* blobs.signedUrl(link.blob_key, ttlSeconds, link.download_name)
      // A field inside an object of the data is named by its path (`recipe.result_url`).
      const path = link.field.split('.')
      const name = path.pop()!
      const holder = path.reduce((object, key) => object[key] as Record<string, unknown>, envelope.data)
      holder[name] = signed.url
      holder[`${name}_expires_at`] = signed.expires_at
    }
    return JSON.stringify(envelope)
  })

const outcomeOf = (answer: PostOutcome): 'succeeded' | 'gone' | 'failed' =>
  answer.status !== null && answer.status >= 200 && answer.status < 300 ? 'succeeded' : answer.status === 410 ? 'gone' : 'failed'

const errorOf = (answer: PostOutcome): string | null =>
  answer.error ?? (answer.status !== null && outcomeOf(answer) === 'failed' ? `receiver answered ${answer.status}` : null)

/**
 * The webhook dispatcher: sends each due delivery (one webhook event to one endpoint), signed with the endpoint's
 * valid secrets, through the egress gateway, and records the attempt with its next attempt's time. What is due is
 * asked of the clock and the recorded events only; the timers here merely wake it. A restart recomputes the same
 * plan; a POST cut short by a kill is sent again (at least once), and the expected-revision append records one
 * attempt per number.
 *
 * Endpoint state (URL, secrets, enabled) is folded from the endpoint's stream once and kept while the endpoints read
 * model shows no later event of it, so an attempt reads no endpoint stream; a change reaches the dispatcher as soon
 * as the read model applies it (an attempt started in that short lag uses the previous URL or secret, a rotated-out
 * secret still signs for 24 hours). Whatever would stop or judge a delivery (disabled, deleted, a failed attempt)
 * is decided on the stream itself.
 */
export const makeWebhookDispatcher = <R>(options: WebhookDispatcherOptions<R>) => {
  const random = options.random ?? Math.random
  const hints = Effect.runSync(Queue.unbounded<DueDelivery>())
  const ctx = (causation: string) => ({ metadata: { correlation_id: causation, causation_id: causation, actor: 'webhooks' } })
  const endpoints = new Map<string, { readonly state: EndpointState; readonly position: number }>()

  const freshEndpoint = (endpointId: string) =>
    Effect.tap(loadWebhookEndpoint(endpointId), (loaded) => Effect.sync(() => {
      if (endpoints.size >= ENDPOINT_CACHE_LIMIT) endpoints.clear()
      endpoints.set(endpointId, loaded)
    }))

  /** The endpoint's state, from the cache unless the read model has applied a later event of it. */
  const endpointOf = (endpointId: string) =>
    Effect.gen(function* () {
      const applied = yield* options.endpointVersion(endpointId)
      const cached = endpoints.get(endpointId)
      if (cached && applied !== null && cached.position >= applied) return cached
      return yield* freshEndpoint(endpointId)
    })

  /** The endpoint's verdict after an attempt, from its state as it was sent to (the attempt's own record is already in). */
  const judge = (endpoint: Extract<EndpointState, { exists: true }>, outcome: AttemptOutcome, answered: boolean, windowFirstAttempt: string, now: Date, seed: string) =>
    Effect.gen(function* () {
      const { org_id: orgId, endpoint_id: endpointId } = endpoint
      const at = now.toISOString()
      const verdict = (command: Parameters<typeof judgeWebhookEndpoint>[1]) =>
        judgeWebhookEndpoint(orgId, command, { ...ctx(seed), idSeed: `${seed}:${command._tag}` }).pipe(Effect.catchTag('NotFound', () => Effect.void))
      // Any answer ends a run of unreachable attempts (and closes an open circuit); no answer counts toward opening it.
      const { circuit } = endpoint
      const reachability = answered
        ? (circuit.unreachable > 0 || circuit.retry_at !== null ? verdict({ _tag: 'RecordAnswered', endpoint_id: endpointId, now: at }) : Effect.void)
        : verdict({ _tag: 'RecordUnreachable', endpoint_id: endpointId, policy: options.circuit, now: at })
      // A success to an endpoint that was not failing, with a closed circuit, changes nothing: no stream to read or append to.
      // (Enabling an endpoint again ends its failing run but not its circuit: the circuit is judged on its own.)
      if (outcome === 'succeeded') {
        if (endpoint.failing_since !== null) yield* verdict({ _tag: 'RecordDeliverySuccess', endpoint_id: endpointId, now: at })
        return yield* reachability
      }
      yield* reachability
      if (outcome === 'gone') {
        return yield* verdict({ _tag: 'DisableEndpoint', endpoint_id: endpointId, reason: 'gone', message: 'the receiver answered 410 Gone: the endpoint was disabled and gets no more events until it is enabled again', now: at })
      }
      yield* verdict({ _tag: 'RecordDeliveryFailure', endpoint_id: endpointId, now: at })
      const since = endpoint.failing_since ?? at
      // Failing for 3 days: every attempt for that long failed, or a delivery used up its whole retry window while
      // nothing reached the endpoint (it was failing since this delivery's first attempt).
      const failingLong = now.getTime() - Date.parse(since) >= RETRY_WINDOW_MS || (outcome === 'exhausted' && Date.parse(since) <= Date.parse(windowFirstAttempt))
      if (failingLong) {
        yield* verdict({ _tag: 'DisableEndpoint', endpoint_id: endpointId, reason: 'failing', message: `every delivery failed since ${since}: the endpoint was disabled and gets no more events until it is enabled again`, now: at })
      }
    })

  /** Endpoints whose probe delivery is in flight in this process (one per half-open circuit). */
  const probing = new Set<string>()

  /**
   * Waits while the endpoint's circuit is open, holding no shared slot; answers true for the one delivery that
   * probes a half-open circuit (it releases the probe when its attempt is judged). What the circuit is comes from
   * the endpoint's recorded events; the sleeps only wake this to look again.
   */
  const throughCircuit = (endpointId: string) =>
    Effect.gen(function* () {
      const clock = yield* Clock
      // A circuit closed as last seen lets the delivery through at once: the attempt checks the endpoint again.
      const seen = endpoints.get(endpointId)?.state
      if (seen?.exists && circuitState(seen.circuit, clock.now()) === 'closed') return false
      for (;;) {
        const loaded = yield* Effect.either(endpointOf(endpointId))
        if (loaded._tag === 'Left') {
          yield* Effect.sleep(options.pollMs)
          continue
        }
        const endpoint = loaded.right.state
        // A missing, deleted or disabled endpoint is the attempt's to settle (it cancels the delivery).
        if (!endpoint.exists || endpoint.deleted || !endpoint.enabled) return false
        const state = circuitState(endpoint.circuit, clock.now())
        if (state === 'closed') return false
        if (state === 'half_open' && !probing.has(endpointId)) {
          probing.add(endpointId)
          return true
        }
        yield* Effect.raceAll([Effect.sleep(options.pollMs), ...(state === 'open' ? [clock.sleepUntil(new Date(endpoint.circuit.retry_at!))] : [])])
      }
    })

  const attempt = (deliveryId: string, probe = false) =>
    Effect.gen(function* () {
      const clock = yield* Clock
      const delivery = yield* loadWebhookDelivery(deliveryId)
      if (!delivery.exists || delivery.status !== 'pending' || delivery.next_attempt_at === null) return
      const now = clock.now()
      if (Date.parse(delivery.next_attempt_at) > now.getTime()) return
      const { scheduled } = delivery
      const seed = `${deliveryId}:${delivery.attempts + 1}`
      const live = (state: EndpointState) => state.exists && !state.deleted && state.enabled
      let endpoint = (yield* endpointOf(scheduled.endpoint_id)).state
      // Only the stream may stop a delivery: the cached state could predate a re-enable.
      if (!live(endpoint)) endpoint = (yield* freshEndpoint(scheduled.endpoint_id)).state
      if (!endpoint.exists || endpoint.deleted || !endpoint.enabled) {
        yield* cancelWebhookDelivery(scheduled.org_id, deliveryId, endpoint.exists && !endpoint.deleted ? 'endpoint_disabled' : 'endpoint_deleted', ctx(seed))
        return
      }
      // The circuit may have opened while this waited for a slot: the delivery stays due, unattempted.
      if (!probe && circuitState(endpoint.circuit, now) !== 'closed') return
      const body = yield* withSignedLinks(scheduled.body, scheduled.signed_links, options.linkTtlSeconds)
      const timestamp = Math.floor(now.getTime() / 1000)
      const signature = signatureHeader(signingSecrets(endpoint, now).map(options.openSecret), scheduled.event_id, timestamp, body)
      const answer = yield* Effect.promise(() => postThroughGateway({
        url: endpoint.url, body, timeoutMs: options.timeoutMs, excerptBytes: RESPONSE_EXCERPT_BYTES, dispatcher: options.http,
        headers: {
          'content-type': 'application/json', 'user-agent': 'Scrapeworks-Webhooks/1',
          'webhook-id': scheduled.event_id, 'webhook-timestamp': String(timestamp), 'webhook-signature': signature,
        },
      }))
      const answeredAt = clock.now()
      const verdict = outcomeOf(answer)
      const next = verdict === 'failed'
        ? nextAttemptAt({
          ladder: options.ladder, attempt: delivery.attempts_in_window + 1, now: answeredAt, windowStart: new Date(delivery.window_start),
          retryAfterMs: retryAfterMs(answer.retry_after, answeredAt), jitter: random(),
        })
        : null
      const outcome: AttemptOutcome = verdict === 'failed' ? (next === null ? 'exhausted' : 'retrying') : verdict
      const result: AttemptResult = {
        attempted_at: now.toISOString(), status_code: answer.status, latency_ms: answer.latency_ms, response_excerpt: answer.excerpt,
        error: errorOf(answer), outcome, next_attempt_at: next?.toISOString() ?? null,
      }
      yield* recordWebhookAttempt(scheduled.org_id, deliveryId, delivery.attempts + 1, result, { ...ctx(seed), idSeed: seed })
      options.metrics?.webhookAttempt(outcome)
      // A failure is judged on the endpoint's stream (when it began failing decides whether it is disabled).
      const judged = outcome === 'succeeded' ? endpoint : (yield* freshEndpoint(scheduled.endpoint_id)).state
      const answered = !isUnreachable(answer.status)
      if (judged.exists) yield* judge(judged, outcome, answered, delivery.window_first_attempt_at ?? result.attempted_at, answeredAt, seed)
      // The deliveries waiting on this endpoint's circuit read what the judgement recorded, not the read model's lag.
      if (probe || !answered) yield* freshEndpoint(scheduled.endpoint_id)
    }).pipe(Effect.catchAll((error) => Effect.sync(() => options.log(`webhook delivery ${deliveryId} could not be attempted now; it stays due`, error))))

  /**
   * Starts what is due (at most `concurrency` sending at once, at most `orgConcurrency` of them for one organization,
   * free slots handed to the organizations' lanes in turn, at most `endpointConcurrency` to one endpoint), then waits for a hint, the poll interval, or the earliest due instant by the clock. Never loops
   * without waiting: the read model it asks may lag the log.
   */
  const loop = Effect.gen(function* () {
    const clock = yield* Clock
    const inFlight = new Set<string>()
    const slots = new FairLanes({ slots: options.concurrency, perKey: options.orgConcurrency })
    // Waiting for the organization's turn stops with the fiber (the signal aborts the wait).
    const inOrgSlot = <A, E, R2>(orgId: string, work: Effect.Effect<A, E, R2>) =>
      Effect.flatMap(Effect.promise((signal) => slots.acquire(orgId, signal)), () => work.pipe(Effect.ensuring(Effect.sync(() => slots.release(orgId)))))
    const lanes = new Map<string, { readonly slots: Effect.Semaphore; users: number }>()
    const laneOf = (endpointId: string) => {
      const lane = lanes.get(endpointId) ?? { slots: Effect.unsafeMakeSemaphore(options.endpointConcurrency), users: 0 }
      lane.users += 1
      lanes.set(endpointId, lane)
      return lane
    }
    const leave = (endpointId: string, deliveryId: string) => Effect.sync(() => {
      inFlight.delete(deliveryId)
      const lane = lanes.get(endpointId)
      if (lane && --lane.users === 0) lanes.delete(endpointId)
    })
    // The endpoint's lane is taken before a shared slot, so deliveries queued behind a busy endpoint hold no slot.
    const start = ({ delivery_id: id, endpoint_id: endpointId, org_id: orgId }: DueDelivery) => {
      inFlight.add(id)
      const lane = laneOf(endpointId)
      const send = Effect.flatMap(throughCircuit(endpointId), (probe) =>
        inOrgSlot(orgId, attempt(id, probe)).pipe(Effect.ensuring(Effect.sync(() => { if (probe) probing.delete(endpointId) }))))
      return Effect.fork(lane.slots.withPermits(1)(send).pipe(Effect.ensuring(leave(endpointId, id))))
    }
    for (;;) {
      const hinted = yield* Queue.takeAll(hints)
      // Asks past what is already in flight, so a backlog of one endpoint never hides what is due for others.
      const due = yield* options.dueDeliveries(clock.now(), options.concurrency * 4 + inFlight.size).pipe(Effect.orElseSucceed(() => [] as readonly DueDelivery[]))
      const fresh = new Map<string, DueDelivery>()
      for (const item of [...hinted, ...due]) if (!inFlight.has(item.delivery_id)) fresh.set(item.delivery_id, item)
      yield* Effect.forEach(fresh.values(), start, { discard: true })
      const nextDue = yield* options.nextAttemptAt.pipe(Effect.orElseSucceed(() => null))
      const later = nextDue !== null && nextDue.getTime() > clock.now().getTime()
      yield* Effect.raceAll([
        Effect.asVoid(Queue.take(hints).pipe(Effect.flatMap((item) => Queue.offer(hints, item)))),
        Effect.sleep(options.pollMs),
        ...(later ? [clock.sleepUntil(nextDue)] : []),
      ])
    }
  })

  return {
    /** Wakes the dispatcher for a delivery just scheduled (a hint: what is due is decided from the log). */
    wake: (delivery: DueDelivery) => Queue.unsafeOffer(hints, delivery),
    loop,
    attempt,
  }
}
