/**
 * A read-only W3C-DOM-shaped view of a cheerio (domhandler) tree, just enough for the `xpath`
 * package. Reusing cheerio's parse (parse5, HTML5 error recovery) keeps one parse per job and
 * makes XPath tolerant of unclosed tags, entities and stray xmlns attributes.
 *
 * The view is lazy: a node's wrapper is made the first time XPath reaches it (and then kept, so a node
 * is always the same object in node sets). A 2 MB page has ~130 000 nodes and most queries touch few of
 * them. One walk at the start gives every node its document-order index, so `compareDocumentPosition`
 * and node-set sorting are O(1) per comparison, and lists the elements by name for `//name` steps.
 */
import type { AnyNode, Document, Element } from 'domhandler'
import { XPATH_NAMESPACES } from '../../domain/extraction.js'

const FOLLOWING = 4
const PRECEDING = 2

const isElement = (n: AnyNode): n is Element => n.type === 'tag' || n.type === 'script' || n.type === 'style'
/** Doctypes and processing instructions (domhandler's directives) are not XPath nodes. */
const isXPathNode = (n: AnyNode) => n.type !== 'directive'

export abstract class XNode {
  abstract readonly nodeType: number
  abstract readonly nodeName: string
  abstract readonly localName: string | null
  abstract readonly namespaceURI: string | null
  abstract readonly prefix: string | null
  abstract readonly nodeValue: string | null
  abstract readonly parentNode: XNode | null
  abstract readonly firstChild: XNode | null
  abstract readonly lastChild: XNode | null
  abstract readonly previousSibling: XNode | null
  abstract readonly nextSibling: XNode | null
  abstract readonly ownerDocument: XDocument | null
  /** Position in document order (attributes sit between their element and its first child). */
  abstract readonly order: number

  /** Built on demand: xpath walks firstChild/nextSibling. */
  get childNodes(): XNode[] {
    const out: XNode[] = []
    for (let n = this.firstChild; n; n = n.nextSibling) out.push(n)
    return out
  }

  compareDocumentPosition(other: XNode): number {
    if (typeof other.order !== 'number') return 0
    return other.order > this.order ? FOLLOWING : other.order < this.order ? PRECEDING : 0
  }
}

/** A wrapper of one domhandler node: navigation reads the source tree and wraps what it finds. */
abstract class XSourceNode<S extends AnyNode | Document> extends XNode {
  readonly order: number
  constructor(readonly source: S, readonly ownerDocument: XDocument) {
    super()
    this.order = ownerDocument.orderOf(source)
  }
  get parentNode(): XNode | null {
    const parent = this.source.parent
    return parent ? this.ownerDocument.wrap(parent) : null
  }
  get previousSibling(): XNode | null {
    for (let s = this.source.prev; s; s = s.prev) if (isXPathNode(s)) return this.ownerDocument.wrap(s)
    return null
  }
  get nextSibling(): XNode | null {
    for (let s = this.source.next; s; s = s.next) if (isXPathNode(s)) return this.ownerDocument.wrap(s)
    return null
  }
  get firstChild(): XNode | null {
    return null
  }
  get lastChild(): XNode | null {
    return null
  }
}

/** First (or last) child of a container that is an XPath node, wrapped. */
function childOf(doc: XDocument, children: readonly AnyNode[], last: boolean): XNode | null {
  if (last) {
    for (let i = children.length - 1; i >= 0; i--) if (isXPathNode(children[i]!)) return doc.wrap(children[i]!)
  } else {
    for (let i = 0; i < children.length; i++) if (isXPathNode(children[i]!)) return doc.wrap(children[i]!)
  }
  return null
}

