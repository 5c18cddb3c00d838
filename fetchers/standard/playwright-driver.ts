import { chromium, type Browser, type Request } from 'playwright-core'
import { type ConsoleEntry, type LaunchedBrowser, type NetworkEvent, type PageSession, type SessionOptions } from '../browser/driver.js'
import { InFlightRequests } from '../browser/in-flight.js'
import { BASE_CHROMIUM_FLAGS, CONTEXT_PROXY_BYPASS, markerFlag, proxyFlags } from '../browser/launch-flags.js'
import { launchBrowser } from '../browser/launch.js'

export interface PlaywrightLaunchOptions {
  readonly executablePath: string
  /** The egress gateway every request of the browser goes through. */
  readonly proxyUrl: string
  readonly headless: boolean
}

const LAUNCH_TIMEOUT_MS = 30_000
const MAX_CONSOLE_ENTRIES = 1_000
const SCREENSHOT_TIMEOUT_MS = 15_000
const DEFAULT_VIEWPORT = { width: 1280, height: 720 }

const isMainFrameNavigation = (request: Request): boolean => {
  try {
    return request.isNavigationRequest() && request.frame().parentFrame() === null
  } catch {
    // Service-worker requests have no frame.
    return false
  }
}

/** Launches Debian's Chromium through playwright-core (the standard tier's driver). */
export const launchPlaywrightChromium = async (options: PlaywrightLaunchOptions): Promise<LaunchedBrowser> => {
  const { browser, pid } = await launchBrowser(options, ({ marker, display }) => chromium.launch({
    executablePath: options.executablePath,
    headless: options.headless,
    args: [...BASE_CHROMIUM_FLAGS, ...proxyFlags(options.proxyUrl), markerFlag(marker)],
    timeout: LAUNCH_TIMEOUT_MS,
    // The service handles its own signals and closes browsers in order.
    handleSIGINT: false, handleSIGTERM: false, handleSIGHUP: false,
    ...(display ? { env: { ...process.env, DISPLAY: display.display } } : {}),
  }))

  return {
    version: browser.version(),
    pid,
    isConnected: () => browser.isConnected(),
    onDisconnected: (listener) => { browser.on('disconnected', listener) },
    close: () => browser.close(),
    newSession: (session) => openSession(browser, session),
  }
}

