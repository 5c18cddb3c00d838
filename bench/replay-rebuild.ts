/**
 * The timed half of bench:replay, in a fresh process as `cli replay` runs: reads the whole log of DATA_DIR once (the
 * baseline), then rebuilds every read model from position 0, and prints both timings as one JSON line.
 */
import { Effect } from 'effect'
import { loadConfig } from '../infra/config.js'
import { startProcess } from '../infra/process.js'
import { replayProjections } from '../infra/replay.js'
import { ReadModels } from '../infra/read-models.js'
import { EventStore } from '../ports/event-store.js'
import { processCpuMs } from './process-cpu.js'

/** What one timed phase took, as the bench prints it. */
export interface Timed { readonly value: unknown; readonly seconds: number; readonly cpuSeconds: number; readonly mainThreadSeconds: number | null }

const service = await startProcess(loadConfig(process.env), [], { info: () => {}, warn: () => {}, error: () => {} })

/** The baseline: every event of the log read in order, nothing projected. */
const readWholeLog = Effect.gen(function* () {
  const store = yield* EventStore
  let after = 0
  let count = 0
  for (;;) {
    const batch = yield* store.readAll(after, 1000)
    if (batch.length === 0) return count
    count += batch.length
    after = batch[batch.length - 1]!.position
  }
})

/**
 * Wall-clock and CPU seconds (CPU time is what a loaded machine does not inflate much), in all and of the main thread
 * (the replay's writes run on a thread of their own; null where /proc is missing).
 */
const timed = async <A>(effect: Effect.Effect<A, unknown, never>): Promise<Timed> => {
  const t0 = performance.now()
  const cpu0 = process.cpuUsage()
  const main0 = processCpuMs(process.pid)?.mainThread
  const value = await service.run(effect as never) as A
  const cpu = process.cpuUsage(cpu0)
  const main1 = processCpuMs(process.pid)?.mainThread
  const mainThreadSeconds = main0 === undefined || main1 === undefined ? null : (main1 - main0) / 1000
  return { value, seconds: (performance.now() - t0) / 1000, cpuSeconds: (cpu.user + cpu.system) / 1e6, mainThreadSeconds }
}

const baseline = await timed(readWholeLog as never)
const replay = await timed(Effect.flatMap(ReadModels, replayProjections) as never)
await service.close()
process.stdout.write(`${JSON.stringify({ baseline, replay })}\n`)
