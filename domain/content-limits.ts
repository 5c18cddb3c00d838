/**
 * Caps on what customer input makes the service compute (docs/limits.md): the page that extraction and change
 * detection read, the DOM built from it, and the complexity of a CSS selector. Work over a cap ends with a short,
 * documented error instead of running for as long as the input makes it.
 */
import type { AnyNode } from 'domhandler'

/** Characters of markup (or body text) extraction and detection read; a larger page is refused, not cut. */
export const MAX_CONTENT_CHARS = 10 * 1024 * 1024
/** Element nesting depth; Chromium's HTML parser stops nesting at 512 too. */
export const MAX_DOM_DEPTH = 512
/** Elements in one page's DOM. */
export const MAX_DOM_ELEMENTS = 500_000
/** Combinators (descendant, `>`, `+`, `~`) in one selector, counted inside `:has()`, `:not()`, ... as well. */
export const MAX_SELECTOR_COMBINATORS = 16
/** `:has()` inside `:has()` is refused: each level multiplies the elements a match visits. */
export const MAX_HAS_NESTING = 1
/** Selectors in one comma-separated list. */
export const MAX_SELECTOR_ALTERNATIVES = 32

export const contentProblem = (text: string): string | undefined =>
  text.length > MAX_CONTENT_CHARS
    ? `the page has ${text.length} characters; extraction and change detection read pages of at most ${MAX_CONTENT_CHARS}`
    : undefined

/** One walk over a parsed page: its element count and nesting depth against the caps. */
export const domProblem = (root: AnyNode): string | undefined => {
  let elements = 0
  const stack: Array<[AnyNode, number]> = [[root, 0]]
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!
    const isElement = node.type === 'tag' || node.type === 'script' || node.type === 'style'
    if (isElement && ++elements > MAX_DOM_ELEMENTS) return `the page has more than ${MAX_DOM_ELEMENTS} elements`
    if (isElement && depth > MAX_DOM_DEPTH) return `the page nests elements more than ${MAX_DOM_DEPTH} deep`
    const children = (node as { children?: AnyNode[] }).children
    if (children) for (const child of children) stack.push([child, isElement ? depth + 1 : depth])
  }
  return undefined
}

/** Pseudo-classes whose argument is a formula or a language, not a selector (`:nth-child(2n+1)`). */
const FORMULA_PSEUDO = /:(?:nth-[\w-]+|lang|dir|contains|icontains)\s*$/i

/**
 * Structural cost of a selector, read without parsing it fully: combinators (a run of whitespace between two
 * compounds counts as one, as do `>`, `+`, `~`), the deepest `:has()` nesting and the number of comma-separated
 * alternatives. Quoted strings and attribute brackets are skipped; so are the arguments of formula pseudo-classes.
 */
export const selectorCost = (selector: string): { combinators: number; hasNesting: number; alternatives: number } => {
  let combinators = 0
  let alternatives = 1
  let hasNesting = 0
  const parens: Array<'has' | 'selector' | 'formula'> = []
  let quote: string | undefined
  let bracket = false
  let pendingSpace = false
  let previous = '' // last significant character outside quotes and brackets
  for (let i = 0; i < selector.length; i++) {
    const c = selector[i]!
    if (quote) { if (c === '\\') i++; else if (c === quote) quote = undefined; continue }
    if (c === '\\') { i++; previous = 'x'; pendingSpace = false; continue }
    if (c === '"' || c === '\'') { quote = c; continue }
    if (bracket) { if (c === ']') bracket = false; continue }
    if (parens.at(-1) === 'formula') { if (c === '(') parens.push('formula'); else if (c === ')') parens.pop(); continue }
    if (/\s/.test(c)) { pendingSpace = previous !== ''; continue }
    const combinator = c === '>' || c === '+' || c === '~'
    // Whitespace between two compounds is the descendant combinator; around other combinators it is layout.
    if (pendingSpace && !combinator && c !== ',' && c !== ')' && !'>+~,('.includes(previous)) combinators++
    pendingSpace = false
    if (combinator) combinators++
    else if (c === ',' && parens.length === 0) alternatives++
    else if (c === '[') bracket = true
    else if (c === '(') {
      const before = selector.slice(0, i)
      parens.push(/:has\s*$/i.test(before) ? 'has' : FORMULA_PSEUDO.test(before) ? 'formula' : 'selector')
      hasNesting = Math.max(hasNesting, parens.filter((p) => p === 'has').length)
    } else if (c === ')') parens.pop()
    previous = c
  }
  return { combinators, hasNesting, alternatives }
}

/** Why a selector is too complex to run (code `selector_too_complex`), or undefined. */
export const selectorComplexityProblem = (selector: string): string | undefined => {
  const cost = selectorCost(selector)
  if (cost.hasNesting > MAX_HAS_NESTING) return `:has() may not be nested (at most ${MAX_HAS_NESTING} level)`
  if (cost.combinators > MAX_SELECTOR_COMBINATORS) return `the selector has ${cost.combinators} combinators; at most ${MAX_SELECTOR_COMBINATORS} are allowed`
  if (cost.alternatives > MAX_SELECTOR_ALTERNATIVES) return `the selector lists ${cost.alternatives} alternatives; at most ${MAX_SELECTOR_ALTERNATIVES} are allowed`
  return undefined
}
