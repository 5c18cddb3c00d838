import { useState } from 'preact/hooks'
import { ApiError, v1, type Job } from '../api'
import { asApiError, ErrorBox, Field } from '../ui'

/**
 * The common fields of each tier. Nothing is validated here: the API's own checks answer, and their messages (one
 * per failing field) are shown next to the form, so the dashboard never disagrees with the API.
 */
export const Submit = () => {
  const [tier, setTier] = useState('light')
  const [url, setUrl] = useState('')
  const [tags, setTags] = useState('')
  const [timeout, setTimeoutMs] = useState('')
  const [screenshot, setScreenshot] = useState(false)
  const [waitUntil, setWaitUntil] = useState('load')
  const [error, setError] = useState<ApiError | null>(null)
  const [busy, setBusy] = useState(false)
  const browser = tier !== 'light'
  const submit = async (e: Event) => {
    e.preventDefault()
    setBusy(true); setError(null)
    const body: Record<string, unknown> = { job_type: tier, target_url: url.trim() }
    const tagList = tags.split(',').map((t) => t.trim()).filter(Boolean)
    if (tagList.length) body.tags = tagList
    if (timeout.trim()) body.timeout_ms = Number(timeout)
    if (browser) {
      body.wait_until = waitUntil
      if (screenshot) body.artifact_options = { include_screenshot: true }
    }
    try {
      const job = await v1<Job>('POST', '/v1/jobs', body)
      location.hash = `#/jobs/${job.job_id}`
    } catch (err) { setError(asApiError(err)) } finally { setBusy(false) }
  }
  const invalid = (field: string) => error?.details.some((d) => d.field === field) ?? false
  return (
    <section>
      <h1>Submit a job</h1>
      {error && <ErrorBox error={error} />}
      <form onSubmit={submit} class="stack">
        <Field id="job-tier" label="Tier" hint="light: plain HTTP (1 credit); standard: Chromium (5); stealth: hardened browser (30)">
          <select id="job-tier" value={tier} aria-describedby="job-tier-hint" onChange={(e) => setTier(e.currentTarget.value)}>
            <option value="light">light</option><option value="standard">standard</option><option value="stealth">stealth</option>
          </select>
        </Field>
        <Field id="job-url" label="Target URL">
          <input id="job-url" type="text" inputMode="url" placeholder="https://example.com/page" value={url} aria-invalid={invalid('target_url')} onInput={(e) => setUrl(e.currentTarget.value)} />
        </Field>
        <Field id="job-tags" label="Tags" hint="Comma-separated, e.g. env=prod, nightly">
          <input id="job-tags" value={tags} aria-describedby="job-tags-hint" aria-invalid={invalid('tags')} onInput={(e) => setTags(e.currentTarget.value)} />
        </Field>
        <Field id="job-timeout" label="Timeout (ms)" hint="1000 to 300000; 30000 when empty">
          <input id="job-timeout" type="text" inputMode="numeric" value={timeout} aria-describedby="job-timeout-hint" aria-invalid={invalid('timeout_ms')} onInput={(e) => setTimeoutMs(e.currentTarget.value)} />
        </Field>
        {browser && (
          <>
            <Field id="job-wait" label="Wait until">
              <select id="job-wait" value={waitUntil} onChange={(e) => setWaitUntil(e.currentTarget.value)}>
                <option value="load">load</option><option value="domcontentloaded">domcontentloaded</option><option value="networkidle">networkidle</option><option value="commit">commit</option>
              </select>
            </Field>
            <div class="field checkbox">
              <input id="job-screenshot" type="checkbox" checked={screenshot} onChange={(e) => setScreenshot(e.currentTarget.checked)} />
              <label for="job-screenshot">Take a screenshot</label>
            </div>
          </>
        )}
        <button type="submit" disabled={busy}>{busy ? 'Submitting…' : 'Submit job'}</button>
      </form>
    </section>
  )
}
