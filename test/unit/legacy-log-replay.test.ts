import t from 'tap'
import { decodeStored } from '../../domain/events.js'
import { legacyEvents, legacyReadModels, projectEvery } from '../helpers/legacy-log.js'

/**
 * The audit trail's records changed shape in the same release (issue 32: every category audited, more fields kept as
 * digests), so they are compared by what no shape change may lose: one record per audited event, at its position.
 */
const AUDIT = 'projection.audit'
const positionsOf = (records: readonly Record<string, unknown>[]) => records.map((r) => `${String(r.position)}:${String(r.type)}`).sort()

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
      // Every document and field the old code built, with the same values; fields added since (a default for old
      // events, e.g. a user's role) may come along.
      if (name !== AUDIT) {
        t.equal(actual.length, documents.length, `${name}: ${collection}: as many documents`)
        t.match(actual, documents, `${name}: ${collection}`)
      }
      else {
        const kept = new Set(positionsOf(actual))
        t.same(positionsOf(documents).filter((p) => !kept.has(p)), [], `${name}: ${collection}: every event audited before is audited still`)
      }
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
