import t from 'tap'
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'
import * as cheerio from 'cheerio'
import { DOMImplementation, DOMParser, type Document as XmlDocument, type Node as XmlNode } from '@xmldom/xmldom'
import type { AnyNode } from 'domhandler'
import { PageContext } from '../../fetchers/extraction/page.js'
import { parseXPath, xpath, type XNodeSetValue, type XValue } from '../../fetchers/extraction/xpath-engine.js'

/**
 * XPath through our engine (the `xpath` package with its speed patches) over our lazy view of cheerio's tree must
 * answer what the untouched package answers over a real W3C DOM of the same tree: the page is parsed by cheerio and
 * copied node by node into xmldom, and each expression is evaluated both ways. Node sets are compared in order, as
 * (type, name, string-value), so document order is checked too.
 */
const FIXTURES = fileURLToPath(new URL('../fixtures/extraction/', import.meta.url))

/** A second, unpatched instance of the package: our engine patches the one every import shares. */
const require = createRequire(import.meta.url)
delete require.cache[require.resolve('xpath')]
const pristine = require('xpath') as Library & { parse(path: string): { evaluate(options: object): XValue } }
t.not(pristine, xpath, 'the reference is a separate instance of the package')

interface DomLike { nodeType: number; nodeName: string }
type Library = Pick<typeof xpath, 'XNodeSet' | 'XNumber' | 'XBoolean'>
/** A result in plain values; `lib` is the package instance that made it. */
function describe(value: XValue, lib: Library = xpath): unknown {
  if (value instanceof lib.XNodeSet) {
    const set = value as XNodeSetValue
    return (set.toArray() as unknown as DomLike[]).map((n) => {
      const one = new (lib.XNodeSet as unknown as new () => { add(n: unknown): void; stringValue(): string })()
      one.add(n)
      return `${n.nodeType}:${n.nodeName.toLowerCase()}:${one.stringValue()}`
    })
  }
  if (value instanceof lib.XNumber) return value.numberValue()
  if (value instanceof lib.XBoolean) return value.booleanValue()
  return value.stringValue()
}

const AXES = [
  '//li', '//li[1]', '//li[last()]', '(//li)[2]', '//ul/li/text()', '//li/ancestor::*', '//li/ancestor-or-self::ul', '//li[2]/preceding-sibling::li',
  '//li[1]/following-sibling::*', '//li[1]/following::li', '//li[last()]/preceding::*', '//*[@class]/@class', '//@*', '//li/@*[1]', 'count(//*)',
  'count(//text())', 'count(//node())', 'count(//comment())', 'string(//ul)', 'normalize-space(//body)', 'sum(//li/@data-id)',
  '//li[contains(., "o")]', '//*[starts-with(name(), "d")]', 'name(//*[3])', 'local-name(//*[last()])', '//li/parent::*', '//li/..', '//li/self::li',
  '//body//*[not(*)]', 'boolean(//table)', '//span | //li | //dt', '//*[@id]/descendant::*', '//*[@id]//text()[normalize-space()]', '//body/*[2]//*',
  '//td[2]', '//tr[td]/td[last()]', '//table//tr[2]/*', '//*[. = "Books"]', '//text()[contains(., "phone")]/..', '//*[count(*) > 2]',
  '//body/descendant-or-self::node()[self::ul or self::ol]', '//li[@data-id > 2][2]', 'string(//@data-id[. = "4"]/..)', '//*[@id][1]/@id/..',
  '//ul[1]/li[1]/following::*[1]', '//dd[1]/preceding::*[2]', '//strong/ancestor::*[2]', '//*[local-name() = "span"][3]', 'id("tree")/li',
  '//li/ancestor::*[1]', '//li/ancestor::*[2]', '//dd/preceding-sibling::*[1]', '//li[1.5]', '//li[0]', '//li[2][1]', '//*[@class][2]',
  '//li/following::*[3]', '//td/preceding::td[1]', '//*[1][self::li]', '//comment()/following-sibling::node()',
  '//comment()[last()]/preceding::node()', '//*[@CLASS]/@Class', '//p/@data-x', '//*[@TITLE = "T"]', '//p/@*[2]', '//@class/..', '//text()[last()]/preceding::comment()', '//node()[2]', '(//text() | //comment())[last()]', '//img/@src', '//a[@href]', '//h3[@class="name"]', '//div[contains(@class, "product")]', '//*[@*]', 'string(/)', '/*', '/html/body/*', '//comment()',
]

