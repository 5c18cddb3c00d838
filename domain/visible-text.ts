/** Text of cheerio (domhandler) nodes as a reader sees it: no script or style, block boundaries kept apart. */
import type { AnyNode, Element } from 'domhandler'

/** Never rendered as text. */
const HIDDEN = new Set(['script', 'style', 'template', 'noscript', 'head', 'iframe', 'object'])
/** Elements that start a new line, so "<p>a</p><p>b</p>" reads "a b", not "ab". */
const BLOCK = new Set([
  'address', 'article', 'aside', 'blockquote', 'body', 'caption', 'dd', 'details', 'dialog', 'div', 'dl', 'dt',
  'fieldset', 'figcaption', 'figure', 'footer', 'form', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'header', 'hgroup', 'hr',
  'html', 'legend', 'li', 'main', 'nav', 'ol', 'option', 'p', 'pre', 'section', 'summary', 'table', 'tbody', 'tfoot',
  'thead', 'tr', 'ul', 'br',
])
/** Table cells stay on their row's line but apart from each other. */
const CELL = new Set(['td', 'th'])
const EXIT = Symbol('exit')

const SPACES = /\s+/g
/** Trim and collapse every run of whitespace (including no-break spaces) to one space. */
export const collapse = (s: string): string => s.replace(SPACES, ' ').trim()

/** Raw text with '\n' at block boundaries and ' ' around cells; iterative so deep nesting cannot overflow the stack. */
function rawText(start: AnyNode, skipHidden: boolean): string {
  const parts: string[] = []
  const stack: Array<AnyNode | typeof EXIT> = [start]
  while (stack.length > 0) {
    const n = stack.pop()!
    if (n === EXIT) {
      parts.push('\n')
      continue
    }
    if (n.type === 'text') parts.push(n.data)
    else if (n.type === 'cdata' || n.type === 'root' || n.type === 'tag' || n.type === 'script' || n.type === 'style') {
      const name = (n as Element).name
      if (name !== undefined) {
        if (skipHidden && HIDDEN.has(name) && n !== start) continue
        if (BLOCK.has(name)) {
          parts.push('\n')
          stack.push(EXIT)
        } else if (CELL.has(name)) parts.push(' ')
      }
      const children = n.children
      for (let i = children.length - 1; i >= 0; i--) stack.push(children[i])
    }
  }
  return parts.join('')
}

/** One line of text for an element (CSS, XPath and record values): hidden content skipped, whitespace collapsed. */
export function elementText(node: AnyNode, xml = false): string {
  if (node.type === 'text' || node.type === 'comment') return collapse(node.data)
  return collapse(rawText(node, !xml))
}

/** The page's visible text for regex hooks: one line per block, spaces collapsed within lines, blank lines dropped. */
export function visibleText(root: AnyNode, xml = false): string {
  // Two passes over the whole text beat splitting a 2 MB page into lines and collapsing each.
  return rawText(root, !xml).replace(HORIZONTAL_SPACES, ' ').replace(LINE_BREAKS, '\n').trim()
}
/** Whitespace other than line feeds (\s includes no-break spaces). */
const HORIZONTAL_SPACES = /[^\S\n]+/g
/** A line break with the spaces and blank lines around it. */
const LINE_BREAKS = / ?\n[\n ]*/g
