import { makeChromiumClient } from '../fetchers/light/chromium-client.js'
import { requestHeaders } from '../fetchers/light/chromium-profile.js'

const client = makeChromiumClient({ extraCaFile: null })
// One transport for every fetch, as the light engine shares one among an organization's jobs (a bench is one organization).
const TRANSPORT = 'raw-bench'

/**
 * One fetch as the light engine makes it, without the service: the light tier's HTTP client with Chromium's headers,
 * redirects not followed, through `proxy` (an egress gateway, as the engine's fetches are) or straight to the target
 * when null. The baseline of the light-tier benches. Answers the fetch's milliseconds.
 */
export const rawLightFetch = async (url: string, proxy: string | null = null): Promise<number> => {
  const t0 = performance.now()
  const response = await client.exchange({ transport: TRANSPORT, proxy, method: 'GET', url, headers: requestHeaders(new URL(url), {}), timeoutMs: 30_000 })
  for await (const _chunk of response.body);
  return performance.now() - t0
}

/** Stops the client's process, so the bench can exit. */
export const stopRawLightClient = () => client.stop()
