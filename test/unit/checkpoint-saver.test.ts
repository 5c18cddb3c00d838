import { Effect } from 'effect'
import t from 'tap'
import type { CheckpointStore } from '../../infra/log/catch-up.js'
import { CHECKPOINT_SAVE_MS, makeCheckpointSaver } from '../../infra/log/checkpoint-saver.js'

const recordingStore = () => {
  const saves: [string, number][] = []
  const counted = { writes: 0 }
  const store: CheckpointStore = {
    load: () => Effect.succeed(0),
    save: (name, position) => Effect.sync(() => { saves.push([name, position]) }),
    saveAll: (positions) => Effect.sync(() => {
      counted.writes += 1
      saves.push(...positions)
    }),
  }
  return { store, saves, counted }
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

t.test('moved checkpoints are saved together, the latest position only, once the save interval has passed', async (t) => {
  const { store, saves, counted } = recordingStore()
  const saver = makeCheckpointSaver(store, () => {})
  const a = saver.track('a', 0)
  const b = saver.track('b', 5)
  for (let position = 1; position <= 20; position++) a.moved(position)
  b.moved(3)
  b.moved(7)
  t.same(saves, [], 'nothing written at once')
  await pause(CHECKPOINT_SAVE_MS * 2)
  t.same(saves, [['a', 20], ['b', 7]], 'one save each, of the latest position; a position not past the saved one is not saved')
  t.equal(counted.writes, 1, 'in one write')
  a.moved(21)
  await a.flush()
  t.same(saves.at(-1), ['a', 21], 'flush saves at once')
  await pause(CHECKPOINT_SAVE_MS * 2)
  t.equal(saves.length, 3, 'and nothing is saved twice')
})

t.test('a failed save is logged and the next move saves again', async (t) => {
  const saves: number[] = []
  let fail = true
  const store: CheckpointStore = {
    load: () => Effect.succeed(0),
    save: (_name, position) => (fail ? Effect.die(new Error('disk full')) : Effect.sync(() => { saves.push(position) })),
    saveAll: (positions) => (fail ? Effect.die(new Error('disk full')) : Effect.sync(() => { saves.push(...positions.values()) })),
  }
  const logged: string[] = []
  const checkpoint = makeCheckpointSaver(store, (message) => logged.push(message)).track('a', 0)
  checkpoint.moved(1)
  await checkpoint.flush()
  t.match(logged, [/subscriber a could not save its checkpoint/])
  fail = false
  checkpoint.moved(2)
  await checkpoint.flush()
  t.same(saves, [2])
})
