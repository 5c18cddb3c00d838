import t, { type Test } from 'tap'
import { decodeStored } from '../../domain/events.js'
import { legacyEvents, legacyReadModels, projectEvery } from '../helpers/legacy-log.js'

type AuditRecord = { readonly type?: string; readonly detail?: Record<string, unknown> }

/**
 * The audit record of a JobRequested shows the event as this version reads it, upcast origin included: the one
 * difference an upcast may make to a read model. Taken out (after checking it is there) before comparing.
 */
const withoutUpcastOrigins = (t: Test, records: readonly AuditRecord[]) => records.map((record) => {
  if (record.type !== 'JobRequested' || !record.detail) return record
  const { origin, ...detail } = record.detail
  t.ok(origin, 'an upcast JobRequested carries its origin')
  return { ...record, detail }
})

/**
 * A log recorded by older code (test/fixtures/legacy-log, see its README) must replay through today's projections to
 * the read models that code built: a changed event schema upcasts old events on read instead of changing history.
 */
t.test('the legacy log replays to the read models it was recorded with', async (t) => {
  const events = legacyEvents()
  t.ok(events.length > 100, `${events.length} events`)
  // Compared as JSON, the form the fixture was written in.
  const replayed = JSON.parse(JSON.stringify(await projectEvery(events))) as ReturnType<typeof legacyReadModels>
  const recorded = legacyReadModels()
  t.same(Object.keys(replayed).sort(), Object.keys(recorded).sort(), 'the same projections')
  for (const [name, collections] of Object.entries(recorded)) {
    for (const [collection, documents] of Object.entries(collections)) {
      const actual = replayed[name]?.[collection] ?? []
      t.same(name === 'projection.audit' ? withoutUpcastOrigins(t, actual as readonly AuditRecord[]) : actual, documents, `${name}: ${collection}`)
    }
  }
})

t.test('old provenance markers upcast to the origins they implied, and only on jobs the service submitted', async (t) => {
  const origins = legacyEvents().filter((e) => e.type === 'JobRequested').map((e) => {
    const decoded = decodeStored(['job'], e)
    if (!decoded.ok || decoded.event._tag !== 'JobRequested') throw new Error(`JobRequested at ${e.position} does not decode`)
    return decoded.event.origin._tag
  })
  const counts = Object.fromEntries([...new Set(origins)].map((kind) => [kind, origins.filter((o) => o === kind).length]))
  t.same(counts, { api: 5, scrape: 2, content_monitor_run: 3, monitor_run: 8, recipe_run: 3 }, 'every marker of the fixture becomes its origin (README counts)')

  const forged = legacyEvents().find((e) => e.type === 'JobRequested' && (e.data as { api_key_id: string | null }).api_key_id !== null)!
  const data = forged.data as { spec: { tags: string[] } }
  const asForged = { ...forged, data: { ...data, spec: { ...data.spec, tags: ['scrape-by:someone-else', 'content-monitor:not-mine'], idempotency_token: 'monitor-run:m:r' } } }
  const decoded = decodeStored(['job'], asForged)
  t.ok(decoded.ok && decoded.event._tag === 'JobRequested' && decoded.event.origin._tag === 'api', 'markers on a job submitted with an API key were the customer\'s: a plain API job')
})
