import { JSONSchema, type Schema } from 'effect'

/** The JSON Schema OpenAPI serves for an Effect Schema (the same shape the code's type comes from). */
export const openApiSchemaOf = (schema: Schema.Schema.AnyNoContext): Record<string, unknown> => {
  const { $schema: _, ...document } = JSONSchema.make(schema) as unknown as Record<string, unknown>
  return document
}
