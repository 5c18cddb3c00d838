import { Effect } from 'effect'
import { detectionDecider, type DetectionCommand } from '../domain/monitor/detection-decider.js'
import type { MonitorEvent } from '../domain/monitor/events.js'
import { STREAMS } from '../domain/streams.js'
import { NotFound } from '../domain/errors.js'
import { EventStore, type EventMetadata } from '../ports/event-store.js'
import { handle, type CommandContext, foldHistory } from './handle.js'

/** What detection remembers of a monitor, folded from its stream. */
export const loadDetection = (monitorId: string) =>
  Effect.gen(function* () {
    const history = yield* (yield* EventStore).readStream(STREAMS.monitor.stream(monitorId))
    return foldHistory(detectionDecider, history)
  })

export const runDetectionCommand = (command: DetectionCommand, ctx: CommandContext) =>
  handle(detectionDecider, STREAMS.monitor.stream(command.monitor_id), command, ctx)

/** Records that a recipient followed an unsubscribe link (the token is checked by the caller). */
export const unsubscribeRecipient = (input: { readonly monitor_id: string; readonly recipient: string; readonly now: string; readonly metadata: EventMetadata }) =>
  Effect.gen(function* () {
    const state = yield* loadDetection(input.monitor_id)
    if (!state.monitor) return yield* Effect.fail(new NotFound({ resource: 'monitor', id: input.monitor_id }))
    yield* runDetectionCommand(
      { _tag: 'Unsubscribe', monitor_id: input.monitor_id, recipient: input.recipient, now: input.now },
      { org_id: state.monitor.org_id, metadata: input.metadata },
    )
  })
