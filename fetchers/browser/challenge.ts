/**
 * Recognizes a target that denied or challenged the stealth browser: the job then fails with `stealth_blocked`
 * instead of delivering a challenge page as if it were content.
 */

/** Found only on challenge interstitials: they count whatever the status (challenges are often served with 200). */
const STRONG_MARKERS: readonly [string, RegExp][] = [
  ['cloudflare_challenge', /cf-chl-|_cf_chl_opt|cf_chl_|cf-browser-verification/i],
  ['datadome_captcha', /geo\.captcha-delivery\.com|dd_captcha/i],
  ['perimeterx_captcha', /px-captcha|_pxCaptcha/i],
  ['imperva_incident', /_Incapsula_Resource|Incapsula incident/i],
]

/** Also found on ordinary pages (a captcha on a contact form): they count only on a page that looks like a block. */
const WEAK_MARKERS: readonly [string, RegExp][] = [
  ['captcha_iframe', /<iframe[^>]+src="[^"]*(recaptcha|hcaptcha\.com|challenges\.cloudflare\.com|arkoselabs|funcaptcha)/i],
  ['captcha_widget', /class="[^"]*\b(g-recaptcha|h-captcha|cf-turnstile)\b/i],
]

/** Wording of deny and challenge pages. */
const DENY_WORDING = /just a moment|attention required|access denied|verify (that )?you are (a )?human|are you a robot|checking your browser|unusual traffic|request (was )?blocked|too many requests|rate limit/i

const BLOCKING_STATUSES = new Set([403, 429, 503])

export interface BlockVerdict { readonly reason: string }

const found = (list: readonly [string, RegExp][], html: string) => list.filter(([, pattern]) => pattern.test(html)).map(([name]) => name)

/** True while the page still shows a challenge that may clear by itself (JavaScript challenges navigate away). */
export const hasChallengeMarkers = (html: string): boolean => found(STRONG_MARKERS, html).length > 0

/**
 * 403 and 429 on the main document are a denial; 503 counts only with a challenge page (it is also plain overload).
 * Strong challenge markers count whatever the status; weak ones (captcha iframes) on a blocking status or deny wording.
 */
export const detectBlock = (status: number | undefined, html: string, headers: Readonly<Record<string, string>>): BlockVerdict | null => {
  const blockingStatus = status !== undefined && BLOCKING_STATUSES.has(status)
  const title = /<title[^>]*>([^<]*)<\/title>/i.exec(html)?.[1] ?? ''
  const looksBlocked = blockingStatus || DENY_WORDING.test(title)
  const markers = [...found(STRONG_MARKERS, html), ...(looksBlocked ? found(WEAK_MARKERS, html) : [])]
  if (headers['cf-mitigated'] === 'challenge') markers.push('cf_mitigated_header')
  const withStatus = status !== undefined ? ` with HTTP ${status}` : ''
  if (markers.length > 0) return { reason: `challenge markers (${markers.join(', ')})${withStatus}` }
  if (!blockingStatus) return null
  if (status !== 503) return { reason: `the target denied access${withStatus}` }
  return DENY_WORDING.test(html) ? { reason: `a challenge page${withStatus}` } : null
}
