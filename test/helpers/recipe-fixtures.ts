import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { RecipeFetch, RecipeHttpRequest } from '../../fetchers/recipe/runtime.js'
import { DEFAULT_RECIPES_DIR } from '../../infra/recipes.js'

/** One recorded or hand-written answer of a site, in its real format. */
export interface FixtureResponse {
  readonly method?: 'GET' | 'POST'
  readonly url: string
  readonly status: number
  readonly headers?: Record<string, string>
  /** A JSON body (served as written), or `body` as text. */
  readonly json?: unknown
  readonly body?: string
  /** For POST: the JSON body the recipe must send. */
  readonly expect_json?: unknown
  /** For POST: the form fields the recipe must send (decoded). */
  readonly expect_form?: Readonly<Record<string, string>>
}

export interface RecipeFixture {
  readonly slug: string
  readonly name: string
  readonly input: Record<string, unknown>
  readonly max_pages?: number
  readonly responses: readonly FixtureResponse[]
  readonly expect: { readonly outcome: string; readonly output?: unknown; readonly pages?: number }
}

export const FIXTURES_DIR = join(DEFAULT_RECIPES_DIR, 'fixtures')

/** Every fixture of a recipe (recipes/fixtures/<slug>/<case>.json). */
export const fixturesOf = (slug: string): RecipeFixture[] => {
  const dir = join(FIXTURES_DIR, slug)
  if (!existsSync(dir)) return []
  return readdirSync(dir).filter((f) => f.endsWith('.json')).sort().map((f) => ({
    slug, name: f.replace(/\.json$/, ''), ...(JSON.parse(readFileSync(join(dir, f), 'utf8')) as Omit<RecipeFixture, 'slug' | 'name'>),
  }))
}

export const bodyOf = (response: FixtureResponse) => (response.json !== undefined ? JSON.stringify(response.json) : response.body ?? '')

/** The fixture response for a request, matched on method and full URL (query included). */
export const fixtureFor = (fixture: RecipeFixture, request: Pick<RecipeHttpRequest, 'method' | 'url'>) =>
  fixture.responses.find((r) => (r.method ?? 'GET') === request.method && new URL(r.url).href === new URL(request.url).href)

/** A fetch that answers from a fixture's responses, with no network; requests it has no answer for are recorded. */
export const fixtureFetch = (fixture: RecipeFixture) => {
  const unmatched: string[] = []
  const sent: RecipeHttpRequest[] = []
  const fetch: RecipeFetch = async (request) => {
    sent.push(request)
    const response = fixtureFor(fixture, request)
    if (!response) {
      unmatched.push(`${request.method} ${request.url}`)
      return { ok: false, outcome: 'error', message: `no fixture for ${request.method} ${request.url}` }
    }
    const headers = Object.fromEntries(Object.entries(response.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v]))
    return { ok: true, response: { status: response.status, headers, body: bodyOf(response), url: request.url } }
  }
  return { fetch, unmatched, sent }
}
