import { readdirSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { isDeepStrictEqual } from 'node:util'
import { Schema } from 'effect'
import t from 'tap'
import { decodeStored, encodeEvent } from '../../domain/events.js'
import { fastDecoderOf, fastEncoderOf } from '../../domain/event-validators.js'
import { JobStarted } from '../../domain/job/events.js'
import { ContentMonitorRunFinished } from '../../domain/content-monitor/events.js'
import { DomainEvent, streamCategory, type Category } from '../../domain/streams.js'
import type { ProjectionSpecFile } from '../helpers/projection-spec.js'

/**
 * The compiled validators must decode exactly as the schema does: every event the projection specs record (through
 * the real deciders) decodes to the same value either way, and data the schema would change (an unknown field it
 * drops, a default it applies) or reject never takes the fast path.
 */
const SPECS_DIR = join(dirname(fileURLToPath(import.meta.url)), 'projection-specs')
const histories = await Promise.all(readdirSync(SPECS_DIR).filter((name) => name.endsWith('.ts')).sort()
  .map(async (name) => ((await import(join(SPECS_DIR, name))) as { spec: ProjectionSpecFile }).spec.history()))
const bySchema = Schema.decodeUnknownSync(DomainEvent)

t.test('every recorded event of the projection specs decodes as the schema decodes it', async (t) => {
  const types = new Set<string>()
  let fast = 0
  for (const event of histories.flat()) {
    const expected = bySchema({ ...(event.data as object), _tag: event.type })
    const decoded = decodeStored([streamCategory(event.stream) as Category], event)
    // The same properties in the same order (a document or answer built from the event lists them in that order).
    if (!decoded.ok || !isDeepStrictEqual(decoded.event, expected) || !isDeepStrictEqual(Reflect.ownKeys(decoded.event), Reflect.ownKeys(expected))) {
      t.fail(`${event.type} at position ${event.position} decodes differently`)
      continue
    }
    types.add(event.type)
    if (fastDecoderOf(expected.constructor as unknown as Schema.Schema.AnyNoContext)?.(event.data) !== undefined) fast += 1
  }
  t.ok(types.size >= 30, `${types.size} event types compared`)
  t.ok(fast > 0, `${fast} events took the fast path`)
})

const encodeBySchema = Schema.encodeSync(DomainEvent)

t.test('every recorded event of the projection specs encodes as the schema encodes it', async (t) => {
  let fast = 0
  for (const event of histories.flat()) {
    const decoded = bySchema({ ...(event.data as object), _tag: event.type })
    const { _tag, ...expected } = encodeBySchema(decoded) as { _tag: string } & Record<string, unknown>
    const encoded = encodeEvent(decoded)
    if (encoded.type !== _tag || !isDeepStrictEqual(encoded.data, expected)) t.fail(`${event.type} at position ${event.position} encodes differently`)
    if (fastEncoderOf(decoded.constructor as unknown as Schema.Schema.AnyNoContext)?.(decoded) !== undefined) fast += 1
  }
  t.ok(fast > 0, `${fast} events took the fast path`)
})

t.test('an event built without the constructor\'s check is still validated when it is encoded', async (t) => {
  const unchecked = new JobStarted({ job_id: 'j1', attempt: 'one' as unknown as number, worker_id: 'w', started_at: '2026-06-01T00:00:00.000Z' }, true)
  t.throws(() => encodeEvent(unchecked), 'a wrong type is refused')
  const extra = new JobStarted({ job_id: 'j1', attempt: 1, worker_id: 'w', started_at: '2026-06-01T00:00:00.000Z', added: 1 } as unknown as JobStarted, true)
  t.same(encodeEvent(extra).data, { job_id: 'j1', attempt: 1, worker_id: 'w', started_at: '2026-06-01T00:00:00.000Z' }, 'an unknown field is dropped, as the schema does')
})

t.test('the fast path answers only for data of exactly the schema\'s shape', async (t) => {
  const fast = fastDecoderOf(JobStarted)!
  const data = { job_id: 'j1', attempt: 1, worker_id: 'w', started_at: '2026-06-01T00:00:00.000Z' }
  const decoded = fast(data)
  t.ok(decoded instanceof JobStarted, 'an instance of the event class')
  t.same(decoded, new JobStarted(data))
  t.equal(fast({ ...data, added_later: true }), undefined, 'an unknown field (the schema drops it) goes to the schema')
  t.equal(fast({ ...data, attempt: '1' }), undefined, 'a wrong type goes to the schema')
  const { worker_id: _dropped, ...missing } = data
  t.equal(fast(missing), undefined, 'a missing field goes to the schema')
  const viaStore = decodeStored(['job'], { stream: 'job-j1', type: 'JobStarted', data: { ...data, added_later: true } })
  t.ok(viaStore.ok && !('added_later' in viaStore.event), 'decodeStored drops the unknown field as the schema does')
})

t.test('an event class whose decoding transforms a field (a default) never takes the fast path', async (t) => {
  t.equal(fastDecoderOf(ContentMonitorRunFinished), undefined)
})

t.test('an event class with a refinement (a predicate a JSON Schema cannot carry) never takes the fast path', async (t) => {
  class Refined extends Schema.TaggedClass<Refined>()('Refined', {
    even: Schema.Number.pipe(Schema.filter((n) => n % 2 === 0)),
    count: Schema.Int,
  }) {}
  t.equal(fastDecoderOf(Refined), undefined)
})
