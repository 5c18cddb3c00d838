import Ajv2020 from 'ajv/dist/2020.js'
import { JSONSchema, Schema, SchemaAST } from 'effect'

/**
 * Compiled validators that decode the common case of a recorded event much faster than the schema does, with the
 * schema's own result. An event class qualifies when decoding only checks its fields (no field is transformed: no
 * defaults, no nested classes). Its recorded data then decodes to the class built from that data when the data has
 * exactly the schema's shape: every value valid and no field the schema does not know (which decoding would drop).
 * Anything else, and every event of a class that does not qualify, goes to the schema, which strips unknown fields,
 * applies defaults and names the failing fields.
 */
export type FastDecode = (data: unknown) => object | undefined

// Draft 2020-12: Effect's JSON Schemas put shared parts under `$defs`.
const ajv = new Ajv2020.default({ strict: false, allErrors: false, validateFormats: false })

/**
 * True when the AST has nothing that decoding transforms (its output is its input, field for field) and no refinement:
 * a refinement's predicate is code a JSON Schema cannot carry (Effect leaves a custom filter out), so it needs the schema.
 */
const checksOnly = (ast: SchemaAST.AST): boolean => {
  switch (ast._tag) {
    case 'Transformation':
    case 'Declaration':
    case 'Suspend':
    case 'Refinement':
      return false
    case 'TypeLiteral':
      return ast.propertySignatures.every((property) => checksOnly(property.type)) && ast.indexSignatures.every((index) => checksOnly(index.type))
    case 'Union':
      return ast.types.every(checksOnly)
    case 'TupleType':
      return ast.elements.every((element) => checksOnly(element.type)) && ast.rest.every((rest) => checksOnly(rest.type))
    default:
      return true
  }
}

interface EventClass {
  readonly ast: SchemaAST.AST
  readonly prototype: unknown
  new (props: object, disableValidation: true): object
}

/** Effect marks some schemas (Unknown, Object) with an `$id` of its own; ajv takes a repeated one for a conflict. */
const withoutMarkers = (node: unknown): unknown => {
  if (Array.isArray(node)) return node.map(withoutMarkers)
  if (node === null || typeof node !== 'object') return node
  return Object.fromEntries(Object.entries(node)
    .filter(([key, value]) => !(key === '$id' && typeof value === 'string' && value.startsWith('/schemas/')))
    .map(([key, value]) => [key, withoutMarkers(value)]))
}

/** A compiled check of one event class's recorded data (no `_tag`), or undefined when the class does not qualify. */
const compiledCheckOf = (schema: Schema.Schema.AnyNoContext): ((data: unknown) => boolean) | undefined => {
  const ast = schema.ast
  if (ast._tag !== 'Transformation' || ast.from._tag !== 'TypeLiteral' || ast.to._tag !== 'Declaration' || !checksOnly(ast.from)) return undefined
  const jsonSchema = JSONSchema.make(Schema.encodedSchema(schema)) as { $schema?: string; properties?: Record<string, unknown>; required?: string[]; additionalProperties?: unknown }
  if (jsonSchema.additionalProperties !== false || !jsonSchema.properties) return undefined
  delete jsonSchema.$schema
  delete jsonSchema.properties._tag
  jsonSchema.required = (jsonSchema.required ?? []).filter((field) => field !== '_tag')
  const validate = ajv.compile(withoutMarkers(jsonSchema) as object)
  return (data) => validate(data)
}

/** The fast decoding of one event class (its recorded data has no `_tag`), or undefined when it does not qualify. */
export const fastDecoderOf = (schema: Schema.Schema.AnyNoContext): FastDecode | undefined => {
  const check = compiledCheckOf(schema)
  if (!check) return undefined
  const build = builderOf(schema as unknown as EventClass)
  return (data) => (check(data) ? build(data as object) : undefined)
}

/** A field's constructor default (`Schema.tag` has one: the tag), if any. */
const constructorDefaultOf = (field: unknown): (() => unknown) | undefined => {
  const ast = (field as { ast?: { _tag?: string; defaultValue?: () => unknown; to?: { defaultValue?: () => unknown } } } | undefined)?.ast
  if (ast === undefined) return undefined
  return ast._tag === 'PropertySignatureDeclaration' ? ast.defaultValue : ast.to?.defaultValue
}

/**
 * Builds an instance of a tagged event class from data decoding would pass to its constructor as it is: the
 * constructor (without validation) copies the data, adds the constructor defaults of missing fields and assigns the
 * result to the instance. When the tag is the only default, that is the data assigned to an object of the class's
 * prototype and then the tag, the same properties in the same order, without the constructor's copies (most of a
 * replay's decoding). Any other class is built by its constructor.
 */
const builderOf = (Class: EventClass): ((data: object) => object) => {
  const fields = (Class as unknown as { fields?: Record<string, unknown> }).fields ?? {}
  const withDefaults = Reflect.ownKeys(fields).filter((key) => constructorDefaultOf(fields[key as string]) !== undefined)
  const tag = withDefaults.length === 1 && withDefaults[0] === '_tag' ? constructorDefaultOf(fields._tag)!() : undefined
  if (typeof tag !== 'string') return (data) => new Class(data, true)
  const prototype = Class.prototype as object
  return (data) => {
    const event = Object.assign(Object.create(prototype) as Record<string, unknown>, data)
    event._tag = tag
    return event
  }
}

/** The stored data of an event (its fields but `_tag`), or undefined when the schema must encode it. */
export type FastEncode = (event: { readonly _tag: string }) => Record<string, unknown> | undefined

/**
 * The fast encoding of one event class, or undefined when it does not qualify. A qualifying class encodes each field
 * as it is, so its encoding is its fields once they pass the same compiled check: every value valid and no field the
 * schema does not know (the schema would drop it, so such an event goes to the schema).
 */
export const fastEncoderOf = (schema: Schema.Schema.AnyNoContext): FastEncode | undefined => {
  const check = compiledCheckOf(schema)
  if (!check) return undefined
  return (event) => {
    const { _tag, ...data } = event
    return check(data) ? data : undefined
  }
}
