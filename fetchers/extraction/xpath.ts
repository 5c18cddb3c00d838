/** `xpath` hooks: XPath 1.0 over the page's DOM mirror; node results become text, scalars stay scalars. */
import xpathLib from 'xpath'
import { XPATH_NAMESPACES, type ExtractionHook, type HookResult } from '../../domain/extraction.js'
import type { PageContext } from './page.js'
import { failed, fromMatches, NOT_MARKUP } from './result.js'
import { collapse, elementText } from './text.js'
import { XAttr, XCharacterData, type XNode } from './xpath-dom.js'

interface XValue {
  stringValue(): string
  numberValue(): number
  booleanValue(): boolean
}
interface XNodeSetValue extends XValue {
  toArray(): XNode[]
}
// The parsed-expression API and value classes exist at run time but are missing from xpath's typings.
interface XPathInternals {
  parse(expression: string): { evaluate(options: Record<string, unknown>): XValue }
  XNodeSet: abstract new (...args: never[]) => XNodeSetValue
  XNumber: abstract new (...args: never[]) => { numberValue(): number; readonly kind?: 'number' }
  XBoolean: abstract new (...args: never[]) => { booleanValue(): boolean; readonly kind?: 'boolean' }
}
const xpath = xpathLib as unknown as XPathInternals

const compiled = new Map<string, ReturnType<XPathInternals['parse']>>()
/** Monitors re-run the same hooks: keep a bounded cache of parsed expressions. */
function parse(path: string) {
  let expr = compiled.get(path)
  if (!expr) {
    expr = xpath.parse(path)
    if (compiled.size >= 500) compiled.delete(compiled.keys().next().value!)
    compiled.set(path, expr)
  }
  return expr
}

function nodeValue(node: XNode, xml: boolean): string {
  if (node instanceof XAttr) return node.value
  if (node instanceof XCharacterData) return collapse(node.data)
  return node.source ? elementText(node.source, xml) : ''
}

function scalarOf(value: XValue): string | number | boolean {
  if (value instanceof xpath.XNumber) return value.numberValue()
  if (value instanceof xpath.XBoolean) return value.booleanValue()
  return value.stringValue()
}

export function runXPath(hook: ExtractionHook, page: PageContext): HookResult {
  const doc = page.xpathDocument()
  if (!doc) return failed(hook, NOT_MARKUP)
  let value: XValue
  try {
    value = parse(hook.path!).evaluate({
      node: doc,
      // HTML: element names match case-insensitively and unprefixed names ignore the XHTML/SVG namespace.
      isHtml: !page.xml,
      allowAnyNamespaceForNoPrefix: true,
      namespaces: { ...page.xmlPrefixes(), ...XPATH_NAMESPACES },
    })
  } catch (e) {
    return failed(hook, `XPath evaluation failed: ${(e as Error).message}`)
  }
  if (value instanceof xpath.XNodeSet) return fromMatches(hook, value.toArray(), (n) => nodeValue(n, page.xml))
  const scalar = scalarOf(value)
  // An empty string or NaN (e.g. string(//missing), number(//missing)) means nothing was found.
  const found = !(scalar === '' || Number.isNaN(scalar))
  return fromMatches(hook, found ? [scalar] : [], (s) => s)
}
