/**
 * A page driven step by step (recipe browser steps) instead of the job flow of page-job.ts: open a URL, click, fill,
 * scroll, wait for an element, accept a consent banner, read the rendered document. Elements are found by locator
 * chains (the first locator that matches an element wins, and its index is answered); values typed into fields go
 * through the driver's fill, never into a selector or a script.
 */
import type { JobSpec } from '../../domain/job/spec.js'
import { ACTION_ELEMENT_TIMEOUT_MS, AFTER_CLICK_LOAD_MS } from './actions.js'
import { DISMISS_CONSENT } from './consent.js'
import type { ElementLocator } from './driver.js'
import { isTimeoutError, JobFailure } from './failures.js'
import { SCROLL_DOWN } from './in-page.js'
import { documentHtml, navigateTo, settled, type NavigationContext } from './page-job.js'

/** The rendered document as it is now, with the answer of the navigation that opened it. */
export interface PageSnapshot {
  readonly status: number
  /** Lower-case names. */
  readonly headers: Readonly<Record<string, string>>
  readonly url: string
  readonly html: string
}

export type Navigated =
  | { readonly ok: true; readonly snapshot: PageSnapshot }
  | { readonly ok: false; readonly outcome: 'timeout' | 'error'; readonly message: string }

export interface ScriptedPage {
  /** Opens a URL (through the egress gateway) and answers the rendered document once it loaded. */
  navigate(url: string): Promise<Navigated>
  /**
   * Clicks the first element the chain finds (waiting up to timeoutMs for one); null when none appeared, or when
   * it never became clickable (covered by an overlay, disabled) within that time.
   */
  click(chain: readonly ElementLocator[], timeoutMs?: number): Promise<number | null>
  /** Types a value into the first element the chain finds; null when none appeared or it never took input. */
  fill(chain: readonly ElementLocator[], value: string, timeoutMs?: number): Promise<number | null>
  /** Waits until one of the chain's locators matches an element; its index, or null after timeoutMs. */
  waitFor(chain: readonly ElementLocator[], timeoutMs: number): Promise<number | null>
  /** One viewport down. */
  scroll(): Promise<void>
  /** Accepts a consent banner if one shows (known platforms, then accept-like buttons in a consent container). */
  dismissConsent(): Promise<readonly string[]>
  /** The document as it is now (after clicks and fills). */
  snapshot(): Promise<PageSnapshot>
}

export interface ScriptedSession extends NavigationContext {
  readonly onNavigated: (navigationMs: number) => void
}

const POLL_MS = 100
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))
const lowerCased = (headers: Readonly<Record<string, string>>) => Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]))

export const scriptedPage = (open: ScriptedSession, spec: JobSpec): ScriptedPage => {
  const { session, isGone } = open
  const remainingMs = () => open.deadline - Date.now()
  const read = <T>(f: () => Promise<T>) => settled(session, f, remainingMs, isGone)
  let answered: Pick<PageSnapshot, 'status' | 'headers'> | null = null

  const snapshot = async (): Promise<PageSnapshot> => {
    if (!answered) throw new Error('no page is open: a browser recipe starts with navigate')
    return { ...answered, url: session.url(), html: await read(() => documentHtml(session)) }
  }

  /** Errors of a page that is navigating (a click that submitted a form) count as no match yet. */
  const countOf = async (locator: ElementLocator) => {
    try {
      return await session.count(session.selectorOf(locator))
    } catch (error) {
      if (isGone(error)) throw error
      return 0
    }
  }

  const waitFor = async (chain: readonly ElementLocator[], timeoutMs: number): Promise<number | null> => {
    const until = Date.now() + Math.max(0, Math.min(timeoutMs, remainingMs()))
    for (;;) {
      for (const [index, locator] of chain.entries()) if (await countOf(locator) > 0) return index
      if (Date.now() >= until) return null
      await sleep(POLL_MS)
    }
  }

  /** An element found but never actionable is as much a changed page as none found; other errors are the session's. */
  const actOn = async (chain: readonly ElementLocator[], timeoutMs: number | undefined, act: (selector: string, timeout: number) => Promise<void>) => {
    const timeout = elementTimeout(timeoutMs)
    const index = await waitFor(chain, timeout)
    if (index === null) return null
    try {
      await act(session.selectorOf(chain[index]!), timeout)
    } catch (error) {
      if (isGone(error) || !isTimeoutError(error)) throw error
      return null
    }
    return index
  }

  const elementTimeout = (timeoutMs: number | undefined) => Math.max(1, Math.min(timeoutMs ?? ACTION_ELEMENT_TIMEOUT_MS, remainingMs()))

  return {
    navigate: async (url) => {
      try {
        const { main, navigationMs } = await navigateTo({ ...open, spec }, url)
        open.onNavigated(navigationMs)
        if (!main) return { ok: false, outcome: 'error', message: `${url} gave no document` }
        answered = { status: main.status, headers: lowerCased(main.headers) }
        return { ok: true, snapshot: await snapshot() }
      } catch (error) {
        if (!(error instanceof JobFailure)) throw error
        return { ok: false, outcome: error.reason === 'timeout' || error.reason === 'navigation_timeout' ? 'timeout' : 'error', message: `${error.reason}: ${error.message}` }
      }
    },
    click: (chain, timeoutMs) => actOn(chain, timeoutMs, async (selector, timeout) => {
      await session.click(selector, timeout)
      await session.waitForLoad(Math.max(1, Math.min(AFTER_CLICK_LOAD_MS, remainingMs())))
    }),
    fill: (chain, value, timeoutMs) => actOn(chain, timeoutMs, (selector, timeout) => session.fill(selector, value, timeout)),
    waitFor,
    scroll: async () => { await read(() => session.evaluate(SCROLL_DOWN)) },
    dismissConsent: async () => {
      const clicked = (await session.evaluateInFrames<string[]>(DISMISS_CONSENT)).flat()
      if (clicked.length > 0) await session.waitForLoad(Math.max(1, Math.min(5_000, remainingMs())))
      return clicked
    },
    snapshot,
  }
}
