import t from 'tap'
import { scenario } from '../helpers/given-when-then.js'
import { jobDecider, type JobCommand } from '../../domain/job/decider.js'
import { JobFailed, JobRequested, JobStarted } from '../../domain/job/events.js'
import { ATTEMPT_GRACE_MS, INTERRUPTED_REASON, MAX_JOB_STARTS } from '../../domain/job/restart.js'
import { validateJobSpec } from '../../domain/job/spec.js'

// A job whose attempts keep being interrupted is failed instead of being started again (docs/poison-jobs.md).
const given = scenario(t, jobDecider)
const checked = validateJobSpec({ job_type: 'light', target_url: 'https://example.com/page', timeout_ms: 30_000 }, { allowlist: new Set(), isTimeZone: () => true })
if (!checked.ok) throw new Error('invalid test spec')
const spec = checked.spec
const T0 = Date.parse('2024-05-01T12:00:00.000Z')
const at = (ms: number) => new Date(T0 + ms).toISOString()

const requested = new JobRequested({ job_id: 'j1', org_id: 'o1', api_key_id: null, spec, credit_weight: 1, requested_at: at(0), origin: { _tag: 'api' } })
const started = (attempt: number, ms: number) => new JobStarted({ job_id: 'j1', attempt, worker_id: `w${attempt}`, started_at: at(ms) })
const start = (ms: number): JobCommand => ({ _tag: 'StartJob', job_id: 'j1', worker_id: 'next', now: at(ms) })
const interrupted = (ms: number, message: string) =>
  new JobFailed({ job_id: 'j1', failure_reason: INTERRUPTED_REASON, message, finished_at: at(ms), origins: ['api'], origin: { _tag: 'api' } })

t.equal(MAX_JOB_STARTS, 3, 'the documented cap: three starts')
// The deadline of an attempt: its timeout_ms (30 s here) and the grace.
const DEADLINE = 30_000 + ATTEMPT_GRACE_MS

given([requested, started(1, 0)]).when(start(5_000))
  .then([new JobStarted({ job_id: 'j1', attempt: 2, worker_id: 'next', started_at: at(5_000) })], 'interrupted once, within its deadline: started again')
given([requested, started(1, 0), started(2, 1_000)]).when(start(2_000))
  .then([new JobStarted({ job_id: 'j1', attempt: 3, worker_id: 'next', started_at: at(2_000) })], 'interrupted twice: the third start is the last one')
given([requested, started(1, 0), started(2, 1_000), started(3, 2_000)]).when(start(3_000))
  .then([interrupted(3_000, 'the job was started 3 times and every attempt was interrupted before it ended; it is not started again')], 'started 3 times and interrupted again: it fails instead of a fourth start')
given([requested, started(1, 0)]).when(start(DEADLINE + 1))
  .then([interrupted(DEADLINE + 1, `attempt 1 was interrupted and its deadline (${at(DEADLINE)}) has passed; the job is not started again`)], 'its attempt was interrupted past its deadline: it fails, whatever the count')
given([requested, started(1, 0)]).when(start(DEADLINE))
  .then([new JobStarted({ job_id: 'j1', attempt: 2, worker_id: 'next', started_at: at(DEADLINE) })], 'at the deadline itself it may still start again')
given([requested]).when(start(DEADLINE * 10))
  .then([new JobStarted({ job_id: 'j1', attempt: 1, worker_id: 'next', started_at: at(DEADLINE * 10) })], 'a job waiting in its queue however long starts: only an interrupted attempt counts')
given([requested, started(1, 0), started(2, 1_000), started(3, 2_000), interrupted(3_000, 'x')]).when(start(4_000))
  .then({ _tag: 'StateConflict', code: 'job_finished' }, 'once failed, a redelivered request starts nothing')
