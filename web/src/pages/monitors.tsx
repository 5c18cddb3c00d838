import { useState } from 'preact/hooks'
import { ApiError, v1, type Monitor, type Page } from '../api'
import { asApiError, Empty, ErrorBox, Field, Loading, StatusBadge, useLoad, when } from '../ui'

const MODES = ['text', 'selector', 'json', 'extract'] as const

/** The v1 monitors of the organization, and a form for a new one (the API checks every field and the plan's limits). */
export const Monitors = () => {
  const [status, setStatus] = useState('')
  const list = useLoad(() => v1<Page<Monitor>>('GET', `/v1/monitors?per_page=50${status ? `&status=${status}` : ''}`), [status])
  return (
    <section>
      <h1>Monitors</h1>
      <p>A monitor runs a job on a schedule and records when the page changes.</p>
      <CreateMonitor onCreated={(id) => { location.hash = `#/monitors/${id}` }} />
      <h2>Your monitors</h2>
      <div class="filters">
        <Field id="monitor-status" label="Status">
          <select id="monitor-status" value={status} onChange={(e) => setStatus(e.currentTarget.value)}>
            <option value="">any</option><option value="active">active</option><option value="paused">paused</option>
          </select>
        </Field>
      </div>
      {list.error && <ErrorBox error={list.error} retry={list.reload} />}
      {list.loading && !list.data && <Loading what="monitors" />}
      {list.data && list.data.items.length === 0 && <Empty>{status ? 'No monitor has this status.' : 'No monitors yet: create one above.'}</Empty>}
      {list.data && list.data.items.length > 0 && (
        <div class="table-wrap">
          <table>
            <thead><tr><th scope="col">Name</th><th scope="col">Schedule</th><th scope="col">Status</th><th scope="col">Health</th><th scope="col">Next run</th></tr></thead>
            <tbody>
              {list.data.items.map((m) => (
                <tr key={m.id}>
                  <td class="url"><a href={`#/monitors/${m.id}`}>{m.name}</a><br /><small>{m.target_url}</small></td>
                  <td><code>{m.cron}</code><br /><small>{m.timezone}</small></td>
                  <td><StatusBadge status={m.status} />{m.paused_reason && <small> ({m.paused_reason})</small>}</td>
                  <td>{m.detection.enabled ? (m.detection.health.status ?? 'no check yet') : 'detection off'}</td>
                  <td>{when(m.next_run_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  )
}

const CreateMonitor = ({ onCreated }: { onCreated: (id: string) => void }) => {
  const [name, setName] = useState('')
  const [url, setUrl] = useState('')
  const [tier, setTier] = useState('light')
  const [cron, setCron] = useState('0 * * * *')
  const [timezone, setTimezone] = useState(Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC')
  const [detect, setDetect] = useState(true)
  const [mode, setMode] = useState('text')
  const [selector, setSelector] = useState('')
  const [error, setError] = useState<ApiError | null>(null)
  const [busy, setBusy] = useState(false)
  const submit = async (e: Event) => {
    e.preventDefault()
    setBusy(true); setError(null)
    const body: Record<string, unknown> = { name: name.trim(), cron: cron.trim(), timezone: timezone.trim(), job_type: tier, target_url: url.trim() }
    body.detection = detect ? { enabled: true, mode, ...(mode === 'selector' ? { selector } : {}) } : { enabled: false }
    try {
      onCreated((await v1<Monitor>('POST', '/v1/monitors', body)).id)
    } catch (err) { setError(asApiError(err)) } finally { setBusy(false) }
  }
  const invalid = (field: string) => error?.details.some((d) => d.field === field || d.field?.startsWith(`${field}.`)) ?? false
  return (
    <>
      <h2>Create a monitor</h2>
      {error && <ErrorBox error={error} />}
      <form onSubmit={submit} class="stack">
        <Field id="monitor-name" label="Name"><input id="monitor-name" value={name} aria-invalid={invalid('name')} onInput={(e) => setName(e.currentTarget.value)} /></Field>
        <Field id="monitor-url" label="Page URL"><input id="monitor-url" inputMode="url" placeholder="https://example.com/pricing" value={url} aria-invalid={invalid('target_url')} onInput={(e) => setUrl(e.currentTarget.value)} /></Field>
        <Field id="monitor-tier" label="Tier">
          <select id="monitor-tier" value={tier} onChange={(e) => setTier(e.currentTarget.value)}><option>light</option><option>standard</option><option>stealth</option></select>
        </Field>
        <Field id="monitor-cron" label="Schedule (cron)" hint="minute hour day month weekday, e.g. 0 9 * * 1-5 for 9:00 on weekdays">
          <input id="monitor-cron" value={cron} aria-describedby="monitor-cron-hint" aria-invalid={invalid('cron')} onInput={(e) => setCron(e.currentTarget.value)} />
        </Field>
        <Field id="monitor-timezone" label="Time zone" hint="IANA name, e.g. Europe/Berlin">
          <input id="monitor-timezone" value={timezone} aria-describedby="monitor-timezone-hint" aria-invalid={invalid('timezone')} onInput={(e) => setTimezone(e.currentTarget.value)} />
        </Field>
        <div class="field checkbox">
          <input id="monitor-detect" type="checkbox" checked={detect} onChange={(e) => setDetect(e.currentTarget.checked)} />
          <label for="monitor-detect">Detect changes</label>
        </div>
        {detect && (
          <>
            <Field id="monitor-mode" label="Compare">
              <select id="monitor-mode" value={mode} onChange={(e) => setMode(e.currentTarget.value)}>{MODES.map((m) => <option key={m} value={m}>{m}</option>)}</select>
            </Field>
            {mode === 'selector' && (
              <Field id="monitor-selector" label="Selector" hint="CSS, or XPath starting with /">
                <input id="monitor-selector" value={selector} aria-describedby="monitor-selector-hint" aria-invalid={invalid('detection')} onInput={(e) => setSelector(e.currentTarget.value)} />
              </Field>
            )}
          </>
        )}
        <button type="submit" disabled={busy}>{busy ? 'Creating…' : 'Create monitor'}</button>
      </form>
    </>
  )
}
