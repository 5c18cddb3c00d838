import t from 'tap'
import { lintRecipe } from '../../domain/recipe/lint.js'
import type { Contract, Recipe } from '../../domain/recipe/types.js'
import { runRecipe, type RecipeHttpRequest } from '../../fetchers/recipe/runtime.js'
import { closeCpuPool } from '../../fetchers/workers/index.js'

// The recipe runtime's page work runs in the CPU pool's workers.
t.teardown(closeCpuPool)

/**
 * Cursor pagination, page_step and derived variables in the runtime, on a small recipe answered by a scripted site:
 * which URLs are asked for, and every way a pagination ends (short page, no cursor, a repeated cursor, max_pages).
 */
const recipe = (paginate: Record<string, unknown>, derive?: Record<string, unknown>): Recipe => {
  const document = {
    slug: 'test-cursor', title: 'Cursor', category: 'Testing', status: 'beta', hosts: ['https://api.example.com'],
    contracts: [{
      contract: 1, engine: 'light', multiplier: 1, credits_per_unit: 1, billing: { unit: 'page', per: '2 items' },
      input_schema: { type: 'object', properties: { url: { type: 'string' } } },
      output_schema: { type: 'object' },
      example: { input: {}, output: {} },
      implementation: {
        impl: 1, ...(derive ? { derive } : {}),
        steps: [{ paginate: { url: 'https://api.example.com/items', items: [{ jsonpath: '$.items[*]' }], page_size: 2, ...paginate } }],
        assertions: [], extract: { items: { each: [{ jsonpath: '$.items[*]' }], fields: { id: { locators: [{ jsonpath: '$.id' }] } } } },
        output: { items: '$extract.items' },
      },
    }],
  }
  t.same(lintRecipe(document), [], 'the test recipe lints')
  return document as unknown as Recipe
}

/** A site answering each request with the next scripted page; the URLs asked for are kept. */
const site = (pages: readonly unknown[]) => {
  const asked: string[] = []
  const fetch = async (request: RecipeHttpRequest) => {
    asked.push(request.url)
    const body = JSON.stringify(pages[asked.length - 1] ?? { items: [] })
    return { ok: true as const, response: { status: 200, headers: { 'content-type': 'application/json' }, body, url: request.url } }
  }
  return { asked, fetch }
}

const run = (r: Recipe, fetch: ReturnType<typeof site>['fetch'], maxPages = 10, input: Record<string, unknown> = {}) =>
  runRecipe({ recipe: r, contract: r.contracts[0] as Contract, input, maxPages, fetch })

const full = (a: string, b: string, next?: unknown) => ({ items: [{ id: a }, { id: b }], ...(next !== undefined ? { next } : {}) })
const BASE = 'https://api.example.com/items'

t.test('the cursor is absent on the first page, then the one the previous page named; no cursor ends it', async (t) => {
  const s = site([full('1', '2', 'c1'), full('3', '4', 'c/2 &x'), full('5', '6')])
  const result = await run(recipe({ query: { after: '{cursor}' }, cursor: [{ jsonpath: '$.next' }] }), s.fetch)
  t.same(s.asked, [BASE, `${BASE}?after=c1`, `${BASE}?after=c%2F2+%26x`])
  t.equal(result.outcome, 'ok')
  t.equal(result.pages, 3)
  t.same((result.output as { items: unknown[] }).items.length, 6)
})

t.test('a repeated cursor ends the pagination (a site that loops is not followed forever)', async (t) => {
  const s = site([full('1', '2', 'same'), full('3', '4', 'same'), full('5', '6', 'same')])
  const result = await run(recipe({ query: { after: '{cursor}' }, cursor: [{ jsonpath: '$.next' }] }), s.fetch)
  t.same(s.asked, [BASE, `${BASE}?after=same`])
  t.equal(result.pages, 2)
})

t.test('a numeric cursor (the last item\'s id) is used as text', async (t) => {
  const s = site([{ items: [{ id: 9 }, { id: 7 }] }, { items: [{ id: 5 }, { id: 3 }] }])
  const result = await run(recipe({ query: { max_id: '{cursor}' }, cursor: [{ jsonpath: '$.items[-1:].id' }] }), s.fetch)
  t.same(s.asked, [BASE, `${BASE}?max_id=7`, `${BASE}?max_id=3`])
  t.equal(result.pages, 3, 'the third page is empty: fewer items than page_size end it')
})

t.test('max_pages bounds a cursor pagination', async (t) => {
  const s = site([full('1', '2', 'a'), full('3', '4', 'b'), full('5', '6', 'c')])
  const result = await run(recipe({ query: { after: '{cursor}' }, cursor: [{ jsonpath: '$.next' }] }), s.fetch, 2)
  t.same(s.asked, [BASE, `${BASE}?after=a`])
  t.equal(result.pages, 2)
})

t.test('page_step: {page} counts from start by the step (offsets)', async (t) => {
  const s = site([full('1', '2'), full('3', '4'), { items: [{ id: '5' }] }])
  const result = await run(recipe({ query: { offset: '{page}' }, start: 0, page_step: 2 }), s.fetch)
  t.same(s.asked, [`${BASE}?offset=0`, `${BASE}?offset=2`, `${BASE}?offset=4`])
  t.equal(result.pages, 3)
})

t.test('derived variables: the first capture group of the input; no match ends the run in error before any request', async (t) => {
  const derive = { key: { input: 'url', pattern: '/post/([a-z0-9]+)$' } }
  const ok = site([{ items: [{ id: '1' }] }])
  const matched = await run(recipe({ query: { key: '{vars.key}' } }, derive), ok.fetch, 10, { url: 'https://site.example/post/abc123' })
  t.same(ok.asked, [`${BASE}?key=abc123`])
  t.equal(matched.outcome, 'ok')
  const none = site([])
  const unmatched = await run(recipe({ query: { key: '{vars.key}' } }, derive), none.fetch, 10, { url: 'https://site.example/other' })
  t.equal(unmatched.outcome, 'error')
  t.match(unmatched.detail, /derive key: input url does not match its pattern/)
  t.same(none.asked, [])
})
