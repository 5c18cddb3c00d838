import { Cron } from 'croner'
import { cronOf, type Schedule } from './schedule.js'

const DAY_MS = 86_400_000
const YEAR_DAYS = 366

const offsetFormatters = new Map<string, Intl.DateTimeFormat>()
/** The zone's offset from UTC at `instant`, in milliseconds. */
const offsetAt = (zone: string, instant: number): number => {
  let format = offsetFormatters.get(zone)
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', { timeZone: zone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric' })
    offsetFormatters.set(zone, format)
  }
  const p = Object.fromEntries(format.formatToParts(new Date(instant)).map((part) => [part.type, Number(part.value)]))
  return Date.UTC(p.year!, p.month! - 1, p.day!, p.hour!, p.minute!, p.second!) - Math.floor(instant / 1000) * 1000
}

/** Minutes of the day the cron's minute and hour fields select, ascending (wall-clock, any firing day). */
const minutesOfDay = (minute: string, hour: string): number[] => {
  const daily = new Cron(`${minute} ${hour} * * *`, { paused: true, utcOffset: 0 })
  const start = Date.UTC(2001, 0, 1)
  return daily.nextRuns(1440, new Date(start - 1)).map((d) => (d.getTime() - start) / 60_000).filter((m) => m < 1440)
}

/** Instants in [from, to) where the zone's offset changes, to the second. */
const offsetChanges = (zone: string, from: number, to: number): number[] => {
  const changes: number[] = []
  const step = 6 * 3_600_000
  for (let t = from; t < to; t += step) {
    if (offsetAt(zone, t) === offsetAt(zone, t + step)) continue
    let low = t
    let high = t + step
    while (high - low > 1000) {
      const middle = Math.floor((low + high) / 2)
      if (offsetAt(zone, middle) === offsetAt(zone, low)) low = middle
      else high = middle
    }
    changes.push(high)
  }
  return changes
}

/** A stretch of consecutive fires: its first and last instant and the shortest gap inside it. */
interface Segment { readonly first: number; readonly last: number; readonly shortest: number }

/**
 * The shortest real time between two consecutive fires over the year after `from`, in seconds, exact across
 * daylight-saving changes (a spring-forward day can bring two fires closer than the pattern's wall-clock spacing).
 * Firing days far from an offset change follow the wall-clock pattern; the 36 hours around each change are
 * enumerated with croner itself.
 */
export const shortestGapSeconds = (schedule: Schedule, from: Date): number => {
  if (schedule.kind === 'every') return schedule.minutes * 60
  const [minute, hour, dom, month, dow] = schedule.cron.trim().split(/\s+/) as [string, string, string, string, string]
  const zone = schedule.timezone
  const times = minutesOfDay(minute, hour)
  let intraDay = Infinity
  for (let i = 1; i < times.length; i++) intraDay = Math.min(intraDay, (times[i]! - times[i - 1]!) * 60_000)
  const start = from.getTime()
  const end = start + YEAR_DAYS * DAY_MS
  const windows = offsetChanges(zone, start - 2 * DAY_MS, end + 2 * DAY_MS).map((t) => [t - 36 * 3_600_000, t + 36 * 3_600_000] as const)
  const inWindow = (t: number) => windows.some(([a, b]) => t >= a && t < b)
  const segments: Segment[] = []
  const real = cronOf(schedule.cron, zone)
  for (const [a, b] of windows) {
    const fires: number[] = []
    for (let t = real.nextRun(new Date(a - 1)); t !== null && t.getTime() < b; t = real.nextRun(t)) fires.push(t.getTime())
    if (fires.length === 0) continue
    let shortest = Infinity
    for (let i = 1; i < fires.length; i++) shortest = Math.min(shortest, fires[i]! - fires[i - 1]!)
    segments.push({ first: fires[0]!, last: fires[fires.length - 1]!, shortest })
  }
  const days = new Cron(`0 0 ${dom} ${month} ${dow}`, { paused: true, utcOffset: 0 })
  const firstDay = Math.floor((start + offsetAt(zone, start)) / DAY_MS) * DAY_MS
  for (let day = days.nextRun(new Date(firstDay - 1)); day !== null && day.getTime() < firstDay + YEAR_DAYS * DAY_MS; day = days.nextRun(day)) {
    const offset = offsetAt(zone, day.getTime() + DAY_MS / 2)
    const first = day.getTime() + times[0]! * 60_000 - offset
    const last = day.getTime() + times[times.length - 1]! * 60_000 - offset
    // Fires near an offset change are the windows' (croner's own instants).
    if (inWindow(first) || inWindow(last)) continue
    segments.push({ first, last, shortest: intraDay })
  }
  segments.sort((x, y) => x.first - y.first)
  let shortest = Infinity
  segments.forEach((segment, i) => {
    shortest = Math.min(shortest, segment.shortest)
    if (i > 0) shortest = Math.min(shortest, segment.first - segments[i - 1]!.last)
  })
  return shortest / 1000
}
