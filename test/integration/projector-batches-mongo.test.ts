import { randomUUID } from 'node:crypto'
import { Effect } from 'effect'
import { MongoClient } from 'mongodb'
import t from 'tap'
import { mongoDocumentStore } from '../../infra/mongo/document-store.js'
import { applyBatch } from '../../infra/roles/projector.js'
import { DocumentStore, type Doc } from '../../ports/document-store.js'
import { specHistories } from '../helpers/projection-spec.js'
import { acquire } from '../helpers/scoped.js'

/**
 * The scale-out projector's batches on the MongoDB protocol (write-behind, reads gathered and, for projections that
 * apply a batch in log order, read ahead) leave the documents that applying each event alone leaves, for every area's
 * projection-spec history, in one batch and in small batches.
 */
const url = process.env.MONGO_URL
if (!url && process.env.REQUIRE_SERVICES === '1') t.fail('MONGO_URL is not set but REQUIRE_SERVICES=1')

t.test('projector batches equal events applied one at a time', { skip: url ? false : 'set MONGO_URL to run it' }, async (t) => {
  const client = await new MongoClient(url!).connect()
  const database = `batches_${randomUUID().slice(0, 8)}`
  const { value: docs, release } = await acquire(mongoDocumentStore({ url: url!, database }))
  t.teardown(async () => { await release(); await client.db(database).dropDatabase(); await client.close() })
  const run = <A, E>(effect: Effect.Effect<A, E, DocumentStore>) => Effect.runPromise(Effect.provideService(effect, DocumentStore, docs))
  const byId = (documents: readonly Doc[]) => [...documents].sort((a, b) => (a._id < b._id ? -1 : a._id > b._id ? 1 : 0))
  for await (const { name, projection, events, expected } of specHistories()) {
    for (const size of [events.length, 7]) {
      for (const collection of projection.collections) await run(docs.clear(collection))
      for (let i = 0; i < events.length; i += size) await run(applyBatch(projection, events.slice(i, i + size)))
      for (const collection of projection.collections) {
        t.same(byId(await run(docs.find(collection, {}))), byId(expected[collection] ?? []), `${name}: ${projection.name} in batches of ${size}: ${collection}`)
      }
    }
  }
})
