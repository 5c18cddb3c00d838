import { createHash } from 'node:crypto'
import { Cron } from 'croner'

/**
 * When something fires: a 5-field cron (minute hour day-of-month month day-of-week) in an IANA time zone, or every N
 * minutes from an anchor instant (the account API's content monitors). Daylight saving follows croner: a time that
 * does not exist on a spring-forward day fires at the first valid instant after the gap, a time that exists twice on
 * a fall-back day fires once, and interval patterns (`*\/15 * * * *`) follow real time.
 */
export type Schedule =
  | { readonly kind: 'cron'; readonly cron: string; readonly timezone: string }
  | { readonly kind: 'every'; readonly minutes: number; readonly anchor: Date }

export const isTimeZone = (zone: string): boolean => {
  if (zone.length === 0 || zone.length > 64) return false
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone })
    return true
  } catch {
    return false
  }
}

export type CronCheck = { readonly ok: true } | { readonly ok: false; readonly message: string }

/**
 * Printable ASCII with fields apart by spaces (a line break or other control character in a stored cron would go out
 * in listings, exports and e-mails), exactly five fields, parseable by croner, firing at least once in the next eight
 * years (`0 0 30 2 *` never does).
 */
export const checkCron = (cron: string): CronCheck => {
  if (/[^\x20-\x7e]/.test(cron)) return { ok: false, message: 'cron must be printable ASCII, its fields apart by spaces (no line breaks, tabs or control characters)' }
  const fields = cron.trim().split(/\s+/)
  if (cron.length > 256 || fields.length !== 5 || fields.some((f) => f.startsWith('@'))) {
    return { ok: false, message: 'cron must have exactly five fields: minute hour day-of-month month day-of-week' }
  }
  try {
    const next = new Cron(cron, { paused: true, utcOffset: 0 }).nextRun(new Date(Date.UTC(2000, 0, 1)))
    if (next === null || next.getTime() > Date.UTC(2008, 0, 1)) return { ok: false, message: 'cron never fires' }
    return { ok: true }
  } catch (error) {
    return { ok: false, message: `cron is not valid: ${(error as Error).message.replace(/^CronPattern: /, '')}` }
  }
}

const crons = new Map<string, Cron>()
/** Parsed crons are immutable and reused (a parse is costly next to a lookup). */
export const cronOf = (cron: string, timezone: string): Cron => {
  const key = `${timezone} ${cron}`
  let parsed = crons.get(key)
  if (!parsed) {
    if (crons.size > 10_000) crons.clear()
    parsed = new Cron(cron, { paused: true, timezone })
    crons.set(key, parsed)
  }
  return parsed
}

/** The first fire instant strictly after `after`, or null when the schedule never fires again. */
export const nextFireAfter = (schedule: Schedule, after: Date): Date | null => {
  if (schedule.kind === 'every') {
    const step = schedule.minutes * 60_000
    const anchor = schedule.anchor.getTime()
    const elapsed = after.getTime() - anchor
    return new Date(elapsed < 0 ? anchor : anchor + (Math.floor(elapsed / step) + 1) * step)
  }
  return cronOf(schedule.cron, schedule.timezone).nextRun(after)
}

/** At most this many missed instants are counted one by one; beyond it, `missed` reports this cap. */
export const MAX_COUNTED_MISSES = 10_000

/** A fire that is due: the latest scheduled instant reached, and how many earlier ones it stands for. */
export interface DueFire {
  readonly scheduled_for: Date
  /** Earlier instants not fired (the scheduler was down): coalesced into this one catch-up run. */
  readonly missed: number
}

/**
 * What is due at `now` for a schedule whose instants up to `handledUpTo` are handled: nothing, or one fire for the
 * latest instant in (handledUpTo, now], carrying the count of earlier instants it coalesces.
 */
export const dueFire = (schedule: Schedule, handledUpTo: Date, now: Date): DueFire | null => {
  let next = nextFireAfter(schedule, handledUpTo)
  if (next === null || next > now) return null
  if (schedule.kind === 'every') {
    const step = schedule.minutes * 60_000
    const count = Math.floor((now.getTime() - next.getTime()) / step)
    return { scheduled_for: new Date(next.getTime() + count * step), missed: Math.min(count, MAX_COUNTED_MISSES) }
  }
  let missed = 0
  for (;;) {
    const after = nextFireAfter(schedule, next)
    if (after === null || after > now) return { scheduled_for: next, missed }
    if (missed >= MAX_COUNTED_MISSES) {
      // Counted enough: jump to the latest instant due without counting the rest.
      const latest = cronOf((schedule as { cron: string }).cron, (schedule as { timezone: string }).timezone).previousRuns(1, new Date(now.getTime() + 1))[0]
      return { scheduled_for: latest ?? after, missed }
    }
    missed++
    next = after
  }
}

/** The run of a scheduled instant: the same id in every process and after every restart. */
export const scheduledRunId = (ownerId: string, scheduledFor: Date): string =>
  `run_${createHash('sha256').update(`${ownerId}\u0000${scheduledFor.toISOString()}`).digest('hex').slice(0, 24)}`