export class XAttr extends XNode {
  readonly nodeType = 2
  readonly localName: string
  readonly namespaceURI: string | null
  readonly prefix: string | null
  readonly parentNode = null
  readonly firstChild = null
  readonly lastChild = null
  readonly previousSibling = null
  readonly nextSibling = null
  constructor(readonly nodeName: string, readonly value: string, readonly ownerElement: XElement, namespace: string | undefined, prefix: string | undefined, readonly order: number) {
    super()
    const colon = nodeName.indexOf(':')
    this.localName = colon < 0 ? nodeName : nodeName.slice(colon + 1)
    this.prefix = prefix || (colon < 0 ? null : nodeName.slice(0, colon))
    // HTML keeps names like xml:lang as plain names; give the well-known prefixes their namespace.
    this.namespaceURI = namespace || (this.prefix !== null ? (XPATH_NAMESPACES[this.prefix] ?? null) : null)
  }
  get ownerDocument() { return this.ownerElement.ownerDocument }
  get name() { return this.nodeName }
  get nodeValue() { return this.value }
}

/** The NamedNodeMap subset xpath uses (`length`, `item`). */
export class AttrList {
  private readonly items: Array<XAttr | undefined> = []
  constructor(private readonly owner: XElement, private readonly names: readonly string[]) {}
  get length() { return this.names.length }
  /** Each attribute node is made when first asked for; they sort after the element, before its first child. */
  item(i: number): XAttr | null {
    if (!(i >= 0 && i < this.names.length)) return null
    let attr = this.items[i]
    if (!attr) {
      const { owner, names } = this
      const source = owner.source
      const name = names[i]!
      const order = owner.order + (i + 1) / (names.length + 1)
      attr = new XAttr(name, source.attribs[name]!, owner, source['x-attribsNamespace']?.[name], source['x-attribsPrefix']?.[name], order)
      this.items[i] = attr
    }
    return attr
  }
  /**
   * Whether attribute `i` may match a name test for `localName`: its local name (as XAttr reads it) equal, in any
   * case when `anyCase`. A quick filter only: the test itself still decides.
   */
  mayMatch(i: number, localName: string, anyCase: boolean): boolean {
    const name = this.names[i]!
    const local = name.slice(name.indexOf(':') + 1) || name
    return anyCase ? local.toLowerCase() === localName.toLowerCase() : local === localName
  }
}

export class XElement extends XSourceNode<Element> {
  readonly nodeType = 1
  private attributeList?: AttrList
  readonly localName: string
  readonly prefix: string | null
  private namespace?: string | null
  constructor(source: Element, doc: XDocument) {
    super(source, doc)
    const colon = doc.xml ? source.name.indexOf(':') : -1
    this.prefix = colon < 0 ? null : source.name.slice(0, colon)
    this.localName = colon < 0 ? source.name : source.name.slice(colon + 1)
  }
  get nodeName() { return this.source.name }
  get tagName() { return this.source.name }
  get nodeValue() { return null }
  /** HTML: parse5's namespace. XML: the nearest xmlns declaration for the element's prefix, itself included. */
  get namespaceURI(): string | null {
    if (this.namespace === undefined) {
      this.namespace = this.ownerDocument.xml ? this.ownerDocument.namespaceFor(this.source, this.prefix ?? '') : (this.source.namespace ?? null)
    }
    return this.namespace
  }
  override get firstChild() { return childOf(this.ownerDocument, this.source.children, false) }
  override get lastChild() { return childOf(this.ownerDocument, this.source.children, true) }
  /** Made when XPath first asks (most elements are never asked). */
  get attributes(): AttrList {
    this.attributeList ??= new AttrList(this, Object.keys(this.source.attribs))
    return this.attributeList
  }
  getAttribute(name: string): string | null {
    return this.source.attribs[name] ?? null
  }
}

/** Text, comment and CDATA nodes. */
export class XCharacterData extends XSourceNode<AnyNode> {
  constructor(source: AnyNode, doc: XDocument, readonly nodeType: number, readonly nodeName: string, readonly nodeValue: string) {
    super(source, doc)
  }
  get data() { return this.nodeValue }
  get localName() { return null }
  get namespaceURI() { return null }
  get prefix() { return null }
}

/** Namespace declarations a fragment inherits (prefix → URI, '' for the default namespace). */
type Scope = ReadonlyMap<string, string>
const NO_SCOPE: Scope = new Map()

