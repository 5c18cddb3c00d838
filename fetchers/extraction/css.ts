/** `css` hooks: text or one attribute of the elements a CSS selector matches. */
import type { Element } from 'domhandler'
import type { ExtractionHook, HookResult } from '../../domain/extraction.js'
import type { PageContext } from './page.js'
import { failed, fromMatches, NOT_MARKUP } from './result.js'
import { elementText } from '../../domain/visible-text.js'

/** An attribute value; HTML names are case-insensitive and parse5 stores them lowercased. */
export function attributeOf(el: Element, name: string): string | undefined {
  return el.attribs[name] ?? el.attribs[name.toLowerCase()]
}

export function runCss(hook: ExtractionHook, page: PageContext): HookResult {
  let elements = page.select(hook.selector!)
  if (!elements) return failed(hook, NOT_MARKUP)
  const attribute = hook.attribute
  if (attribute === undefined) return fromMatches(hook, elements, (el) => elementText(el, page.xml))
  // Elements without the attribute are not matches: `a` + href should not yield nulls for anchors without one.
  elements = elements.filter((el) => attributeOf(el, attribute) !== undefined)
  return fromMatches(hook, elements, (el) => attributeOf(el, attribute))
}
