/**
 * The meta-schema every recipe document must satisfy (JSON Schema draft 2020-12 subset understood by ajv). It is
 * closed: unknown keys are errors, steps and locators are one of a fixed set, transforms come from the extraction
 * transforms. Nothing in it is code: no functions, no expressions beyond CSS, XPath and JSONPath.
 */
import { TRANSFORMS } from '../extraction.js'
import { JOB_TYPES } from '../job/spec.js'

const SLUG = '^[a-z][a-z0-9-]{1,62}$'
const NAME = '^[a-z][a-z0-9_]{0,62}$'
/** A literal origin, so no template can choose the host. */
const ORIGIN = '^https?://[a-z0-9.-]+(:[0-9]{1,5})?$'

/** One line of README table text: no line breaks, which would end the table row. */
const tableText = (maxLength: number) => ({ type: 'string', minLength: 1, maxLength, pattern: '^[^\\r\\n]*$' })

const stringMap = { type: 'object', additionalProperties: { type: 'string', maxLength: 2000 } }

const expression = { type: 'string', minLength: 1, maxLength: 2000 }
/** JSON embedded in text, cut between literal markers and parsed (types.ts EmbeddedJson); nests for JSON in strings. */
const embeddedJson = {
  type: 'object', additionalProperties: false, required: ['jsonpath'], properties: {
    after: { type: 'string', minLength: 1, maxLength: 200 },
    before: { type: 'string', minLength: 1, maxLength: 200 },
    jsonpath: expression,
    json: { $ref: '#/$defs/embeddedJson' },
  },
}
const where = { type: 'object', additionalProperties: false, required: ['jsonpath', 'equals'], properties: { jsonpath: expression, equals: { type: 'string', maxLength: 2000 }, not: { type: 'boolean' }, then: expression } }
const locatorOptions = { json: { $ref: '#/$defs/embeddedJson' }, where }

const locator = {
  oneOf: [
    { type: 'object', additionalProperties: false, required: ['css'], properties: { css: expression, attribute: { type: 'string', minLength: 1, maxLength: 256 }, ...locatorOptions } },
    { type: 'object', additionalProperties: false, required: ['xpath'], properties: { xpath: expression } },
    { type: 'object', additionalProperties: false, required: ['jsonpath'], properties: { jsonpath: expression, ...locatorOptions } },
    { type: 'object', additionalProperties: false, required: ['json'], properties: { ...locatorOptions } },
  ],
}
const chain = { type: 'array', minItems: 1, maxItems: 10, items: { $ref: '#/$defs/locator' } }
/** The elements a browser step acts on: CSS or XPath only. */
const elementChain = {
  type: 'array', minItems: 1, maxItems: 10, items: {
    oneOf: [
      { type: 'object', additionalProperties: false, required: ['css'], properties: { css: { type: 'string', minLength: 1, maxLength: 2000 } } },
      { type: 'object', additionalProperties: false, required: ['xpath'], properties: { xpath: { type: 'string', minLength: 1, maxLength: 2000 } } },
    ],
  },
}
const elementTimeout = { type: 'integer', minimum: 100, maximum: 60000 }

const requestProperties = {
  method: { enum: ['GET', 'POST'] },
  url: { type: 'string', minLength: 1, maxLength: 2000 },
  query: stringMap,
  headers: stringMap,
  json: {},
  form: stringMap,
  as: { type: 'string', pattern: NAME },
}

const step = {
  oneOf: [
    {
      type: 'object', additionalProperties: false, required: ['request'], properties: {
        request: {
          type: 'object', additionalProperties: false, required: ['url'], properties: {
            ...requestProperties,
            bind: { type: 'object', propertyNames: { pattern: NAME }, additionalProperties: { type: 'object', additionalProperties: false, required: ['locators'], properties: { locators: chain } } },
            optional: { type: 'boolean' },
          },
        },
      },
    },
    {
      type: 'object', additionalProperties: false, required: ['paginate'], properties: {
        paginate: {
          type: 'object', additionalProperties: false, required: ['url', 'items', 'page_size'], properties: {
            ...requestProperties, start: { type: 'integer', minimum: 0 }, page_step: { type: 'integer', minimum: 1, maximum: 10000 },
            last_page: { type: 'integer', minimum: 0 }, cursor: chain, items: chain, page_size: { type: 'integer', minimum: 1, maximum: 1000 },
          },
        },
      },
    },
    {
      type: 'object', additionalProperties: false, required: ['follow'], properties: {
        follow: { type: 'object', additionalProperties: false, required: ['locators', 'as'], properties: { page: { type: 'string', pattern: NAME }, locators: chain, as: { type: 'string', pattern: NAME }, headers: stringMap, query: stringMap } },
      },
    },
    { type: 'object', additionalProperties: false, required: ['navigate'], properties: { navigate: { type: 'object', additionalProperties: false, required: ['url'], properties: { url: requestProperties.url, query: stringMap, as: requestProperties.as } } } },
    { type: 'object', additionalProperties: false, required: ['click'], properties: { click: { type: 'object', additionalProperties: false, required: ['locators'], properties: { locators: elementChain, timeout_ms: elementTimeout } } } },
    { type: 'object', additionalProperties: false, required: ['fill'], properties: { fill: { type: 'object', additionalProperties: false, required: ['locators', 'value'], properties: { locators: elementChain, value: { type: 'string', maxLength: 2000 }, timeout_ms: elementTimeout } } } },
    { type: 'object', additionalProperties: false, required: ['scroll'], properties: { scroll: { type: 'object', additionalProperties: false, required: ['direction'], properties: { direction: { const: 'down' } } } } },
    { type: 'object', additionalProperties: false, required: ['wait_for_selector'], properties: { wait_for_selector: { type: 'object', additionalProperties: false, required: ['locators'], properties: { locators: elementChain, timeout_ms: elementTimeout } } } },
    { type: 'object', additionalProperties: false, required: ['dismiss_consent'], properties: { dismiss_consent: { type: 'object', additionalProperties: false } } },
  ],
}

