import t from 'tap'
import * as cheerio from 'cheerio'
import { PageContext } from '../../fetchers/extraction/page.js'
import { requiredKeys } from '../../fetchers/extraction/element-index.js'
import { parseXPath, type XNodeSetValue } from '../../fetchers/extraction/xpath-engine.js'
import { XElement } from '../../fetchers/extraction/xpath-dom.js'

const HTML = `<!doctype html><html><head><title>T</title></head><body>
<div id="main" class="a b a"><p class="x">one</p><p>two <a href="a.b" data-Sku="1">link</a></p></div>
<div class="b"><span class="x y">three</span><p class="x">four</p>
  <table id="t"><tr><td>r1</td></tr><tr><td>r2</td><td><table><tr><td>inner</td></tr></table></td></tr></table></div>
<svg><linearGradient id="g"></linearGradient><rect viewBox="0 0 1 1"/></svg>
<p>five</p></body></html>`

const SELECTORS = [
  'p', 'P', '.x', '.a', '.b', '#main', '#main.a', '#main .x', 'div.b > p.x', 'p:not(.x)', 'div:not(.a) .x', '[href="a.b"]',
  '[data-sku]', '[DATA-SKU]', 'a[href]', 'div.a, p', '.x.y', '*', 'span ~ p', 'p + p', 'td', 'table td', 'linearGradient',
  'lineargradient', '[viewBox]', '[viewbox]', ':root', 'body > *', 'p:has(a)', 'p:contains("two")', 'li', '.missing',
  'div p:first-child', 'tr:nth-child(2) td', 'a[href$=".b"]', 'p:is(.x, .y)',
]

t.test('whole-page css queries through the element index find what cheerio finds, in document order', async (t) => {
  const $ = cheerio.load(HTML)
  const page = new PageContext({ url: 'https://x.example/', html: HTML })
  for (const selector of SELECTORS) {
    t.same(page.select(selector), $(selector).toArray(), selector)
  }
})

t.test('the keys a selector requires come from its last compound only, never from pseudo arguments or values', async (t) => {
  t.same(requiredKeys('div.card .name'), ['class:name'])
  t.same(requiredKeys('p:not(.x)'), ['tag:p'])
  t.same(requiredKeys('[href="a.b"]'), ['attr:href'])
  t.same(requiredKeys('A#main.Big[data-X]'), ['attr:data-x', 'tag:a', 'class:Big', 'id:main'])
  t.same(requiredKeys('div.a, p'), [])
  t.same(requiredKeys('ns|p'), [])
})

t.test('`//name` steps under any node take the elements of that name inside it, in document order', async (t) => {
  const page = new PageContext({ url: 'https://x.example/', html: HTML })
  const doc = page.xpathDocument()!
  const texts = (path: string) => (parseXPath(path).evaluate({ node: doc, isHtml: true, allowAnyNamespaceForNoPrefix: true, namespaces: {} }) as XNodeSetValue)
    .toArray().map((n) => (n as XElement).source.attribs.id ?? cheerio.load('')((n as XElement).source).text())
  t.same(texts('//td'), ['r1', 'r2', 'inner', 'inner'])
  t.same(texts('//table[@id="t"]//td'), ['r1', 'r2', 'inner', 'inner'])
  t.same(texts('//table[not(@id)]//td'), ['inner'])
  t.same(texts('//div[@id="main"]//p'), ['one', 'two link'])
  t.same(texts('//TD[1]'), ['r1', 'r2', 'inner'])
  t.same(texts('//p//td'), [])
  t.same(texts('//linearGradient'), ['g'])
})
