import { createHash } from 'node:crypto'
import { NORMALIZATION_VERSION } from './normalize.js'

/**
 * The fingerprint of normalized lines: `n<version>:<sha256>`. Equal fingerprints mean equal lines under the same
 * normalization, so a change (different fingerprints, same version) always has a non-empty diff.
 */
export const fingerprintOf = (lines: readonly string[], version = NORMALIZATION_VERSION): string =>
  `n${version}:${createHash('sha256').update(lines.join('\n')).digest('hex')}`

/** The normalization version a fingerprint was made with. */
export const fingerprintVersion = (fingerprint: string): number => Number(/^n(\d+):/.exec(fingerprint)?.[1] ?? 0)
