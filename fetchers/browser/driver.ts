/**
 * What a browser tier needs from its automation library. The standard tier implements it with playwright-core,
 * the stealth tier with puppeteer-real-browser; the job flow (page-job.ts) is written once against it.
 */

export type WaitUntil = 'load' | 'domcontentloaded' | 'networkidle' | 'commit'

/** An element locator of a recipe's browser step: CSS or XPath, written by the recipe, never by its input. */
export type ElementLocator = { readonly css: string } | { readonly xpath: string }

/** One network event of a page, normalized across drivers (input of the HAR recorder). */
export type NetworkEvent =
  | {
    readonly kind: 'request'; readonly id: string; readonly time: number; readonly url: string; readonly method: string
    readonly headers: Readonly<Record<string, string>>; readonly resourceType: string; readonly postDataSize: number
  }
  | {
    readonly kind: 'response'; readonly id: string; readonly time: number; readonly status: number; readonly statusText: string
    readonly headers: Readonly<Record<string, string>>; readonly remoteAddress?: string
  }
  | { readonly kind: 'finished'; readonly id: string; readonly time: number; readonly encodedBytes?: number }
  | { readonly kind: 'failed'; readonly id: string; readonly time: number; readonly errorText: string }

export interface ConsoleEntry {
  readonly type: string
  readonly text: string
  readonly time: string
  readonly url?: string
  readonly line?: number
}

/** A request as the blocking filter sees it. */
export interface RequestInfo {
  readonly url: string
  readonly resourceType: string
  /** A document request of the main frame: never blocked, and the one that gets the job's `headers`. */
  readonly isMainFrameNavigation: boolean
}

/**
 * What became of a main-frame document request: the first navigation and every later one (meta refresh, script,
 * form submit, redirects), so the job can tell when the page was taken somewhere the gateway refused.
 */
export type MainFrameDocument =
  | { readonly kind: 'response'; readonly url: string; readonly status: number; readonly headers: Readonly<Record<string, string>> }
  | { readonly kind: 'failed'; readonly url: string; readonly errorText: string }

export interface SessionOptions {
  /** Per-context proxy (a stealth customer proxy's dedicated gateway listener); default: the process-wide gateway. */
  readonly proxyServer?: string
  readonly viewport?: { readonly width: number; readonly height: number }
  readonly locale?: string
  readonly timezoneId?: string
  readonly userAgent?: string
  /** Extra headers for main-frame navigations only. */
  readonly navigationHeaders?: Readonly<Record<string, string>>
  /** Answers true for requests to abort; absent when nothing is blocked (no interception at all). */
  readonly shouldBlock?: (request: RequestInfo) => boolean
  readonly captureConsole: boolean
  readonly onNetwork?: (event: NetworkEvent) => void
  readonly onMainFrameDocument: (event: MainFrameDocument) => void
}

export interface MainResponse {
  readonly status: number
  readonly statusText: string
  readonly url: string
  readonly headers: Readonly<Record<string, string>>
  /** The raw body as received (for include_response_body); rejects when the browser no longer holds it. */
  body(): Promise<Uint8Array>
}

/** One job's isolated browser context with one page. */
export interface PageSession {
  /** Resolves with the main document's response (after redirects), or null when there was none (e.g. about:blank). */
  goto(url: string, options: { readonly waitUntil: WaitUntil; readonly timeoutMs: number }): Promise<MainResponse | null>
  click(selector: string, timeoutMs: number): Promise<void>
  fill(selector: string, value: string, timeoutMs: number): Promise<void>
  /** This driver's selector text for a CSS or XPath locator (what click, fill and count take). */
  selectorOf(locator: ElementLocator): string
  /** How many elements of the main frame the selector matches now. */
  count(selector: string): Promise<number>
  /** Evaluates a JavaScript expression (source text, so no bundler helpers leak into the page) in the main frame. */
  evaluate<T>(expression: string): Promise<T>
  /** Evaluates an expression in every frame; frames that refuse (detached, navigating) are skipped. */
  evaluateInFrames<T>(expression: string): Promise<T[]>
  /** Waits until a navigation an action may have started has loaded (no-op when none is in progress). */
  waitForLoad(timeoutMs: number): Promise<void>
  /** Waits until the page has had no request in flight for `quietMs` (lazy content a scroll triggered), at most `timeoutMs`. */
  waitForNetworkQuiet(quietMs: number, timeoutMs: number): Promise<void>
  url(): string
  /** A PNG of the viewport, or of the whole page with `fullPage`. */
  screenshot(options: { readonly fullPage: boolean }): Promise<Uint8Array>
  /** The page printed to PDF (headless Chromium only; the spec refuses pdf with headless false). */
  pdf(): Promise<Uint8Array>
  consoleMessages(): readonly ConsoleEntry[]
  /** True once the page's renderer crashed. */
  crashed(): boolean
  close(): Promise<void>
}

export interface LaunchedBrowser {
  /** e.g. `156.0.8078.79` */
  readonly version: string
  /** The browser process id when it could be found (Linux). */
  readonly pid: number | undefined
  isConnected(): boolean
  /** Called once when the connection to the browser ends, whether it was closed or died. */
  onDisconnected(listener: () => void): void
  newSession(options: SessionOptions): Promise<PageSession>
  close(): Promise<void>
}

/** Raised when no browser can be started: jobs fail with `browser_unavailable`. */
export class BrowserUnavailable extends Error {
  override readonly name = 'BrowserUnavailable'
}
