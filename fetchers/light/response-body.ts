import { pipeline, Readable, Transform } from 'node:stream'
import zlib from 'node:zlib'
import type { ClientResponse } from './chromium-client.js'
import { BodyRefused, bodyTooLarge, collectLimited, MAX_BODY_BYTES } from '../body-limit.js'

/**
 * The HTTP client (chromium-client/exchange.go) decodes a body itself, as a stream, only when Content-Encoding is exactly one of these (lower case);
 * any other value (a list such as `gzip, br`, `GZIP`, `x-gzip`) reaches us as sent.
 */
const DECODED_BY_CLIENT = new Set(['gzip', 'deflate', 'br', 'zstd'])

/** Decoders for codings the client leaves to us. Node 20's zlib has no zstd: a zstd layer inside a list is refused. */
const NODE_DECODERS: Readonly<Record<string, () => Transform>> = {
  gzip: () => zlib.createGunzip(),
  'x-gzip': () => zlib.createGunzip(),
  deflate: () => zlib.createInflate(),
  br: () => zlib.createBrotliDecompress(),
}

const codingsOf = (header: string) => header.split(',').map((c) => c.trim().toLowerCase()).filter((c) => c !== '' && c !== 'identity')

/**
 * The decoders to apply, outermost (last listed) first; empty when the body arrives decoded or in a coding we
 * keep as sent (unknown codings such as `compress` are stored as received, as before).
 */
const decodersFor = (header: string | null): (() => Transform)[] => {
  if (header === null || DECODED_BY_CLIENT.has(header.trim())) return []
  const codings = codingsOf(header)
  if (codings.some((c) => c === 'zstd')) {
    throw new BodyRefused('content_encoding_error', `Content-Encoding '${header.slice(0, 100)}' cannot be decoded: zstd is decoded only as the sole coding`)
  }
  if (!codings.every((c) => c in NODE_DECODERS)) return []
  return codings.reverse().map((c) => NODE_DECODERS[c]!)
}

/** Corrupt compressed data, whether the client's decoder or one of ours found it; other errors (a reset, a timeout) pass. */
const isDecodingError = (error: unknown) => {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown }
  return (typeof code === 'string' && /^Z_|BROTLI|_ERROR_FORMAT/.test(code)) || (typeof message === 'string' && /error decoding response body/.test(message))
}

const asBodyFailure = (error: unknown): unknown =>
  isDecodingError(error) ? new BodyRefused('content_encoding_error', 'the response body could not be decoded (corrupt compressed data)') : error

/**
 * Reads a response body, decoded, as a stream: stops and drops the connection as soon as more than
 * MAX_BODY_BYTES arrived (before or after decoding), so memory per job stays bounded whatever the compression ratio.
 */
export const readResponseBody = async (response: ClientResponse): Promise<Uint8Array> => {
  const declared = Number(response.headers.get('content-length') ?? '0')
  if (declared > MAX_BODY_BYTES) { await discardBody(response); throw bodyTooLarge() }
  let decoders: (() => Transform)[]
  try {
    decoders = decodersFor(response.headers.get('content-encoding'))
  } catch (error) {
    await discardBody(response)
    throw error
  }
  const body = response.body
  if (decoders.length === 0) return collectLimited(body, MAX_BODY_BYTES, declared).catch((error: unknown) => { throw asBodyFailure(error) })
  // The encoded bytes are bounded too, then the decoded output; the pipeline destroys every stage when one fails
  // or when the reader stops early, so no decoder keeps inflating behind our back.
  const stages = [encodedLimit(), ...decoders.map((make) => make())]
  pipeline([Readable.from(body), ...stages], () => {})
  return collectLimited(stages[stages.length - 1]!).catch((error: unknown) => { throw asBodyFailure(error) })
}

const encodedLimit = () => {
  let received = 0
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      received += chunk.byteLength
      if (received > MAX_BODY_BYTES) done(bodyTooLarge('encoded response body'))
      else done(null, chunk)
    },
  })
}

/** Drops a body we do not keep (redirect hops, retried answers) without reading, let alone decoding, it. */
export const discardBody = async (response: ClientResponse): Promise<void> => {
  response.discard()
}
