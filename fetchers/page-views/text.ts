/**
 * The `text` artifact of a document that no browser rendered (the light tier's HTML response): its text as a reader
 * sees it, close to a browser's innerText without layout. Scripts, styles, templates, the head and elements marked
 * `hidden` are left out; block elements and `br` break lines; whitespace collapses except inside `pre`.
 */

const SKIPPED = new Set(['head', 'script', 'style', 'noscript', 'template', 'svg', 'iframe', 'object'])
const BLOCKS = new Set([
  'address', 'article', 'aside', 'blockquote', 'br', 'caption', 'dd', 'details', 'dialog', 'div', 'dl', 'dt', 'fieldset',
  'figcaption', 'figure', 'footer', 'form', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'header', 'hr', 'li', 'main', 'nav', 'ol',
  'p', 'pre', 'section', 'summary', 'table', 'td', 'th', 'tr', 'ul',
])

interface DomNode {
  readonly nodeType: number
  readonly localName?: string
  readonly textContent: string | null
  readonly childNodes: ArrayLike<DomNode>
  hasAttribute?(name: string): boolean
}

const ELEMENT = 1
const TEXT = 3

export const visibleTextOf = (root: DomNode | null | undefined, maxChars: number): string => {
  if (!root) return ''
  const parts: string[] = []
  let length = 0
  // Iterative walk: a deeply nested document must not overflow the stack. `null` marks the end of a block.
  const stack: (readonly [DomNode, boolean] | null)[] = [[root, false]]
  while (stack.length > 0 && length < maxChars) {
    const entry = stack.pop()!
    if (entry === null) { parts.push('\n'); continue }
    const [node, inPre] = entry
    if (node.nodeType === TEXT) {
      const raw = node.textContent ?? ''
      const piece = inPre ? raw : raw.replace(/\s+/g, ' ')
      parts.push(piece)
      length += piece.length
      continue
    }
    if (node.nodeType !== ELEMENT) continue
    const name = node.localName ?? ''
    if (SKIPPED.has(name) || node.hasAttribute?.('hidden')) continue
    const block = BLOCKS.has(name)
    if (block) { parts.push('\n'); stack.push(null) }
    const pre = inPre || name === 'pre'
    for (let i = node.childNodes.length - 1; i >= 0; i--) stack.push([node.childNodes[i]!, pre])
  }
  return parts.join('')
    .split('\n').map((line) => line.replace(/^[ \t]+|[ \t]+$/g, ''))
    .join('\n').replace(/\n{3,}/g, '\n\n').trim()
    .slice(0, maxChars)
}
