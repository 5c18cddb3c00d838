import t from 'tap'
import { runRecipe, type RecipeHttpRequest } from '../../fetchers/recipe/runtime.js'
import type { Contract, Recipe } from '../../domain/recipe/types.js'
import { closeCpuPool } from '../../fetchers/workers/index.js'

// The recipe runtime's page work runs in the CPU pool's workers.
t.teardown(closeCpuPool)

/**
 * Step options of the recipe language: a paginate step stops at the site's own page-depth limit (`last_page`) even
 * when max_pages allows more, so a run on a site that refuses deeper pages (the App Store review feed serves ten)
 * never asks for one; lookups turn the caller's input value into the site's word for it; a list position ranks items.
 */
const contract = (lastPage?: number, lookups?: Contract['implementation']['lookups']): Contract => ({
  contract: 1, engine: 'light', multiplier: 1, credits_per_unit: 1, billing: { unit: 'page', per: '2 things' },
  input_schema: { type: 'object', properties: {} }, output_schema: { type: 'object' },
  example: { input: {}, output: {} },
  implementation: {
    impl: 1,
    ...(lookups ? { lookups } : {}),
    steps: [{ paginate: { url: 'https://api.example.org/things', query: { page: '{page}', kind: '{vars.kind}' }, start: 1, items: [{ jsonpath: '$.items[*]' }], page_size: 2, ...(lastPage !== undefined ? { last_page: lastPage } : {}) } }],
    assertions: [],
    extract: { things: { each: [{ jsonpath: '$.items[*]' }], fields: { id: { locators: [{ jsonpath: '$.id' }] } } } },
    output: { things: '$extract.things' },
  },
})
const recipe = (c: Contract): Recipe => ({ slug: 'things', title: 'Things', category: 'Test', status: 'beta', hosts: ['https://api.example.org'], contracts: [c] })

/** Every page is full, so only max_pages or last_page can end the pagination. */
const run = async (maxPages: number, lastPage?: number, input: Record<string, unknown> = {}, lookups?: Contract['implementation']['lookups']) => {
  const sent: RecipeHttpRequest[] = []
  const c = contract(lastPage, lookups)
  const result = await runRecipe({
    recipe: recipe(c), contract: c, input, maxPages,
    fetch: async (request) => {
      sent.push(request)
      const page = Number(new URL(request.url).searchParams.get('page'))
      return { ok: true, response: { status: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ items: [{ id: `${page}a` }, { id: `${page}b` }] }), url: request.url } }
    },
  })
  return { result, pages: sent.map((r) => new URL(r.url).searchParams.get('page')), kinds: sent.map((r) => new URL(r.url).searchParams.get('kind')) }
}

t.test('last_page caps the pages fetched below max_pages', async (t) => {
  const { result, pages } = await run(10, 3)
  t.equal(result.outcome, 'ok')
  t.same(pages, ['1', '2', '3'], 'pages 1 to 3, never page 4')
  t.equal(result.pages, 3, 'three pages charged')
  t.same(result.output, { things: ['1a', '1b', '2a', '2b', '3a', '3b'].map((id) => ({ id })) })
})

t.test('max_pages below last_page still decides', async (t) => {
  const { result, pages } = await run(2, 3)
  t.same(pages, ['1', '2'])
  t.equal(result.pages, 2)
})

t.test('without last_page, max_pages alone decides', async (t) => {
  const { pages } = await run(5)
  t.same(pages, ['1', '2', '3', '4', '5'])
})

t.test('a lookup puts the site\'s word for the input value into the URL', async (t) => {
  const lookups = { kind: { from: 'device', map: { tablet: 'iPadSoftware', phone: 'software' } } }
  t.same((await run(1, undefined, { device: 'tablet' }, lookups)).kinds, ['iPadSoftware'])
  t.same((await run(1, undefined, { device: 'phone' }, lookups)).kinds, ['software'])
  t.same((await run(1, undefined, {}, lookups)).kinds, [null], 'an absent input leaves the query entry out')
  t.same((await run(1, undefined, { device: 'toString' }, lookups)).kinds, [null], 'only the map\'s own entries count')
})

t.test('a list position numbers the items from 1 across every page', async (t) => {
  const c = contract(2)
  const things = c.implementation.extract.things as Extract<Contract['implementation']['extract'][string], { each: unknown }>
  const ranked: Contract = { ...c, implementation: { ...c.implementation, extract: { things: { ...things, position: 'rank' } } } }
  const result = await runRecipe({
    recipe: recipe(ranked), contract: ranked, input: {}, maxPages: 5,
    fetch: async (request) => {
      const page = Number(new URL(request.url).searchParams.get('page'))
      return { ok: true, response: { status: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ items: [{ id: `${page}a` }, { id: `${page}b` }] }), url: request.url } }
    },
  })
  t.same(result.output, { things: [{ rank: 1, id: '1a' }, { rank: 2, id: '1b' }, { rank: 3, id: '2a' }, { rank: 4, id: '2b' }] })
})
