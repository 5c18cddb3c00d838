import { v1, type Usage } from '../api'
import { useLoad } from '../ui'

interface Org { readonly org_id: string; readonly name: string; readonly plan: string }

/** Which organization the user works in (its id is what the operator's CLI takes), its plan and this month's credits. */
export const OrgSummary = () => {
  const org = useLoad(async () => {
    const [about, usage] = await Promise.all([v1<Org>('GET', '/v1/org'), v1<Usage>('GET', '/v1/usage')])
    return { about, usage }
  }, [])
  if (!org.data) return null
  const { about, usage } = org.data
  return (
    <p class="org-summary" aria-label="Organization">
      <b>{about.name}</b> · organization <code>{about.org_id}</code> · plan <b>{about.plan}</b> · {usage.credits_used.toLocaleString()} of {usage.monthly_credits.toLocaleString()} credits used in {usage.month}
    </p>
  )
}

/** The first job, from a terminal: the two commands with this service's address. */
export const FirstRun = () => {
  const origin = location.origin
  return (
    <div class="empty first-run">
      <p>No jobs yet. <a href="#/submit">Submit your first job</a> here, or from a terminal with a key from <a href="#/keys">API keys</a>:</p>
      <pre class="code">{`KEY=sk_…   # from API keys: shown once when created
curl -s -X POST ${origin}/v1/jobs -H "X-API-Key: $KEY" -H 'content-type: application/json' \\
  -d '{"job_type":"light","target_url":"https://example.com/"}'
curl -s "${origin}/v1/jobs/JOB_ID/result?wait=30" -H "X-API-Key: $KEY"   # JOB_ID from the first answer`}</pre>
      <p>The API's reference: <a href="/docs">/docs</a>.</p>
    </div>
  )
}
