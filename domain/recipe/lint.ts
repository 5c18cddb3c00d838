/**
 * The recipe linter: the meta-schema, then what a schema cannot say. Locators must parse, patterns in schemas must
 * be safe regular expressions, URL templates must have a literal origin among the recipe's hosts and use only known
 * placeholders, headers take no placeholders, steps and extractors name pages that exist, credits_per_unit must be
 * the engine weight times the multiplier rounded up, and every example must satisfy its contract's schemas.
 */
import { cssProblem, jsonPathProblem, regexProblem, xpathProblem } from '../extraction.js'
import { creditsPerUnit } from './pricing.js'
import { metaSchemaProblems, schemaCompileProblem, schemaProblems } from './schemas.js'
import { hostInputOf, placeholdersOf, renderUrl, type TemplateScope } from './template.js'
import type { Contract, EmbeddedJson, Locator, Recipe, Step, ValueExtractor } from './types.js'

export interface LintProblem {
  readonly pointer: string
  readonly message: string
}

/** The first expression of an embedded-JSON chain that does not parse, with where it is. */
const embeddedProblem = (json: EmbeddedJson, pointer: string): [string, string] | undefined => {
  const problem = jsonPathProblem(json.jsonpath)
  if (problem) return [`${pointer}/jsonpath`, problem]
  if (json.after !== undefined && json.after === json.before) return [`${pointer}/before`, 'after and before are the same marker: the text between them is empty']
  return json.json ? embeddedProblem(json.json, `${pointer}/json`) : undefined
}

/** A problem of one locator and the pointer below the locator it concerns ('' for its own expression). */
const locatorProblem = (locator: Locator): [string, string] | undefined => {
  const own = 'css' in locator ? cssProblem(locator.css) : 'xpath' in locator ? xpathProblem(locator.xpath) : 'jsonpath' in locator ? jsonPathProblem(locator.jsonpath) : undefined
  if (own) return ['', own]
  const where = 'where' in locator ? locator.where : undefined
  if (where && 'css' in locator && !locator.json) return ['/where', 'where compares JSON values: a css locator takes it only with json']
  const whereProblem = where ? jsonPathProblem(where.jsonpath) : undefined
  if (whereProblem) return ['/where/jsonpath', whereProblem]
  const thenProblem = where?.then !== undefined ? jsonPathProblem(where.then) : undefined
  if (thenProblem) return ['/where/then', thenProblem]
  return 'json' in locator && locator.json ? embeddedProblem(locator.json, '/json') : undefined
}

/** Every `pattern` keyword in a JSON schema, with its pointer. */
const patternsOf = (schema: unknown, pointer: string): [string, string][] => {
  if (typeof schema !== 'object' || schema === null) return []
  return Object.entries(schema).flatMap(([key, value]) => [
    ...(key === 'pattern' && typeof value === 'string' ? [[`${pointer}/pattern`, value] as [string, string]] : []),
    ...patternsOf(value, `${pointer}/${key}`),
  ])
}

/**
 * A value for every placeholder of a text, so a URL template renders exactly as the runtime would render it; the
 * input giving the host takes the value given.
 */
const probeScope = (text: string, host?: { readonly name: string; readonly value: unknown }): TemplateScope => {
  const input: Record<string, unknown> = {}
  const vars: Record<string, string> = {}
  for (const placeholder of placeholdersOf(text)) {
    const [space, name] = placeholder.slice(1, -1).split('.')
    if (space === 'input') input[name!] = 'x'
    if (space === 'vars') vars[name!] = 'x'
  }
  if (host) input[host.name] = host.value
  return { input, vars, page: 1, cursor: 'x' }
}

/** The number of capture groups of a pattern that compiles. */
const captureGroups = (pattern: string): number => new RegExp(`${pattern}|`).exec('')!.length - 1

const stepName = (step: Step, index: number): string => {
  const body = Object.values(step)[0] as { as?: string }
  return body.as ?? (index === 0 ? 'main' : `step${index}`)
}

export const lintRecipe = (document: unknown): LintProblem[] => {
  const shape = metaSchemaProblems(document)
  if (shape.length > 0) return shape
  const recipe = document as Recipe
  const problems: LintProblem[] = []
  const add = (pointer: string, message: string) => problems.push({ pointer, message })
  const numbers = new Set<number>()
  recipe.contracts.forEach((contract, c) => {
    const at = `/contracts/${c}`
    if (numbers.has(contract.contract)) add(`${at}/contract`, `contract ${contract.contract} is published twice`)
    numbers.add(contract.contract)
    lintContract(recipe, contract, at, add)
  })
  return problems
}