/** The same tree in xmldom, node by node (serializing would re-parse script text as markup). */
function copyTree(from: AnyNode, into: XmlNode, doc: XmlDocument) {
  let made: XmlNode | undefined
  if (from.type === 'tag' || from.type === 'script' || from.type === 'style') {
    const el = doc.createElement(from.name)
    for (const [name, value] of Object.entries(from.attribs)) el.setAttribute(name, value)
    made = el
  } else if (from.type === 'text') made = doc.createTextNode(from.data)
  else if (from.type === 'comment') made = doc.createComment(from.data)
  if (!made) return
  into.appendChild(made)
  if ('children' in from) for (const child of from.children) copyTree(child, made, doc)
}

function htmlCase(html: string) {
  const page = new PageContext({ url: 'https://x.example/', html, contentType: 'text/html' })
  const dom = new DOMImplementation().createDocument(null, '')
  for (const node of cheerio.load(html).root()[0].children) copyTree(node, dom, dom)
  return { view: page.xpathDocument(), dom, options: { isHtml: true, namespaces: {} } }
}

/** Comments and text runs everywhere: nodes that are not elements are placed in document order from their neighbours. */
const MIXED = `<!-- first --><!doctype html><html><head><title>t</title><!-- in head --></head><body>
a<!--c1-->b<p class="k" data-X="1" title="T">x<!--c2--><b>y</b>z</p>tail<!--c3--><!--c3b--><div><span></span><!--c4-->q</div>end<!--last--></body></html><!-- after -->`
const PAGES: Record<string, string> = Object.fromEntries(['nested-lists.html', 'product-grid.html', 'table.html', 'broken-markup.html', 'json-ld.html']
  .map((file) => [file, readFileSync(FIXTURES + file, 'utf8')]))

for (const [name, html] of Object.entries({ ...PAGES, 'a page of mixed nodes': MIXED })) {
  t.test(`XPath over the view of ${name} answers what it answers over a W3C DOM of the same tree`, async (t) => {
    const { view, dom, options } = htmlCase(html)
    for (const path of AXES) {
      const expected = describe(pristine.parse(path).evaluate({ ...options, node: dom }), pristine)
      t.same(describe(parseXPath(path).evaluate({ ...options, node: view })), expected, path)
    }
  })
}

t.test('XPath over the view of an XML feed, with prefixes, CDATA and namespaces, answers what it answers over a W3C DOM', async (t) => {
  const text = readFileSync(`${FIXTURES}feed.xml`, 'utf8').replace(/^<\?xml[^>]*\?>\s*/, '').trim() // a W3C DOM keeps no text outside the root element
  const page = new PageContext({ url: 'https://x.example/', html: text, contentType: 'application/xml' })
  const dom = new DOMParser().parseFromString(text, 'text/xml')
  const namespaces = page.xmlPrefixes()
  t.ok(namespaces.dc, 'the feed declares the dc prefix')
  const paths = [
    ...AXES.filter((p) => !/html|body|id\(/.test(p)), '//dc:creator', '//item/dc:creator/text()', '//content:encoded/text()', '//*[namespace-uri() != ""]',
    '//item[dc:creator = "Bob Writer"]/title', 'count(//dc:*)', '//channel/*[local-name() = "link"]', 'string(//item[1]/content:encoded)',
    '//title/following-sibling::*[1]', 'name(//dc:creator)', 'namespace-uri(//content:encoded)',
  ]
  for (const path of paths) {
    const expected = describe(pristine.parse(path).evaluate({ namespaces, node: dom }), pristine)
    t.same(describe(parseXPath(path).evaluate({ namespaces, node: page.xpathDocument() })), expected, path)
  }
})
