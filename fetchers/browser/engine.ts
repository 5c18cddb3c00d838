import type { Allowlist } from '../../domain/address-policy.js'
import type { JobSpec, JobType } from '../../domain/job/spec.js'
import { failure, type BrowseOutcome, type Engine, type EngineOutcome, type EngineRequest } from '../engine.js'
import { browserArtifacts } from './artifacts.js'
import { PageWorkFailed } from '../page-artifacts.js'
import { bodyTooLarge, MAX_BODY_BYTES } from '../body-limit.js'
import { BrowserUnavailable, type LaunchedBrowser, type MainResponse, type PageSession, type SessionOptions } from './driver.js'
import { describeError, isTargetGone, JobFailure } from './failures.js'
import { HarRecorder } from './har.js'
import { NavigationGuard } from './navigation-guard.js'
import { jobManifest, jobTiming, type ObservedResponse } from '../manifest.js'
import { DOCUMENT_BODY_SIZE } from './in-page.js'
import { runPageJob, type NavigationContext } from './page-job.js'
import type { BrowserPool, Lease } from './pool.js'
import { requestFilter } from './request-filter.js'
import { scriptedPage, type ScriptedPage } from './scripted-page.js'

/** How the job reaches the target: the shared gateway, or a customer proxy's dedicated gateway listener. */
export interface JobEgress {
  /** For the manifest: `{mode: 'managed'}` or `{mode: 'custom', proxy_host}`, never credentials. */
  readonly manifest: Readonly<Record<string, string>>
  /** Per-context proxy server; undefined uses the browser's process-wide gateway. */
  readonly proxyServer?: string
  close(): Promise<void>
}

export const MANAGED_EGRESS: JobEgress = { manifest: { mode: 'managed' }, close: async () => {} }

/** What differs between the browser tiers; the job flow, pool use and failure handling are shared. */
export interface BrowserTier<P> {
  readonly tier: Extract<JobType, 'standard' | 'stealth'>
  readonly pool: BrowserPool<P>
  readonly allowlist: Allowlist
  readonly profileOf: (spec: JobSpec) => P
  /** Context options that come from the spec (viewport, locale, ...), beyond blocking and headers. */
  readonly contextOptions: (spec: JobSpec) => Partial<SessionOptions>
  readonly egressFor: (spec: JobSpec) => Promise<JobEgress>
  /** The manifest's `engine` object. */
  readonly describe: (browser: LaunchedBrowser, profile: P, spec: JobSpec) => Record<string, unknown>
  readonly adBlocking: (spec: JobSpec) => boolean
  readonly dismissConsent: (spec: JobSpec) => boolean
  readonly detectBlocks: boolean
  readonly challengeWaitMs: number
  readonly close?: () => Promise<void>
}

/** After an error, how long to wait for the driver to notice that the browser died. */
const CRASH_NOTICE_MS = 1_000
/** The deadline fires a little after timeout_ms, so a navigation timeout cut to the deadline reports first. */
const DEADLINE_GRACE_MS = 250

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

const needsBody = (spec: JobSpec) =>
  spec.artifact_options.include_response_body || (spec.artifact_options.include_extraction && (spec.extraction?.hooks ?? []).some((h) => h.type === 'jsonpath'))

/**
 * The main document's decoded size, read in the page before its body is copied out of the browser (the body
 * arrives whole, so an oversized one must never be asked for). Unknown when the page shows another document.
 */
const checkedBodySize = async (session: PageSession, main: MainResponse): Promise<'ok' | 'too_large' | 'unknown'> => {
  const known = await session.evaluate<{ url: string; size: number } | null>(DOCUMENT_BODY_SIZE).catch(() => null)
  if (!known || known.url !== main.url) return 'unknown'
  return known.size > MAX_BODY_BYTES ? 'too_large' : 'ok'
}

/** What a page flow is given once its session is open: the page, the job's deadline and how to report. */
export interface OpenSession extends NavigationContext {
  readonly browser: LaunchedBrowser
  /** Epoch ms at which the session was asked for (after the lease). */
  readonly startedAt: number
  readonly navigations: NavigationGuard
  readonly onNavigated: (navigationMs: number) => void
  /** The job's manifest so far, with the flow's own keys. */
  readonly manifest: (details?: Record<string, unknown>) => Record<string, unknown>
}

