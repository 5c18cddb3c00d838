import type { Engine } from '../engine.js'
import { makeBrowserEngine } from '../browser/engine.js'
import { chromiumVersion } from '../browser/executable.js'
import { BrowserPool } from '../browser/pool.js'
import type { BrowserSettings } from '../browser/settings.js'
import { customerProxyEgress, type CustomerProxyDeps } from './customer-proxy.js'
import { DEFAULT_OS, fingerprintFor, type OsName } from './fingerprint.js'
import { launchRealBrowser } from './real-browser-driver.js'

export interface StealthSettings extends BrowserSettings, CustomerProxyDeps {
  /** How long a challenge page may take to clear itself before the job fails with stealth_blocked. */
  readonly challengeWaitMs: number
}

/** Jobs share a browser process only with jobs that want the same fingerprint OS and headless mode. */
interface StealthProfile { readonly os: OsName; readonly headless: boolean }

/**
 * The stealth tier: Chromium driven by puppeteer-real-browser, one consistent fingerprint per browser process,
 * built-in ad blocking (`ublock`) and consent handling (`isdcac`), customer proxies chained behind the gateway,
 * and `stealth_blocked` when the target denies or challenges.
 */
export const makeStealthEngine = (settings: StealthSettings): Engine => {
  const pool = new BrowserPool<StealthProfile>({
    ...settings,
    keyOf: (p) => `${p.os}:${p.headless ? 'headless' : 'headed'}`,
    launch: async (p) => launchRealBrowser({
      executablePath: settings.chromiumPath, proxyUrl: settings.proxyUrl, headless: p.headless,
      fingerprint: fingerprintFor(p.os, await chromiumVersion(settings.chromiumPath)),
    }),
  })
  return makeBrowserEngine<StealthProfile>({
    tier: 'stealth',
    pool,
    allowlist: settings.allowlist,
    profileOf: (spec) => ({ os: spec.os_name ?? DEFAULT_OS, headless: spec.headless }),
    // Viewport, locale, timezone and user agent are refused for stealth at validation: the fingerprint owns them.
    contextOptions: () => ({}),
    egressFor: customerProxyEgress(settings),
    describe: (browser, profile) => ({
      tier: 'stealth', browser: 'chromium', driver: 'puppeteer-real-browser', browser_version: browser.version,
      os_name: profile.os, headless: profile.headless,
    }),
    adBlocking: (spec) => spec.browser_extensions.includes('ublock'),
    dismissConsent: (spec) => spec.browser_extensions.includes('isdcac'),
    detectBlocks: true,
    challengeWaitMs: settings.challengeWaitMs,
  })
}
