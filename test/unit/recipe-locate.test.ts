import t from 'tap'
import { PageContext } from '../../fetchers/extraction/page.js'
import { locate, locateItems } from '../../fetchers/recipe/locate.js'

/** No `where` here compares with input. */
const NO_INPUT = { input: {}, vars: {} }

/**
 * List items of XML feeds: each item is re-parsed alone, so the namespaces its ancestors declared (RSS's
 * `xmlns:dc` / `xmlns:media` on `<rss>`, RSS 1.0's default namespace on `<rdf:RDF>`) must carry over for XPath.
 */
const rss = `<?xml version="1.0" encoding="UTF-8"?>
<rss xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:media="http://search.yahoo.com/mrss/" version="2.0"><channel><title>Feed</title>
<item><title><![CDATA[First & best]]></title><link>https://news.example/a?x=1&amp;y=2</link><dc:creator>Jane Doe</dc:creator><media:thumbnail width="240" url="https://img.example/a.jpg"/></item>
<item><title>Second</title><link>https://news.example/b</link></item>
</channel></rss>`
const rdf = `<?xml version="1.0"?><rdf:RDF xmlns="http://purl.org/rss/1.0/" xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:dc="http://purl.org/dc/elements/1.1/">
<channel rdf:about="https://news.example/"><title>Feed</title></channel>
<item rdf:about="https://news.example/a"><title>RDF item</title><dc:date>2026-11-20T10:02:00Z</dc:date></item></rdf:RDF>`

const feed = (body: string) => new PageContext({ url: 'https://news.example/feed', body, html: body, contentType: 'application/rss+xml' })

t.test('RSS 2.0 items: prefixed elements and attributes by XPath and by CSS', async (t) => {
  const items = locateItems([{ css: 'channel > item' }], feed(rss), NO_INPUT)!
  t.equal(items.items.length, 2)
  const [first, second] = items.items
  t.same(locate([{ xpath: '/item/dc:creator' }], first!, NO_INPUT)?.values, ['Jane Doe'], 'dc: resolves in the item alone')
  t.same(locate([{ xpath: '//media:thumbnail/@url' }], first!, NO_INPUT)?.values, ['https://img.example/a.jpg'], 'media: resolves in the item alone')
  t.same(locate([{ css: 'dc\\:creator' }], first!, NO_INPUT)?.values, ['Jane Doe'])
  t.same(locate([{ css: 'media\\:thumbnail', attribute: 'url' }], first!, NO_INPUT)?.values, ['https://img.example/a.jpg'])
  t.same(locate([{ xpath: '/item/title' }], first!, NO_INPUT)?.values, ['First & best'], 'CDATA text')
  t.same(locate([{ xpath: '/item/link' }], first!, NO_INPUT)?.values, ['https://news.example/a?x=1&y=2'], 'entities decoded')
  t.equal(locate([{ xpath: '/item/dc:creator' }], second!, NO_INPUT), null, 'an item without the element has none')
  t.equal(locate([{ xpath: '//dc:creator' }], second!, NO_INPUT), null, "no leak from another item's subtree")
})

t.test('RSS 1.0 (RDF) items: the default namespace and dc: carry over', async (t) => {
  const items = locateItems([{ css: 'item' }], feed(rdf), NO_INPUT)!
  t.equal(items.items.length, 1)
  t.same(locate([{ xpath: '/item/title' }], items.items[0]!, NO_INPUT)?.values, ['RDF item'])
  t.same(locate([{ xpath: '/rss1:item/rss1:title' }], new PageContext(items.items[0]!.page, { '': 'http://purl.org/rss/1.0/', rss1: 'http://purl.org/rss/1.0/' }), NO_INPUT)?.values, ['RDF item'], 'a prefix bound to the default namespace matches its elements')
  t.same(locate([{ xpath: '/item/dc:date' }], items.items[0]!, NO_INPUT)?.values, ['2026-11-20T10:02:00Z'])
})
