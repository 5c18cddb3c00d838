import { useState } from 'preact/hooks'
import { v1, type Job, type Page } from '../api'
import { FirstRun, OrgSummary } from './org-summary'
import { Empty, ErrorBox, Field, Loading, StatusBadge, useLoad, when } from '../ui'

const STATUSES = ['', 'queued', 'running', 'succeeded', 'failed']
const TIERS = ['', 'light', 'standard', 'stealth']

export const Jobs = () => {
  const [status, setStatus] = useState('')
  const [tier, setTier] = useState('')
  const [tag, setTag] = useState('')
  const [page, setPage] = useState(1)
  const query = new URLSearchParams({ page: String(page), per_page: '20', ...(status ? { status } : {}), ...(tier ? { job_type: tier } : {}), ...(tag ? { tag } : {}) })
  const jobs = useLoad(() => v1<Page<Job>>('GET', `/v1/jobs?${query}`), [query.toString()])
  const filter = (set: (v: string) => void) => (e: Event) => { set((e.currentTarget as HTMLInputElement).value); setPage(1) }
  return (
    <section>
      <div class="title-row"><h1>Jobs</h1><a class="button" href="#/submit">Submit a job</a></div>
      <OrgSummary />
      <form class="filters" onSubmit={(e) => e.preventDefault()} aria-label="Filter jobs">
        <Field id="filter-status" label="Status">
          <select id="filter-status" value={status} onChange={filter(setStatus)}>{STATUSES.map((s) => <option value={s}>{s || 'any'}</option>)}</select>
        </Field>
        <Field id="filter-tier" label="Tier">
          <select id="filter-tier" value={tier} onChange={filter(setTier)}>{TIERS.map((s) => <option value={s}>{s || 'any'}</option>)}</select>
        </Field>
        <Field id="filter-tag" label="Tag">
          <input id="filter-tag" value={tag} placeholder="env=prod" onChange={filter(setTag)} />
        </Field>
        <button type="button" onClick={jobs.reload}>Refresh</button>
      </form>
      {jobs.error && <ErrorBox error={jobs.error} retry={jobs.reload} />}
      {jobs.loading && !jobs.data && <Loading what="jobs" />}
      {jobs.data && jobs.data.items.length === 0 && (
        status || tier || tag ? <Empty>No job matches these filters.</Empty> : <FirstRun />
      )}
      {jobs.data && jobs.data.items.length > 0 && (
        <>
          <div class="table-wrap">
            <table>
              <thead><tr><th scope="col">Target</th><th scope="col">Tier</th><th scope="col">Status</th><th scope="col">Tags</th><th scope="col">Created</th></tr></thead>
              <tbody>
                {jobs.data.items.map((job) => (
                  <tr key={job.job_id}>
                    <td class="url"><a href={`#/jobs/${job.job_id}`}>{job.target_url}</a></td>
                    <td>{job.job_type}</td>
                    <td><StatusBadge status={job.status} /></td>
                    <td>{job.tags.map((t) => <span class="tag">{t}</span>)}</td>
                    <td>{when(job.created_at)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <nav class="pager" aria-label="Pages">
            <button type="button" disabled={page <= 1} onClick={() => setPage(page - 1)}>Previous</button>
            <span>Page {jobs.data.page} of {Math.max(1, jobs.data.page_count)} ({jobs.data.total} jobs)</span>
            <button type="button" disabled={page >= jobs.data.page_count} onClick={() => setPage(page + 1)}>Next</button>
          </nav>
        </>
      )}
    </section>
  )
}
