import type { ArtifactOptions } from '../../domain/job/spec.js'
import { isAdOrTracker } from './ad-blocklist.js'
import type { RequestInfo } from './driver.js'

/** Chromium resource types each blocking option covers. */
const BLOCKED_TYPES: readonly [keyof ArtifactOptions, readonly string[]][] = [
  ['block_images', ['image']],
  ['block_styles', ['stylesheet']],
  ['block_media', ['media']],
  ['block_fonts', ['font']],
]

/**
 * The job's request filter: resource types the artifact options block, plus ad and tracker requests when the
 * `ublock` extension is on. Undefined when nothing is blocked, so the browser runs without request interception.
 * The main document is never blocked.
 */
export const requestFilter = (options: ArtifactOptions, adBlocking: boolean): ((request: RequestInfo) => boolean) | undefined => {
  const types = new Set(BLOCKED_TYPES.flatMap(([option, list]) => (options[option] ? list : [])))
  if (types.size === 0 && !adBlocking) return undefined
  return (request) => !request.isMainFrameNavigation && (types.has(request.resourceType) || (adBlocking && isAdOrTracker(request.url)))
}
