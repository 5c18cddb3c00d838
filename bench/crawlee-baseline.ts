/**
 * The Crawlee baseline of bench:light: an `HttpCrawler` (in-memory storage, no retries) fetching the same page
 * `count` times at a fixed concurrency. Answers null when `@crawlee/http` is not installed (it is a dev dependency).
 */
export const runCrawleeBaseline = async (url: string, count: number, concurrency: number): Promise<{ seconds: number } | null> => {
  const crawlee = await import('@crawlee/http').catch(() => null)
  if (crawlee === null) return null
  const { MemoryStorage } = await import('@crawlee/memory-storage')
  crawlee.log.setLevel(crawlee.log.LEVELS.OFF)
  const config = new crawlee.Configuration({ storageClient: new MemoryStorage({ persistStorage: false, writeMetadata: false }), persistStorage: false })
  let fetched = 0
  const crawler = new crawlee.HttpCrawler({
    minConcurrency: concurrency, maxConcurrency: concurrency, maxRequestRetries: 0,
    requestHandler: async () => { fetched += 1 },
    failedRequestHandler: async ({ request }) => { throw new Error(`Crawlee could not fetch ${request.url}`) },
  }, config)
  // The same URL each time, so each request gets a key of its own (Crawlee fetches a key once).
  const requests = Array.from({ length: count }, (_, i) => ({ url, uniqueKey: `${url}#${i}` }))
  const started = performance.now()
  await crawler.run(requests)
  const seconds = (performance.now() - started) / 1000
  if (fetched !== count) throw new Error(`Crawlee fetched ${fetched} of ${count} pages`)
  return { seconds }
}
