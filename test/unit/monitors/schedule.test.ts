import t from 'tap'
import { shortestGapSeconds } from '../../../domain/schedule/gaps.js'
import { checkCron, dueFire, isTimeZone, nextFireAfter, scheduledRunId, type Schedule } from '../../../domain/schedule/schedule.js'

const cron = (expression: string, timezone: string): Schedule => ({ kind: 'cron', cron: expression, timezone })

/**
 * The daylight-saving golden table (also in the README): the next three fires after `after`. Spring-forward days
 * fire at the first valid instant after the gap; fall-back days fire once, at the first occurrence.
 */
const GOLDEN: readonly (readonly [zone: string, cron: string, after: string, day: string, fires: readonly string[]])[] = [
  ['Europe/Berlin', '30 2 * * *', '2026-03-28T12:00:00Z', 'spring 02:00→03:00', ['2026-03-29T01:00:00.000Z', '2026-03-30T00:30:00.000Z', '2026-03-31T00:30:00.000Z']],
  ['Europe/Berlin', '30 2 * * *', '2026-10-24T12:00:00Z', 'fall 03:00→02:00', ['2026-10-25T00:30:00.000Z', '2026-10-26T01:30:00.000Z', '2026-10-27T01:30:00.000Z']],
  ['Europe/Berlin', '30 2 * * *', '2027-03-27T12:00:00Z', 'spring', ['2027-03-28T01:00:00.000Z', '2027-03-29T00:30:00.000Z', '2027-03-30T00:30:00.000Z']],
  ['Europe/Berlin', '30 2 * * *', '2027-10-30T12:00:00Z', 'fall', ['2027-10-31T00:30:00.000Z', '2027-11-01T01:30:00.000Z', '2027-11-02T01:30:00.000Z']],
  ['America/New_York', '30 2 * * *', '2026-03-07T17:00:00Z', 'spring 02:00→03:00', ['2026-03-08T07:00:00.000Z', '2026-03-09T06:30:00.000Z', '2026-03-10T06:30:00.000Z']],
  ['America/New_York', '30 1 * * *', '2026-10-31T17:00:00Z', 'fall 02:00→01:00', ['2026-11-01T05:30:00.000Z', '2026-11-02T06:30:00.000Z', '2026-11-03T06:30:00.000Z']],
  ['America/New_York', '30 2 * * *', '2027-03-13T17:00:00Z', 'spring', ['2027-03-14T07:00:00.000Z', '2027-03-15T06:30:00.000Z', '2027-03-16T06:30:00.000Z']],
  ['America/New_York', '30 1 * * *', '2027-11-06T17:00:00Z', 'fall', ['2027-11-07T05:30:00.000Z', '2027-11-08T06:30:00.000Z', '2027-11-09T06:30:00.000Z']],
  ['Australia/Lord_Howe', '15 2 * * *', '2026-10-03T03:00:00Z', 'spring 02:00→02:30', ['2026-10-03T15:30:00.000Z', '2026-10-04T15:15:00.000Z', '2026-10-05T15:15:00.000Z']],
  ['Australia/Lord_Howe', '45 1 * * *', '2026-04-04T03:00:00Z', 'fall 02:00→01:30', ['2026-04-04T14:45:00.000Z', '2026-04-05T15:15:00.000Z', '2026-04-06T15:15:00.000Z']],
  ['Australia/Lord_Howe', '15 2 * * *', '2027-10-02T03:00:00Z', 'spring', ['2027-10-02T15:30:00.000Z', '2027-10-03T15:15:00.000Z', '2027-10-04T15:15:00.000Z']],
  ['Australia/Lord_Howe', '45 1 * * *', '2027-04-03T03:00:00Z', 'fall', ['2027-04-03T14:45:00.000Z', '2027-04-04T15:15:00.000Z', '2027-04-05T15:15:00.000Z']],
  ['America/Santiago', '30 0 * * *', '2026-09-05T12:00:00Z', 'spring 00:00→01:00', ['2026-09-06T04:00:00.000Z', '2026-09-07T03:30:00.000Z', '2026-09-08T03:30:00.000Z']],
  ['America/Santiago', '30 23 * * *', '2026-04-04T12:00:00Z', 'fall 24:00→23:00', ['2026-04-05T02:30:00.000Z', '2026-04-06T03:30:00.000Z', '2026-04-07T03:30:00.000Z']],
  ['America/Santiago', '30 0 * * *', '2027-09-04T12:00:00Z', 'spring', ['2027-09-05T04:00:00.000Z', '2027-09-06T03:30:00.000Z', '2027-09-07T03:30:00.000Z']],
  ['America/Santiago', '30 23 * * *', '2027-04-03T12:00:00Z', 'fall', ['2027-04-04T02:30:00.000Z', '2027-04-05T03:30:00.000Z', '2027-04-06T03:30:00.000Z']],
  ['Asia/Kolkata', '30 2 * * *', '2026-03-28T12:00:00Z', 'no DST', ['2026-03-28T21:00:00.000Z', '2026-03-29T21:00:00.000Z', '2026-03-30T21:00:00.000Z']],
  ['Asia/Kolkata', '30 2 * * *', '2027-10-30T12:00:00Z', 'no DST', ['2027-10-30T21:00:00.000Z', '2027-10-31T21:00:00.000Z', '2027-11-01T21:00:00.000Z']],
]

