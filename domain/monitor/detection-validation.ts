import { selectorComplexityProblem } from '../content-limits.js'
import { fieldError } from '../errors.js'
import { cssProblem, MAX_EXPRESSION_LENGTH, xpathProblem } from '../extraction.js'
import { isEmail } from '../user/email-address.js'
import { boolean, integerIn, isPlainObject, oneOf, unknownFields, type Errors } from '../validation.js'
import { ALL_NOISE, NO_NOISE, NOISE_STEPS, type NoiseSteps } from '../detection/noise.js'
import { DETECTION_MODES, DIGEST_PERIODS, noiseOf, type DetectionConfig } from './detection-config.js'

export const MAX_IGNORE_SELECTORS = 50
export const MAX_NOTIFY_EMAILS = 20
export const MAX_CONSECUTIVE = 100
export const MAX_COOLDOWN_SECONDS = 30 * 86_400

/** Detection off: what a monitor created without a detection block carries. */
export const DETECTION_OFF: DetectionConfig = {
  enabled: false, mode: 'text', selector: null, ignore_selectors: [], min_change_ratio: 0, consecutive: 1, cooldown_seconds: 0,
  notify: { webhook: true, email: [], digest: null }, noise: ALL_NOISE,
}

const FIELDS = new Set(['enabled', 'mode', 'selector', 'ignore_selectors', 'min_change_ratio', 'consecutive', 'cooldown_seconds', 'notify', 'noise'])
const NOISE_FIELDS: ReadonlySet<string> = new Set(NOISE_STEPS)

/**
 * `detection.noise`: `true` (every step), `false` (none), or an object naming the steps it switches (the others keep
 * their current value). Codes: `invalid_noise` (neither), `unknown_field` (a step that does not exist), `invalid_noise_step`.
 */
const validateNoise = (errors: Errors, input: unknown, base: NoiseSteps): NoiseSteps | undefined => {
  if (input === undefined) return base
  if (typeof input === 'boolean') return input ? ALL_NOISE : NO_NOISE
  if (!isPlainObject(input)) {
    errors.push(fieldError('detection.noise', 'invalid_noise', `detection.noise must be true, false or an object of steps (${NOISE_STEPS.join(', ')}) set to true or false`))
    return undefined
  }
  const before = errors.length
  unknownFields(errors, 'detection.noise.', input, NOISE_FIELDS)
  const steps = Object.fromEntries(NOISE_STEPS.map((step) => [step, boolean(errors, `detection.noise.${step}`, 'invalid_noise_step', input[step]) ?? base[step]])) as unknown as NoiseSteps
  return errors.length > before ? undefined : steps
}
const NOTIFY_FIELDS = new Set(['webhook', 'email', 'digest'])

