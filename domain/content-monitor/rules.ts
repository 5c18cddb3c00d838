import { fingerprintOf, fingerprintVersion } from '../detection/fingerprint.js'
import { normalizeHtml } from '../detection/normalize.js'
import type { Rule, Snapshot } from './events.js'
import { PREVIEW_LENGTH } from './limits.js'

/** A page as a run saw it: its normalized text (the one detection normalization) and its snapshot. */
export interface Observed {
  readonly snapshot: Snapshot
  readonly text: string
}

/**
 * The snapshot of an answer: `hash` is the detection fingerprint of the normalized visible text (`n<version>:<sha256>`),
 * `preview` its first 200 characters, `contentLength` the body's size in bytes.
 */
export const observe = (page: { readonly body: string; readonly statusCode: number | null; readonly contentLength: number; readonly capturedAt: string }): Observed => {
  const normalized = normalizeHtml(page.body, { ignoreSelectors: [] })
  const lines = normalized.ok ? normalized.lines : []
  const text = lines.join('\n')
  return {
    text,
    snapshot: {
      hash: fingerprintOf(lines), preview: text.replace(/\n/g, ' ').slice(0, PREVIEW_LENGTH),
      statusCode: page.statusCode, contentLength: page.contentLength, capturedAt: page.capturedAt,
    },
  }
}

/** Whether a text rule's needle is in the normalized text (`caseSensitive` false by default); null for other rules. */
export const needleIn = (rule: Rule, text: string): boolean | null => {
  if (rule.type !== 'text_appeared' && rule.type !== 'text_disappeared') return null
  const needle = rule.config.needle ?? ''
  return rule.config.caseSensitive ? text.includes(needle) : text.toLowerCase().includes(needle.toLowerCase())
}

/** What a rule remembers between runs that got an answer: the last content hash, status code and needle state. */
export interface RuleMemory {
  readonly hash: string | null
  readonly statusCode: number | null
  readonly needlePresent: boolean | null
}

export const NO_MEMORY: RuleMemory = { hash: null, statusCode: null, needlePresent: null }

/** The memory after a run that got an answer (a part the run could not see is kept). */
export const remember = (memory: RuleMemory, snapshot: Snapshot, needlePresent: boolean | null): RuleMemory => ({
  hash: snapshot.hash ?? memory.hash, statusCode: snapshot.statusCode ?? memory.statusCode, needlePresent: needlePresent ?? memory.needlePresent,
})

export type RuleVerdict = { readonly triggered: false } | { readonly triggered: true; readonly summary: string }

const quiet: RuleVerdict = { triggered: false }

/**
 * Rules are edge-triggered: they fire on a transition between two runs that got an answer, never again while the
 * state holds, and never on the first observation (it is the baseline). A fingerprint made by an older normalization
 * re-baselines instead of firing.
 */
export const evaluateRule = (rule: Rule, memory: RuleMemory, now: Snapshot, needlePresent: boolean | null): RuleVerdict => {
  const needle = JSON.stringify(rule.config.needle ?? '')
  switch (rule.type) {
    case 'any_change': {
      const before = memory.hash
      if (!before || !now.hash || fingerprintVersion(before) !== fingerprintVersion(now.hash) || before === now.hash) return quiet
      return { triggered: true, summary: 'the page content changed' }
    }
    case 'text_appeared':
      return memory.needlePresent === false && needlePresent === true ? { triggered: true, summary: `${needle} appeared` } : quiet
    case 'text_disappeared':
      return memory.needlePresent === true && needlePresent === false ? { triggered: true, summary: `${needle} disappeared` } : quiet
    case 'status_code_change': {
      const before = memory.statusCode
      if (before === null || now.statusCode === null || before === now.statusCode) return quiet
      return { triggered: true, summary: `status code changed from ${before} to ${now.statusCode}` }
    }
  }
}
