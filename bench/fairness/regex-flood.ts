import type { FairnessCase, FairnessSetup } from './case.js'
import { htmlSite, submitHostile } from './site.js'

type Setup = FairnessSetup & { readonly url: string }
/** Catastrophic for a backtracking engine; linear with RE2 (the ones RE2 refuses get 422 and would cost nothing). */
const PATTERNS = ['(a|a)*$', '(a|aa)+$', '(?:a|a?)+$', '(a|b|ab)*c', '(a?){30}a{30}', '[\\s\\S]*?[\\s\\S]*?[\\s\\S]*?[\\s\\S]*?x']

/** Four jobs of 25 catastrophic patterns each over a long run of `a`s. */
export const fairnessCase: FairnessCase<Setup> = {
  name: 'regex-flood',
  setup: () => htmlSite(`<p>${'a'.repeat(30_000)}</p>`),
  hostile: async ({ base, hostileKey, setup }) => {
    const hooks = Array.from({ length: 25 }, (_, i) => ({ hook_id: `p${i}`, type: 'regex', pattern: PATTERNS[i % PATTERNS.length] }))
    await Promise.all(Array.from({ length: 4 }, () => submitHostile(base, hostileKey, setup!.url, hooks)))
  },
}
