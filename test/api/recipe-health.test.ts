import { cpSync, mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { DEFAULT_ROLES } from '../../infra/config.js'
import { makeManualClock } from '../../infra/clock/manual.js'
import { DEFAULT_RECIPES_DIR } from '../../infra/recipes.js'
import { fixturesOf } from '../helpers/recipe-fixtures.js'
import { startRecipeSite } from '../helpers/recipe-site.js'
import { startService, waitFor } from '../helpers/service.js'

/**
 * Health from test runs on a manual clock: one test run per recipe every RECIPE_HEALTH_INTERVAL_MINUTES, No data
 * yet before the first, Operational after a pass, Degraded after two consecutive failures, refusals reported
 * apart, Operational again after two passes. Test runs cost nothing.
 */
const dir = mkdtempSync(join(tmpdir(), 'recipes-health-'))
cpSync(join(DEFAULT_RECIPES_DIR, 'code-repo.json'), join(dir, 'code-repo.json'))
const fixture = (name: string) => fixturesOf('code-repo').find((f) => f.name === name)!
const site = await startRecipeSite(['https://api.github.com'])
site.use(fixture('ok'))
const clock = makeManualClock('2026-01-05T10:07:00Z')
const svc = await startService({
  clock, roles: [...DEFAULT_ROLES, 'recipe-health'], allowlist: [`127.0.0.1:${site.port}`],
  env: { RECIPES_DIR: dir, RECIPE_ORIGIN_OVERRIDES: site.overrides, RECIPE_HEALTH_INTERVAL_MINUTES: '15' },
})
t.teardown(async () => { await svc.close(); await site.close() })
const org = await svc.createOrg('pro')

const health = async () => (await svc.api('GET', '/v1/recipes/code-repo', { key: org.key })).body.health
const until = async (expected: Record<string, unknown>) => {
  await waitFor(async () => {
    const now = await health()
    return Object.entries(expected).every(([k, v]) => now[k] === v)
  }, 60_000, 50)
  return health()
}
const tick = (name: string) => { site.use(fixture(name)); clock.advance(15 * 60_000) }

t.test('transitions', async (t) => {
  t.match(await until({ state: 'operational', last_outcome: 'ok' }), { consecutive_passes: 1 }, 'the first slot runs at start: Operational')
  t.equal(site.received.length, 1, 'one test run for the slot')
  tick('layout_changed')
  t.match(await until({ last_outcome: 'layout_changed', consecutive_failures: 1 }), { state: 'operational' }, 'one failure is not enough')
  tick('upstream_error')
  t.match(await until({ consecutive_failures: 2 }), { state: 'degraded', last_outcome: 'upstream_error' }, 'two consecutive failures: Degraded')
  tick('rate_limited')
  t.match(await until({ site_refusal: 'rate_limited' }), { state: 'degraded', consecutive_failures: 2 }, 'rate_limited is reported apart')
  tick('blocked')
  t.match(await until({ site_refusal: 'blocked' }), { state: 'degraded' }, 'blocked is reported apart')
  tick('ok')
  t.match(await until({ consecutive_passes: 1 }), { state: 'degraded', site_refusal: null }, 'one pass is not enough to recover')
  tick('ok')
  t.match(await until({ consecutive_passes: 2 }), { state: 'operational' }, 'two passes: Operational again')
  t.equal(site.received.length, 7, 'one test run per slot')
  const usage = await svc.api('GET', '/v1/usage', { key: org.key })
  t.equal(usage.body.credits_used, 0, 'test runs are not billed to anyone')
})
