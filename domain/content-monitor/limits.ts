/** SPEC 8: limits of the account API's content monitors. */
export const MAX_ACTIVE_CONTENT_MONITORS = 50
export const MIN_FREQUENCY_MINUTES = 5
export const MAX_FREQUENCY_MINUTES = 1440
export const MAX_NEEDLE_LENGTH = 512
export const MAX_MONITOR_NAME_LENGTH = 200
/** Consecutive failed runs after which a monitor is disabled and its owner e-mailed. */
export const AUTO_DISABLE_AFTER_FAILURES = 5
/** Characters of normalized text a snapshot previews. */
export const PREVIEW_LENGTH = 200