const lintContract = (recipe: Recipe, contract: Contract, at: string, add: (pointer: string, message: string) => void) => {
  const price = creditsPerUnit(contract.engine, contract.multiplier)
  if (contract.credits_per_unit !== price) add(`${at}/credits_per_unit`, `must be ${price} (engine weight × multiplier, rounded up)`)
  for (const [key, schema, example] of [['input', contract.input_schema, contract.example.input], ['output', contract.output_schema, contract.example.output]] as const) {
    const compile = schemaCompileProblem(schema)
    if (compile) add(`${at}/${key}_schema`, `does not compile: ${compile}`)
    for (const [pointer, pattern] of patternsOf(schema, `${at}/${key}_schema`)) {
      const problem = regexProblem(pattern)
      if (problem) add(pointer, problem)
    }
    // A schema that does not compile cannot check its example (and would throw).
    if (!compile) for (const p of schemaProblems(schema, structuredClone(example))) add(`${at}/example/${key}${p.pointer}`, p.message)
  }

  const impl = contract.implementation
  const pages = new Set<string>()
  const inputProperties = (contract.input_schema as { properties?: Record<string, { enum?: unknown }> }).properties ?? {}
  const inputNames = new Set(Object.keys(inputProperties))
  const vars = new Set<string>()
  for (const [name, lookup] of Object.entries(impl.lookups ?? {})) {
    const pointer = `${at}/implementation/lookups/${name}`
    const field = (contract.input_schema as { properties?: Record<string, { enum?: unknown[] }> }).properties?.[lookup.from]
    if (!field) add(`${pointer}/from`, `${lookup.from} is not a field of the input schema`)
    if ('present' in lookup) {
      for (const placeholder of placeholdersOf(lookup.present)) {
        const [space, field] = placeholder.slice(1, -1).split('.')
        if (space !== 'input' || !inputNames.has(field!)) add(`${pointer}/present`, `${placeholder}: a lookup's template takes only fields of the input schema`)
      }
    } else {
      for (const value of field?.enum ?? []) {
        if (typeof value !== 'string' || !Object.prototype.hasOwnProperty.call(lookup.map, value)) add(`${pointer}/map`, `the input value ${JSON.stringify(value)} has no entry`)
      }
    }
    vars.add(name)
  }
  for (const [name, derivation] of Object.entries(impl.derive ?? {})) {
    const pointer = `${at}/implementation/derive/${name}`
    if (!inputNames.has(derivation.input)) add(`${pointer}/input`, `${derivation.input} is not a field of the input schema`)
    const problem = regexProblem(derivation.pattern)
    if (problem) add(`${pointer}/pattern`, problem)
    else if (captureGroups(derivation.pattern) < 1) add(`${pointer}/pattern`, 'the pattern has no capture group: the variable is its first one')
    vars.add(name)
  }
  /** `cursor`: the text belongs to a paginate step that declares a cursor, the only place `{cursor}` is known. */
  const checkPlaceholders = (text: string, pointer: string, cursor = false) => {
    for (const placeholder of placeholdersOf(text)) {
      if (placeholder === '{cursor}' && !cursor) add(pointer, '{cursor} is only known in a paginate step that declares a cursor')
      const [space, name] = placeholder.slice(1, -1).split('.')
      if (space === 'input' && !inputNames.has(name!)) add(pointer, `${placeholder} is not a field of the input schema`)
      if (space === 'vars' && !vars.has(name!)) add(pointer, `${placeholder} is not bound by an earlier step`)
    }
  }
  const checkChain = (locators: readonly Locator[], pointer: string) => locators.forEach((locator, i) => {
    const problem = locatorProblem(locator)
    if (problem) add(`${pointer}/${i}${problem[0]}`, `locator does not parse: ${problem[1]}`)
    if ('where' in locator && locator.where) checkPlaceholders(locator.where.equals, `${pointer}/${i}/where/equals`)
  })
  /** A URL renders for every value its host can take: a host placeholder's input must be an enum of declared hosts. */
  const checkUrl = (url: string, query: Readonly<Record<string, string>> | undefined, pointer: string, cursor = false) => {
    const hostInput = hostInputOf(url)
    const hostValues = hostInput === undefined ? [undefined] : inputProperties[hostInput]?.enum
    if (!Array.isArray(hostValues) || hostValues.length === 0) {
      add(`${pointer}/url`, `{input.${hostInput}} gives the host, so the input schema must make ${hostInput} an enum of the recipe's hosts`)
    } else {
      const problems = new Set<string>()
      for (const value of hostValues) {
        const probe = renderUrl(url, {}, probeScope(url, hostInput === undefined ? undefined : { name: hostInput, value }), recipe.hosts)
        if (!probe.ok) problems.add(hostInput === undefined ? probe.error : `${probe.error} (for ${hostInput} ${JSON.stringify(value)})`)
      }
      for (const problem of problems) add(`${pointer}/url`, problem)
    }
    checkPlaceholders(url.replaceAll('{cursor}', ''), `${pointer}/url`)
    if (placeholdersOf(url).includes('{cursor}')) add(`${pointer}/url`, '{cursor} goes only in a query, JSON or form value of its own (it is absent on the first page)')
    for (const [name, value] of Object.entries(query ?? {})) {
      checkPlaceholders(value, `${pointer}/query/${name}`, cursor)
      if (cursor && value !== '{cursor}' && placeholdersOf(value).includes('{cursor}')) add(`${pointer}/query/${name}`, '{cursor} must be the whole query value (it is absent on the first page)')
    }
  }
  const checkHeaders = (headers: Readonly<Record<string, string>> | undefined, pointer: string) => {
    for (const [name, value] of Object.entries(headers ?? {})) {
      if (placeholdersOf(value).length > 0) add(`${pointer}/headers/${name}`, 'headers take no placeholders (input goes only into URLs, bodies and form values)')
    }
  }
  impl.steps.forEach((step, s) => {
    const pointer = `${at}/implementation/steps/${s}`
    if ('request' in step || 'paginate' in step) {
      const request = 'request' in step ? step.request : step.paginate
      const inner = `${pointer}/${'request' in step ? 'request' : 'paginate'}`
      const cursor = 'paginate' in step && step.paginate.cursor !== undefined
      checkUrl(request.url, request.query, inner, cursor)
      checkHeaders(request.headers, inner)
      for (const [name, value] of Object.entries(request.form ?? {})) checkPlaceholders(value, `${inner}/form/${name}`, cursor)
      if (request.json !== undefined) checkPlaceholders(JSON.stringify(request.json), `${inner}/json`, cursor)
      if ('paginate' in step) {
        checkChain(step.paginate.items, `${inner}/items`)
        if (step.paginate.cursor) checkChain(step.paginate.cursor, `${inner}/cursor`)
        const { start = 1, last_page: last } = step.paginate
        if (last !== undefined && last < start) add(`${inner}/last_page`, `the last page (${last}) comes before the first (${start})`)
      }
      if ('request' in step) {
        if (step.request.optional && step.request.bind) add(`${inner}/bind`, 'an optional step binds nothing: later steps could not rely on its variables')
        if (step.request.optional && s === 0) add(`${inner}/optional`, 'the first step cannot be optional: it is the answer of the run')
        for (const [name, binding] of Object.entries(step.request.bind ?? {})) {
          checkChain(binding.locators, `${inner}/bind/${name}/locators`)
          vars.add(name)
        }
      }
    } else if ('follow' in step) {
      checkChain(step.follow.locators, `${pointer}/follow/locators`)
      checkHeaders(step.follow.headers, `${pointer}/follow`)
      for (const [name, value] of Object.entries(step.follow.query ?? {})) checkPlaceholders(value, `${pointer}/follow/query/${name}`)
      if (step.follow.page !== undefined && !pages.has(step.follow.page)) add(`${pointer}/follow/page`, `no earlier step is named ${step.follow.page}`)
    } else if ('navigate' in step) {
      checkUrl(step.navigate.url, step.navigate.query, `${pointer}/navigate`)
    } else if ('click' in step || 'fill' in step || 'wait_for_selector' in step) {
      const [kind, body] = Object.entries(step)[0] as [string, { locators: readonly Locator[]; value?: string }]
      checkChain(body.locators, `${pointer}/${kind}/locators`)
      if (body.value !== undefined) checkPlaceholders(body.value, `${pointer}/${kind}/value`)
    }
    if (s === 0 && contract.engine !== 'light' && !('navigate' in step)) add(pointer, 'a browser recipe starts with navigate')
    if (contract.engine === 'light' && !('request' in step || 'paginate' in step || 'follow' in step)) {
      add(pointer, `${Object.keys(step)[0]} is a browser step; this contract runs on the light engine`)
    }
    if (contract.engine !== 'light' && !('navigate' in step || 'click' in step || 'fill' in step || 'scroll' in step || 'wait_for_selector' in step || 'dismiss_consent' in step)) {
      add(pointer, `${Object.keys(step)[0]} is a light step; this contract runs on a browser engine`)
    }
    if ('request' in step || 'paginate' in step || 'follow' in step || 'navigate' in step) pages.add(stepName(step, s))
  })
  impl.assertions.forEach((assertion, a) => {
    const pointer = `${at}/implementation/assertions/${a}`
    if (assertion.step !== undefined && !pages.has(assertion.step)) add(`${pointer}/step`, `no step is named ${assertion.step}`)
    if (assertion.select) checkChain(assertion.select, `${pointer}/select`)
  })
  for (const [name, extractor] of Object.entries(impl.extract)) {
    const pointer = `${at}/implementation/extract/${name}`
    if (extractor.page !== undefined && !pages.has(extractor.page)) add(`${pointer}/page`, `no step is named ${extractor.page}`)
    const joinWithoutAll = (value: ValueExtractor, at: string) => {
      if (value.join !== undefined && !value.all) add(`${at}/join`, 'join joins the matches of all: true')
    }
    if ('each' in extractor) {
      checkChain(extractor.each, `${pointer}/each`)
      for (const [field, value] of Object.entries(extractor.fields)) {
        checkChain(value.locators, `${pointer}/fields/${field}/locators`)
        joinWithoutAll(value, `${pointer}/fields/${field}`)
      }
      if (extractor.position !== undefined && extractor.position in extractor.fields) add(`${pointer}/position`, `${extractor.position} is already a field of this list`)
    } else {
      checkChain(extractor.locators, `${pointer}/locators`)
      joinWithoutAll(extractor, pointer)
    }
  }
}

/** The name responses of a step are known by: its `as`, else `main` for the first step. */
export { stepName }
