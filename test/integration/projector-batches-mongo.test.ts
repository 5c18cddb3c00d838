import { randomUUID } from 'node:crypto'
import { readdirSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Effect } from 'effect'
import { MongoClient } from 'mongodb'
import t from 'tap'
import { mongoDocumentStore } from '../../infra/mongo/document-store.js'
import { applyBatch } from '../../infra/roles/projector.js'
import { streamCategory } from '../../domain/streams.js'
import { PROJECTIONS } from '../../projections/index.js'
import { DocumentStore, type Doc } from '../../ports/document-store.js'
import { project, type ProjectionSpecFile } from '../helpers/projection-spec.js'
import { acquire } from '../helpers/scoped.js'

/**
 * The scale-out projector's batches on the MongoDB protocol (write-behind, reads gathered and, for projections that
 * apply a batch in log order, read ahead) leave the documents that applying each event alone leaves, for every area's
 * projection-spec history, in one batch and in small batches.
 */
const url = process.env.MONGO_URL
if (!url && process.env.REQUIRE_SERVICES === '1') t.fail('MONGO_URL is not set but REQUIRE_SERVICES=1')
const SPECS_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', 'unit', 'projection-specs')

t.test('projector batches equal events applied one at a time', { skip: url ? false : 'set MONGO_URL to run it' }, async (t) => {
  const client = await new MongoClient(url!).connect()
  const database = `batches_${randomUUID().slice(0, 8)}`
  const { value: docs, release } = await acquire(mongoDocumentStore({ url: url!, database }))
  t.teardown(async () => { await release(); await client.db(database).dropDatabase(); await client.close() })
  const run = <A, E>(effect: Effect.Effect<A, E, DocumentStore>) => Effect.runPromise(Effect.provideService(effect, DocumentStore, docs))
  const byId = (documents: readonly Doc[]) => [...documents].sort((a, b) => (a._id < b._id ? -1 : a._id > b._id ? 1 : 0))
  for (const name of readdirSync(SPECS_DIR).filter((file) => file.endsWith('.ts')).sort()) {
    const { spec } = (await import(join(SPECS_DIR, name))) as { spec: ProjectionSpecFile }
    const history = await spec.history()
    for (const projection of PROJECTIONS) {
      const events = history.filter((event) => projection.categories.includes(streamCategory(event.stream)))
      if (events.length === 0) continue
      const expected = await project(projection, events)
      for (const size of [events.length, 7]) {
        for (const collection of projection.collections) await run(docs.clear(collection))
        for (let i = 0; i < events.length; i += size) await run(applyBatch(projection, events.slice(i, i + size)))
        for (const collection of projection.collections) {
          t.same(byId(await run(docs.find(collection, {}))), byId(expected[collection] ?? []), `${name}: ${projection.name} in batches of ${size}: ${collection}`)
        }
      }
    }
  }
})
