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
  /** Elements by `tag:<name>`, `class:<name>`, `id:<value>` and `attr:<name>`, each list in document order. */
  readonly byKey: ReadonlyMap<string, readonly Element[]>
}

const isElement = (node: AnyNode): node is Element => node.type === 'tag' || node.type === 'script' || node.type === 'style'

/** One walk over the page. Names are listed lower-cased (SVG's are not), so a list holds every element that may match. */
export function indexElements(root: AnyNode): ElementIndex {
  const all: Element[] = []
  const byKey = new Map<string, Element[]>()
  const add = (key: string, el: Element) => {
    const list = byKey.get(key)
    if (!list) byKey.set(key, [el])
    else if (list[list.length - 1] !== el) list.push(el) // class="a a" lists the element once
  }
  const stack: AnyNode[] = [root]
  while (stack.length > 0) {
    const node = stack.pop()!
    if (isElement(node)) {
      all.push(node)
      add(`tag:${node.name.toLowerCase()}`, node)
      for (const name in node.attribs) {
        add(`attr:${name.toLowerCase()}`, node)
        if (name === 'id') add(`id:${node.attribs.id}`, node)
        else if (name === 'class') for (const c of node.attribs.class!.split(/[ \t\n\f\r]+/)) if (c) add(`class:${c}`, node)
      }
    }
    const children = (node as Partial<Element>).children
    if (children) for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]!)
  }
  return { all, byKey }
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
  const keys = requiredKeys(selector)
  let best: readonly Element[] = index.all
  for (const key of keys) {
    const list = index.byKey.get(key) ?? []
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
