// A few pages on this machine for the README's tour to scrape: `npm run demo-site` serves them on 127.0.0.1:8090
// (DEMO_PORT to change), the address the tour allowlists with SSRF_ALLOWLIST. Stop it with Ctrl-C.
import { createServer } from 'node:http'

const port = Number(process.env.DEMO_PORT || 8090)
const page = (title, body) => `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title></head><body><h1>${title}</h1>${body}</body></html>\n`
const products = [
  { id: 1, name: 'Espresso machine', price: '249.00' },
  { id: 2, name: 'Coffee grinder', price: '89.50' },
  { id: 3, name: 'Milk jug', price: '12.90' },
]
const pages = new Map([
  ['/', page('Demo shop', `<ul>${products.map((p) => `<li class="product"><a href="/products/${p.id}">${p.name}</a> <span class="price">${p.price}</span></li>`).join('')}</ul>`)],
  ...products.map((p) => [`/products/${p.id}`, page(p.name, `<p class="price">${p.price}</p><p><a href="/">All products</a></p>`)]),
])

createServer((request, response) => {
  const body = pages.get(new URL(request.url ?? '/', 'http://demo').pathname)
  response.writeHead(body ? 200 : 404, { 'content-type': 'text/html; charset=utf-8' })
  response.end(body ?? page('Not found', ''))
}).listen(port, '127.0.0.1', () => process.stdout.write(`demo site on http://127.0.0.1:${port}/ (Ctrl-C stops it)\n`))
