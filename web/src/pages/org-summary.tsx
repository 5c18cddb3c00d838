import { useState } from 'preact/hooks'
import { call, v1, type ApiError, type Usage } from '../api'
import { asApiError, ErrorBox, useLoad } from '../ui'

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

/**
 * The first job, from a terminal: the two commands with this service's address and, once the user asks for one, a key
 * of their own in them (made like the API keys page's, through the session; its secret shown this once).
 */
export const FirstRun = () => {
  const origin = location.origin
  const [key, setKey] = useState<string | null>(null)
  const [error, setError] = useState<ApiError | null>(null)
  const [busy, setBusy] = useState(false)
  const createKey = async () => {
    setBusy(true); setError(null)
    try {
      const created = await call<{ api_key: string }>('POST', '/api-keys', { body: { name: 'first run', scopes: ['jobs.create', 'jobs.read'] } })
      setKey(created.api_key)
    } catch (err) { setError(asApiError(err)) } finally { setBusy(false) }
  }
  return (
    <div class="empty first-run">
      <p>No jobs yet. <a href="#/submit">Submit your first job</a> here, or from a terminal with a key from <a href="#/keys">API keys</a>:</p>
      {error && <ErrorBox error={error} />}
      {key
        ? <p role="status">A key named <b>first run</b> (jobs.create, jobs.read) is in the commands below, shown <b>only this once</b>.</p>
        : <p><button type="button" disabled={busy} onClick={() => void createKey()}>{busy ? 'Creating…' : 'Create a key for these commands'}</button></p>}
      <pre class="code">{`KEY=${key ?? 'sk_…   # from API keys: shown once when created'}
curl -s -X POST ${origin}/v1/jobs -H "X-API-Key: $KEY" -H 'content-type: application/json' \\
  -d '{"job_type":"light","target_url":"https://example.com/"}'
curl -s "${origin}/v1/jobs/JOB_ID/result?wait=30" -H "X-API-Key: $KEY"   # JOB_ID from the first answer`}</pre>
      <p>The API's reference: <a href="/docs">/docs</a>.</p>
    </div>
  )
}
