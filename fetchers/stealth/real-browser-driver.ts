import { connect } from 'puppeteer-real-browser'
import type { Browser, CDPSession, HTTPRequest, HTTPResponse, Page } from 'rebrowser-puppeteer-core'
import { type ConsoleEntry, type LaunchedBrowser, type MainResponse, type NetworkEvent, type PageSession, type SessionOptions, type WaitUntil } from '../browser/driver.js'
import { InFlightRequests } from '../browser/in-flight.js'
import { BASE_CHROMIUM_FLAGS, CONTEXT_PROXY_BYPASS, markerFlag, proxyFlags } from '../browser/launch-flags.js'
import { launchBrowser } from '../browser/launch.js'
import type { Fingerprint } from './fingerprint.js'

export interface RealBrowserLaunchOptions {
  readonly executablePath: string
  readonly proxyUrl: string
  readonly headless: boolean
  readonly fingerprint: Fingerprint
}

const MAX_CONSOLE_ENTRIES = 1_000
const PROTOCOL_TIMEOUT_MS = 60_000
/** The virtual screen Xvfb provides; the browser window fills it like a maximized desktop window. */
const WINDOW_SIZE = '1920,1080'

type PuppeteerWait = 'load' | 'domcontentloaded' | 'networkidle0'
const PUPPETEER_WAIT: Record<Exclude<WaitUntil, 'commit'>, PuppeteerWait> = { load: 'load', domcontentloaded: 'domcontentloaded', networkidle: 'networkidle0' }

const isMainFrameNavigation = (page: Page, request: HTTPRequest) => request.isNavigationRequest() && request.frame() === page.mainFrame()

/** Launches Debian's Chromium through puppeteer-real-browser (the stealth tier's driver) with one fingerprint. */
export const launchRealBrowser = async (options: RealBrowserLaunchOptions): Promise<LaunchedBrowser> => {
  // Headed stealth browsers draw on a virtual X display; we manage it (one shared Xvfb) rather than the library.
  const { browser, pid } = await launchBrowser(options, async ({ marker, display }) => (await connect({
    headless: options.headless,
    disableXvfb: true,
    turnstile: false,
    args: [
      ...BASE_CHROMIUM_FLAGS, ...proxyFlags(options.proxyUrl), markerFlag(marker),
      // Process-wide, so workers and service workers agree with the per-page override below.
      `--user-agent=${options.fingerprint.userAgent}`,
      `--window-size=${WINDOW_SIZE}`,
      '--lang=en-US',
    ],
    customConfig: {
      chromePath: options.executablePath,
      handleSIGINT: false,
      logLevel: 'silent',
      ...(display ? { envVars: { ...process.env, DISPLAY: display.display } as Record<string, string> } : {}),
    },
    connectOption: { defaultViewport: null, protocolTimeout: PROTOCOL_TIMEOUT_MS },
  })).browser)
  const version = /(\d+\.\d+\.\d+\.\d+)/.exec(await browser.version())?.[1] ?? 'unknown'

  return {
    version,
    pid,
    isConnected: () => browser.connected,
    onDisconnected: (listener) => { browser.on('disconnected', listener) },
    // puppeteer-real-browser kills the process (and its temporary profile) when the connection ends.
    close: () => browser.close(),
    newSession: (session) => openSession(browser, session, options.fingerprint),
  }
}

/** The fingerprint's platform, applied to one page before it loads anything. */
const applyFingerprint = (cdp: CDPSession, fingerprint: Fingerprint) =>
  cdp.send('Emulation.setUserAgentOverride', {
    userAgent: fingerprint.userAgent,
    platform: fingerprint.platform,
    acceptLanguage: fingerprint.acceptLanguage,
    userAgentMetadata: fingerprint.metadata,
  })

/**
 * Console capture on stealth: the patched puppeteer never enables the Runtime domain (pages can detect it), so console
 * events are read on a session of our own, enabled only for jobs that asked for include_console.
 */
const captureConsole = async (cdp: CDPSession, push: (entry: ConsoleEntry) => void) => {
  cdp.on('Runtime.consoleAPICalled', (event) => {
    const text = event.args.map((a) => (a.value !== undefined ? (typeof a.value === 'string' ? a.value : JSON.stringify(a.value)) : a.unserializableValue ?? a.description ?? '')).join(' ')
    const frame = event.stackTrace?.callFrames[0]
    push({ type: event.type === 'warning' ? 'warning' : event.type, text, time: new Date().toISOString(), ...(frame?.url ? { url: frame.url, line: frame.lineNumber } : {}) })
  })
  cdp.on('Runtime.exceptionThrown', (event) => {
    push({ type: 'pageerror', text: event.exceptionDetails.exception?.description ?? event.exceptionDetails.text, time: new Date().toISOString() })
  })
  await cdp.send('Runtime.enable')
}

const mainResponse = (response: HTTPResponse): MainResponse => ({
  status: response.status(), statusText: response.statusText(), url: response.url(), headers: response.headers(),
  body: async () => new Uint8Array(await response.buffer()),
})