export class XDocument extends XNode {
  readonly nodeType = 9
  readonly nodeName = '#document'
  readonly order = 0
  readonly ownerDocument = null
  readonly parentNode = null
  readonly previousSibling = null
  readonly nextSibling = null
  /**
   * Document-order index of every element. Every node of the source tree takes one number in the walk, but only
   * elements are recorded: other nodes are far more numerous, rarely reached, and placed from their neighbours.
   */
  private readonly orders = new Map<AnyNode, number>()
  /** Other nodes' indexes, once computed. */
  private readonly otherOrders = new Map<AnyNode, number>()
  /** Elements by lower-cased local name, in document order, with their indexes (for `//name` steps). */
  private readonly elementsByName = new Map<string, { readonly elements: Element[]; readonly orders: number[] }>()
  private readonly wrappers = new Map<AnyNode, XNode>()
  private ids: Map<string, XElement> | undefined

  /**
   * `xml`: names keep their prefixes and namespaces come from xmlns attributes, starting from `inScope` for a
   * fragment cut out of a larger document.
   */
  constructor(readonly source: Document, readonly xml: boolean, private readonly inScope: Scope = NO_SCOPE) {
    super()
    let order = 1
    // Iterative: broken pages can nest deeper than the call stack allows.
    const stack: AnyNode[] = []
    for (let i = source.children.length - 1; i >= 0; i--) stack.push(source.children[i]!)
    while (stack.length > 0) {
      const node = stack.pop()!
      if (!isElement(node)) {
        order++
        continue
      }
      this.orders.set(node, order)
      const colon = xml ? node.name.indexOf(':') : -1
      const key = (colon < 0 ? node.name : node.name.slice(colon + 1)).toLowerCase()
      const named = this.elementsByName.get(key)
      if (named) {
        named.elements.push(node)
        named.orders.push(order)
      } else this.elementsByName.set(key, { elements: [node], orders: [order] })
      order++
      const children = node.children
      for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]!)
    }
  }

  get localName() { return null }
  get namespaceURI() { return null }
  get prefix() { return null }
  get nodeValue() { return null }
  get firstChild() { return childOf(this, this.source.children, false) }
  get lastChild() { return childOf(this, this.source.children, true) }
  get documentElement(): XElement | null {
    const el = this.source.children.find(isElement)
    return el ? (this.wrap(el) as XElement) : null
  }

  /**
   * The document-order index of a node: recorded for elements; for other nodes, one more than the previous sibling's
   * last node (or than the parent), counting back over the siblings that are not elements either.
   */
  orderOf(node: AnyNode | Document): number {
    if (node === this.source) return 0
    const recorded = isElement(node as AnyNode) ? this.orders.get(node as AnyNode) : this.otherOrders.get(node as AnyNode)
    if (recorded !== undefined) return recorded
    const passed: AnyNode[] = [node as AnyNode]
    let base: number
    for (;;) {
      const previous: AnyNode | null = passed[passed.length - 1]!.prev
      if (!previous) {
        base = this.orderOf(passed[0]!.parent!)
        break
      }
      if (isElement(previous)) {
        base = this.lastOrder(previous)
        break
      }
      const known = this.otherOrders.get(previous)
      if (known !== undefined) {
        base = known
        break
      }
      passed.push(previous)
    }
    // Everything passed on the way gets its index too, so no run of siblings is counted twice.
    for (let i = passed.length - 1; i >= 0; i--) this.otherOrders.set(passed[i]!, ++base)
    return base
  }

  /** The index of the last node under `el` (its own when it has no children). */
  private lastOrder(el: Element): number {
    let last: AnyNode = el
    while (isElement(last) && last.children.length > 0) last = last.children[last.children.length - 1]!
    return this.orderOf(last)
  }

  /** The one wrapper of a source node of this document. */
  wrap(node: AnyNode | Document): XNode {
    if (node === this.source) return this
    let wrapper = this.wrappers.get(node)
    if (!wrapper) {
      wrapper = makeWrapper(node as AnyNode, this)
      this.wrappers.set(node, wrapper)
    }
    return wrapper
  }

  /** The URI the nearest xmlns declaration (from `el` outwards, then the inherited scope) gives `prefix`. */
  namespaceFor(el: Element, prefix: string): string | null {
    const attribute = prefix === '' ? 'xmlns' : `xmlns:${prefix}`
    for (let n: AnyNode | Document | null = el; n && isElement(n as AnyNode); n = n.parent) {
      const value = (n as Element).attribs[attribute]
      if (value !== undefined) return value
    }
    return this.inScope.get(prefix) ?? null
  }

  /**
   * The elements under `node` whose local name is `localName` in any case, in document order. Orders follow
   * document order, so a subtree's elements are those ordered after its root and up to its last node.
   */
  elementsNamed(node: XNode, localName: string): XNode[] {
    const named = this.elementsByName.get(localName.toLowerCase())
    if (!named) return []
    if (node === this) return named.elements.map((el) => this.wrap(el))
    if (!(node instanceof XSourceNode)) return []
    const source = node.source as AnyNode
    const lastOrder = isElement(source) ? this.lastOrder(source) : node.order
    const { elements, orders } = named
    let low = 0
    let high = orders.length
    while (low < high) {
      const middle = (low + high) >>> 1
      if (orders[middle]! <= node.order) low = middle + 1
      else high = middle
    }
    const out: XNode[] = []
    for (let i = low; i < orders.length && orders[i]! <= lastOrder; i++) out.push(this.wrap(elements[i]!))
    return out
  }

  getElementById(id: string): XElement | null {
    if (!this.ids) {
      this.ids = new Map()
      for (const node of this.orders.keys()) {
        const value = (node as Element).attribs.id
        if (value !== undefined && !this.ids.has(value)) this.ids.set(value, this.wrap(node) as XElement)
      }
    }
    return this.ids.get(id) ?? null
  }
}

