import { performance } from 'node:perf_hooks'
import { type Dispatcher, request } from 'undici'
import { EGRESS_DENIED_HEADER, EGRESS_ERROR_HEADER, isGatewayFailureStatus } from './gateway-answers.js'

/** What one POST through the egress gateway came to. */
export interface PostOutcome {
  /** The receiver's status; null when it never answered (refused, unreachable, timed out). */
  readonly status: number | null
  readonly retry_after: string | null
  /** The first `excerptBytes` of the answer, as text. */
  readonly excerpt: string
  readonly latency_ms: number
  /** Why there is no usable answer: `timeout`, `egress_denied: <reason>`, `egress_error: <reason>`, or the socket error. */
  readonly error: string | null
}

export interface PostRequest {
  readonly url: string
  readonly body: string
  readonly headers: Readonly<Record<string, string>>
  /** The whole exchange, answer head and excerpt included. */
  readonly timeoutMs: number
  readonly excerptBytes: number
  /** An egress dispatcher (`egressDispatcher(gateway)`): the service's own calls leave through the gateway only. */
  readonly dispatcher: Dispatcher
}

const headerOf = (headers: Record<string, string | string[] | undefined>, name: string): string | null => {
  const value = headers[name]
  return Array.isArray(value) ? value[0] ?? null : value ?? null
}

/** Drops the rest of an answer; the abort this raises on the stream is expected, not an error of the delivery. */
const drop = (body: Dispatcher.ResponseData['body']) => {
  body.on('error', () => {})
  body.destroy()
}

/** Reads at most `limit` bytes of an answer, then drops the rest of it. */
const excerptOf = async (body: Dispatcher.ResponseData['body'], limit: number): Promise<string> => {
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of body) {
    chunks.push(chunk as Buffer)
    size += (chunk as Buffer).length
    if (size >= limit) break
  }
  drop(body)
  return Buffer.concat(chunks).subarray(0, limit).toString('utf8')
}

/**
 * POSTs a body through the egress gateway (its SSRF policy applies to every address the name resolves to) and
 * reports the answer or why there is none. A gateway refusal is told apart from a receiver's own 403 or 502.
 */
export const postThroughGateway = async (req: PostRequest): Promise<PostOutcome> => {
  const started = performance.now()
  const signal = AbortSignal.timeout(req.timeoutMs)
  const latency = () => Math.round(performance.now() - started)
  try {
    const answer = await request(req.url, {
      method: 'POST', body: req.body, headers: req.headers, dispatcher: req.dispatcher, signal,
      headersTimeout: req.timeoutMs, bodyTimeout: req.timeoutMs,
    })
    const denied = headerOf(answer.headers, EGRESS_DENIED_HEADER)
    const failed = headerOf(answer.headers, EGRESS_ERROR_HEADER)
    if (denied !== null || failed !== null || isGatewayFailureStatus(answer.statusCode)) {
      drop(answer.body)
      const error = denied !== null ? `egress_denied: ${denied}` : `egress_error: ${failed ?? `gateway status ${answer.statusCode}`}`
      return { status: null, retry_after: null, excerpt: '', latency_ms: latency(), error }
    }
    const excerpt = await excerptOf(answer.body, req.excerptBytes)
    return { status: answer.statusCode, retry_after: headerOf(answer.headers, 'retry-after'), excerpt, latency_ms: latency(), error: null }
  } catch (error) {
    const message = signal.aborted ? `timeout: no complete answer within ${req.timeoutMs} ms` : error instanceof Error ? error.message : String(error)
    return { status: null, retry_after: null, excerpt: '', latency_ms: latency(), error: message }
  }
}
