import { readdirSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { diffLines } from '../../../domain/detection/diff.js'
import { fingerprintOf } from '../../../domain/detection/fingerprint.js'
import { normalizeHtml, normalizeJson, type Normalized } from '../../../domain/detection/normalize.js'

const FIXTURES = fileURLToPath(new URL('../../fixtures/detection/', import.meta.url))

const pairs = (folder: string) => readdirSync(FIXTURES + folder).filter((f) => f.includes('.before.')).sort()
  .map((before) => ({
    name: before.replace('.before', ''),
    json: before.endsWith('.json'),
    before: readFileSync(`${FIXTURES}${folder}/${before}`, 'utf8'),
    after: readFileSync(`${FIXTURES}${folder}/${before.replace('.before.', '.after.')}`, 'utf8'),
  }))

const lines = (normalized: Normalized): readonly string[] => {
  if (!normalized.ok) throw new Error(`not normalized: ${normalized.reason}`)
  return normalized.lines
}
const normalize = (json: boolean, content: string) => lines(json ? normalizeJson(content) : normalizeHtml(content, { ignoreSelectors: [] }))

t.test('noise corpus: pages that differ only by noise have equal fingerprints (text and json modes)', async (t) => {
  const noise = pairs('noise')
  t.ok(noise.length >= 30, `at least 30 noise pairs (${noise.length})`)
  t.ok(noise.some((p) => p.json) && noise.some((p) => !p.json), 'both modes are covered')
  for (const pair of noise) {
    t.not(pair.before, pair.after, `${pair.name}: the raw pages do differ`)
    const before = normalize(pair.json, pair.before)
    const after = normalize(pair.json, pair.after)
    t.ok(before.length > 0, `${pair.name}: has content`)
    t.equal(fingerprintOf(after), fingerprintOf(before), `${pair.name}: no change`)
  }
})

/**
 * The documented ratio (README "Change detection"): (inserted + deleted tokens) / max(old tokens, new tokens).
 * Token counts of the fixture pages are stated so each figure can be checked by hand.
 */
const EXPECTED: Record<string, { diff: string[]; ratio: number }> = {
  // 29 words before and after; "Price: $129.99" (2) out, "Price: $119.99" (2) in: 4 / 29.
  'price.html': { diff: ['-Price: $129.99', '+Price: $119.99'], ratio: 0.1379 },
  // 33 words before, 36 after; 3 in: 3 / 36.
  'added-list-item.html': { diff: ['+New dark theme'], ratio: 0.0833 },
  // 29 words before, 24 after; 5 out: 5 / 29.
  'removed-paragraph.html': { diff: ['-Ships within two business days.'], ratio: 0.1724 },
  // 18 words before, 21 after; 3 in: 3 / 21.
  'added-headline.html': { diff: ['+Harbour festival announced'], ratio: 0.1429 },
  // 4 fields (8 tokens + 2 for the paths' values... each line "path: value" is 2 tokens): 10 tokens; 2 out, 2 in: 4 / 10.
  'changed-json-field.json': { diff: ['-$.product.price: 129.99', '+$.product.price: 119.99'], ratio: 0.4 },
}

t.test('real changes: exactly one change each, with a non-empty diff and the documented ratio', async (t) => {
  const changes = pairs('changes')
  t.same(changes.map((c) => c.name).sort(), Object.keys(EXPECTED).sort(), 'every change fixture has its expectation')
  for (const pair of changes) {
    const before = normalize(pair.json, pair.before)
    const after = normalize(pair.json, pair.after)
    t.not(fingerprintOf(after), fingerprintOf(before), `${pair.name}: a change`)
    const diff = diffLines(before, after)
    t.ok(diff.lines.length > 0, `${pair.name}: non-empty diff`)
    t.same(diff.lines, EXPECTED[pair.name].diff, `${pair.name}: the diff`)
    t.equal(diff.change_ratio, EXPECTED[pair.name].ratio, `${pair.name}: the ratio`)
  }
})
