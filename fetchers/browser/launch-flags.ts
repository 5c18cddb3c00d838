/**
 * Command-line switches every browser process of the service starts with.
 * The machine may have no network besides loopback, and every connection a page makes must pass the egress gateway.
 */
export const BASE_CHROMIUM_FLAGS: readonly string[] = [
  '--no-sandbox',
  '--disable-gpu',
  // QUIC is UDP: it could not pass an HTTP proxy, so it is turned off rather than left to fail.
  '--disable-quic',
  '--no-first-run',
  // Without these, Chromium keeps opening connections of its own to its vendor's services (accounts, sync, updates
  // and components, safe browsing, metrics, network reliability reports, hyperlink pings). The gateway listener that
  // serves browsers refuses those hosts too (egress/browser-background.ts). Feature switches (OptimizationHints,
  // AutofillServerCommunication, Translate, MediaRouter) are left to each driver's own --disable-features list, which
  // has them: a second --disable-features would replace that list (the stealth driver's carries AutomationControlled).
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-component-extensions-with-background-pages',
  '--disable-sync',
  '--disable-client-side-phishing-detection',
  '--safebrowsing-disable-auto-update',
  '--disable-domain-reliability',
  '--disable-breakpad',
  '--metrics-recording-only',
  '--no-pings',
  '--no-default-browser-check',
  '--disable-default-apps',
  '--disable-dev-shm-usage',
  // WebRTC may otherwise send UDP straight to the network, around the proxy.
  '--force-webrtc-ip-handling-policy=disable_non_proxied_udp',
  '--webrtc-ip-handling-policy=disable_non_proxied_udp',
]

/**
 * Routes every request (navigations, subresources, websockets) through `proxyUrl`.
 * Chromium bypasses proxies for loopback by default; `<-loopback>` removes that exception, so even
 * 127.0.0.1 and localhost are reached through the gateway and its SSRF policy.
 */
export const proxyFlags = (proxyUrl: string): string[] => [`--proxy-server=${proxyUrl}`, '--proxy-bypass-list=<-loopback>']

/** The bypass list for a per-context proxy (stealth customer proxies): the same loopback rule as the process-wide one. */
export const CONTEXT_PROXY_BYPASS: readonly string[] = ['<-loopback>']

/**
 * An inert switch that tags the process with an id, so its pid can be found in /proc
 * (neither driver exposes the pid of a browser it launched this way).
 */
export const MARKER_SWITCH = '--scrapeworks-browser'
export const markerFlag = (id: string) => `${MARKER_SWITCH}=${id}`