const openSession = async (browser: Browser, options: SessionOptions): Promise<PageSession> => {
  const intercept = options.shouldBlock !== undefined || options.navigationHeaders !== undefined
  const context = await browser.newContext({
    viewport: options.viewport ?? DEFAULT_VIEWPORT,
    ...(options.locale ? { locale: options.locale } : {}),
    ...(options.timezoneId ? { timezoneId: options.timezoneId } : {}),
    ...(options.userAgent ? { userAgent: options.userAgent } : {}),
    ...(options.proxyServer ? { proxy: { server: options.proxyServer, bypass: CONTEXT_PROXY_BYPASS.join(',') } } : {}),
    acceptDownloads: false,
    // Requests a service worker makes would escape the route below; they still pass the gateway either way.
    ...(intercept ? { serviceWorkers: 'block' as const } : {}),
  })
  try {
    if (intercept) {
      await context.route('**/*', async (route) => {
        const request = route.request()
        const mainNavigation = isMainFrameNavigation(request)
        const info = { url: request.url(), resourceType: request.resourceType(), isMainFrameNavigation: mainNavigation }
        if (options.shouldBlock?.(info)) return route.abort('blockedbyclient').catch(() => {})
        if (mainNavigation && options.navigationHeaders) return route.continue({ headers: { ...request.headers(), ...options.navigationHeaders } }).catch(() => {})
        return route.continue().catch(() => {})
      })
    }
    const onNetwork = options.onNetwork
    if (onNetwork) {
      const ids = new WeakMap<Request, string>()
      let next = 0
      const idOf = (request: Request) => { let id = ids.get(request); if (!id) { id = String(++next); ids.set(request, id) } return id }
      const emit = (event: NetworkEvent) => { try { onNetwork(event) } catch { /* a recorder bug must not break the page */ } }
      context.on('request', (request) => emit({
        kind: 'request', id: idOf(request), time: Date.now(), url: request.url(), method: request.method(),
        headers: request.headers(), resourceType: request.resourceType(), postDataSize: request.postDataBuffer()?.byteLength ?? 0,
      }))
      context.on('response', (response) => emit({
        kind: 'response', id: idOf(response.request()), time: Date.now(), status: response.status(), statusText: response.statusText(), headers: response.headers(),
      }))
      context.on('requestfinished', (request) => emit({ kind: 'finished', id: idOf(request), time: Date.now() }))
      context.on('requestfailed', (request) => emit({ kind: 'failed', id: idOf(request), time: Date.now(), errorText: request.failure()?.errorText ?? 'failed' }))
    }

    // headers(), not allHeaders(): synchronous, so the verdict is in before the job looks (the gateway's header is in it).
    context.on('response', (response) => {
      if (isMainFrameNavigation(response.request())) {
        options.onMainFrameDocument({ kind: 'response', url: response.url(), status: response.status(), headers: response.headers() })
      }
    })
    context.on('requestfailed', (request) => {
      if (isMainFrameNavigation(request)) options.onMainFrameDocument({ kind: 'failed', url: request.url(), errorText: request.failure()?.errorText ?? 'failed' })
    })

    const inFlight = new InFlightRequests()
    context.on('request', (request) => inFlight.started(request))
    context.on('requestfinished', (request) => inFlight.ended(request))
    context.on('requestfailed', (request) => inFlight.ended(request))
    const page = await context.newPage()
    let crashed = false
    page.on('crash', () => { crashed = true })
    const consoleEntries: ConsoleEntry[] = []
    if (options.captureConsole) {
      const push = (entry: ConsoleEntry) => { if (consoleEntries.length < MAX_CONSOLE_ENTRIES) consoleEntries.push(entry) }
      page.on('console', (message) => {
        const location = message.location()
        push({ type: message.type(), text: message.text(), time: new Date().toISOString(), ...(location.url ? { url: location.url, line: location.lineNumber } : {}) })
      })
      page.on('pageerror', (error) => push({ type: 'pageerror', text: error.message, time: new Date().toISOString() }))
    }

    return {
      goto: async (url, { waitUntil, timeoutMs }) => {
        const response = await page.goto(url, { waitUntil, timeout: timeoutMs })
        if (!response) return null
        return {
          status: response.status(), statusText: response.statusText(), url: response.url(),
          headers: await response.allHeaders(),
          body: async () => new Uint8Array(await response.body()),
        }
      },
      click: async (selector, timeoutMs) => { await page.click(selector, { timeout: timeoutMs }) },
      fill: (selector, value, timeoutMs) => page.fill(selector, value, { timeout: timeoutMs }),
      selectorOf: (locator) => ('css' in locator ? `css=${locator.css}` : `xpath=${locator.xpath}`),
      count: (selector) => page.locator(selector).count(),
      evaluate: <T>(expression: string) => page.evaluate(expression) as Promise<T>,
      evaluateInFrames: async <T>(expression: string) => {
        const results = await Promise.all(page.frames().map((frame) => frame.evaluate(expression).then((v) => [v as T], () => [])))
        return results.flat()
      },
      waitForLoad: async (timeoutMs) => {
        // Give a navigation an action started a moment to begin, then wait for it to load.
        await page.waitForTimeout(100).catch(() => {})
        await page.waitForLoadState('load', { timeout: timeoutMs }).catch(() => {})
      },
      waitForNetworkQuiet: (quietMs, timeoutMs) => inFlight.quiet(quietMs, timeoutMs),
      url: () => page.url(),
      screenshot: async ({ fullPage }) => new Uint8Array(await page.screenshot({ type: 'png', fullPage, timeout: SCREENSHOT_TIMEOUT_MS })),
      // Backgrounds printed: without them a page's coloured banners come out as white text on white.
      pdf: async () => new Uint8Array(await page.pdf({ printBackground: true })),
      consoleMessages: () => consoleEntries,
      crashed: () => crashed,
      close: () => context.close(),
    }
  } catch (error) {
    await context.close().catch(() => {})
    throw error
  }
}
