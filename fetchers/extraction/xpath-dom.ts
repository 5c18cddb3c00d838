/**
 * A read-only W3C-DOM-shaped mirror of a cheerio (domhandler) tree, just enough for the `xpath`
 * package. Reusing cheerio's parse (parse5, HTML5 error recovery) keeps one parse per job and
 * makes XPath tolerant of unclosed tags, entities and stray xmlns attributes.
 * Every node carries its document-order index, so `compareDocumentPosition` is O(1) (xpath's
 * fallback scans sibling lists). Objects are kept lean: a 2 MB page has ~200 000 nodes.
 */
import type { AnyNode, Document, Element } from 'domhandler'
import { XPATH_NAMESPACES } from '../../domain/extraction.js'

const FOLLOWING = 4
const PRECEDING = 2

export abstract class XNode {
  abstract readonly nodeType: number
  abstract readonly nodeName: string
  abstract readonly localName: string | null
  abstract readonly namespaceURI: string | null
  abstract readonly prefix: string | null
  abstract readonly nodeValue: string | null
  parentNode: XNode | null = null
  firstChild: XNode | null = null
  lastChild: XNode | null = null
  previousSibling: XNode | null = null
  nextSibling: XNode | null = null
  ownerDocument: XDocument | null = null
  order = 0

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

export class XAttr extends XNode {
  readonly nodeType = 2
  readonly localName: string
  readonly namespaceURI: string | null
  readonly prefix: string | null
  constructor(readonly nodeName: string, readonly value: string, readonly ownerElement: XElement, namespace: string | undefined, prefix: string | undefined) {
    super()
    const colon = nodeName.indexOf(':')
    this.localName = colon < 0 ? nodeName : nodeName.slice(colon + 1)
    this.prefix = prefix || (colon < 0 ? null : nodeName.slice(0, colon))
    // HTML keeps names like xml:lang as plain names; give the well-known prefixes their namespace.
    this.namespaceURI = namespace || (this.prefix !== null ? (XPATH_NAMESPACES[this.prefix] ?? null) : null)
  }
  get name() { return this.nodeName }
  get nodeValue() { return this.value }
}

/** The NamedNodeMap subset xpath uses (`length`, `item`). */
class AttrList {
  constructor(readonly items: XAttr[]) {}
  get length() { return this.items.length }
  item(i: number): XAttr | null { return this.items[i] ?? null }
}
const NO_ATTRIBUTES = new AttrList([])

export class XElement extends XNode {
  readonly nodeType = 1
  private attributeList?: AttrList
  localName: string
  namespaceURI: string | null
  prefix: string | null = null
  constructor(readonly source: Element, readonly nodeName: string, namespace: string | null) {
    super()
    this.localName = nodeName
    this.namespaceURI = namespace
  }
  get tagName() { return this.nodeName }
  get nodeValue() { return null }
  /**
   * Made when XPath first asks (most elements are never asked): their orders were kept free after the element's own
   * when the mirror was built, so attribute nodes sort as if they had been made then.
   */
  get attributes(): AttrList {
    if (!this.attributeList) {
      const source = this.source
      const names = Object.keys(source.attribs)
      if (names.length === 0) this.attributeList = NO_ATTRIBUTES
      else {
        this.attributeList = new AttrList(names.map((name, i) => {
          const a = new XAttr(name, source.attribs[name]!, this, source['x-attribsNamespace']?.[name], source['x-attribsPrefix']?.[name])
          a.order = this.order + 1 + i
          a.ownerDocument = this.ownerDocument
          return a
        }))
      }
    }
    return this.attributeList
  }
  getAttribute(name: string): string | null {
    return this.source.attribs[name] ?? null
  }
}

/** Text, comment and CDATA nodes. */
export class XCharacterData extends XNode {
  constructor(readonly nodeType: number, readonly nodeName: string, readonly nodeValue: string) { super() }
  get data() { return this.nodeValue }
  get localName() { return null }
  get namespaceURI() { return null }
  get prefix() { return null }
}

export class XDocument extends XNode {
  readonly nodeType = 9
  readonly nodeName = '#document'
  documentElement: XElement | null = null
  /** Elements by lower-cased local name, in document order (for `//name` steps). */
  readonly elementsByName = new Map<string, XElement[]>()
  private ids: Map<string, XElement> | undefined
  constructor(readonly source: Document) { super() }
  get localName() { return null }
  get namespaceURI() { return null }
  get prefix() { return null }
  get nodeValue() { return null }
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

/** Namespace declarations in scope, for XML documents (parse5 resolves HTML's itself). */
type Scope = ReadonlyMap<string, string>
const NO_SCOPE: Scope = new Map()

/**
 * Mirror a cheerio document. `xml`: names keep their prefixes and namespaces come from xmlns attributes, starting
 * from `inScope` (prefix → URI, '' for the default namespace) for a fragment cut out of a larger document.
 */
export function mirror(root: Document, xml: boolean, inScope: Scope = NO_SCOPE): XDocument {
  const doc = new XDocument(root)
  let order = 1
  // Iterative with parallel stacks: broken pages can nest deeper than the call stack allows.
  const sources: AnyNode[] = []
  const parents: XNode[] = []
  const scopes: Scope[] = []
  const pushChildren = (children: AnyNode[], parent: XNode, scope: Scope) => {
    for (let i = children.length - 1; i >= 0; i--) {
      sources.push(children[i])
      parents.push(parent)
      scopes.push(scope)
    }
  }
  pushChildren(root.children, doc, inScope)
  while (sources.length > 0) {
    const source = sources.pop()!
    const parent = parents.pop()!
    const scope = scopes.pop()!
    let node: XNode
    switch (source.type) {
      case 'tag':
      case 'script':
      case 'style': {
        const childScope = xml ? declare(source, scope) : scope
        const el = element(source, xml, childScope)
        el.order = order
        // The element's attribute nodes take the orders right after it (see XElement.attributes).
        order += 1 + Object.keys(source.attribs).length
        const key = el.localName.toLowerCase()
        const named = doc.elementsByName.get(key)
        if (named) named.push(el)
        else doc.elementsByName.set(key, [el])
        doc.documentElement ??= el
        pushChildren(source.children, el, childScope)
        node = el
        break
      }
      case 'text':
        node = new XCharacterData(3, '#text', source.data)
        node.order = order++
        break
      case 'comment':
        node = new XCharacterData(8, '#comment', source.data)
        node.order = order++
        break
      case 'cdata':
        node = new XCharacterData(4, '#cdata-section', source.children.map((c) => ('data' in c ? c.data : '')).join(''))
        node.order = order++
        break
      default:
        continue // doctype and processing instructions are not XPath nodes
    }
    node.ownerDocument = doc
    node.parentNode = parent
    const last = parent.lastChild
    node.previousSibling = last
    if (last) last.nextSibling = node
    else parent.firstChild = node
    parent.lastChild = node
  }
  return doc
}

function element(source: Element, xml: boolean, scope: Scope): XElement {
  if (!xml) return new XElement(source, source.name, source.namespace ?? null)
  const colon = source.name.indexOf(':')
  const prefix = colon < 0 ? null : source.name.slice(0, colon)
  const el = new XElement(source, source.name, scope.get(prefix ?? '') ?? null)
  el.prefix = prefix
  el.localName = colon < 0 ? source.name : source.name.slice(colon + 1)
  return el
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
 * other DOMs. Orders are assigned in document order, so a subtree's elements are those ordered after its root and up
 * to its last node.
 */
export function descendantsNamed(node: unknown, localName: string): XElement[] | undefined {
  if (!(node instanceof XNode)) return undefined
  const doc = node instanceof XDocument ? node : node.ownerDocument
  if (!doc) return undefined
  const named = doc.elementsByName.get(localName.toLowerCase()) ?? []
  if (node === doc) return named
  let last: XNode = node
  while (last.lastChild) last = last.lastChild
  let low = 0
  let high = named.length
  while (low < high) {
    const middle = (low + high) >>> 1
    if (named[middle]!.order <= node.order) low = middle + 1
    else high = middle
  }
  const out: XElement[] = []
  for (let i = low; i < named.length && named[i]!.order <= last.order; i++) out.push(named[i]!)
  return out
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
