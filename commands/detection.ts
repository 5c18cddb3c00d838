import { Effect } from 'effect'
import { fold } from '../domain/decider.js'
import { decodeEvent } from '../domain/events.js'
import { detectionDecider, type DetectionCommand } from '../domain/monitor/detection-decider.js'
import type { MonitorEvent } from '../domain/monitor/events.js'
import { STREAMS } from '../domain/streams.js'
import { EventStore } from '../ports/event-store.js'
import { handle, type CommandContext } from './handle.js'

/** What detection remembers of a monitor, folded from its stream. */
export const loadDetection = (monitorId: string) =>
  Effect.gen(function* () {
    const history = yield* (yield* EventStore).readStream(STREAMS.monitor.stream(monitorId))
    return fold(detectionDecider, history.map((r) => decodeEvent(r.type, r.data) as MonitorEvent))
  })

export const runDetectionCommand = (command: DetectionCommand, ctx: CommandContext) =>
  handle(detectionDecider, STREAMS.monitor.stream(command.monitor_id), command, ctx)
