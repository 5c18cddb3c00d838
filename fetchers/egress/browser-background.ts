/**
 * Hosts of the browser vendor's own services that Chromium calls in the background (accounts, sync, updates and
 * components, autofill and optimization hints, safe browsing, metrics and network reliability reports, push). The
 * launch flags turn these calls off; gateway listeners that serve browsers also refuse them (logged with reason
 * `browser_background`), so only a job's own traffic leaves. A job cannot target these hosts on browser tiers.
 */
export const BROWSER_BACKGROUND_HOSTS: readonly string[] = [
  'accounts.google.com',
  'android.clients.google.com',
  'chromereporting-pa.googleapis.com',
  'chromewebstore.googleapis.com',
  'clients1.google.com',
  'clients2.google.com',
  'clients3.google.com',
  'clients4.google.com',
  'clients5.google.com',
  'clients6.google.com',
  'clients2.googleusercontent.com',
  'clientservices.googleapis.com',
  'content-autofill.googleapis.com',
  'mtalk.google.com',
  'optimizationguide-pa.googleapis.com',
  'passwordsleakcheck-pa.googleapis.com',
  'safebrowsing.google.com',
  'safebrowsing.googleapis.com',
  'sb-ssl.google.com',
  'translate.googleapis.com',
  'update.googleapis.com',
  'google-ohttp-relay-safebrowsing.fastly-edge.com',
]

/** Whole domains of the vendor's download and beacon networks (component updates, domain reliability reports). */
export const BROWSER_BACKGROUND_DOMAINS: readonly string[] = ['gvt1.com', 'gvt2.com']

export const BROWSER_BACKGROUND_REASON = 'browser_background'

export const isBrowserBackgroundHost = (hostname: string): boolean => {
  const host = hostname.toLowerCase().replace(/\.$/, '')
  return BROWSER_BACKGROUND_HOSTS.includes(host) || BROWSER_BACKGROUND_DOMAINS.some((domain) => host === domain || host.endsWith(`.${domain}`))
}
