import type { JobSpec } from '../../domain/job/spec.js'
import { runActions } from './actions.js'
import { detectBlock, hasChallengeMarkers, type BlockVerdict } from './challenge.js'
import { DISMISS_CONSENT } from './consent.js'
import type { ConsoleEntry, MainResponse, PageSession } from './driver.js'
import { isTimeoutError, JobFailure, navigationFailure } from './failures.js'
import { autoScroll, boundedDocumentHtml, DOCUMENT_TITLE, links, visibleText } from './in-page.js'
import { bodyTooLarge, MAX_BODY_BYTES } from '../body-limit.js'
import { EGRESS_DENIED_HEADER, isGatewayFailureStatus } from '../egress/gateway-answers.js'

/** Upper bound of the default auto-scroll, so an infinite feed cannot use the whole job. */
const AUTO_SCROLL_MAX_MS = 10_000
const AUTO_SCROLL_MAX_STEPS = 60
const LAZY_QUIET_MS = 250
const LAZY_WAIT_MAX_MS = 3_000
const CHALLENGE_POLL_MS = 500

/** An open page session and how its navigations report: what every page flow (job or recipe script) is given. */
export interface NavigationContext {
  readonly session: PageSession
  /** Epoch ms at which the job's timeout_ms runs out. */
  readonly deadline: number
  /** The job goes through a customer proxy (proxy failures are reported as `proxy_error`). */
  readonly customProxy: boolean
  /** True when an error means the browser (or the page's renderer) is gone. */
  readonly isGone: (error: unknown) => boolean
  /** Told the main document's response once it is known to be the target's own (not the gateway's). */
  readonly onTargetResponse: (main: MainResponse) => void
}

export interface NavigateOptions extends NavigationContext {
  readonly spec: JobSpec
}

export interface PageJobOptions extends NavigateOptions {
  /** Stealth: fail with `stealth_blocked` on denial and challenge pages. */
  readonly detectBlocks: boolean
  /** Stealth `isdcac`: accept consent banners. */
  readonly dismissConsent: boolean
  /** How long a challenge page may take to clear itself before the job counts as blocked. */
  readonly challengeWaitMs: number
}

/** What the page looked like when it was captured; artifacts are built from it. */
export interface Capture {
  readonly html: string
  readonly url: string
  readonly title: string
  readonly screenshot?: Uint8Array
  readonly pdf?: Uint8Array
  readonly links?: string[]
  readonly text?: string
  readonly console?: readonly ConsoleEntry[]
}

export interface PageJobResult {
  readonly main: MainResponse | null
  readonly navigationMs: number
  readonly capture: Capture
  readonly blocked: BlockVerdict | null
  readonly details: Record<string, unknown>
}

/** The rendered document, refused in the page when it is over the body limit (only that much is copied out). */
export const documentHtml = async (session: PageSession): Promise<string> => {
  const html = await session.evaluate<string | null>(boundedDocumentHtml(MAX_BODY_BYTES))
  if (html === null || Buffer.byteLength(html) > MAX_BODY_BYTES) throw new JobFailure('response_too_large', bodyTooLarge('rendered document').message)
  return html
}

/** Errors of a read that a late navigation (meta refresh, script redirect) interrupted: worth one more try. */
const INTERRUPTED_BY_NAVIGATION = /Execution context was destroyed|Cannot find context|navigat/i

export const settled = async <T>(session: PageSession, read: () => Promise<T>, remainingMs: () => number, isGone: (e: unknown) => boolean): Promise<T> => {
  for (let attempt = 1; ; attempt++) {
    try {
      return await read()
    } catch (error) {
      if (attempt >= 3 || remainingMs() <= 0 || isGone(error) || !INTERRUPTED_BY_NAVIGATION.test(String((error as Error)?.message))) throw error
      await session.waitForLoad(Math.max(1, Math.min(5_000, remainingMs())))
    }
  }
}

/**
 * Opens `url` in the page within the navigation timeout (cut to what is left of the job) and checks that the answer
 * is the target's: a gateway refusal is `egress_denied`, a gateway failure `network_error` (or `proxy_error`).
 */
