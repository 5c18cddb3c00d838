import { Schema } from 'effect'
import { ALL_NOISE, NoiseSteps } from '../detection/noise.js'

export const DETECTION_MODES = ['text', 'selector', 'extract', 'json'] as const
export type DetectionMode = (typeof DETECTION_MODES)[number]
export const DIGEST_PERIODS = ['daily', 'weekly'] as const
export type DigestPeriod = (typeof DIGEST_PERIODS)[number]

export const DetectionNotify = Schema.Struct({
  /** Emits schedule.change_detected per change (default true). */
  webhook: Schema.Boolean,
  /** Addresses mailed per change, or per period with `digest`. */
  email: Schema.Array(Schema.String),
  digest: Schema.NullOr(Schema.Literal(...DIGEST_PERIODS)),
})

/**
 * A monitor's detection block (SPEC 2.6) as validated by validateDetection (detection-validation.ts), every default
 * applied. The detector (domain/detection) consumes it. Never edit a field: add optional ones.
 */
export const DetectionConfig = Schema.Struct({
  enabled: Schema.Boolean,
  mode: Schema.Literal(...DETECTION_MODES),
  /** CSS or XPath (an expression starting with `/` or `(`); set exactly when mode is `selector`. */
  selector: Schema.NullOr(Schema.String),
  ignore_selectors: Schema.Array(Schema.String),
  min_change_ratio: Schema.Number,
  consecutive: Schema.Number,
  cooldown_seconds: Schema.Number,
  notify: DetectionNotify,
  /** The noise steps quietened before comparing (domain/detection/noise.ts); absent on blocks made before it: all on. */
  noise: Schema.optional(NoiseSteps),
})
export type DetectionConfig = typeof DetectionConfig.Type

/** A block's noise steps, every step on when the block predates them. */
export const noiseOf = (detection: DetectionConfig): NoiseSteps => detection.noise ?? ALL_NOISE
