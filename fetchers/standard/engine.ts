import type { Engine } from '../engine.js'
import { makeBrowserEngine, MANAGED_EGRESS } from '../browser/engine.js'
import { BrowserPool } from '../browser/pool.js'
import type { BrowserSettings } from '../browser/settings.js'
import { launchPlaywrightChromium } from './playwright-driver.js'

/** Browser processes differ only by headless mode on the standard tier; everything else is per context. */
interface StandardProfile { readonly headless: boolean }

/** The standard tier: Debian's Chromium driven by playwright-core, every request through the egress gateway. */
export const makeStandardEngine = (settings: BrowserSettings): Engine => {
  const pool = new BrowserPool<StandardProfile>({
    ...settings,
    keyOf: (p) => (p.headless ? 'headless' : 'headed'),
    launch: (p) => launchPlaywrightChromium({ executablePath: settings.chromiumPath, proxyUrl: settings.proxyUrl, headless: p.headless }),
  })
  return makeBrowserEngine<StandardProfile>({
    tier: 'standard',
    pool,
    allowlist: settings.allowlist,
    profileOf: (spec) => ({ headless: spec.headless }),
    contextOptions: (spec) => ({
      ...(spec.viewport ? { viewport: spec.viewport } : {}),
      ...(spec.locale ? { locale: spec.locale } : {}),
      ...(spec.timezone_id ? { timezoneId: spec.timezone_id } : {}),
      ...(spec.user_agent ? { userAgent: spec.user_agent } : {}),
    }),
    egressFor: async () => MANAGED_EGRESS,
    describe: (browser, profile) => ({ tier: 'standard', browser: 'chromium', driver: 'playwright-core', browser_version: browser.version, headless: profile.headless }),
    adBlocking: () => false,
    dismissConsent: () => false,
    detectBlocks: false,
    challengeWaitMs: 0,
  })
}

export type { StandardProfile }