const openSession = async (browser: Browser, options: SessionOptions, fingerprint: Fingerprint): Promise<PageSession> => {
  const context = await browser.createBrowserContext(options.proxyServer ? { proxyServer: options.proxyServer, proxyBypassList: [...CONTEXT_PROXY_BYPASS] } : {})
  try {
    const page = await context.newPage()
    const cdp = await page.createCDPSession()
    await applyFingerprint(cdp, fingerprint)
    const consoleEntries: ConsoleEntry[] = []
    if (options.captureConsole) await captureConsole(cdp, (entry) => { if (consoleEntries.length < MAX_CONSOLE_ENTRIES) consoleEntries.push(entry) })
    let crashed = false
    page.on('error', () => { crashed = true })
    const inFlight = new InFlightRequests()
    page.on('request', (request) => inFlight.started(request))
    page.on('requestfinished', (request) => inFlight.ended(request))
    page.on('requestfailed', (request) => inFlight.ended(request))

    page.on('response', (response) => {
      if (isMainFrameNavigation(page, response.request())) {
        options.onMainFrameDocument({ kind: 'response', url: response.url(), status: response.status(), headers: response.headers() })
      }
    })
    page.on('requestfailed', (request) => {
      if (isMainFrameNavigation(page, request)) options.onMainFrameDocument({ kind: 'failed', url: request.url(), errorText: request.failure()?.errorText ?? 'failed' })
    })

    const ids = new WeakMap<HTTPRequest, string>()
    let next = 0
    const idOf = (request: HTTPRequest) => { let id = ids.get(request); if (!id) { id = String(++next); ids.set(request, id) } return id }
    const onNetwork = options.onNetwork
    const emit = (event: NetworkEvent) => { try { onNetwork?.(event) } catch { /* a recorder bug must not break the page */ } }

    if (options.shouldBlock || options.navigationHeaders) {
      await page.setRequestInterception(true)
      page.on('request', (request) => {
        const mainNavigation = isMainFrameNavigation(page, request)
        const info = { url: request.url(), resourceType: request.resourceType(), isMainFrameNavigation: mainNavigation }
        if (options.shouldBlock?.(info)) return void request.abort('blockedbyclient').catch(() => {})
        if (mainNavigation && options.navigationHeaders) return void request.continue({ headers: { ...request.headers(), ...options.navigationHeaders } }).catch(() => {})
        void request.continue().catch(() => {})
      })
    }
    if (onNetwork) {
      page.on('request', (request) => emit({
        kind: 'request', id: idOf(request), time: Date.now(), url: request.url(), method: request.method(), headers: request.headers(),
        resourceType: request.resourceType(), postDataSize: request.postData()?.length ?? 0,
      }))
      page.on('response', (response) => emit({
        kind: 'response', id: idOf(response.request()), time: Date.now(), status: response.status(), statusText: response.statusText(),
        headers: response.headers(), ...(response.remoteAddress().ip ? { remoteAddress: response.remoteAddress().ip! } : {}),
      }))
      page.on('requestfinished', (request) => emit({ kind: 'finished', id: idOf(request), time: Date.now() }))
      page.on('requestfailed', (request) => emit({ kind: 'failed', id: idOf(request), time: Date.now(), errorText: request.failure()?.errorText ?? 'failed' }))
    }

    const waitForComplete = async (timeoutMs: number) => {
      const until = Date.now() + timeoutMs
      await new Promise((r) => setTimeout(r, 100))
      while (Date.now() < until) {
        const state = await page.evaluate('document.readyState').catch(() => 'navigating')
        if (state === 'complete') return
        await new Promise((r) => setTimeout(r, 100))
      }
    }

    return {
      goto: async (url, { waitUntil, timeoutMs }) => {
        if (waitUntil !== 'commit') {
          const response = await page.goto(url, { waitUntil: PUPPETEER_WAIT[waitUntil], timeout: timeoutMs })
          return response ? mainResponse(response) : null
        }
        // puppeteer has no 'commit': the navigation counts as committed once the main document's final response arrived.
        const navigation = page.goto(url, { waitUntil: 'load', timeout: timeoutMs })
        navigation.catch(() => {})
        const committed = page.waitForResponse((r) => isMainFrameNavigation(page, r.request()) && (r.status() < 300 || r.status() > 399), { timeout: timeoutMs })
        const first = await Promise.race([committed, navigation])
        return first ? mainResponse(first) : null
      },
      click: (selector, timeoutMs) => page.locator(selector).setTimeout(timeoutMs).click(),
      fill: (selector, value, timeoutMs) => page.locator(selector).setTimeout(timeoutMs).fill(value),
      selectorOf: (locator) => ('css' in locator ? locator.css : `::-p-xpath(${locator.xpath})`),
      count: async (selector) => (await page.$$(selector)).length,
      evaluate: <T>(expression: string) => page.evaluate(expression) as Promise<T>,
      evaluateInFrames: async <T>(expression: string) => {
        const results = await Promise.all(page.frames().map((frame) => frame.evaluate(expression).then((v) => [v as T], () => [])))
        return results.flat()
      },
      waitForLoad: waitForComplete,
      waitForNetworkQuiet: (quietMs, timeoutMs) => inFlight.quiet(quietMs, timeoutMs),
      url: () => page.url(),
      screenshot: ({ fullPage }) => page.screenshot({ type: 'png', fullPage }),
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
