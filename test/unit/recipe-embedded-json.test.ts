import t from 'tap'
import { lintRecipe } from '../../domain/recipe/lint.js'
import type { Recipe } from '../../domain/recipe/types.js'
import { runRecipe, type RecipeHttpRequest, type RecipeHttpResponse } from '../../fetchers/recipe/runtime.js'
import { closeCpuPool } from '../../fetchers/workers/index.js'

// The recipe runtime's page work runs in the CPU pool's workers.
t.teardown(closeCpuPool)

/**
 * The language's embedded JSON (`json`: cut between literal markers, parsed, JSONPath applied, nested for JSON in
 * strings), `where` (keep the JSON values whose field equals a templated value) and `follow.query`, run end to end
 * on a small recipe against answers written here: an anti-XSSI JSON answer whose payload is JSON in a string, a page
 * whose script holds a JS call around a JSON literal, and a followed URL with parameters set from input.
 */
const ORIGIN = 'https://site.example'
const SCRIPT = `<html><head><script nonce="n">var x = 1;</script><script class="ds:5" nonce="n">AF_initDataCallback({key: 'ds:5', hash: '7', data:[["App  name", null, [["en", "${ORIGIN}/t?v=1&lang=en&fmt=srv3"], ["de", "${ORIGIN}/t?v=1&lang=de"]]]], sideChannel: {}});</script></head><body><p>AF_initDataCallback</p></body></html>`
const XSSI = `)]}'\n\n[["wrb.fr","rpc","[[[\\"r1\\",\\"good\\"],[\\"r2\\",\\"bad\\"]],[null,\\"token-2\\"]]",null,null,null,"generic"],["di",42]]`

const recipe = (): Recipe => JSON.parse(JSON.stringify({
  slug: 'test-embedded', title: 'Embedded JSON', category: 'Testing', status: 'beta', hosts: [ORIGIN],
  contracts: [{
    contract: 1, engine: 'light', multiplier: 1, credits_per_unit: 1, billing: { unit: 'run' },
    input_schema: { type: 'object', properties: { language: { type: 'string' }, translate: { type: 'string' } } },
    output_schema: { type: 'object' },
    example: { input: {}, output: {} },
    implementation: {
      impl: 1,
      lookups: { token: { from: 'translate', present: '\\"{input.translate}\\"', absent: 'null' } },
      steps: [
        { request: { url: `${ORIGIN}/app` } },
        { request: { as: 'rpc', method: 'POST', url: `${ORIGIN}/batchexecute`, form: { 'f.req': '["rpc","[199,null,{vars.token}]"]' } } },
        { follow: { page: 'main', as: 'track', locators: [{ css: 'script', json: { after: 'data:', before: ', sideChannel: {}});', jsonpath: '$[0][2][*]' }, where: { jsonpath: '$[0]', equals: '{input.language}', then: '$[1]' } }], query: { fmt: 'json3', tlang: '{input.translate}' } } },
      ],
      assertions: [],
      extract: {
        name: { locators: [{ css: 'script', json: { after: 'data:', before: ', sideChannel: {}});', jsonpath: '$[0][0]' } }] },
        reviews: { page: 'rpc', each: [{ json: { after: ")]}'", jsonpath: '$[0][2]', json: { jsonpath: '$[0][*]' } } }], fields: { id: { locators: [{ jsonpath: '$[0]' }] }, text: { locators: [{ jsonpath: '$[1]' }] } } },
        token: { page: 'rpc', locators: [{ json: { after: ")]}'", jsonpath: "$[?(@[0]=='wrb.fr')][2]", json: { jsonpath: '$[1][1]' } } }] },
        track: { page: 'track', locators: [{ jsonpath: '$.url' }] },
        texts: { page: 'rpc', locators: [{ json: { after: ")]}'", jsonpath: '$[0][2]', json: { jsonpath: '$[0][*][1]' } } }], all: true, join: ' | ' },
      },
      output: { name: '$extract.name', reviews: '$extract.reviews', token: '$extract.token', track: '$extract.track', texts: '$extract.texts' },
    },
  }],
})) as Recipe

const answers = (overrides: Record<string, string> = {}) => {
  const sent: RecipeHttpRequest[] = []
  const fetch = async (request: RecipeHttpRequest) => {
    sent.push(request)
    const path = new URL(request.url).pathname
    const body = overrides[path] ?? (path === '/app' ? SCRIPT : path === '/batchexecute' ? XSSI : JSON.stringify({ url: request.url }))
    const type = path === '/app' ? 'text/html; charset=utf-8' : 'application/json; charset=utf-8'
    const response: RecipeHttpResponse = { status: 200, headers: { 'content-type': type }, body, url: request.url }
    return { ok: true as const, response }
  }
  return { fetch, sent }
}

