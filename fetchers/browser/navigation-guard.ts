import { checkTargetUrl, type Allowlist } from '../../domain/address-policy.js'
import { EGRESS_DENIED_HEADER } from '../egress/gateway-answers.js'
import type { MainFrameDocument } from './driver.js'
import { isProxyError, JobFailure } from './failures.js'

const shown = (url: string) => url.slice(0, 300)

/**
 * Watches where the page's main frame goes during a job. A page that navigates to a forbidden address (meta
 * refresh, `location.href`, a form) lands on the gateway's refusal, or on Chromium's error page for a refused
 * tunnel: the job fails with `egress_denied` naming that URL, and neither page is ever taken for the target's.
 * The first refusal wins: whatever the page did after it is not the target's content either.
 */
export class NavigationGuard {
  #refusal: JobFailure | undefined

  constructor(private readonly allowlist: Allowlist) {}

  readonly record = (event: MainFrameDocument): void => {
    if (this.#refusal) return
    if (event.kind === 'response') {
      const denied = event.headers[EGRESS_DENIED_HEADER]
      if (denied) this.#refusal = new JobFailure('egress_denied', `the page navigated to ${shown(event.url)}, which the egress gateway refused: ${denied}`)
      return
    }
    if (!isProxyError(event.errorText)) return
    // A refused CONNECT reaches Chromium as a failed tunnel with no reason: the address policy tells which it was.
    const checked = checkTargetUrl(event.url, this.allowlist)
    this.#refusal = checked.ok
      ? new JobFailure('network_error', `the page navigated to ${shown(event.url)}, which could not be reached through the egress gateway`)
      : new JobFailure('egress_denied', `the page navigated to ${shown(event.url)}, which the egress gateway refused: ${checked.message}`)
  }

  /** The refused navigation, once there was one. */
  refusal(): JobFailure | undefined {
    return this.#refusal
  }
}
