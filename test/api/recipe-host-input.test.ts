import t from 'tap'
import { DEFAULT_RECIPES_DIR, loadRecipeCatalogue } from '../../infra/recipes.js'
import { fixturesOf } from '../helpers/recipe-fixtures.js'
import { startRecipeSite } from '../helpers/recipe-site.js'
import { startService } from '../helpers/service.js'

/**
 * Recipes whose server is an input (social-b-hashtag, social-b-trends): the host comes only from an enum of the
 * recipe's declared hosts. Through the real service, a hostile or merely undeclared server is refused with 422
 * invalid_recipe_input before any job exists, and a declared server other than the default is the one reached.
 */
const hashtag = loadRecipeCatalogue(DEFAULT_RECIPES_DIR).get('social-b-hashtag')!
const site = await startRecipeSite(hashtag.hosts)
const svc = await startService({ allowlist: [`127.0.0.1:${site.port}`], env: { RECIPE_ORIGIN_OVERRIDES: site.overrides } })
t.teardown(async () => { await svc.close(); await site.close() })

const HOSTILE = [
  'evil.example', '127.0.0.1', 'localhost', 'mastodon.social.evil.example', 'evil.example/mastodon.social', 'mastodon.social:8080',
  'user@mastodon.social', 'mastodon.social/', 'MASTODON.SOCIAL', 'https://mastodon.social', '', 'metadata.google.internal', '169.254.169.254',
]

for (const slug of ['social-b-hashtag', 'social-b-trends']) {
  t.test(`${slug}: a server outside the enum is 422 invalid_recipe_input and starts nothing`, async (t) => {
    const org = await svc.createOrg('pro')
    site.received.length = 0
    for (const server of HOSTILE) {
      const answer = await svc.api('POST', `/v1/recipes/${slug}/runs`, { key: org.key, body: { input: { server, hashtag: 'rust' } } })
      t.equal(answer.status, 422, `${JSON.stringify(server)}: 422`)
      t.equal(answer.body.error?.code, 'invalid_recipe_input')
      t.ok(answer.body.error?.details?.some((d: { field: string }) => d.field === 'input.server'), 'the detail names input.server')
    }
    const usage = (await svc.api('GET', '/v1/usage', { key: org.key })).body as { credits_used: number; credits_reserved: number }
    t.same([usage.credits_used, usage.credits_reserved], [0, 0], 'nothing reserved or charged')
    t.same(site.received, [], 'no request reached any site')
  })
}

t.test('a declared server other than the default is the one reached', async (t) => {
  const org = await svc.createOrg('pro')
  const fixture = fixturesOf('social-b-hashtag').find((f) => f.name === 'ok_other_server')!
  site.use(fixture)
  site.received.length = 0
  const answer = await svc.api('POST', '/v1/recipes/social-b-hashtag/runs', { key: org.key, body: { input: fixture.input } })
  t.equal(answer.status, 201)
  const result = await svc.waitForResult(org.key, answer.body.job_id)
  t.equal(result.body.recipe.outcome, 'ok', result.body.outcome_detail ?? '')
  t.strictSame(result.body.output, fixture.expect.output)
  t.same(site.received.map((r) => new URL(r.url).origin), ['https://fosstodon.org'])
  t.same(site.unmatched, [])
})
