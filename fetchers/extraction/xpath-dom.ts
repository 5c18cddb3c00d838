/**
 * A read-only W3C-DOM-shaped mirror of a cheerio (domhandler) tree, just enough for the `xpath`
 * package. Reusing cheerio's parse (parse5, HTML5 error recovery) keeps one parse per job and
 * makes XPath tolerant of unclosed tags, entities and stray xmlns attributes.
 * Every node carries its document-order index, so `compareDocumentPosition` is O(1): xpath sorts
 * node sets with it, and its fallback scans sibling lists (quadratic on long lists).
 */
import type { AnyNode, Document, Element } from 'domhandler'

const ELEMENT = 1
const ATTRIBUTE = 2
const TEXT = 3
const CDATA = 4
const COMMENT = 8
const DOCUMENT = 9
const FOLLOWING = 4
const PRECEDING = 2

export abstract class XNode {
  abstract readonly nodeType: number
  abstract readonly nodeName: string
  localName: string | null = null
  namespaceURI: string | null = null
  prefix: string | null = null
  nodeValue: string | null = null
  parentNode: XNode | null = null
  ownerDocument: XDocument | null = null
  childNodes: XNode[] = NO_CHILDREN
  firstChild: XNode | null = null
  lastChild: XNode | null = null
  previousSibling: XNode | null = null
  nextSibling: XNode | null = null
  order = 0
  /** The cheerio node mirrored (elements and the document), for text extraction. */
  source: AnyNode | undefined

  compareDocumentPosition(other: XNode): number {
    if (typeof other.order !== 'number') return 0
    return other.order > this.order ? FOLLOWING : other.order < this.order ? PRECEDING : 0
  }
}
const NO_CHILDREN: XNode[] = []

export class XAttr extends XNode {
  readonly nodeType = ATTRIBUTE
  constructor(
    readonly nodeName: string,
    readonly value: string,
    readonly ownerElement: XElement,
  ) {
    super()
    this.nodeValue = value
    const colon = nodeName.indexOf(':')
    this.localName = colon < 0 ? nodeName : nodeName.slice(colon + 1)
  }
  get name() { return this.nodeName }
}

class AttrList extends Array<XAttr> {
  item(i: number): XAttr | null { return this[i] ?? null }
}
const NO_ATTRIBUTES = new AttrList()

export class XElement extends XNode {
  readonly nodeType = ELEMENT
  attributes: AttrList = NO_ATTRIBUTES
  constructor(readonly nodeName: string) { super() }
  get tagName() { return this.nodeName }
  getAttribute(name: string): string | null {
    for (const a of this.attributes) if (a.nodeName === name) return a.value
    return null
  }
}

export class XCharacterData extends XNode {
  constructor(readonly nodeType: number, readonly nodeName: string, data: string) {
    super()
    this.nodeValue = data
  }
  get data() { return this.nodeValue ?? '' }
}

export class XDocument extends XNode {
  readonly nodeType = DOCUMENT
  readonly nodeName = '#document'
  documentElement: XElement | null = null
  private ids: Map<string, XElement> | undefined
  getElementById(id: string): XElement | null {
    if (!this.ids) {
      this.ids = new Map()
      for (let n = this.firstChild; n; n = nextInOrder(n)) {
        const value = n instanceof XElement ? n.getAttribute('id') : null
        if (value !== null && !this.ids.has(value)) this.ids.set(value, n as XElement)
      }
    }
    return this.ids.get(id) ?? null
  }
}

function nextInOrder(n: XNode): XNode | null {
  if (n.firstChild) return n.firstChild
  for (let m: XNode | null = n; m; m = m.parentNode) if (m.nextSibling) return m.nextSibling
  return null
}

/** Namespace declarations in scope, used for XML documents (parse5 already resolves HTML's). */
type Scope = ReadonlyMap<string, string>

