import type { FairnessCase, FairnessSetup } from './case.js'
import { htmlSite, submitHostile } from './site.js'

const N = 1500
type Setup = FairnessSetup & { readonly url: string }

/** Issue 31's freezing selector over 1,500 nested divs, one job after another until the phase ends. */
export const fairnessCase: FairnessCase<Setup> = {
  name: 'css-has-nested-divs',
  setup: () => htmlSite(`<html><body>${'<div>'.repeat(N)}x${'</div>'.repeat(N)}</body></html>`),
  hostile: async ({ base, hostileKey, signal, setup }) => {
    while (!signal.aborted) {
      await submitHostile(base, hostileKey, setup!.url, [{ hook_id: 'h', type: 'css', selector: 'div div div div div div:has(div div div div)' }])
      await new Promise((r) => setTimeout(r, 500))
    }
  },
}
