import t from 'tap'
import { jobDecider, type JobCommand } from '../../domain/job/decider.js'
import { CreditsCharged, JobRequested, JobStarted } from '../../domain/job/events.js'
import type { JobOrigin } from '../../domain/job/origin.js'
import { validateJobSpec, type JobSpec } from '../../domain/job/spec.js'
import type { RecipeRunRecord, RecipeRunSpec } from '../../domain/recipe/run-spec.js'

// A job's charge is decided once, by the job decider with its end (domain/credits/charge.ts): given a job's request
// (with its origin) and start, when it ends, then the CreditsCharged appended with the end, if it cost anything.

const NOW = '2026-05-01T12:00:00.000Z'
const END = '2026-05-01T12:05:00.000Z'
const specOf = (input: Record<string, unknown>): JobSpec => {
  const checked = validateJobSpec(input, { allowlist: new Set(), isTimeZone: () => true })
  if (!checked.ok) throw new Error('invalid spec')
  return checked.spec
}
const history = (origin: JobOrigin, spec: JobSpec) => [
  new JobRequested({ job_id: 'j', org_id: 'o', api_key_id: origin._tag === 'api' || origin._tag === 'recipe_run' ? 'k' : null, spec, credit_weight: 0, requested_at: NOW, origin }),
  new JobStarted({ job_id: 'j', attempt: 1, worker_id: 'w', started_at: NOW }),
]
const succeed = (manifest: Record<string, unknown>, recipe?: RecipeRunRecord): JobCommand => ({ _tag: 'SucceedJob', job_id: 'j', manifest, artifacts: [], now: END, ...(recipe ? { recipe } : {}) })
const fail: JobCommand = { _tag: 'FailJob', job_id: 'j', failure_reason: 'network_error', message: 'refused', now: END }
const chargeOf = (events: readonly { readonly _tag: string }[]) => events.filter((e): e is CreditsCharged => e._tag === 'CreditsCharged')
const charged = (credits: number, reason: CreditsCharged['reason']) => new CreditsCharged({ job_id: 'j', org_id: 'o', credits, reason, charged_at: END })

const decided = (origin: JobOrigin, spec: JobSpec, command: JobCommand) => {
  const result = jobDecider.decide(command, history(origin, spec).reduce(jobDecider.evolve, jobDecider.initialState))
  if (result._tag === 'Left') throw new Error(result.left._tag)
  return chargeOf(result.right)
}

const API: JobOrigin = { _tag: 'api' }
const RUN: JobOrigin = { _tag: 'monitor_run', monitor_id: 'm', run_id: 'r' }
for (const [tier, weight] of [['light', 1], ['standard', 5], ['stealth', 30]] as const) {
  const spec = specOf({ job_type: tier, target_url: 'https://example.com/' })
  t.same(decided(API, spec, succeed({ http_status: 200 })), [charged(weight, 'job_succeeded')], `a succeeded ${tier} job costs ${weight}`)
  t.same(decided(API, spec, succeed({ http_status: 404 })), [charged(weight, 'job_succeeded')], `a ${tier} page stored though it answered 404 costs ${weight}`)
  t.same(decided(API, spec, fail), [], `a failed ${tier} job costs nothing`)
  t.same(decided(RUN, spec, succeed({ http_status: 200 })), [charged(weight, 'monitor_run_delivered')], `a delivered ${tier} monitor run costs ${weight}`)
  t.same(decided(RUN, spec, succeed({ http_status: 403 })), [], `a ${tier} monitor run the target blocked costs nothing`)
  t.same(decided(RUN, spec, succeed({ http_status: 404 })), [], `a ${tier} monitor run the target answered 404 costs nothing`)
  t.same(decided({ _tag: 'scrape', user_id: 'u' }, spec, succeed({ http_status: 200 })), [charged(weight, 'job_succeeded')], `a ${tier} scrape costs its weight`)
}

const perPage: RecipeRunSpec = { slug: 'issues', contract: 1, impl: 1, input: {}, max_pages: 5, unit_price: 2, reserved_units: 5, test_run: false }
const recipeSpec = { ...specOf({ job_type: 'light', target_url: 'https://example.com/' }), recipe: perPage }
const RECIPE: JobOrigin = { _tag: 'recipe_run', slug: 'issues', contract: 1, impl: 1 }
const ran = (outcome: RecipeRunRecord['outcome'], units: number): RecipeRunRecord => ({ outcome, pages: units, units, detail: null, matched: {} })
t.same(decided(RECIPE, recipeSpec, succeed({}, ran('ok', 3))), [charged(6, 'recipe_units')], 'a recipe run costs its units at its unit price')
t.same(decided(RECIPE, recipeSpec, succeed({}, ran('ok', 9))), [charged(10, 'recipe_units')], 'never more units than it reserved')
t.same(decided(RECIPE, recipeSpec, { ...fail, recipe: ran('schema_invalid', 2) }), [], 'an unbilled outcome costs nothing')
t.same(decided({ _tag: 'service', name: 'recipe-health' }, { ...recipeSpec, recipe: { ...perPage, unit_price: 0, test_run: true } }, succeed({}, ran('ok', 1))), [], 'a health test run costs nothing')
