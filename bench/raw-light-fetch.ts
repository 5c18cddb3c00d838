import { createTransport, fetch as wreqFetch } from 'wreq-js'
import { chromiumTransport, requestHeaders } from '../fetchers/light/chromium-profile.js'

/**
 * One fetch as the light engine makes it, without the service or the gateway: one transport per fetch, Chromium's
 * headers, redirects not followed. The baseline of the light-tier benches. Answers the fetch's milliseconds.
 */
export const rawLightFetch = async (url: string): Promise<number> => {
  const t0 = performance.now()
  const transport = await createTransport({ ...chromiumTransport, trustStore: 'mozilla' })
  const res = await wreqFetch(url, { transport, headers: requestHeaders(new URL(url), {}), disableDefaultHeaders: true, redirect: 'manual' })
  await res.text()
  await transport.close()
  return performance.now() - t0
}
