/**
 * The recipe runtime's page work (selection.ts) in the CPU pool: each step's work is one task of the run's
 * organization, with a hard deadline. Past it the run ends with outcome `timeout` (detail `extraction_timeout`); a
 * worker that dies (its memory cap) ends it with `error` (detail `extraction_failed`); docs/limits.md.
 */
import type { TemplateScope } from '../../domain/recipe/template.js'
import type { Assertion, Locator } from '../../domain/recipe/types.js'
import { EXTRACTION_DEADLINE_MS, offThread } from '../workers/index.js'
import type { CpuTaskKind, CpuTasks } from '../workers/tasks.js'
import type { Located } from './locate.js'
import { classify, classifyReadsPage, Ended, type ExtractedAll, type ExtractorInput, type RecipeHttpResponse } from './selection.js'

/** Hard deadline of each selection step of a recipe run (a response's assertions, a step's locators, the extraction). */
export const RECIPE_SELECTION_DEADLINE_MS = EXTRACTION_DEADLINE_MS

export interface RecipeSelection {
  readonly classify: (assertions: readonly Assertion[], step: string, response: RecipeHttpResponse, scope: TemplateScope) => Promise<Assertion['outcome'] | null>
  readonly locate: (chains: readonly (readonly Locator[])[], response: RecipeHttpResponse, scope: TemplateScope) => Promise<(Located | null)[]>
  readonly extract: (extractors: readonly ExtractorInput[], scope: TemplateScope) => Promise<ExtractedAll>
}

export const offThreadSelection = (org: string, deadlineMs: number = RECIPE_SELECTION_DEADLINE_MS): RecipeSelection => {
  const inWorker = async <K extends CpuTaskKind>(kind: K, input: CpuTasks[K]['input'], what: string): Promise<CpuTasks[K]['output']> => {
    const outcome = await offThread(org, kind, input, deadlineMs)
    if (outcome.ok) return outcome.value
    if (outcome.reason === 'timeout') throw new Ended('timeout', `extraction_timeout: ${what} ran past its ${deadlineMs} ms deadline`)
    throw new Ended('error', `extraction_failed: ${what}: ${outcome.message}`)
  }
  return {
    // Status, header and `contains` assertions read no page: they are answered here without a worker.
    classify: (assertions, step, response, scope) => classifyReadsPage(assertions)
      ? inWorker('recipe_classify', { assertions, step, response, scope }, `${step}: the assertions`)
      : Promise.resolve(classify(assertions, step, response, scope)),
    locate: (chains, response, scope) => inWorker('recipe_locate', { chains, response, scope }, 'the locators'),
    extract: (extractors, scope) => inWorker('recipe_extract', { extractors, scope }, 'the extraction'),
  }
}