t.test('daylight saving golden table: gap → first valid instant after it, fall-back → once', async (t) => {
  for (const [zone, expression, after, day, fires] of GOLDEN) {
    const got: string[] = []
    let at = new Date(after)
    for (let i = 0; i < fires.length; i++) {
      at = nextFireAfter(cron(expression, zone), at)!
      got.push(at.toISOString())
    }
    t.same(got, fires, `${zone} ${expression} (${day})`)
  }
})

t.test('interval patterns follow real time through every transition of two years', async (t) => {
  for (const zone of ['Europe/Berlin', 'America/New_York', 'Australia/Lord_Howe', 'America/Santiago', 'Asia/Kolkata']) {
    const gaps = new Set<number>()
    let previous = nextFireAfter(cron('*/30 * * * *', zone), new Date('2026-01-01T00:00:00Z'))!
    const end = Date.parse('2028-01-01T00:00:00Z')
    // Around each day, cheaply: the 72 hours around every first Sunday and every transition listed above.
    const probes = GOLDEN.filter((row) => row[0] === zone).map((row) => Date.parse(row[2]))
    for (const probe of probes.length > 0 ? probes : [Date.parse('2026-06-01T00:00:00Z')]) {
      previous = nextFireAfter(cron('*/30 * * * *', zone), new Date(probe - 86_400_000))!
      while (previous.getTime() < Math.min(end, probe + 2 * 86_400_000)) {
        const next = nextFireAfter(cron('*/30 * * * *', zone), previous)!
        gaps.add((next.getTime() - previous.getTime()) / 60_000)
        previous = next
      }
    }
    t.same([...gaps], [30], `${zone}: every gap of */30 is 30 real minutes`)
  }
})

t.test('a due fire coalesces the instants missed during downtime into one, with their count', async (t) => {
  const hourly = cron('0 * * * *', 'Europe/Berlin')
  t.equal(dueFire(hourly, new Date('2026-05-01T10:00:00Z'), new Date('2026-05-01T10:59:59Z')), null, 'nothing due before the next instant')
  t.same(dueFire(hourly, new Date('2026-05-01T10:00:00Z'), new Date('2026-05-01T11:00:00Z')), { scheduled_for: new Date('2026-05-01T11:00:00Z'), missed: 0 }, 'due exactly at its instant')
  t.same(dueFire(hourly, new Date('2026-05-01T10:00:00Z'), new Date('2026-05-01T15:20:00Z')), { scheduled_for: new Date('2026-05-01T15:00:00Z'), missed: 4 }, 'five instants passed: the latest fires, four are missed')
  const every = { kind: 'every', minutes: 15, anchor: new Date('2026-05-01T00:07:00Z') } as const
  t.same(dueFire(every, new Date('2026-05-01T00:07:00Z'), new Date('2026-05-01T01:10:00Z')), { scheduled_for: new Date('2026-05-01T01:07:00Z'), missed: 3 }, 'every-N-minutes schedules coalesce the same way')
  t.same(nextFireAfter(every, new Date('2026-05-01T00:00:00Z')), new Date('2026-05-01T00:07:00Z'), 'an interval schedule starts at its anchor')
})

t.test('run ids derive from the owner and the instant only', async (t) => {
  const at = new Date('2026-05-01T10:00:00Z')
  t.equal(scheduledRunId('mon_a', at), scheduledRunId('mon_a', new Date(at.getTime())))
  t.not(scheduledRunId('mon_a', at), scheduledRunId('mon_b', at))
  t.not(scheduledRunId('mon_a', at), scheduledRunId('mon_a', new Date(at.getTime() + 60_000)))
})

t.test('cron and time zone checks', async (t) => {
  t.ok(checkCron('*/5 * * * *').ok)
  for (const bad of ['* * * *', '0 0 * * * *', '@daily', '61 * * * *', 'a b c d e', '0 0 30 2 *', '', '0 *\n* * *', '0 * * * *\r\n', '0\t* * * *', '0 * * * *\u001b[2J', '0 * * * \u0085*']) t.notOk(checkCron(bad).ok, `${JSON.stringify(bad)} is refused`)
  t.ok(isTimeZone('Australia/Lord_Howe'))
  t.notOk(isTimeZone('Mars/Olympus'))
})

t.test('the shortest gap is measured in real time over a year', async (t) => {
  const from = new Date('2026-01-01T00:00:00Z')
  t.equal(shortestGapSeconds(cron('0 * * * *', 'Europe/Berlin'), from), 3600)
  t.equal(shortestGapSeconds(cron('0 1,3 * * *', 'America/New_York'), from), 3600, 'spring-forward brings 01:00 and 03:00 one real hour apart')
  t.equal(shortestGapSeconds(cron('0 1,3 * * *', 'Asia/Kolkata'), from), 7200, 'without daylight saving they stay two hours apart')
  t.equal(shortestGapSeconds(cron('59 23 * * *', 'America/New_York'), from), 82_800, 'a 23-hour day')
  t.equal(shortestGapSeconds(cron('0 0,23 1 * *', 'UTC'), from), 82_800, 'the 1st at 00:00 and 23:00: 23 hours (the next month\'s 00:00 is weeks later)')
  t.equal(shortestGapSeconds({ kind: 'every', minutes: 20, anchor: from }, from), 1200)
})