export const makeBrowserEngine = <P>(tier: BrowserTier<P>): Engine => {
  /**
   * Leases a browser, opens the job's session behind its egress, runs `flow` on it within timeout_ms, and turns
   * whatever went wrong into a failed outcome (timeout, refused navigation, crash, engine error); always closes.
   */
  const withSession = async (spec: JobSpec, signal: AbortSignal, har: HarRecorder | undefined, flow: (open: OpenSession) => Promise<EngineOutcome>): Promise<EngineOutcome> => {
    const queuedAt = Date.now()
    const profile = tier.profileOf(spec)
    let lease: Lease
    try {
      lease = await tier.pool.lease(profile, signal)
    } catch (error) {
      if (signal.aborted) throw new Error('job abandoned: shutting down')
      const message = error instanceof BrowserUnavailable ? error.message : `the browser could not be started: ${describeError(error)}`
      const unavailable = jobManifest({ egress: { mode: spec.proxy ? 'custom' : 'managed' }, engine: { tier: tier.tier }, timing: jobTiming(queuedAt), response: null })
      return failure('browser_unavailable', message, { manifest: unavailable })
    }

    const started = Date.now()
    const deadline = started + spec.timeout_ms
    let egress: JobEgress | undefined
    let session: PageSession | undefined
    const navigations = new NavigationGuard(tier.allowlist)
    let blockedRequests = 0
    let navigationMs: number | undefined
    const browser = lease.browser
    const isGone = () => lease.died() || !browser.isConnected() || (session?.crashed() ?? false)
    let targetResponse: ObservedResponse | null = null
    const manifest = (details: Record<string, unknown> = {}) => jobManifest({
      egress: egress?.manifest ?? { mode: spec.proxy ? 'custom' : 'managed' },
      engine: tier.describe(browser, profile, spec),
      timing: jobTiming(started, { queued_ms: started - queuedAt, ...(navigationMs !== undefined ? { navigation_ms: navigationMs } : {}) }),
      response: targetResponse,
      details: { wait_until: spec.wait_until, ...details, ...(blockedRequests > 0 ? { blocked_requests: blockedRequests } : {}) },
    })

    let stopDeadline = () => {}
    const deadlineHit = new Promise<never>((_, reject) => {
      const timer = setTimeout(() => reject(new JobFailure('timeout', `the job did not finish within timeout_ms (${spec.timeout_ms} ms)`)), spec.timeout_ms + DEADLINE_GRACE_MS)
      const onAbort = () => reject(new Error('job abandoned: shutting down'))
      signal.addEventListener('abort', onAbort, { once: true })
      stopDeadline = () => { clearTimeout(timer); signal.removeEventListener('abort', onAbort) }
    })
    deadlineHit.catch(() => {})

    // Set once the job has an outcome: resources a still-running `work` creates afterwards are closed at once.
    let finished = false
    const work = async () => {
      egress = await tier.egressFor(spec)
      if (finished) { await egress.close(); throw new Error('job already finished') }
      const filter = requestFilter(spec.artifact_options, tier.adBlocking(spec))
      session = await browser.newSession({
        ...tier.contextOptions(spec),
        ...(egress.proxyServer ? { proxyServer: egress.proxyServer } : {}),
        ...(spec.headers ? { navigationHeaders: spec.headers } : {}),
        ...(filter ? { shouldBlock: (request) => filter(request) && (blockedRequests += 1) > 0 } : {}),
        captureConsole: spec.artifact_options.include_console,
        ...(har ? { onNetwork: har.record } : {}),
        onMainFrameDocument: navigations.record,
      })
      if (finished) { await session.close(); throw new Error('job already finished') }
      return flow({
        session, browser, startedAt: started, deadline, customProxy: egress.proxyServer !== undefined, navigations, isGone, manifest,
        onTargetResponse: (main) => { targetResponse = { status: main.status, headers: main.headers } },
        onNavigated: (ms) => { navigationMs = ms },
      })
    }

    try {
      const working = work()
      working.catch(() => {})
      return await Promise.race([working, deadlineHit])
    } catch (error) {
      if (signal.aborted) throw new Error('job abandoned: shutting down')
      // A page taken to a refused address fails whatever went wrong after (an action, a capture): that is the cause.
      const refused = navigations.refusal()
      if (refused) return failure(refused.reason, refused.message, { manifest: manifest() })
      if (error instanceof JobFailure || error instanceof PageWorkFailed) return failure(error.reason, error.message, { manifest: manifest() })
      // A killed browser surfaces first as a closed target; the driver's disconnect notice may follow shortly.
      const until = Date.now() + (isTargetGone(error) ? CRASH_NOTICE_MS : 200)
      while (!isGone() && Date.now() < until) await sleep(25)
      if (isGone()) {
        const what = session?.crashed() && browser.isConnected() ? 'the page renderer crashed' : 'the browser process died'
        return failure('browser_crashed', `${what} during the job`, { manifest: manifest() })
      }
      return failure('engine_error', `the browser failed unexpectedly: ${describeError(error)}`, { manifest: manifest() })
    } finally {
      finished = true
      stopDeadline()
      await session?.close().catch(() => {})
      await lease.release()
      await egress?.close().catch(() => {})
    }
  }

  /** A job: open the target, capture it and build the artifacts the spec asks for. */
  const run = async (orgId: string, spec: JobSpec, signal: AbortSignal): Promise<EngineOutcome> => {
    const har = spec.artifact_options.include_har ? new HarRecorder() : undefined
    return withSession(spec, signal, har, async (open) => {
      const { session, browser, manifest } = open
      const result = await runPageJob({
        session, spec, deadline: open.deadline, customProxy: open.customProxy, detectBlocks: tier.detectBlocks,
        dismissConsent: tier.dismissConsent(spec), challengeWaitMs: tier.challengeWaitMs, isGone: open.isGone,
        onTargetResponse: open.onTargetResponse,
      })
      open.onNavigated(result.navigationMs)
      const refused = open.navigations.refusal()
      if (refused) throw refused
      let responseBody: { bytes: Uint8Array; contentType?: string } | undefined
      let bodyUnavailable: string | undefined
      if (result.main && needsBody(spec)) {
        const checked = await checkedBodySize(session, result.main)
        if (checked === 'too_large') throw new JobFailure('response_too_large', bodyTooLarge().message)
        if (checked === 'unknown') bodyUnavailable = 'the document was still loading or had been replaced, so its size could not be checked before copying it'
        else {
          try {
            const contentType = result.main.headers['content-type']
            const bytes = await result.main.body()
            if (bytes.byteLength > MAX_BODY_BYTES) throw new JobFailure('response_too_large', bodyTooLarge().message)
            responseBody = { bytes, ...(contentType ? { contentType } : {}) }
          } catch (error) {
            if (error instanceof JobFailure) throw error
            bodyUnavailable = describeError(error)
          }
        }
      }
      const artifacts = await browserArtifacts(orgId, spec, result.capture, responseBody, har ? {
        recorder: har, startedAt: open.startedAt, onLoadMs: result.navigationMs, browser: { name: 'chromium', version: browser.version },
      } : undefined)
      const main = result.main
      const manifestOfJob = manifest({
        final_url: result.capture.url,
        content_type: main?.headers['content-type'] ?? null,
        title: result.capture.title,
        ...result.details,
        ...(bodyUnavailable ? { response_body_unavailable: bodyUnavailable } : {}),
      })
      if (result.blocked) return failure('stealth_blocked', `the target blocked the browser: ${result.blocked.reason}`, { manifest: manifestOfJob, artifacts })
      if (main && main.status >= 500) return failure('upstream_error', `the target answered HTTP ${main.status}`, { manifest: manifestOfJob, artifacts })
      return { ok: true as const, manifest: manifestOfJob, artifacts }
    })
  }

  /** A scripted session (recipe browser steps): the script drives the page; its answer comes back with the manifest. */
  const browse = async <T>(request: EngineRequest, script: (page: ScriptedPage) => Promise<T>): Promise<BrowseOutcome<T>> => {
    let value: { readonly answer: T } | undefined
    const outcome = await withSession(request.spec, request.signal, undefined, async (open) => {
      value = { answer: await script(scriptedPage(open, request.spec)) }
      return { ok: true as const, manifest: open.manifest({ final_url: open.session.url() }), artifacts: [] }
    })
    if (!outcome.ok) return outcome
    return { ok: true, value: value!.answer, manifest: outcome.manifest }
  }

  return {
    tier: tier.tier,
    run: (request) => run(request.org_id, request.spec, request.signal),
    browse,
    browsers: () => ({ open: tier.pool.stats().length, recycled: tier.pool.recycles }),
    close: async () => {
      await tier.pool.close()
      await tier.close?.()
    },
  }
}
