/**
 * JSON Schema checks of recipes: the meta-schema, run input (defaults filled) and run output. Validators are
 * compiled once per schema object (recipes are loaded once, so their schemas are the same objects for the process).
 */
import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv'
import { RECIPE_META_SCHEMA } from './meta-schema.js'

const ajv = new Ajv.default({ allErrors: true, strict: false, useDefaults: true })
const compiled = new WeakMap<object, ValidateFunction>()

const validatorOf = (schema: object): ValidateFunction => {
  let validate = compiled.get(schema)
  if (!validate) {
    validate = ajv.compile(schema)
    compiled.set(schema, validate)
  }
  return validate
}

export interface SchemaProblem {
  /** JSON pointer of the failing value ('' for the document itself). */
  readonly pointer: string
  readonly message: string
}

const problemsOf = (errors: readonly ErrorObject[] | null | undefined): SchemaProblem[] =>
  (errors ?? []).map((e) => ({
    pointer: e.keyword === 'required' || e.keyword === 'additionalProperties'
      ? `${e.instancePath}/${String((e.params as { missingProperty?: string; additionalProperty?: string }).missingProperty ?? (e.params as { additionalProperty?: string }).additionalProperty)}`
      : e.instancePath,
    message: e.message ?? 'is invalid',
  }))

/** Problems of `value` against `schema` (empty when valid). Fills the schema's defaults into `value`. */
export const schemaProblems = (schema: object, value: unknown): SchemaProblem[] => {
  const validate = validatorOf(schema)
  return validate(value) ? [] : problemsOf(validate.errors)
}

/** Whether `schema` compiles at all (the linter reports the reason). */
export const schemaCompileProblem = (schema: object): string | undefined => {
  try {
    validatorOf(schema)
    return undefined
  } catch (e) {
    return (e as Error).message
  }
}

export const metaSchemaProblems = (document: unknown): SchemaProblem[] => schemaProblems(RECIPE_META_SCHEMA, document)
