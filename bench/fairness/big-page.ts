import type { FairnessCase, FairnessSetup } from './case.js'
import { htmlSite, submitHostile } from './site.js'

type Setup = FairnessSetup & { readonly url: string }

/** A 20 MB page of paragraphs with a `p` selector, one job after another until the phase ends. */
export const fairnessCase: FairnessCase<Setup> = {
  name: 'p-selector-20mb-page',
  setup: () => htmlSite(`<html><body>${'<p>lorem ipsum dolor</p>'.repeat(Math.ceil((20 * 1024 * 1024) / 24))}</body></html>`),
  hostile: async ({ base, hostileKey, signal, setup }) => {
    while (!signal.aborted) {
      await submitHostile(base, hostileKey, setup!.url, [{ hook_id: 'p', type: 'css', selector: 'p', all_matches: true }])
      await new Promise((r) => setTimeout(r, 500))
    }
  },
}
