import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Webhook } from 'standardwebhooks'

export interface ReceivedWebhook {
  readonly headers: IncomingHttpHeaders
  readonly body: string
  readonly event: { readonly event_id: string; readonly type: string; readonly created_at: string; readonly data: Record<string, any> }
  /** Real time of arrival (ms since epoch). */
  readonly at: number
}

/** How the receiver answers the nth request (0-based); it may also hold the answer back. */
export type Answer = (n: number, received: ReceivedWebhook, res: ServerResponse) => void | Promise<void>

export const answerWith = (status: number, headers: Record<string, string> = {}): Answer => (_n, _r, res) => {
  res.writeHead(status, { 'content-type': 'text/plain', ...headers })
  res.end(`answer ${status}`)
}

/** A real local webhook receiver (node http) that records what it gets; `answer` decides each reply. `port` 0: any free one. */
export const startReceiver = async (answer: Answer = answerWith(200), port = 0) => {
  const received: ReceivedWebhook[] = []
  let respond = answer
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8')
      const entry: ReceivedWebhook = { headers: req.headers, body, event: JSON.parse(body), at: Date.now() }
      received.push(entry)
      void respond(received.length - 1, entry, res)
    })
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, '127.0.0.1', resolve)
  })
  const bound = (server.address() as AddressInfo).port
  return {
    port: bound,
    url: `http://127.0.0.1:${bound}/hooks`,
    allowlistEntry: `127.0.0.1:${bound}`,
    received,
    answerWith: (next: Answer) => { respond = next },
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()) }),
  }
}

/** Checks a delivery with the reference Standard Webhooks library; answers the parsed event or throws. */
export const verifyWithStandardWebhooks = (secret: string, delivery: ReceivedWebhook) =>
  new Webhook(secret).verify(delivery.body, {
    'webhook-id': String(delivery.headers['webhook-id']),
    'webhook-timestamp': String(delivery.headers['webhook-timestamp']),
    'webhook-signature': String(delivery.headers['webhook-signature']),
  })
