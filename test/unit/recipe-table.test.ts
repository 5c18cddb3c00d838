import { readFileSync } from 'node:fs'
import t from 'tap'
import type { Recipe } from '../../domain/recipe/types.js'
import { TABLE_FILE, TABLE_END, TABLE_START, outcomesCovered, recipeTable, shippedRecipeTable, withTable } from '../../scripts/recipe-table.js'

/** The recipe table of docs/recipes.md is generated (scripts/recipe-table.ts): it must match the shipped recipes and fixtures. */
t.test("the recipe table of docs/recipes.md is the generated one", async (t) => {
  const document = readFileSync(TABLE_FILE, 'utf8')
  t.ok(withTable(document, shippedRecipeTable()) === document, "docs/recipes.md's recipe table is stale: run node --import tsx scripts/recipe-table.ts --write")
})

const recipe = (slug: string, extra: Partial<Recipe>, contracts: object[]): Recipe =>
  ({ slug, title: slug, category: 'Testing', status: 'beta', hosts: ['https://api.example.com', 'https://www.example.com:8443'], contracts, ...extra }) as unknown as Recipe
const contract = (n: number, engine: string, credits: number, billing: object) => ({ contract: n, engine, credits_per_unit: credits, billing })

t.test('one row per recipe by slug: the newest contract, site falling back to the hosts, pipes escaped', async (t) => {
  const catalogue = new Map([
    ['b-news', recipe('b-news', { site: 'News RSS `/rss/{section}.xml`', notes: 'sections a|b' }, [contract(2, 'stealth', 12, { unit: 'page', per: '20 items' }), contract(1, 'light', 1, { unit: 'run' })])],
    ['a-api', recipe('a-api', {}, [contract(1, 'light', 1, { unit: 'run' })])],
  ])
  const outcomes: Record<string, string[]> = { 'b-news': ['layout_changed', 'ok', 'not_found', 'ok'], 'a-api': [] }
  t.equal(recipeTable(catalogue, (slug) => outcomes[slug]!), [
    '| slug | site | engine | billing unit | credits per unit | outcomes covered by fixtures | notes |',
    '|---|---|---|---|---|---|---|',
    '| `a-api` | api.example.com, www.example.com:8443 | light | run | 1 |  |  |',
    '| `b-news` | News RSS `/rss/{section}.xml` | stealth | page (20 items) | 12 | ok ×2, not_found, layout_changed | sections a\\|b |',
  ].join('\n'))
})

t.test('outcomes in SPEC 3.5 order, unknown ones last', async (t) => {
  t.equal(outcomesCovered(['layout_changed', 'rate_limited', 'ok_empty', 'ok', 'blocked', 'upstream_error', 'not_found', 'rate_limited']),
    'ok, ok_empty, not_found, blocked, rate_limited ×2, upstream_error, layout_changed')
  t.equal(outcomesCovered(['zzz', 'ok']), 'ok, zzz')
})

t.test('the table goes between the markers, replacing what was there; missing markers are an error', async (t) => {
  const readme = `# R\n\n${TABLE_START}\nold table\n${TABLE_END}\n\nafter\n`
  const once = withTable(readme, '| new |')
  t.equal(once, `# R\n\n${TABLE_START}\n| new |\n${TABLE_END}\n\nafter\n`)
  t.equal(withTable(once, '| new |'), once, 'writing again changes nothing')
  t.throws(() => withTable('# R\n', '| new |'), /needs the markers/)
  t.throws(() => withTable(`${TABLE_END}\n${TABLE_START}\n`, '| new |'), /in that order/)
})
