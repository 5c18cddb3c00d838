/**
 * The `text` artifact of a document that no browser rendered (the light tier's HTML response): its text as a reader
 * sees it, close to a browser's innerText without layout. Scripts, styles, templates, the head and elements marked
 * `hidden` are left out; paragraphs and headings stand apart by a blank line, other blocks start a line, `br` breaks
 * one; whitespace collapses except inside `pre`.
 */

const SKIPPED = new Set(['head', 'title', 'script', 'style', 'noscript', 'template', 'svg', 'iframe', 'object'])
const PARAGRAPHS = new Set(['p', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6'])
const BLOCKS = new Set([
  'address', 'article', 'aside', 'blockquote', 'caption', 'dd', 'details', 'dialog', 'div', 'dl', 'dt', 'fieldset',
  'figcaption', 'figure', 'footer', 'form', 'header', 'hr', 'li', 'main', 'nav', 'ol', 'pre', 'section', 'summary',
  'table', 'td', 'th', 'tr', 'ul',
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

/** Lines being written: breaks asked for between blocks are written only once more text follows. */
class Lines {
  private readonly done: string[] = []
  private line = ''
  private breaks = 0
  length = 0
  /** At least `count` line ends before the next text (2: a blank line). Nothing before the first text. */
  blockBoundary(count: number) { if (this.line !== '' || this.done.length > 0) this.breaks = Math.max(this.breaks, count) }
  /** A `br`: a line end even between two of them. */
  forcedBreak() { this.flush(); this.done.push(this.line); this.line = '' }
  text(piece: string, preformatted: boolean) {
    if (preformatted) {
      piece.split('\n').forEach((part, i) => { if (i > 0) this.forcedBreak(); this.append(part) })
      return
    }
    const collapsed = piece.replace(/\s+/g, ' ')
    const atLineStart = this.breaks > 0 || this.line === '' || this.line.endsWith(' ')
    this.append(atLineStart ? collapsed.trimStart() : collapsed)
  }
  private append(piece: string) {
    if (piece === '') return
    this.flush()
    this.line += piece
    this.length += piece.length
  }
  private flush() {
    if (this.breaks === 0) return
    this.done.push(this.line.trimEnd(), ...Array.from({ length: this.breaks - 1 }, () => ''))
    this.line = ''
    this.breaks = 0
  }
  toString() { return [...this.done, this.line.trimEnd()].join('\n').replace(/^\n+|\s+$/g, '') }
}

export const visibleTextOf = (root: DomNode, maxChars: number): string => {
  const lines = new Lines()
  // Iterative walk: a deeply nested document must not overflow the stack. A number marks the end of a block.
  const stack: (readonly [DomNode, boolean] | number)[] = [[root, false]]
  while (stack.length > 0 && lines.length < maxChars) {
    const entry = stack.pop()!
    if (typeof entry === 'number') { lines.blockBoundary(entry); continue }
    const [node, inPre] = entry
    if (node.nodeType === TEXT) { lines.text(node.textContent ?? '', inPre); continue }
    const name = node.nodeType === ELEMENT ? node.localName ?? '' : ''
    if (SKIPPED.has(name) || node.hasAttribute?.('hidden')) continue
    if (name === 'br') { lines.forcedBreak(); continue }
    const boundary = PARAGRAPHS.has(name) ? 2 : BLOCKS.has(name) ? 1 : 0
    if (boundary > 0) { lines.blockBoundary(boundary); stack.push(boundary) }
    const pre = inPre || name === 'pre'
    for (let i = node.childNodes.length - 1; i >= 0; i--) stack.push([node.childNodes[i]!, pre])
  }
  return lines.toString().slice(0, maxChars)
}
