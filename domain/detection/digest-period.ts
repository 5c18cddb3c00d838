/**
 * Digest periods: a day or a week (from Monday) starting at 00:00 in the monitor's time zone. Where a zone skips
 * midnight (a spring-forward at 00:00), the period starts at the first valid instant after the gap (croner's rule).
 */
import { Cron } from 'croner'

export type DigestCadence = 'daily' | 'weekly'

export interface DigestPeriod {
  /** `daily:YYYY-MM-DD` or `weekly:YYYY-MM-DD` (the Monday), the local date the period starts on. */
  readonly key: string
  /** When the period ends and its digest is due. */
  readonly ends_at: Date
}

const BOUNDARY: Record<DigestCadence, string> = { daily: '0 0 * * *', weekly: '0 0 * * 1' }

const localDate = (instant: Date, timezone: string): string =>
  new Intl.DateTimeFormat('en-CA', { timeZone: timezone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(instant)

/** The period an instant falls in. */
export const digestPeriodOf = (instant: Date, cadence: DigestCadence, timezone: string): DigestPeriod => {
  const cron = new Cron(BOUNDARY[cadence], { timezone, paused: true })
  // The boundary at or before the instant: previousRuns looks strictly before, so ask from one millisecond later.
  const start = cron.previousRuns(1, new Date(instant.getTime() + 1))[0]
  const end = cron.nextRun(instant)
  if (!start || !end) throw new Error(`no ${cadence} boundary around ${instant.toISOString()} in ${timezone}`)
  return { key: `${cadence}:${localDate(start, timezone)}`, ends_at: end }
}