function makeWrapper(node: AnyNode, doc: XDocument): XNode {
  switch (node.type) {
    case 'tag':
    case 'script':
    case 'style':
      return new XElement(node, doc)
    case 'text':
      return new XCharacterData(node, doc, 3, '#text', node.data)
    case 'comment':
      return new XCharacterData(node, doc, 8, '#comment', node.data)
    case 'cdata':
      return new XCharacterData(node, doc, 4, '#cdata-section', node.children.map((c) => ('data' in c ? c.data : '')).join(''))
    default:
      throw new Error(`not an XPath node: ${node.type}`)
  }
}

/** The string-value of an element or document (its text and CDATA, in order), read from the source tree. */
export function stringValue(node: XElement | XDocument): string {
  const parts: string[] = []
  const stack: AnyNode[] = [...node.source.children].reverse()
  while (stack.length > 0) {
    const n = stack.pop()!
    if (n.type === 'text') parts.push(n.data)
    else if (isElement(n) || n.type === 'cdata') for (let i = n.children.length - 1; i >= 0; i--) stack.push(n.children[i]!)
  }
  return parts.join('')
}

/** The namespaces an element's ancestors declare for it (prefix → URI, '' for the default; the nearest wins). */
export function namespacesInScope(el: Element): Record<string, string> {
  const out: Record<string, string> = {}
  for (let n = el.parent; n && n.type === 'tag'; n = n.parent) {
    for (const [name, value] of Object.entries((n as Element).attribs)) {
      const prefix = name === 'xmlns' ? '' : name.startsWith('xmlns:') ? name.slice(6) : undefined
      if (prefix !== undefined && !(prefix in out)) out[prefix] = value
    }
  }
  return out
}

/**
 * The elements under `node` whose local name is `localName` in any case, in document order; undefined for nodes of
 * other DOMs.
 */
export function descendantsNamed(node: unknown, localName: string): XNode[] | undefined {
  if (node instanceof XDocument) return node.elementsNamed(node, localName)
  if (node instanceof XAttr) return []
  if (node instanceof XSourceNode) return node.ownerDocument.elementsNamed(node, localName)
  return undefined
}

/** Namespace prefixes declared anywhere in an XML document (first declaration wins). */
export function declaredPrefixes(root: Document): Record<string, string> {
  const out: Record<string, string> = {}
  const stack: AnyNode[] = [...root.children]
  while (stack.length > 0) {
    const n = stack.pop()!
    if (n.type !== 'tag') continue
    for (const [name, value] of Object.entries(n.attribs)) {
      if (name.startsWith('xmlns:') && !(name.slice(6) in out)) out[name.slice(6)] = value
    }
    stack.push(...n.children)
  }
  return out
}
