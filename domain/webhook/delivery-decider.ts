import { Either } from 'effect'
import type { Decider } from '../decider.js'
import { NotFound } from '../errors.js'
import {
  WebhookDeliveryAttempted, WebhookDeliveryCancelled, WebhookDeliveryReplayRequested, WebhookDeliveryScheduled,
  type AttemptOutcome, type WebhookDeliveryEvent,
} from './events.js'

export type DeliveryStatus = 'pending' | 'succeeded' | 'failed' | 'cancelled'

/** A delivery's status after an attempt with this outcome. */
export const statusAfter = (outcome: AttemptOutcome): DeliveryStatus =>
  outcome === 'succeeded' ? 'succeeded' : outcome === 'retrying' ? 'pending' : 'failed'

export type DeliveryState =
  | { readonly exists: false }
  | {
    readonly exists: true
    readonly scheduled: WebhookDeliveryScheduled
    readonly status: DeliveryStatus
    /** Attempts recorded in all. */
    readonly attempts: number
    /** Attempts since the retry window opened (scheduled or replayed): the rung of the retry ladder. */
    readonly attempts_in_window: number
    readonly window_start: string
    /** When the first attempt of the current window was made; null before it. */
    readonly window_first_attempt_at: string | null
    readonly next_attempt_at: string | null
  }

export interface AttemptResult {
  readonly attempted_at: string
  readonly status_code: number | null
  readonly latency_ms: number
  readonly response_excerpt: string
  readonly error: string | null
  readonly outcome: AttemptOutcome
  readonly next_attempt_at: string | null
}

export type DeliveryCommand =
  | { readonly _tag: 'ScheduleDelivery'; readonly delivery: Omit<WebhookDeliveryScheduled, '_tag'>; readonly now: string }
  /** `attempt` is the number the dispatcher sent under: a second dispatcher's record of the same attempt is dropped. */
  | { readonly _tag: 'RecordAttempt'; readonly attempt: number; readonly result: AttemptResult; readonly now: string }
  | { readonly _tag: 'CancelDelivery'; readonly reason: 'endpoint_disabled' | 'endpoint_deleted'; readonly now: string }
  | { readonly _tag: 'ReplayDelivery'; readonly delivery_id: string; readonly endpoint_id: string; readonly now: string }

export const deliveryDecider: Decider<DeliveryCommand, WebhookDeliveryEvent, DeliveryState, NotFound> = {
  initialState: { exists: false },
  evolve: (state, event) => {
    if (event._tag === 'WebhookDeliveryScheduled') {
      return { exists: true, scheduled: event, status: 'pending', attempts: 0, attempts_in_window: 0, window_start: event.scheduled_at, window_first_attempt_at: null, next_attempt_at: event.scheduled_at }
    }
    if (!state.exists) return state
    switch (event._tag) {
      case 'WebhookDeliveryAttempted':
        return {
          ...state, attempts: event.attempt, attempts_in_window: state.attempts_in_window + 1, next_attempt_at: event.next_attempt_at,
          window_first_attempt_at: state.window_first_attempt_at ?? event.attempted_at,
          status: statusAfter(event.outcome),
        }
      case 'WebhookDeliveryCancelled':
        return { ...state, status: 'cancelled', next_attempt_at: null }
      case 'WebhookDeliveryReplayRequested':
        return { ...state, status: 'pending', attempts_in_window: 0, window_start: event.requested_at, window_first_attempt_at: null, next_attempt_at: event.requested_at }
    }
  },
  decide: (command, state) => {
    switch (command._tag) {
      case 'ScheduleDelivery':
        return Either.right(state.exists ? [] : [new WebhookDeliveryScheduled(command.delivery)])
      case 'RecordAttempt':
        if (!state.exists || state.status !== 'pending' || command.attempt !== state.attempts + 1) return Either.right([])
        return Either.right([new WebhookDeliveryAttempted({ delivery_id: state.scheduled.delivery_id, attempt: command.attempt, ...command.result })])
      case 'CancelDelivery':
        if (!state.exists || state.status !== 'pending') return Either.right([])
        return Either.right([new WebhookDeliveryCancelled({ delivery_id: state.scheduled.delivery_id, reason: command.reason, cancelled_at: command.now })])
      case 'ReplayDelivery':
        if (!state.exists || state.scheduled.endpoint_id !== command.endpoint_id) {
          return Either.left(new NotFound({ resource: 'webhook_delivery', id: command.delivery_id }))
        }
        return Either.right([new WebhookDeliveryReplayRequested({ delivery_id: state.scheduled.delivery_id, requested_at: command.now })])
    }
  },
}
