/** The chat-completions summarizer against a real local HTTP server speaking the protocol, through the egress gateway. */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Effect, Either } from 'effect'
import t from 'tap'
import { parseAllowlist } from '../../../domain/address-policy.js'
import { egressDispatcher, startEgressGateway } from '../../../fetchers/egress/index.js'
import { chatCompletionsSummarizer } from '../../../infra/summarizer/chat-completions.js'

const requests: Array<{ url: string; headers: IncomingMessage['headers']; body: any }> = []
let answer: { status: number; body: unknown; delayMs?: number } = { status: 200, body: {} }
/** The provider's side of the protocol: records the request, answers `answer`. */
const provider = (req: IncomingMessage, res: ServerResponse) => {
  let raw = ''
  req.on('data', (c: Buffer) => { raw += c })
  req.on('end', () => {
    requests.push({ url: req.url ?? '', headers: req.headers, body: JSON.parse(raw) })
    setTimeout(() => {
      res.writeHead(answer.status, { 'content-type': 'application/json' })
      res.end(JSON.stringify(answer.body))
    }, answer.delayMs ?? 0)
  })
}
const server = createServer(provider)
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
const { port } = server.address() as AddressInfo
const gateway = await startEgressGateway({ allowlist: parseAllowlist(`127.0.0.1:${port}`), log: () => {} })
t.teardown(async () => {
  server.closeAllConnections()
  await new Promise((resolve) => server.close(resolve))
  await gateway.close()
})

const summarizer = (baseUrl: string, timeoutMs = 2_000) =>
  chatCompletionsSummarizer({ baseUrl, model: 'small-eu', apiKey: 'sk-secret', dispatcher: egressDispatcher(gateway), timeoutMs })
const change = { monitor_name: 'Shoe', target_url: 'https://shop.example/x2', mode: 'text', diff: ['-Price: $129.99', '+Price: $119.99'], change_ratio: 0.14 }
const completion = (content: string) => ({
  id: 'chatcmpl-1', object: 'chat.completion', created: 1, model: 'small-eu',
  choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
})

t.test('asks POST {base}/chat/completions with the model, messages and bearer key; answers the first choice', async (t) => {
  answer = { status: 200, body: completion('  The price dropped by $10.  ') }
  const summary = await Effect.runPromise(summarizer(`http://127.0.0.1:${port}/v1/`).summarize(change))
  t.equal(summary, 'The price dropped by $10.')
  const sent = requests.at(-1)!
  t.equal(sent.url, '/v1/chat/completions')
  t.equal(sent.headers.authorization, 'Bearer sk-secret')
  t.equal(sent.body.model, 'small-eu')
  t.same(sent.body.messages.map((m: { role: string }) => m.role), ['system', 'user'])
  t.match(sent.body.messages[1].content, /-Price: \$129\.99\n\+Price: \$119\.99/)
})

t.test('an error answer, an empty answer or a slow one is no summary, and the key is in no error', async (t) => {
  for (const [label, next, timeout] of [
    ['HTTP 500', { status: 500, body: { error: { message: 'overloaded' } } }, 2_000],
    ['no choices', { status: 200, body: { choices: [] } }, 2_000],
    ['too slow', { status: 200, body: completion('late'), delayMs: 1_000 }, 200],
  ] as const) {
    answer = next
    const result = await Effect.runPromise(Effect.either(summarizer(`http://127.0.0.1:${port}/v1`, timeout).summarize(change)))
    t.ok(Either.isLeft(result), `${label}: no summary`)
    if (Either.isLeft(result)) t.notMatch(JSON.stringify(result.left) + result.left.reason, /sk-secret/, `${label}: the key is not in the error`)
  }
})

t.test('a provider outside the SSRF allowlist is refused by the gateway', async (t) => {
  // A provider that would answer: only the gateway stands between it and a summary.
  answer = { status: 200, body: completion('must not arrive') }
  const other = createServer(provider)
  await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise((resolve) => other.close(resolve)))
  const asked = requests.length
  const result = await Effect.runPromise(Effect.either(summarizer(`http://127.0.0.1:${(other.address() as AddressInfo).port}/v1`).summarize(change)))
  t.ok(Either.isLeft(result))
  t.equal(requests.length, asked, 'the provider was never asked')
})
