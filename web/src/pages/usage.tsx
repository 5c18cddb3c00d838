import { v1, type Job, type Page, type Usage as UsageView } from '../api'
import { Empty, ErrorBox, Loading, useLoad } from '../ui'

const TIERS = ['light', 'standard', 'stealth'] as const
const PAGES = 10

/**
 * Credits per day and tier this month, summed from what each succeeded job was charged (its `credits_charged`, the
 * ledger's record of it; a failed job is never charged), never priced again here; the month's total comes from
 * GET /v1/usage, the ledger itself.
 */
const dailyCredits = async (month: string) => {
  const days = new Map<string, Record<string, number>>()
  for (let page = 1; page <= PAGES; page++) {
    const answer = await v1<Page<Job>>('GET', `/v1/jobs?status=succeeded&per_page=100&page=${page}`)
    let older = false
    for (const job of answer.items) {
      const day = (job.finished_at ?? job.created_at).slice(0, 10)
      if (!day.startsWith(month)) { older = true; continue }
      const row = days.get(day) ?? { light: 0, standard: 0, stealth: 0 }
      row[job.job_type] = (row[job.job_type] ?? 0) + (job.credits_charged ?? 0)
      days.set(day, row)
    }
    if (older || page >= answer.page_count) break
  }
  return [...days.entries()].sort(([a], [b]) => a.localeCompare(b))
}

export const Usage = () => {
  const usage = useLoad(async () => {
    const total = await v1<UsageView>('GET', '/v1/usage')
    return { total, days: await dailyCredits(total.month) }
  }, [])
  if (usage.error) return <ErrorBox error={usage.error} retry={usage.reload} />
  if (!usage.data) return <Loading what="usage" />
  const { total, days } = usage.data
  const used = Math.min(100, (100 * total.credits_used) / Math.max(1, total.monthly_credits))
  const peak = Math.max(1, ...days.map(([, row]) => TIERS.reduce((sum, t) => sum + (row[t] ?? 0), 0)))
  return (
    <section>
      <h1>Usage</h1>
      <p>{total.month}, plan <b>{total.plan}</b></p>
      <div class="meter" role="meter" aria-valuemin={0} aria-valuemax={total.monthly_credits} aria-valuenow={total.credits_used} aria-label="Credits used this month">
        <div style={{ width: `${used}%` }} />
      </div>
      <p><b>{total.credits_used.toLocaleString()}</b> of {total.monthly_credits.toLocaleString()} credits used, {total.credits_reserved} reserved by running jobs, {total.credits_remaining.toLocaleString()} left; {total.jobs_charged} jobs charged.</p>
      <h2>Credits per day and tier</h2>
      {days.length === 0 ? <Empty>No credits charged this month yet.</Empty> : (
        <>
          <ul class="legend">{TIERS.map((t) => <li key={t}><span class={`swatch tier-${t}`} />{t}</li>)}</ul>
          <div class="chart" role="img" aria-label={`Credits per day: ${days.map(([d, row]) => `${d}: ${TIERS.map((t) => `${t} ${row[t] ?? 0}`).join(', ')}`).join('; ')}`}>
            {days.map(([day, row]) => (
              <div class="bar" key={day} title={`${day}: ${TIERS.map((t) => `${t} ${row[t] ?? 0}`).join(', ')}`}>
                <div class="stack-col">{TIERS.map((t) => <div class={`tier-${t}`} style={{ height: `${(100 * (row[t] ?? 0)) / peak}%` }} />)}</div>
                <span>{day.slice(8)}</span>
              </div>
            ))}
          </div>
        </>
      )}
    </section>
  )
}
