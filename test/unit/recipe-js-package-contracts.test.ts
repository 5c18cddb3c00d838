import t from 'tap'
import { chooseContract } from '../../domain/recipe/contracts.js'
import { schemaProblems } from '../../domain/recipe/schemas.js'
import { runRecipe } from '../../fetchers/recipe/runtime.js'
import { closeCpuPool } from '../../fetchers/workers/index.js'
import { DEFAULT_RECIPES_DIR, loadRecipeCatalogue } from '../../infra/recipes.js'
import { fixtureFetch, fixturesOf, type RecipeFixture } from '../helpers/recipe-fixtures.js'

/**
 * js-package's contracts side by side (SPEC 2.10 names the package's `size`; SPEC 9: a contract is stable): the
 * newest, 2, outputs `size` from the registry's version document (`dist.unpackedSize`); contract 1, pinned, still
 * outputs `unpacked_size` from the npm website's package document, as it always did.
 */
t.teardown(closeCpuPool)
const recipe = loadRecipeCatalogue(DEFAULT_RECIPES_DIR).get('js-package')!
const ok = fixturesOf('js-package').find((f) => f.name === 'ok')!
const registry = ok.responses.find((r) => r.url.startsWith('https://npm-registry.invalid/'))!
const { _id, ...version } = registry.json as Record<string, unknown>

const run = async (contractNumber: number | undefined, fixture: RecipeFixture) => {
  const choice = chooseContract(recipe, contractNumber, new Date())
  if (!choice.ok) throw new Error(choice.message)
  const { fetch, unmatched } = fixtureFetch(fixture)
  const result = await runRecipe({ recipe, contract: choice.contract, input: structuredClone(fixture.input), maxPages: 1, fetch })
  return { result, unmatched, contract: choice.contract }
}

t.test('without a pinned contract, contract 2 reads the size from the registry', async (t) => {
  const { result, unmatched, contract } = await run(undefined, ok)
  t.equal(contract.contract, 2)
  t.equal(result.outcome, 'ok')
  t.same(unmatched, [])
  t.match(result.output, { size: 208488, file_count: 9 })
  t.notOk('unpacked_size' in (result.output as object), 'contract 2 has no unpacked_size')
  t.same(schemaProblems(contract.output_schema, result.output), [])
})

t.test('pinned contract 1 keeps unpacked_size, read from the npm website', async (t) => {
  const website: RecipeFixture = {
    ...ok, name: 'ok_contract_1',
    responses: [
      ...ok.responses.filter((r) => r !== registry),
      { url: 'https://npm-website.invalid/package/request/v/2.88.2', status: 200, headers: { 'content-type': 'application/json' }, json: { package: 'request', packageVersion: version } },
    ],
  }
  const { result, unmatched, contract } = await run(1, website)
  t.equal(result.outcome, 'ok')
  t.same(unmatched, [])
  const { size, ...rest } = ok.expect.output as Record<string, unknown>
  t.strictSame(result.output, { ...rest, unpacked_size: size }, 'the same output, the size under its contract-1 name')
  t.same(schemaProblems(contract.output_schema, result.output), [])
})
