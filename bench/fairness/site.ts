import { createServer, type Server } from 'node:http'
import type { FairnessSetup } from './case.js'

/** A local server answering `body` as HTML on every path, for a hostile case's jobs. */
export const htmlSite = async (body: string): Promise<FairnessSetup & { readonly url: string }> => {
  const server: Server = createServer((_req, res) => { res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }); res.end(body) })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as { port: number }).port
  return {
    allowlist: [`127.0.0.1:${port}`], url: `http://127.0.0.1:${port}/`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

/** Submits a light job of the hostile tenant; a refusal (e.g. a rate limit) is not the bench's failure. */
export const submitHostile = async (base: string, key: string, url: string, hooks: unknown[]) => {
  const res = await fetch(`${base}/v1/jobs`, {
    method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' },
    body: JSON.stringify({ job_type: 'light', target_url: url, extraction: { hooks } }),
  })
  await res.arrayBuffer()
}
