/** `xpath` hooks: XPath 1.0 over a view of the page's cheerio DOM; node results become text, scalars stay scalars. */
import { XPATH_NAMESPACES, type ExtractionHook, type HookResult } from '../../domain/extraction.js'
import type { PageContext } from './page.js'
import { failed, fromMatches, NOT_MARKUP } from './result.js'
import { collapse, elementText } from '../../domain/visible-text.js'
import { XAttr, XCharacterData, XDocument, XElement, type XNode } from './xpath-dom.js'
import { parseXPath, withinBudget, xpath, XPATH_TIME_BUDGET_MS, XPathTimeout, type XNodeSetValue, type XValue } from './xpath-engine.js'

function nodeValue(node: XNode, xml: boolean): string {
  if (node instanceof XAttr) return node.value
  if (node instanceof XCharacterData) return collapse(node.data)
  return node instanceof XElement || node instanceof XDocument ? elementText(node.source, xml) : ''
}

function scalarOf(value: XValue): string | number | boolean {
  if (value instanceof xpath.XNumber) return value.numberValue()
  if (value instanceof xpath.XBoolean) return value.booleanValue()
  return value.stringValue()
}

export function runXPath(hook: ExtractionHook, page: PageContext, budgetMs = XPATH_TIME_BUDGET_MS): HookResult {
  const doc = page.xpathDocument()
  if (!doc) return failed(hook, NOT_MARKUP)
  let value: XValue
  try {
    const expression = parseXPath(hook.path!)
    value = withinBudget(budgetMs, () => expression.evaluate({
      node: doc,
      // HTML: element names match case-insensitively and unprefixed names ignore the XHTML/SVG namespace.
      isHtml: !page.xml,
      allowAnyNamespaceForNoPrefix: true,
      namespaces: { ...page.xmlPrefixes(), ...XPATH_NAMESPACES },
    }))
  } catch (e) {
    if (e instanceof XPathTimeout) return failed(hook, `XPath exceeded its time budget of ${budgetMs} ms`)
    return failed(hook, `XPath evaluation failed: ${(e as Error).message}`)
  }
  if (value instanceof xpath.XNodeSet) return fromMatches(hook, (value as XNodeSetValue).toArray(), (n) => nodeValue(n, page.xml))
  const scalar = scalarOf(value)
  // An empty string or NaN (e.g. string(//missing), number(//missing)) means nothing was found.
  const found = !(scalar === '' || Number.isNaN(scalar))
  return fromMatches(hook, found ? [scalar] : [], (s) => s)
}