export const navigateTo = async (options: NavigateOptions, url: string): Promise<{ readonly main: MainResponse | null; readonly navigationMs: number }> => {
  const { session, spec } = options
  const remainingMs = () => options.deadline - Date.now()
  const navigationBudget = Math.min(spec.navigation_timeout_ms, remainingMs())
  const navStarted = Date.now()
  let main: MainResponse | null
  try {
    main = await session.goto(url, { waitUntil: spec.wait_until, timeoutMs: Math.max(1, navigationBudget) })
  } catch (error) {
    if (options.isGone(error)) throw error
    if (isTimeoutError(error)) {
      // The navigation budget was cut short by the job's own deadline: that is the job's timeout, not the page's.
      if (navigationBudget < spec.navigation_timeout_ms) throw new JobFailure('timeout', `the job did not finish within timeout_ms (${spec.timeout_ms} ms)`)
      throw new JobFailure('navigation_timeout', `the page did not reach '${spec.wait_until}' within navigation_timeout_ms (${spec.navigation_timeout_ms} ms)`)
    }
    throw navigationFailure(error, options.customProxy)
  }
  const navigationMs = Date.now() - navStarted

  if (main) {
    const denied = main.headers[EGRESS_DENIED_HEADER]
    if (denied) throw new JobFailure('egress_denied', `the egress gateway refused ${new URL(main.url).host}: ${denied}`)
    if (isGatewayFailureStatus(main.status)) {
      throw options.customProxy
        ? new JobFailure('proxy_error', `the customer proxy failed: ${main.status} ${main.statusText}`.trim())
        : new JobFailure('network_error', `could not reach the target: ${main.status} ${main.statusText}`.trim())
    }
    options.onTargetResponse(main)
  }

  return { main, navigationMs }
}

/**
 * The browser job after the page is open: navigate, check for blocks, accept consent, run actions, scroll for lazy
 * content, then capture. Throws JobFailure for outcomes it decides; other errors are classified by the engine.
 */
export const runPageJob = async (options: PageJobOptions): Promise<PageJobResult> => {
  const { session, spec } = options
  const remainingMs = () => options.deadline - Date.now()
  const details: Record<string, unknown> = {}

  const { main, navigationMs } = await navigateTo(options, spec.target_url)

  const isGone = options.isGone
  const read = <T>(f: () => Promise<T>) => settled(session, f, remainingMs, isGone)

  let blocked: BlockVerdict | null = null
  if (options.detectBlocks) {
    let html = await read(() => documentHtml(session))
    // JavaScript challenges clear themselves by navigating to the real page: give them a moment first.
    const until = Date.now() + Math.min(options.challengeWaitMs, Math.max(0, remainingMs() - 1000))
    while (hasChallengeMarkers(html) && Date.now() < until) {
      await new Promise((r) => setTimeout(r, CHALLENGE_POLL_MS))
      html = await read(() => documentHtml(session))
    }
    const stillOnFirstDocument = session.url() === main?.url
    blocked = detectBlock(stillOnFirstDocument ? main?.status : undefined, html, stillOnFirstDocument ? main?.headers ?? {} : {})
  }

  const dismiss = async () => {
    const clicked = (await session.evaluateInFrames<string[]>(DISMISS_CONSENT)).flat()
    if (clicked.length > 0) await session.waitForLoad(Math.max(1, Math.min(5_000, remainingMs())))
    return clicked
  }

  if (!blocked) {
    const consent: string[] = []
    if (options.dismissConsent) consent.push(...await dismiss())
    details.actions_run = await runActions(session, spec.actions, remainingMs, isGone)
    if (!spec.artifact_options.no_scroll) {
      details.auto_scroll = await read(() => session.evaluate(autoScroll(AUTO_SCROLL_MAX_STEPS, Math.max(0, Math.min(AUTO_SCROLL_MAX_MS, remainingMs() - 2000)))))
      // Requests the scroll triggered (lazy content) finish, and their scripts get a moment to insert what they loaded.
      await session.waitForNetworkQuiet(LAZY_QUIET_MS, Math.max(0, Math.min(LAZY_WAIT_MAX_MS, remainingMs() - 2000)))
    }
    // Banners that appear late (after a delay or on scroll) are accepted before capture too.
    if (options.dismissConsent) consent.push(...await dismiss())
    if (options.dismissConsent) details.consent_clicked = consent
  }

  const opts = spec.artifact_options
  const html = await read(() => documentHtml(session))
  const capture: Capture = {
    html,
    url: session.url(),
    title: await read(() => session.evaluate<string>(DOCUMENT_TITLE)),
    ...(opts.include_screenshot ? { screenshot: await session.screenshot({ fullPage: opts.full_page_screenshot === true }) } : {}),
    ...(opts.include_pdf ? { pdf: await session.pdf() } : {}),
    ...(opts.include_links ? { links: [...new Set(await read(() => session.evaluate<string[]>(links(MAX_BODY_BYTES))))] } : {}),
    ...(opts.include_text ? { text: await read(() => session.evaluate<string>(visibleText(MAX_BODY_BYTES))) } : {}),
    ...(opts.include_console ? { console: session.consoleMessages() } : {}),
  }
  return { main, navigationMs, capture, blocked, details }
}
