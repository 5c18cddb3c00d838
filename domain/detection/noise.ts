/**
 * Noise normalisation (docs/change-detection.md, "Noise"): what changes on every load of a live page without the page
 * meaning anything new (clocks, dates, "5 minutes ago", view counters, request ids, hashes, cache-busting strings) is
 * replaced by a placeholder in each normalized line before fingerprint and diff read it. Only the matched words are
 * replaced, never the line, so a real change beside the noise (a price next to a clock) still differs. Each step is
 * switchable in the monitor's `detection.noise`; every step is on by default.
 */
import { Schema } from 'effect'

export const NOISE_STEPS = ['dates', 'times', 'relative_times', 'counters', 'tokens'] as const
export type NoiseStep = (typeof NOISE_STEPS)[number]

export const NoiseSteps = Schema.Struct({
  dates: Schema.Boolean,
  times: Schema.Boolean,
  relative_times: Schema.Boolean,
  counters: Schema.Boolean,
  tokens: Schema.Boolean,
})
export type NoiseSteps = typeof NoiseSteps.Type

export const ALL_NOISE: NoiseSteps = { dates: true, times: true, relative_times: true, counters: true, tokens: true }
export const NO_NOISE: NoiseSteps = { dates: false, times: false, relative_times: false, counters: false, tokens: false }

/** The placeholder each step leaves where it removed something, so the diff shows that something was there. */
export const PLACEHOLDERS: Readonly<Record<NoiseStep, string>> = {
  dates: '‹date›', times: '‹time›', relative_times: '‹ago›', counters: '‹n›', tokens: '‹token›',
}

const MONTH = '(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)'
const WEEKDAY = '(?:mon(?:day)?|tue(?:s(?:day)?)?|wed(?:nesday)?|thu(?:r(?:s(?:day)?)?)?|fri(?:day)?|sat(?:urday)?|sun(?:day)?)'
/** A counted number: 1234, 1,234, 1.234, 1 234, 12.5k, 3M. */
const NUMBER = '\\d{1,3}(?:[,.\\u00a0 ]\\d{3})+|\\d+(?:[.,]\\d+)?\\s?[kKmM]?'
const COUNTED = '(?:views?|viewers?|viewing|watching|reads?|visits?|visitors?|online|likes?|shares?|comments?|reactions?|followers?|upvotes?|downloads?|plays?|hits)'
const WHO = '(?:\\s+(?:people|persons|users|visitors|shoppers|customers|others|readers))?(?:\\s+(?:are|is))?(?:\\s+(?:now|currently|right now))?'

/** Text rules per step, applied in this order (tokens first: a hash may hold digits a date rule would take). */
const TEXT_RULES: ReadonlyArray<readonly [NoiseStep, RegExp, (match: string, ...groups: string[]) => string]> = [
  ['tokens', /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi, () => PLACEHOLDERS.tokens],
  ['tokens', /([?&](?:v|ver|version|cb|t|ts|_|cachebust|cache_?buster|hash|rev)=)[^\s&#"']+/gi, (_m, key) => `${key}${PLACEHOLDERS.tokens}`],
  ['tokens', /\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,}\b/g, () => PLACEHOLDERS.tokens],
  ['tokens', /\b(?=\w*\d)(?=\w*[a-z])(?=\w*[A-Z])\w{20,}\b/g, () => PLACEHOLDERS.tokens],
  ['dates', /\b\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:\s?Z|\s?[+-]\d{2}:?\d{2})?)?(?![\w-])/g, () => PLACEHOLDERS.dates],
  ['dates', /\b\d{1,2}\/\d{1,2}\/\d{2,4}\b|\b\d{1,2}[.-]\d{1,2}[.-]\d{4}\b/g, () => PLACEHOLDERS.dates],
  ['dates', new RegExp(`\\b(?:${WEEKDAY}\\.?,?\\s+)?(?:\\d{1,2}(?:st|nd|rd|th)?\\s+${MONTH}\\.?,?(?:\\s+\\d{4})?|${MONTH}\\.?\\s+\\d{1,2}(?:st|nd|rd|th)?(?:,?\\s+\\d{4})?)\\b`, 'gi'), () => PLACEHOLDERS.dates],
  ['dates', /\b(?:mon|tues|wednes|thurs|fri|satur|sun)day\b/gi, () => PLACEHOLDERS.dates],
  ['times', /\b\d{1,2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:\s?[ap]\.?m\.?)?(?:\s?(?:UTC|GMT|Z|CES?T|EST|EDT|PST|PDT|BST)\b)?(?:\s?[+-]\d{2}:?\d{2})?|\b\d{1,2}\s?[ap]\.?m\.?(?![\w])/gi, () => PLACEHOLDERS.times],
  ['relative_times', /\b(?:(?:a|an|one|a few|few|several|\d+)\s*(?:seconds?|secs?|s|minutes?|mins?|m|hours?|hrs?|h|days?|d|weeks?|wks?|w|months?|mos?|years?|yrs?|y)\s+ago|just now|moments? ago)\b/gi, () => PLACEHOLDERS.relative_times],
  ['counters', new RegExp(`(?<![\\w$€£¥.,])(?:${NUMBER})(?=${WHO}\\s+${COUNTED}\\b)`, 'g'), () => PLACEHOLDERS.counters],
  ['counters', new RegExp(`\\b(${COUNTED}|viewed|seen|read|sold|played|downloaded|bought)(\\s*:?\\s*)(?:${NUMBER})(?![\\d.,])(\\s+times)?`, 'gi'), (_m, word, gap, times) => `${word}${gap}${PLACEHOLDERS.counters}${times ?? ''}`],
]

