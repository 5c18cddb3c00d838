/** The nodes a CSS or XPath selector names, with the extraction code's engines (change detection's `selector` mode). */
import type { AnyNode } from 'domhandler'
import { XPATH_NAMESPACES } from '../../domain/extraction.js'
import type { SelectNodes } from '../../domain/detection/normalize.js'
import { isXPath } from '../../domain/monitor/detection-validation.js'
import { XDocument, XElement } from './xpath-dom.js'
import { parseXPath, withinBudget, xpath, XPATH_TIME_BUDGET_MS, type XNodeSetValue } from './xpath-engine.js'

/**
 * Elements only: an XPath naming attributes or text picks no node to read or mask. The XPath view is made
 * from the document as it is now, so masked nodes are already gone. Throws XPathTimeout past the time budget.
 */
export const selectNodes: SelectNodes = ($, selector) => {
  if (!isXPath(selector)) return $(selector).toArray()
  const doc = new XDocument($.root()[0], false)
  const value = withinBudget(XPATH_TIME_BUDGET_MS, () => parseXPath(selector).evaluate({
    node: doc, isHtml: true, allowAnyNamespaceForNoPrefix: true, namespaces: XPATH_NAMESPACES,
  }))
  if (!(value instanceof xpath.XNodeSet)) return []
  return (value as XNodeSetValue).toArray().flatMap((node): AnyNode[] =>
    node instanceof XElement || node instanceof XDocument ? [node.source] : [])
}
