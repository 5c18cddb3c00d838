import type { Test } from 'tap'
import { handle } from '../../../commands/handle.js'
import { STREAMS } from '../../../domain/streams.js'
import { jobDecider, type JobCommand } from '../../../domain/job/decider.js'
import { validateJobSpec } from '../../../domain/job/spec.js'
import { HEALTH_ORG_ID } from '../../../domain/recipe/health.js'
import type { RecipeRunRecord, RecipeRunSpec } from '../../../domain/recipe/run-spec.js'
import type { Doc } from '../../../ports/document-store.js'
import type { RecordedEvent } from '../../../ports/event-store.js'
import { memoryServices, TEST_METADATA } from '../../helpers/memory-services.js'
import type { Documents, ProjectionSpecFile } from '../../helpers/projection-spec.js'

// ---- recipe runs: a page-billed run, a run refused by its site, and health test runs through every kind of ending ----

const ORG = 'org-r'
const at = (minute: number) => new Date(Date.UTC(2024, 4, 31, 22, minute)).toISOString()
const lightSpec = () => {
  const result = validateJobSpec({ job_type: 'light', target_url: 'https://api.github.com/' }, { allowlist: new Set(), isTimeZone: () => true })
  if (!result.ok) throw new Error(`invalid test spec: ${JSON.stringify(result.errors)}`)
  return result.spec
}
const issues: RecipeRunSpec = { slug: 'code-issues', contract: 1, impl: 1, input: { owner: 'o', repo: 'r', state: 'open' }, max_pages: 5, unit_price: 1, reserved_units: 5, test_run: false }
const testRun: RecipeRunSpec = { ...issues, slug: 'code-repo', max_pages: 1, unit_price: 0, reserved_units: 1, test_run: true }
const record = (outcome: RecipeRunRecord['outcome'], pages: number, credits: number): RecipeRunRecord =>
  ({ outcome, pages, units: credits, detail: null, matched: {}, ...(outcome === 'ok' ? { output: {} } : {}) })

type WithoutJobId<C> = C extends unknown ? Omit<C, 'job_id'> : never

const recordHistory = async (): Promise<readonly RecordedEvent[]> => {
  const { run, events } = memoryServices()
  const job = (jobId: string, orgId: string) => (c: WithoutJobId<JobCommand>) =>
    run(handle(jobDecider, STREAMS.job.stream(jobId), { ...c, job_id: jobId } as JobCommand, { org_id: orgId, metadata: { ...TEST_METADATA, actor: 'test' } }))
  const runRecipe = async (jobId: string, orgId: string, block: RecipeRunSpec, minute: number, ending: RecipeRunRecord) => {
    await job(jobId, orgId)({ _tag: 'RequestJob', origin: block.test_run ? { _tag: 'service', name: 'recipe-health' } : { _tag: 'recipe_run', slug: block.slug, contract: block.contract, impl: block.impl }, org_id: orgId, api_key_id: orgId === ORG ? 'k1' : null, spec: { ...lightSpec(), recipe: block }, now: at(minute) })
    await job(jobId, orgId)({ _tag: 'StartJob', worker_id: 'w1', now: at(minute) })
    await job(jobId, orgId)(ending.outcome === 'ok' || ending.outcome === 'ok_empty' || ending.outcome === 'not_found'
      ? { _tag: 'SucceedJob', manifest: {}, artifacts: [], recipe: ending, now: at(minute + 1) }
      : { _tag: 'FailJob', failure_reason: ending.outcome, message: ending.outcome, recipe: ending, now: at(minute + 1) })
  }
  // 5 pages reserved at 1 credit, 2 fetched and charged, 3 released; then a rate-limited run, free.
  await runRecipe('r1', ORG, issues, 1, record('ok', 2, 2))
  await runRecipe('r2', ORG, issues, 3, record('rate_limited', 1, 0))
  // Health test runs of code-repo: a pass (Operational), two failures (Degraded), a refusal (reported apart), one pass (still Degraded).
  const endings = [record('ok', 1, 0), record('layout_changed', 1, 0), record('schema_invalid', 1, 0), record('blocked', 1, 0), record('ok', 1, 0)]
  for (const [i, ending] of endings.entries()) await runRecipe(`t${i + 1}`, HEALTH_ORG_ID, testRun, 10 + 2 * i, ending)
  // A test run still under way counts for nothing.
  await job('t6', HEALTH_ORG_ID)({ _tag: 'RequestJob', origin: { _tag: 'service', name: 'recipe-health' }, org_id: HEALTH_ORG_ID, api_key_id: null, spec: { ...lightSpec(), recipe: testRun }, now: at(30) })
  return run(events.readAll(0, 10_000))
}

const byId = (docs: readonly Doc[], id: string) => docs.find((d) => d._id === id)

const expectations: Readonly<Record<string, (t: Test, documents: Documents) => void>> = {
  'projection.credits': (t, { credit_usage, usage_counters }) => {
    t.same(credit_usage!.map((u) => [u._id, u.credits_used, u.jobs_charged]), [[`${ORG}:2024-05`, 2, 1]],
      'the recipe run its two pages fetched; the refused run and the test runs nothing')
    t.match(byId(usage_counters!, `org:${ORG}`), { active_jobs: 0, reserved_credits: 0 }, 'every reservation released')
    t.match(byId(usage_counters!, `org:${HEALTH_ORG_ID}`), { active_jobs: 1, reserved_credits: 0 }, 'test runs reserve nothing')
  },
  'projection.jobs': (t, { jobs }) => {
    t.match(byId(jobs!, 'r1'), { status: 'succeeded', credit_weight: 5, credits_charged: 2, recipe_run: { outcome: 'ok', pages: 2, units: 2 } }, 'charged its units, as its CreditsCharged says')
    t.match(byId(jobs!, 'r2'), { status: 'failed', failure_reason: 'rate_limited', credits_charged: 0, recipe_run: { outcome: 'rate_limited' } }, 'an unbilled outcome: charged nothing')
    t.match(byId(jobs!, 't2'), { credit_weight: 0, failure_reason: 'layout_changed' })
  },
  'projection.audit': (t, { audit }) => {
    const succeeded = audit!.find((e) => e.type === 'JobSucceeded' && (e.detail as { job_id?: string }).job_id === 'r1')
    t.match(succeeded, { detail: { recipe: { outcome: 'ok', pages: 2, units: 2 } } }, 'the audit log keeps how a recipe run ended')
    t.match(audit!.find((e) => e.type === 'CreditsCharged' && (e.detail as { job_id?: string }).job_id === 'r1'), { detail: { credits: 2, reason: 'recipe_units' } }, 'and what it cost')
    t.notOk('output' in ((succeeded?.detail as { recipe?: object } | undefined)?.recipe ?? { output: 'missing entry' }), 'but not its output: scraped data leaves with the purge')
  },
  'projection.recipe-health': (t, { recipe_health, recipe_test_runs }) => {
    t.same(recipe_health!.map((h) => ({ ...h, _position: 0 })), [{
      _id: 'code-repo', _position: 0, slug: 'code-repo', state: 'degraded', consecutive_failures: 0, consecutive_passes: 1,
      last_outcome: 'ok', last_test_at: at(19), site_refusal: null, last_refusal_at: at(17),
    }], 'Degraded after two failures; a refusal between changes nothing; one pass is not yet enough to recover')
    t.equal(recipe_test_runs!.filter((r) => r.counted).length, 5, 'each finished test run counted once')
    t.equal(recipe_test_runs!.length, 6)
  },
}

export const spec: ProjectionSpecFile = { history: recordHistory, expectations }
