/**
 * The most any job takes of one response, counted after decoding: the light tier's body, a browser tier's main
 * response body and rendered document. Bodies are read as streams and abandoned as soon as they pass it, so a
 * small compressed body that inflates to gigabytes (a decompression bomb) never gets further than this.
 */
export const MAX_BODY_BYTES = 25 * 1024 * 1024

/** A body the job refuses to keep; `reason` is the job's failure_reason. */
export class BodyRefused extends Error {
  constructor(readonly reason: 'response_too_large' | 'content_encoding_error', message: string) {
    super(message)
  }
}

export const bodyTooLarge = (what = 'decoded response body') =>
  new BodyRefused('response_too_large', `the ${what} is larger than ${MAX_BODY_BYTES} bytes`)

const YIELD_EVERY_BYTES = 256 * 1024

/**
 * Copies chunks into one growing buffer, giving up as soon as their total passes `limit`. Decoded bodies arrive in
 * thousands of small chunks: copying them at once lets each die young instead of piling up for the old-space GC.
 * `expectedBytes` (a declared Content-Length) sizes the buffer at once: a large page is then never copied again as
 * the buffer grows, each copy holding the event loop for milliseconds.
 */
export const collectLimited = async (chunks: AsyncIterable<Uint8Array>, limit = MAX_BODY_BYTES, expectedBytes = 0): Promise<Uint8Array> => {
  let buffer = new Uint8Array(Math.min(limit, Math.max(64 * 1024, Number.isSafeInteger(expectedBytes) ? expectedBytes : 0)))
  let total = 0
  let sinceYield = 0
  for await (const chunk of chunks) {
    // Chunks can arrive back to back for seconds: let the rest of the process (API requests) run in between.
    sinceYield += chunk.byteLength
    if (sinceYield >= YIELD_EVERY_BYTES) { sinceYield = 0; await new Promise<void>((resolve) => setImmediate(resolve)) }
    if (total + chunk.byteLength > limit) throw bodyTooLarge()
    if (total + chunk.byteLength > buffer.byteLength) {
      const grown = new Uint8Array(Math.min(limit, Math.max(buffer.byteLength * 2, total + chunk.byteLength)))
      grown.set(buffer.subarray(0, total))
      buffer = grown
    }
    buffer.set(chunk, total)
    total += chunk.byteLength
  }
  return buffer.subarray(0, total)
}