/** Removes the noise of the enabled steps from one line of text. */
export const quietText = (line: string, steps: NoiseSteps): string =>
  TEXT_RULES.reduce((text, [step, pattern, replace]) => (steps[step] ? text.replace(pattern, replace) : text), line)

/**
 * JSON fields whose name says their value is run-varying, by step: counters and timings, server times, and ids of a
 * request (not of the content). Names are compared in snake case (`requestId` reads `request_id`).
 */
const VOLATILE_KEYS: ReadonlyArray<readonly [NoiseStep, RegExp]> = [
  ['counters', /^(?:\w+_)?(?:views?|view_count|viewers?|visits?|visitors?|hits|likes?|like_count|shares?|online|watching|readers|took|took_ms|elapsed(?:_ms)?|duration_ms|latency(?:_ms)?|response_time(?:_ms)?|uptime(?:_s|_ms|_seconds)?|rate_limit_remaining)$/],
  ['times', /^(?:(?:server|current|response|request|system|local|utc)_)?(?:time|timestamp|ts|now)(?:_ms|_utc)?$|^(?:generated|served|rendered|fetched|expires)(?:_at|_on|_ms)?$/],
  ['tokens', /^(?:\w+_)?(?:request|trace|span|correlation|session)_id$|^(?:request_id|etag|nonce|csrf(?:_token)?|token|signature|sig|cache_key|build|build_id|revision)$/],
]

const snakeCase = (key: string) => key.replace(/([a-z\d])([A-Z])/g, '$1_$2').toLowerCase()
/** The last member name of a leaf path (`$.meta.requestId` → `request_id`, `$.items[3].views` → `views`). */
const leafKey = (path: string): string => {
  const last = /(?:\.([\w$]+)|\["((?:[^"\\]|\\.)*)"\])(?:\[\d+\])*$/.exec(path)
  return snakeCase(last?.[1] ?? last?.[2] ?? '')
}

/**
 * Removes the noise of one `path: value` line of canonical JSON (normalize.ts): a field whose name is volatile keeps
 * its path with the step's placeholder as value; any other value is read as text, so a date or a request id inside
 * a string is quietened as in a page. Paths are never changed.
 */
export const quietJsonLine = (line: string, steps: NoiseSteps): string => {
  const cut = line.indexOf(': ')
  if (cut < 0) return quietText(line, steps)
  const path = line.slice(0, cut)
  const value = line.slice(cut + 2)
  const key = leafKey(path)
  const volatile = value !== 'null' && value !== '[]' && value !== '{}' ? VOLATILE_KEYS.find(([step, pattern]) => steps[step] && pattern.test(key)) : undefined
  return `${path}: ${volatile ? PLACEHOLDERS[volatile[0]] : quietText(value, steps)}`
}
