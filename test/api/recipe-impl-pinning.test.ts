import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { DEFAULT_RECIPES_DIR } from '../../infra/recipes.js'
import { fixturesOf } from '../helpers/recipe-fixtures.js'
import { startRecipeSite } from '../helpers/recipe-site.js'
import { startService, tempDataDir, type ApiAnswer } from '../helpers/service.js'

/**
 * A job runs the implementation recorded at admission: a run is admitted by a service with no fetcher, the
 * catalogue's implementation then changes (a deploy), and the service restarted on the same data runs the job with
 * the admitted impl 1; a run admitted afterwards gets impl 2. Impl 2 asks for a path the fixture site does not
 * serve (the site answers 599), so a job that ran it would not end ok.
 */
const dir = mkdtempSync(join(tmpdir(), 'recipes-pinning-'))
const file = join(dir, 'code-repo.json')
cpSync(join(DEFAULT_RECIPES_DIR, 'code-repo.json'), file)
const dataDir = tempDataDir('pinning')
const site = await startRecipeSite(['https://api.github.com'])
t.teardown(() => site.close())
const ok = fixturesOf('code-repo').find((f) => f.name === 'ok')!
site.use(ok)
const options = { dataDir, allowlist: [`127.0.0.1:${site.port}`], env: { RECIPES_DIR: dir, RECIPE_ORIGIN_OVERRIDES: site.overrides } }

let running: Awaited<ReturnType<typeof startService>>
let org: { key: string }
let admitted: ApiAnswer
t.teardown(() => running?.close())

t.test('admitted by a service with no fetcher, then the catalogue moves to impl 2', async (t) => {
  const admitting = await startService({ ...options, roles: ['api', 'projector'] })
  org = await admitting.createOrg('pro')
  admitted = await admitting.api('POST', '/v1/recipes/code-repo/runs', { key: org.key, body: { input: ok.input } })
  t.equal(admitted.status, 201)
  t.same(admitted.body.recipe, { slug: 'code-repo', contract: 1, impl: 1 })
  t.equal((await admitting.api('GET', `/v1/jobs/${admitted.body.job_id}`, { key: org.key })).body.status, 'queued', 'no fetcher: the job waits')
  await admitting.close()

  const changed = JSON.parse(readFileSync(file, 'utf8'))
  const implementation = changed.contracts[0].implementation
  implementation.impl = 2
  implementation.steps[0].request.url = 'https://api.github.com/v2/repos/{input.owner}/{input.repo}'
  writeFileSync(file, JSON.stringify(changed))
  running = await startService(options)
})

t.test('the admitted job runs impl 1 after the catalogue moved to impl 2', async (t) => {
  const result = await running.waitForResult(org.key, admitted.body.job_id, 90_000)
  t.equal(result.body.status, 'succeeded', result.body.outcome_detail ?? 'succeeded')
  t.same(result.body.recipe, { slug: 'code-repo', contract: 1, impl: 1, outcome: 'ok' })
  t.same(result.body.output, ok.expect.output, 'impl 1\'s request and extraction')
  t.equal(result.body.manifest.recipe.impl, 1)
  t.same(site.unmatched, [], 'impl 2\'s path was never asked for')
})

t.test('a run admitted now gets impl 2', async (t) => {
  const now = await running.api('POST', '/v1/recipes/code-repo/runs', { key: org.key, body: { input: ok.input } })
  t.same(now.body.recipe, { slug: 'code-repo', contract: 1, impl: 2 })
  const result = await running.waitForResult(org.key, now.body.job_id, 90_000)
  t.match(result.body.recipe, { slug: 'code-repo', contract: 1, impl: 2 })
  t.not(result.body.recipe.outcome, 'ok', 'impl 2 ran: its path is not served')
  t.match(site.unmatched, [/\/v2\/repos\//])
})