/** Mirror a cheerio document. `xml`: names keep their prefixes and namespaces come from xmlns attributes. */
export function mirror(root: Document, xml: boolean): XDocument {
  const doc = new XDocument()
  doc.source = root
  let order = 0
  doc.order = order++
  // Iterative: broken pages can nest deeper than the call stack allows.
  const stack: Array<{ source: AnyNode; parent: XNode; scope: Scope }> = []
  for (let i = root.children.length - 1; i >= 0; i--) stack.push({ source: root.children[i], parent: doc, scope: new Map() })
  while (stack.length > 0) {
    const { source, parent, scope } = stack.pop()!
    let node: XNode
    let childScope = scope
    if (source.type === 'tag' || source.type === 'script' || source.type === 'style') {
      const el = source as Element
      const x = new XElement(el.name)
      x.order = order++
      x.source = el
      if (xml) childScope = declare(el, scope)
      setName(x, el, xml, childScope)
      const names = Object.keys(el.attribs)
      if (names.length > 0) {
        x.attributes = new AttrList()
        for (const name of names) {
          const a = new XAttr(name, el.attribs[name], x)
          a.order = order++
          a.ownerDocument = doc
          a.namespaceURI = el['x-attribsNamespace']?.[name] || null
          a.prefix = el['x-attribsPrefix']?.[name] || null
          x.attributes.push(a)
        }
      }
      if (!doc.documentElement) doc.documentElement = x
      node = x
    } else if (source.type === 'text') node = new XCharacterData(TEXT, '#text', source.data)
    else if (source.type === 'comment') node = new XCharacterData(COMMENT, '#comment', source.data)
    else if (source.type === 'cdata') {
      const text = source.children.map((c) => ('data' in c ? c.data : '')).join('')
      node = new XCharacterData(CDATA, '#cdata-section', text)
    } else continue // doctype and processing instructions are not XPath nodes
    if (node.order === 0) node.order = order++
    node.ownerDocument = doc
    append(parent, node)
    if (node instanceof XElement) {
      const children = (source as Element).children
      for (let i = children.length - 1; i >= 0; i--) stack.push({ source: children[i], parent: node, scope: childScope })
    }
  }
  return doc
}

function append(parent: XNode, node: XNode) {
  if (parent.childNodes === NO_CHILDREN) parent.childNodes = []
  const last = parent.lastChild
  node.parentNode = parent
  node.previousSibling = last
  if (last) last.nextSibling = node
  else parent.firstChild = node
  parent.lastChild = node
  parent.childNodes.push(node)
}

function declare(el: Element, scope: Scope): Scope {
  let out: Map<string, string> | undefined
  for (const [name, value] of Object.entries(el.attribs)) {
    if (name !== 'xmlns' && !name.startsWith('xmlns:')) continue
    out ??= new Map(scope)
    out.set(name === 'xmlns' ? '' : name.slice(6), value)
  }
  return out ?? scope
}

function setName(x: XElement, el: Element, xml: boolean, scope: Scope) {
  if (!xml) {
    x.localName = el.name
    x.namespaceURI = el.namespace ?? null
    return
  }
  const colon = el.name.indexOf(':')
  x.prefix = colon < 0 ? null : el.name.slice(0, colon)
  x.localName = colon < 0 ? el.name : el.name.slice(colon + 1)
  x.namespaceURI = scope.get(x.prefix ?? '') ?? null
}

/** Namespace prefixes declared anywhere in an XML document (first declaration wins). */
export function declaredPrefixes(root: Document): Record<string, string> {
  const out: Record<string, string> = {}
  const stack: AnyNode[] = [...root.children]
  while (stack.length > 0) {
    const n = stack.pop()!
    if (n.type !== 'tag') continue
    for (const [name, value] of Object.entries((n as Element).attribs)) {
      if (name.startsWith('xmlns:') && !(name.slice(6) in out)) out[name.slice(6)] = value
    }
    stack.push(...(n as Element).children)
  }
  return out
}
