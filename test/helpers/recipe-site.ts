import { createServer, type IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'
import { bodyOf, fixtureFor, type RecipeFixture } from './recipe-fixtures.js'

/**
 * A local stand-in for the sites recipes read: real origins are mapped to `http://127.0.0.1:PORT/o/<n>` through
 * RECIPE_ORIGIN_OVERRIDES, and requests are answered from the fixture in use (the site's real response format).
 * Requests it has no answer for get 599 and are recorded.
 */
export const startRecipeSite = async (origins: readonly string[]) => {
  let fixture: RecipeFixture | null = null
  const unmatched: string[] = []
  const received: { method: string; url: string; body: string }[] = []
  const readBody = (req: IncomingMessage) => new Promise<string>((resolve) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')))
  })
  const server = createServer(async (req, res) => {
    const body = await readBody(req)
    const match = /^\/o\/(\d+)(\/.*)$/.exec(req.url ?? '')
    const origin = match ? origins[Number(match[1])] : undefined
    const url = origin ? `${origin}${match![2]}` : `unknown:${req.url}`
    received.push({ method: req.method ?? 'GET', url, body })
    const response = fixture && origin ? fixtureFor(fixture, { method: (req.method ?? 'GET') as 'GET' | 'POST', url }) : undefined
    if (!response) {
      unmatched.push(`${req.method} ${url}`)
      res.writeHead(599, { 'content-type': 'text/plain' }).end('no fixture')
      return
    }
    res.writeHead(response.status, response.headers ?? {}).end(bodyOf(response))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    port,
    /** RECIPE_ORIGIN_OVERRIDES for a service that should reach this site instead of the real ones. */
    overrides: JSON.stringify(Object.fromEntries(origins.map((origin, i) => [origin, `http://127.0.0.1:${port}/o/${i}`]))),
    use: (next: RecipeFixture) => { fixture = next },
    unmatched, received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}
