import t from 'tap'
import * as cheerio from 'cheerio'
t.test('m', async (t) => {
  let loads = 0
  const mocked = await t.mockImport<any>('/work/main/fetchers/extraction/page.js', {
    cheerio: { ...cheerio, load: (...args: any[]) => { loads++; return (cheerio.load as any)(...args) } },
  })
  const p = new mocked.PageContext({ url: 'https://x/', html: '<p>x</p>' })
  p.dom(); p.dom()
  t.equal(loads, 1)
})
