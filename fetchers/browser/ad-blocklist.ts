/**
 * The `ublock` extension slug, as a built-in list: no filter-list package is available to the service, so this is a
 * small hand-kept set of common ad and tracker hosts and URL patterns, not uBlock Origin's lists. A host matches
 * when it is a listed domain or a subdomain of one.
 */
export const AD_HOSTS: readonly string[] = [
  // Google ads and analytics
  'doubleclick.net', 'googlesyndication.com', 'googleadservices.com', 'google-analytics.com', 'googletagmanager.com',
  'googletagservices.com', 'adservice.google.com', 'pagead2.googlesyndication.com',
  // Ad exchanges and networks
  'adnxs.com', 'adsrvr.org', 'advertising.com', 'adform.net', 'amazon-adsystem.com', 'criteo.com', 'criteo.net',
  'openx.net', 'pubmatic.com', 'rubiconproject.com', 'casalemedia.com', 'smartadserver.com', 'taboola.com',
  'outbrain.com', 'media.net', 'moatads.com', 'yieldmo.com', 'sharethrough.com', '33across.com', 'teads.tv',
  'bidswitch.net', 'contextweb.com', 'indexww.com', 'lijit.com', 'sovrn.com', 'gumgum.com', 'zedo.com', 'adroll.com',
  'revcontent.com', 'mgid.com', 'propellerads.com', 'popads.net', 'exoclick.com', 'adcolony.com', 'applovin.com',
  // Trackers and session recorders
  'scorecardresearch.com', 'quantserve.com', 'hotjar.com', 'hotjar.io', 'mouseflow.com', 'fullstory.com',
  'crazyegg.com', 'clarity.ms', 'mixpanel.com', 'segment.com', 'segment.io', 'amplitude.com', 'heap.io', 'heapanalytics.com',
  'chartbeat.com', 'chartbeat.net', 'newrelic.com', 'nr-data.net', 'optimizely.com', 'bluekai.com', 'demdex.net',
  'omtrdc.net', 'krxd.net', 'exelator.com', 'rlcdn.com', 'tapad.com', 'adsymptotic.com', 'bounceexchange.com',
  'connect.facebook.net', 'analytics.twitter.com', 'ads-twitter.com', 'static.ads-twitter.com', 'analytics.tiktok.com',
  'snap.licdn.com', 'px.ads.linkedin.com', 'bat.bing.com', 'ads.yahoo.com', 'analytics.yahoo.com', 'yandex.ru/metrika',
  'mc.yandex.ru', 'matomo.cloud', 'statcounter.com', 'addthis.com', 'sharethis.com',
]

/** Path and query patterns of ad and tracking requests on any host. */
export const AD_URL_PATTERNS: readonly RegExp[] = [
  /\/ads?\//i, /\/adserver\//i, /\/advert(s|ising)?\//i, /\/banners?\/ads?/i, /\/pagead\//i, /\/adsbygoogle/i,
  /\/(ga|gtag|gtm|analytics|fbevents|pixel|beacon|tracking|tracker)\.js(\?|$)/i,
  /[/.]prebid[^/]*\.js/i, /\/collect\?(.*&)?(tid|v)=/i, /[?&](utm_source|gclid)=.*[?&]ad_?id=/i,
]

const bareHost = (host: string) => host.toLowerCase().replace(/^\[|\]$/g, '').replace(/\.$/, '')

export const isAdOrTracker = (rawUrl: string): boolean => {
  let url: URL
  try {
    url = new URL(rawUrl)
  } catch {
    return false
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:' && url.protocol !== 'ws:' && url.protocol !== 'wss:') return false
  const host = bareHost(url.hostname)
  const hostAndPath = `${host}${url.pathname}`
  if (AD_HOSTS.some((listed) => listed.includes('/') ? hostAndPath.startsWith(listed) : host === listed || host.endsWith(`.${listed}`))) return true
  const pathAndQuery = `${url.pathname}${url.search}`
  return AD_URL_PATTERNS.some((pattern) => pattern.test(pathAndQuery))
}
