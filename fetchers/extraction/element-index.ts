/**
 * Whole-page CSS queries without walking the whole page per query. A large page has ~10^5 nodes, and every
 * `$(selector)` walks all of them; a job's css hooks and records containers would walk it a dozen times. Instead, one
 * walk lists the page's elements by tag, class, id and attribute name, and a query tests, with its selector compiled
 * by cheerio's engine, only the elements that carry what its last compound requires (`.card .name` tests the
 * elements of class `name`), in document order. Selectors this cannot read safely go to cheerio as before.
 */
import type { CheerioAPI } from 'cheerio'
import { compile } from 'css-select'
import type { AnyNode, Element } from 'domhandler'

export interface ElementIndex {
  readonly all: readonly Element[]
  /** Elements by lower-cased tag name, class, id and lower-cased attribute name, each list in document order. */
  readonly byTag: ReadonlyMap<string, readonly Element[]>
  readonly byClass: ReadonlyMap<string, readonly Element[]>
  readonly byId: ReadonlyMap<string, readonly Element[]>
  readonly byAttribute: ReadonlyMap<string, readonly Element[]>
}

const isElement = (node: AnyNode): node is Element => node.type === 'tag' || node.type === 'script' || node.type === 'style'

function add(map: Map<string, Element[]>, key: string, el: Element) {
  const list = map.get(key)
  if (!list) map.set(key, [el])
  else if (list[list.length - 1] !== el) list.push(el) // class="a a" lists the element once
}

/** HTML's ASCII whitespace, which separates class names. */
const isClassSeparator = (c: number) => c === 32 || c === 9 || c === 10 || c === 12 || c === 13

function addClasses(map: Map<string, Element[]>, value: string, el: Element) {
  let start = 0
  for (let i = 0; i <= value.length; i++) {
    if (i < value.length && !isClassSeparator(value.charCodeAt(i))) continue
    if (i > start) add(map, start === 0 && i === value.length ? value : value.slice(start, i), el)
    start = i + 1
  }
}

/** One walk over the page. Names are listed lower-cased (SVG's are not), so a list holds every element that may match. */
export function indexElements(root: AnyNode): ElementIndex {
  const all: Element[] = []
  const byTag = new Map<string, Element[]>()
  const byClass = new Map<string, Element[]>()
  const byId = new Map<string, Element[]>()
  const byAttribute = new Map<string, Element[]>()
  const stack: AnyNode[] = [root]
  while (stack.length > 0) {
    const node = stack.pop()!
    if (isElement(node)) {
      all.push(node)
      add(byTag, node.name.toLowerCase(), node)
      const attribs = node.attribs
      for (const name in attribs) {
        add(byAttribute, name.toLowerCase(), node)
        if (name === 'id') add(byId, attribs.id!, node)
        else if (name === 'class') addClasses(byClass, attribs.class!, node)
      }
    }
    const children = (node as Partial<Element>).children
    if (children) for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]!)
  }
  return { all, byTag, byClass, byId, byAttribute }
}

/** jQuery positionals and relative selectors mean something only to cheerio; markup creates elements; `:scope` is its root. */
const CHEERIO_ONLY = /:(?:first|last|eq|nth|gt|lt|even|odd)(?![\w-])|^\s*[+~>]|^\s*<|:scope(?![\w-])/i

/**
 * The elements matching `selector` in document order, as `$(selector)` finds them; undefined when the selector is
 * one to leave to cheerio (its own extensions, or something the compiler rejects).
 */
export function selectIndexed(index: ElementIndex, selector: string): Element[] | undefined {
  if (CHEERIO_ONLY.test(selector)) return undefined
  let test: (el: Element) => boolean
  try {
    test = compile<AnyNode, Element>(selector, { xmlMode: false })
  } catch {
    return undefined
  }
  return candidates(index, selector).filter((el) => test(el))
}

/** The smallest list holding every element that can match: by a key the selector's last compound requires. */
function candidates(index: ElementIndex, selector: string): readonly Element[] {
  const lists = { tag: index.byTag, class: index.byClass, id: index.byId, attr: index.byAttribute }
  let best: readonly Element[] = index.all
  for (const key of requiredKeys(selector)) {
    const colon = key.indexOf(':')
    const list = lists[key.slice(0, colon) as keyof typeof lists].get(key.slice(colon + 1)) ?? []
    if (list.length < best.length) best = list
  }
  return best
}

/**
 * What any match must carry, read from the last compound of a single selector (no commas, escapes or namespaces,
 * which are left to a full scan): its tag, classes, id and attribute names. Parenthesised arguments of pseudo-classes
 * (`:not(.x)`) and quoted attribute values require nothing and are dropped first.
 */
export function requiredKeys(selector: string): string[] {
  if (/[,\\|]/.test(selector)) return []
  const compound = lastCompound(selector.trim())
  if (compound === undefined) return []
  const keys: string[] = []
  let rest = compound.replace(/"[^"]*"|'[^']*'/g, '""')
  rest = rest.replace(/\[\s*([A-Za-z_][\w-]*)[^\]]*\]/g, (_, name: string) => { keys.push(`attr:${name.toLowerCase()}`); return '' })
  for (let previous = ''; previous !== rest;) {
    previous = rest
    rest = rest.replace(/\([^()]*\)/g, '')
  }
  if (/[[\]()]/.test(rest)) return []
  rest = rest.replace(/::?[\w-]+/g, '')
  const tag = /^[A-Za-z][\w-]*/.exec(rest)
  if (tag) keys.push(`tag:${tag[0].toLowerCase()}`)
  for (const [, name] of rest.matchAll(/\.([\w-]+)/g)) keys.push(`class:${name}`)
  for (const [, id] of rest.matchAll(/#([\w-]+)/g)) keys.push(`id:${id}`)
  return keys
}

/** The text after the last combinator outside brackets, parentheses and quotes. */
function lastCompound(selector: string): string | undefined {
  let depth = 0
  let quote: string | undefined
  let start = 0
  for (let i = 0; i < selector.length; i++) {
    const c = selector[i]!
    if (quote) {
      if (c === quote) quote = undefined
    } else if (c === '"' || c === '\'') quote = c
    else if (c === '(' || c === '[') depth++
    else if (c === ')' || c === ']') depth--
    else if (depth === 0 && (c === ' ' || c === '>' || c === '+' || c === '~' || c === '\t' || c === '\n')) start = i + 1
  }
  return depth === 0 && quote === undefined ? selector.slice(start) : undefined
}

/** `$(selector)` over the whole page, through the index when it can be used. */
export function selectAll($: CheerioAPI, index: ElementIndex | undefined, selector: string): Element[] {
  return (index && selectIndexed(index, selector)) ?? ($(selector).toArray() as Element[])
}
