import t from 'tap'
import { join } from 'node:path'
import { Effect, Layer } from 'effect'
import { encodeEvent } from '../../domain/events.js'
import { JobFailed, JobRequested, JobSucceeded } from '../../domain/job/events.js'
import { validateJobSpec } from '../../domain/job/spec.js'
import { STREAMS } from '../../domain/streams.js'
import { creditsProjection, CREDIT_USAGE, keyDayCounterId, orgCounterId, usageId, USAGE_COUNTERS } from '../../projections/credits.js'
import { DocumentStore } from '../../ports/document-store.js'
import { makeSqliteDocumentStore } from '../../infra/sqlite/document-store.js'
import type { RecordedEvent } from '../../ports/event-store.js'
import { tempDataDir } from '../helpers/service.js'

const docs = makeSqliteDocumentStore(join(tempDataDir('ledger'), 'readmodels.db'))
t.teardown(() => docs.db.close())
const apply = (event: RecordedEvent) => Effect.runPromise(Effect.provide(creditsProjection.apply(event), Layer.succeed(DocumentStore, docs)))

const checked = validateJobSpec({ job_type: 'light', target_url: 'https://example.com/' }, { allowlist: new Set(), isTimeZone: () => true })
if (!checked.ok) throw new Error('invalid test spec')
const spec = checked.spec

let position = 0
const recorded = (event: JobRequested | JobSucceeded | JobFailed): RecordedEvent => ({
  event_id: `e${++position}`, stream: STREAMS.job.stream(event.job_id), revision: 0, position, org_id: 'org-1',
  occurred_at: '2026-11-21T00:00:00.000Z', metadata: { correlation_id: 'c', causation_id: null, actor: 't' }, ...encodeEvent(event),
})

t.test('a succeeded job is charged its weight once, however often its events arrive', async (t) => {
  const request = (job_id: string, credit_weight: number) => recorded(new JobRequested({
    job_id, org_id: 'org-1', api_key_id: 'key-1', spec, credit_weight, requested_at: '2026-11-21T00:00:00.000Z', origin: { _tag: 'api' },
  }))
  const finished_at = '2026-11-21T01:00:00.000Z'
  const requested = [request('a', 30), request('b', 5), request('c', 1)]
  const finished = [
    recorded(new JobSucceeded({ job_id: 'a', manifest: {}, artifacts: [], finished_at })),
    recorded(new JobFailed({ job_id: 'b', failure_reason: 'timeout', message: 'timed out', finished_at })),
    recorded(new JobSucceeded({ job_id: 'c', manifest: {}, artifacts: [], finished_at })),
  ]
  for (const e of [...requested, ...finished]) await apply(e)
  // Redelivery (at-least-once): the same events again, in order and out of order.
  for (const e of [...finished, ...requested, finished[0]!]) await apply(e)
  const usage = await Effect.runPromise(docs.get(CREDIT_USAGE.name, usageId('org-1', '2026-11')))
  t.equal(usage?.credits_used, 31, 'stealth 30 + light 1; the failed standard job costs nothing')
  t.equal(usage?.jobs_charged, 2)
  const counters = await Effect.runPromise(docs.get(USAGE_COUNTERS.name, orgCounterId('org-1')))
  t.equal(counters?.active_jobs, 0, 'every job finished: nothing active')
  t.equal(counters?.reserved_credits, 0)
  t.equal((await Effect.runPromise(docs.get(USAGE_COUNTERS.name, keyDayCounterId('key-1', '2026-11-21'))))?.jobs, 3)
})
