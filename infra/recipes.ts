import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { RecipeCatalogue } from '../domain/recipe/catalogue.js'
import { lintRecipe, type LintProblem } from '../domain/recipe/lint.js'
import type { Recipe } from '../domain/recipe/types.js'

/** The recipes shipped with the service: one JSON document per recipe. */
export const DEFAULT_RECIPES_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '../recipes')

/** Recipe documents of a folder (`*.json`, not the fixtures under it), sorted by file name. */
export const recipeFiles = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).filter((e) => e.isFile() && e.name.endsWith('.json')).map((e) => join(dir, e.name)).sort()

export interface LintedFile {
  readonly file: string
  readonly problems: readonly LintProblem[]
  readonly recipe?: Recipe
}

export const lintFile = (file: string): LintedFile => {
  let document: unknown
  try {
    document = JSON.parse(readFileSync(file, 'utf8'))
  } catch (e) {
    return { file, problems: [{ pointer: '', message: `not JSON: ${(e as Error).message}` }] }
  }
  const problems = lintRecipe(document)
  return problems.length > 0 ? { file, problems } : { file, problems, recipe: document as Recipe }
}

/** Loads every recipe of the folder; a recipe that fails the linter stops the start-up, naming its problems. */
export const loadRecipeCatalogue = (dir: string): RecipeCatalogue => {
  const catalogue = new Map<string, Recipe>()
  for (const linted of recipeFiles(dir).map(lintFile)) {
    if (!linted.recipe) throw new Error(`${linted.file}: ${linted.problems.map((p) => `${p.pointer || '/'} ${p.message}`).join('; ')}`)
    if (catalogue.has(linted.recipe.slug)) throw new Error(`${linted.file}: recipe ${linted.recipe.slug} is defined twice`)
    catalogue.set(linted.recipe.slug, linted.recipe)
  }
  return catalogue
}