const valueExtractor = {
  type: 'object', additionalProperties: false, required: ['locators'], properties: {
    page: { type: 'string', pattern: NAME },
    locators: chain,
    transform: { type: 'array', items: { enum: [...TRANSFORMS] } },
    all: { type: 'boolean' },
    join: { type: 'string', maxLength: 20 },
    required: { type: 'boolean' },
  },
}
const listExtractor = {
  type: 'object', additionalProperties: false, required: ['each', 'fields'], properties: {
    page: { type: 'string', pattern: NAME },
    each: chain,
    fields: { type: 'object', propertyNames: { pattern: NAME }, additionalProperties: valueExtractor },
    position: { type: 'string', pattern: NAME },
  },
}

const assertion = {
  type: 'object', additionalProperties: false, required: ['outcome'], properties: {
    outcome: { enum: ['ok_empty', 'not_found', 'blocked', 'rate_limited', 'upstream_error'] },
    step: { type: 'string', pattern: NAME },
    status: { type: 'array', minItems: 1, items: { type: 'integer', minimum: 100, maximum: 599 } },
    header: { type: 'object', additionalProperties: false, required: ['name'], properties: { name: { type: 'string', minLength: 1 }, equals: { type: 'string' } } },
    select: chain,
    equals: {},
    contains: { type: 'string', minLength: 1, maxLength: 500 },
  },
  anyOf: [{ required: ['status'] }, { required: ['header'] }, { required: ['select'] }, { required: ['contains'] }],
}

const contract = {
  type: 'object', additionalProperties: false,
  required: ['contract', 'engine', 'multiplier', 'credits_per_unit', 'billing', 'input_schema', 'output_schema', 'example', 'implementation'],
  properties: {
    contract: { type: 'integer', minimum: 1 },
    engine: { enum: [...JOB_TYPES] },
    multiplier: { type: 'number', exclusiveMinimum: 0, maximum: 1000 },
    credits_per_unit: { type: 'integer', minimum: 1 },
    billing: {
      oneOf: [
        { type: 'object', additionalProperties: false, required: ['unit'], properties: { unit: { const: 'run' } } },
        { type: 'object', additionalProperties: false, required: ['unit', 'per'], properties: { unit: { const: 'page' }, per: { type: 'string', minLength: 1 } } },
      ],
    },
    sunset_at: { type: 'string', pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?Z$' },
    input_schema: { type: 'object', required: ['type', 'properties'], properties: { type: { const: 'object' } } },
    output_schema: { type: 'object', required: ['type'] },
    example: { type: 'object', additionalProperties: false, required: ['input', 'output'], properties: { input: { type: 'object' }, output: {} } },
    implementation: {
      type: 'object', additionalProperties: false, required: ['impl', 'steps', 'assertions', 'extract', 'output'], properties: {
        impl: { type: 'integer', minimum: 1 },
        lookups: {
          type: 'object', propertyNames: { pattern: NAME }, additionalProperties: {
            type: 'object', additionalProperties: false, required: ['from'], oneOf: [{ required: ['map'] }, { required: ['present'] }],
            properties: {
              from: { type: 'string', pattern: NAME },
              map: { type: 'object', minProperties: 1, additionalProperties: { type: 'string', maxLength: 2000 } },
              present: { type: 'string', minLength: 1, maxLength: 2000 },
              absent: { type: 'string', maxLength: 2000 },
            },
          },
        },
        derive: {
          type: 'object', propertyNames: { pattern: NAME }, maxProperties: 10, additionalProperties: {
            type: 'object', additionalProperties: false, required: ['input', 'pattern'],
            properties: { input: { type: 'string', pattern: NAME }, pattern: { type: 'string', minLength: 1, maxLength: 500 } },
          },
        },
        steps: { type: 'array', minItems: 1, maxItems: 20, items: { $ref: '#/$defs/step' } },
        assertions: { type: 'array', items: assertion },
        extract: { type: 'object', propertyNames: { pattern: NAME }, additionalProperties: { oneOf: [valueExtractor, listExtractor] } },
        output: {},
      },
    },
  },
}

export const RECIPE_META_SCHEMA = {
  $id: 'https://scrapeworks.dev/schemas/recipe.json',
  type: 'object', additionalProperties: false,
  required: ['slug', 'title', 'category', 'status', 'hosts', 'contracts'],
  properties: {
    $schema: { type: 'string' },
    slug: { type: 'string', pattern: SLUG },
    title: { type: 'string', minLength: 1, maxLength: 200 },
    category: { type: 'string', minLength: 1, maxLength: 100 },
    site: tableText(300),
    notes: tableText(600),
    status: { enum: ['beta', 'ga'] },
    hosts: { type: 'array', minItems: 1, items: { type: 'string', pattern: ORIGIN } },
    attribution: { type: 'object', additionalProperties: false, required: ['license', 'source', 'notice'], properties: { license: { type: 'string' }, source: { type: 'string' }, notice: { type: 'string' } } },
    disabled: { type: 'boolean' },
    contracts: { type: 'array', minItems: 1, items: contract },
  },
  $defs: { locator, step, embeddedJson },
} as const