/** An XPath expression starts with `/` or `(`; anything else is CSS. */
export const isXPath = (selector: string): boolean => /^\s*[/(]/.test(selector)

const selectorProblem = (selector: string): string | undefined =>
  selector.trim() === '' || selector.length > MAX_EXPRESSION_LENGTH
    ? `must be a non-empty CSS or XPath expression of at most ${MAX_EXPRESSION_LENGTH} characters`
    : isXPath(selector) ? xpathProblem(selector) : cssProblem(selector)

/** A valid CSS selector over the complexity caps (content-limits.ts): code `selector_too_complex`. */
const complexity = (selector: unknown): string | undefined =>
  typeof selector !== 'string' || isXPath(selector) || selectorProblem(selector) ? undefined : selectorComplexityProblem(selector)

/**
 * Validates a detection block (SPEC 2.6) on top of `base` (the defaults at creation, the current block on update),
 * so an update sends only what it changes. `{enabled: false}` turns detection off and keeps the rest.
 */
export const validateDetection = (errors: Errors, input: unknown, base: DetectionConfig): DetectionConfig | undefined => {
  const before = errors.length
  if (!isPlainObject(input)) {
    errors.push(fieldError('detection', 'invalid_detection', 'detection must be an object'))
    return undefined
  }
  unknownFields(errors, 'detection.', input, FIELDS)
  // A block sent without `enabled` means the sender wants detection.
  const enabled = boolean(errors, 'detection.enabled', 'invalid_detection_enabled', input.enabled) ?? (input.enabled === undefined ? true : base.enabled)
  const mode = oneOf(errors, 'detection.mode', 'invalid_detection_mode', input.mode, DETECTION_MODES) ?? base.mode
  let selector = input.selector === undefined ? base.selector : null
  if (input.selector !== undefined && input.selector !== null) {
    const problem = typeof input.selector === 'string' ? selectorProblem(input.selector) : 'must be a string'
    const tooComplex = complexity(input.selector)
    if (problem) errors.push(fieldError('detection.selector', 'invalid_selector', `detection.selector ${problem}`))
    else if (tooComplex) errors.push(fieldError('detection.selector', 'selector_too_complex', `detection.selector is too complex: ${tooComplex}`))
    else selector = input.selector as string
  }
  if (mode !== 'selector' && input.selector !== undefined && input.selector !== null) {
    errors.push(fieldError('detection.selector', 'invalid_selector', 'detection.selector is accepted with mode selector only'))
  }
  if (mode === 'selector' && selector === null && errors.length === before) {
    errors.push(fieldError('detection.selector', 'missing_selector', 'detection.selector is required when mode is selector'))
  }
  let ignoreSelectors = base.ignore_selectors
  if (input.ignore_selectors !== undefined) {
    const list = input.ignore_selectors
    if (!Array.isArray(list) || list.length > MAX_IGNORE_SELECTORS) {
      errors.push(fieldError('detection.ignore_selectors', 'invalid_ignore_selectors', `detection.ignore_selectors must be a list of at most ${MAX_IGNORE_SELECTORS} selectors`))
    } else {
      list.forEach((item, i) => {
        const problem = typeof item === 'string' ? selectorProblem(item) : 'must be a string'
        const tooComplex = complexity(item)
        if (problem) errors.push(fieldError(`detection.ignore_selectors.${i}`, 'invalid_ignore_selectors', `detection.ignore_selectors[${i}] ${problem}`))
        else if (tooComplex) errors.push(fieldError(`detection.ignore_selectors.${i}`, 'selector_too_complex', `detection.ignore_selectors[${i}] is too complex: ${tooComplex}`))
      })
      ignoreSelectors = list as string[]
    }
  }
  let minChangeRatio = base.min_change_ratio
  if (input.min_change_ratio !== undefined) {
    const v = input.min_change_ratio
    if (typeof v !== 'number' || !Number.isFinite(v) || v < 0 || v > 1) {
      errors.push(fieldError('detection.min_change_ratio', 'invalid_min_change_ratio', 'detection.min_change_ratio must be a number from 0 to 1'))
    } else minChangeRatio = v
  }
  const consecutive = integerIn(errors, 'detection.consecutive', 'invalid_consecutive', input.consecutive, 1, MAX_CONSECUTIVE) ?? base.consecutive
  const cooldown = integerIn(errors, 'detection.cooldown_seconds', 'invalid_cooldown_seconds', input.cooldown_seconds, 0, MAX_COOLDOWN_SECONDS) ?? base.cooldown_seconds
  let notify = base.notify
  if (input.notify !== undefined) {
    const raw = input.notify
    if (!isPlainObject(raw)) errors.push(fieldError('detection.notify', 'invalid_notify', 'detection.notify must be an object'))
    else {
      unknownFields(errors, 'detection.notify.', raw, NOTIFY_FIELDS)
      const webhook = boolean(errors, 'detection.notify.webhook', 'invalid_notify_webhook', raw.webhook) ?? base.notify.webhook
      let email = base.notify.email
      if (raw.email !== undefined) {
        const list = raw.email
        if (!Array.isArray(list) || list.length > MAX_NOTIFY_EMAILS || list.some((a) => typeof a !== 'string' || !isEmail(a))) {
          errors.push(fieldError('detection.notify.email', 'invalid_notify_email', `detection.notify.email must be a list of at most ${MAX_NOTIFY_EMAILS} e-mail addresses`))
        } else email = [...new Set(list as string[])]
      }
      const digest = raw.digest === null ? null : oneOf(errors, 'detection.notify.digest', 'invalid_notify_digest', raw.digest, DIGEST_PERIODS) ?? base.notify.digest
      notify = { webhook, email, digest }
    }
  }
  const noise = validateNoise(errors, input.noise, noiseOf(base))
  if (errors.length > before || noise === undefined) return undefined
  return { enabled, mode, selector: mode === 'selector' ? selector : null, ignore_selectors: ignoreSelectors, min_change_ratio: minChangeRatio, consecutive, cooldown_seconds: cooldown, notify, noise }
}