t.same(lintRecipe(recipe()), [], 'the test recipe lints')

t.test('embedded JSON in a script and behind an XSSI prefix; where picks the item the input names; follow sets query parameters', async (t) => {
  const { fetch, sent } = answers()
  const contract = recipe().contracts[0]!
  const result = await runRecipe({ recipe: recipe(), contract, input: { language: 'de', translate: 'fr' }, maxPages: 1, fetch })
  t.equal(result.outcome, 'ok', result.detail ?? '')
  t.strictSame(result.output, {
    name: 'App  name',
    reviews: [{ id: 'r1', text: 'good' }, { id: 'r2', text: 'bad' }],
    token: 'token-2',
    track: `${ORIGIN}/t?v=1&lang=de&fmt=json3&tlang=fr`,
    texts: 'good | bad',
  })
  t.equal(new URLSearchParams(sent[1]!.body).get('f.req'), '["rpc","[199,null,\\"fr\\"]"]', 'the lookup wrapped the present input')
  t.equal(sent[2]!.url, `${ORIGIN}/t?v=1&lang=de&fmt=json3&tlang=fr`, 'the de track was followed, with fmt and tlang set')
})

t.test('an absent optional input keeps every value (the first is followed) and leaves its query parameter out; a parameter of the same name is replaced', async (t) => {
  const { fetch, sent } = answers()
  const result = await runRecipe({ recipe: recipe(), contract: recipe().contracts[0]!, input: {}, maxPages: 1, fetch })
  t.equal(result.outcome, 'ok', result.detail ?? '')
  t.equal(sent[2]!.url, `${ORIGIN}/t?v=1&lang=en&fmt=json3`)
  t.equal(new URLSearchParams(sent[1]!.body).get('f.req'), '["rpc","[199,null,null]"]', 'the lookup took its absent value')
})

t.test('a where that keeps nothing, a missing marker and text that is not JSON find nothing: the layout changed', async (t) => {
  const cases: [string, Record<string, unknown>, Record<string, string>, RegExp][] = [
    ['no track in that language', { language: 'xx' }, {}, /no URL to follow/],
    ['the end marker is gone', {}, { '/app': SCRIPT.replace(', sideChannel: {}});', '});') }, /no URL to follow/],
    ['the prefix is gone', {}, { '/batchexecute': XSSI.replace(")]}'", '') }, /no items found for reviews/],
    ['the string is not JSON', {}, { '/batchexecute': `)]}'\n[["wrb.fr","rpc","[[oops",null]]` }, /no items found for reviews/],
  ]
  for (const [name, input, overrides, detail] of cases) {
    const result = await runRecipe({ recipe: recipe(), contract: recipe().contracts[0]!, input, maxPages: 1, fetch: answers(overrides).fetch })
    t.equal(result.outcome, 'layout_changed', name)
    t.match(result.detail, detail, name)
  }
})

t.test('where not: an assertion that holds when no item has the input value', async (t) => {
  const document = recipe() as any
  document.contracts[0].implementation.assertions = [{ outcome: 'not_found', step: 'main', select: [{ css: 'script', json: { after: 'data:', before: ', sideChannel: {}});', jsonpath: '$[0][2]' }, where: { jsonpath: '$[*][0]', equals: '{input.language}', not: true } }] }]
  t.same(lintRecipe(document), [])
  const missing = await runRecipe({ recipe: document, contract: document.contracts[0], input: { language: 'xx' }, maxPages: 1, fetch: answers().fetch })
  t.equal(missing.outcome, 'not_found', 'no track in xx')
  const present = await runRecipe({ recipe: document, contract: document.contracts[0], input: { language: 'de' }, maxPages: 1, fetch: answers().fetch })
  t.equal(present.outcome, 'ok', 'a de track exists')
})

t.test('input compared by where is data: an expression-like value matches nothing and changes no locator', async (t) => {
  const before = JSON.stringify(recipe())
  for (const language of ["de' || true", '*', '$..*', "@[0]=='de'"]) {
    const result = await runRecipe({ recipe: recipe(), contract: recipe().contracts[0]!, input: { language }, maxPages: 1, fetch: answers().fetch })
    t.equal(result.outcome, 'layout_changed', language)
  }
  t.equal(JSON.stringify(recipe()), before)
})
