import t from 'tap'
import { legacyEvents, legacyReadModels, projectEvery } from '../helpers/legacy-log.js'

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
    for (const [collection, documents] of Object.entries(collections)) t.same(replayed[name]?.[collection], documents, `${name}: ${collection}`)
  }
})
