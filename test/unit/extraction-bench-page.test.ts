import t from 'tap'
import { createHash } from 'node:crypto'
import { validateExtraction } from '../../domain/extraction.js'
import { PageContext, runHooks } from '../../fetchers/extraction/index.js'
import { RegexBudget } from '../../fetchers/extraction/regex.js'
import { buildPage, HOOKS } from '../../bench/extraction.js'

const sha = (value: string) => createHash('sha256').update(value).digest('hex').slice(0, 24)

/**
 * The benchmark's page and hooks, pinned: every speed change to extraction must leave each hook's whole result
 * (values, counts, truncation, skipped records) exactly as it was. A hash per hook names the hook that changed.
 */
const PINNED: Record<string, string> = {
  title: '37453a7559575a656797a23f',
  names: '4e9998dd716185a19ec73243',
  links: 'c8b042686c6d01a47d03bed6',
  nav: '4a7a5af3c2b10a358b850781',
  first_price: 'c5ff8ec563ee0b1c38286e42',
  skus: 'f933a12acbcfc3c296d34c3e',
  models: '730cd8dbefbcda146aab5315',
  product_count: 'e263221f5911265dde724ee4',
  heading: '8e89f2305e23c4910344b808',
  images: '92dde41f204821719158acba',
  footer: '6a04ed1e403e199b6cfb213f',
  phones: 'e58270f76e97abc43ff890aa',
  emails: '9c2b855ed5c3ae3f9280d3f0',
  weights: 'd10c65a2aae2630b68092d14',
  copyright: '903de22f51dd4aa239eae4ab',
  org: 'ee7960e73ebefc80e3b41c12',
  offer_prices: '5becee083dea8ba799fb59cb',
  crumbs: 'dc47f867c267f5c2c645a2ab',
  cheap: '53319db424750e014e113ec1',
  products: 'f2fa2084bb46b125343a203e',
  rated: 'c7cb1ca21f224573c7addd19',
  spec_rows: '241f05eb05a20d3c314905ab',
  tags: 'e7d9408a5bb92d86d80c0600',
  missing: '4b8712f1a4878ff374b82193',
  paragraphs: '303218ae1d8934ae7853dac7',
}

t.test('the extraction benchmark page gives exactly the pinned result for each of its 25 hooks', async (t) => {
  const checked = validateExtraction({ hooks: HOOKS })
  if (!checked.value) throw new Error(JSON.stringify(checked.errors))
  const html = buildPage()
  t.equal(sha(html), 'a5e9fd5c81c5b3054793d0c3', 'the page itself is unchanged')
  const page = { url: 'https://shop.example/all', html, body: html, contentType: 'text/html; charset=utf-8' }
  // Budgets out of the way: what is pinned is each hook's result, whatever the machine's load.
  const { hooks } = runHooks(checked.value, new PageContext(page), 600_000, new RegexBudget(600_000))
  t.same(hooks.map((h) => h.hook_id), Object.keys(PINNED), 'one result per hook, in order')
  for (const hook of hooks) t.equal(sha(JSON.stringify(hook)), PINNED[hook.hook_id], `${hook.hook_id} (${hook.type}) is unchanged`)
  t.equal(sha(new PageContext(page).corpus()), '5b3086b933825debacc084b4', 'the visible text regex hooks search is unchanged')
})
