/** Text of cheerio (domhandler) nodes as a reader sees it: no script or style, block boundaries kept apart. */
import type { AnyNode, Element } from 'domhandler'

const enum Kind { Inline, Hidden, Block, Cell }
/** Elements not named here are inline. */
const KINDS = new Map<string, Kind>([
  // Never rendered as text.
  ...['script', 'style', 'template', 'noscript', 'head', 'iframe', 'object'].map((name) => [name, Kind.Hidden] as const),
  // Elements that start a new line, so "<p>a</p><p>b</p>" reads "a b", not "ab".
  ...[
    'address', 'article', 'aside', 'blockquote', 'body', 'caption', 'dd', 'details', 'dialog', 'div', 'dl', 'dt',
    'fieldset', 'figcaption', 'figure', 'footer', 'form', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'header', 'hgroup', 'hr',
    'html', 'legend', 'li', 'main', 'nav', 'ol', 'option', 'p', 'pre', 'section', 'summary', 'table', 'tbody', 'tfoot',
    'thead', 'tr', 'ul', 'br',
  ].map((name) => [name, Kind.Block] as const),
  // Table cells stay on their row's line but apart from each other.
  ['td', Kind.Cell], ['th', Kind.Cell],
])
const EXIT = Symbol('exit')

const SPACES = /\s+/g
/** Trim and collapse every run of whitespace (including no-break spaces) to one space. */
export const collapse = (s: string): string => s.replace(SPACES, ' ').trim()

const LINE_FEED = 10
const SPACE = 32
/** Exactly JavaScript's `\s` (what `collapse` and `trim` remove). */
function isSpace(c: number): boolean {
  if (c <= SPACE) return c === SPACE || (c >= 9 && c <= 13)
  if (c < 0xa0) return false
  return c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f ||
    c === 0x205f || c === 0x3000 || c === 0xfeff
}

const enum Gap { None, Space, Line }

/**
 * Text written piece by piece, whitespace collapsed on the way: each run of whitespace (across pieces too) becomes
 * one line break when it holds one and `lines` is set, else one space; leading and trailing whitespace is dropped.
 * The same text as joining the pieces and collapsing the whole, without building and rescanning the raw text.
 */
class CollapsedText {
  private text = ''
  private gap = Gap.None

  constructor(private readonly lines: boolean) {}

  /** A block boundary. */
  lineBreak() {
    this.gap = this.lines ? Gap.Line : this.gap === Gap.None ? Gap.Space : this.gap
  }

  space() {
    if (this.gap === Gap.None) this.gap = Gap.Space
  }

  write(s: string) {
    const n = s.length
    let i = 0
    while (i < n) {
      const c = s.charCodeAt(i)
      if (isSpace(c)) {
        if (c === LINE_FEED) this.lineBreak()
        else this.space()
        i++
        continue
      }
      // The longest stretch from here that needs no change: words joined by single plain spaces.
      let j = i + 1
      for (;;) {
        while (j < n && !isSpace(s.charCodeAt(j))) j++
        if (j + 1 < n && s.charCodeAt(j) === SPACE && !isSpace(s.charCodeAt(j + 1))) j += 2
        else break
      }
      if (this.gap !== Gap.None && this.text !== '') this.text += this.gap === Gap.Line ? '\n' : ' '
      this.gap = Gap.None
      this.text += i === 0 && j === n ? s : s.slice(i, j)
      i = j
    }
  }

  toString() {
    return this.text
  }
}

/** The text under `start` into `out`: block boundaries and cells marked; iterative so deep nesting cannot overflow the stack. */
function collect(start: AnyNode, skipHidden: boolean, out: CollapsedText): string {
  const stack: Array<AnyNode | typeof EXIT> = [start]
  while (stack.length > 0) {
    const n = stack.pop()!
    if (n === EXIT) {
      out.lineBreak()
      continue
    }
    if (n.type === 'text') out.write(n.data)
    else if (n.type === 'cdata' || n.type === 'root' || n.type === 'tag' || n.type === 'script' || n.type === 'style') {
      const name = (n as Element).name
      if (name !== undefined) {
        const kind = KINDS.get(name)
        if (kind === Kind.Hidden && skipHidden && n !== start) continue
        if (kind === Kind.Block) {
          out.lineBreak()
          stack.push(EXIT)
        } else if (kind === Kind.Cell) out.space()
      }
      const children = n.children
      for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]!)
    }
  }
  return out.toString()
}

/** One line of text for an element (CSS, XPath and record values): hidden content skipped, whitespace collapsed. */
export function elementText(node: AnyNode, xml = false): string {
  if (node.type === 'text' || node.type === 'comment') return collapse(node.data)
  return collect(node, !xml, new CollapsedText(false))
}

/** The page's visible text for regex hooks: one line per block, spaces collapsed within lines, blank lines dropped. */
export function visibleText(root: AnyNode, xml = false): string {
  return collect(root, !xml, new CollapsedText(true))
}
