import { useEffect, useState } from 'preact/hooks'
import { ApiError, call, type AccountPage } from '../api'
import { asApiError, Empty, ErrorBox, Field, Loading, StatusBadge, useLoad, when } from '../ui'

interface Rule { readonly type: string; readonly config: { readonly needle?: string; readonly caseSensitive?: boolean } }
interface ContentMonitor {
  readonly id: string; readonly name: string; readonly url: string; readonly backend: string; readonly status: string; readonly frequencyMinutes: number
  readonly rule: Rule; readonly nextRunAt: string | null; readonly lastRunAt: string | null; readonly lastChangeAt: string | null
  readonly lastChangeSummary: string | null; readonly consecutiveFailures: number; readonly lastErrorCode?: string | null
}
interface ContentRun {
  readonly id: string; readonly status: string; readonly changeDetected: boolean; readonly changeSummary: string | null; readonly statusCode: number | null
  readonly errorCode: string | null; readonly scheduledAt: string; readonly completedAt: string | null
}

const RULES = ['any_change', 'text_appeared', 'text_disappeared', 'status_code_change'] as const
const describe = (rule: Rule) => rule.config.needle ? `${rule.type} “${rule.config.needle}”` : rule.type

/** The account API's content monitors (session cookie): a page checked every N minutes against one rule. */
export const ContentMonitors = () => {
  const list = useLoad(() => call<AccountPage<ContentMonitor>>('GET', '/content-monitors?perPage=50'), [])
  const [open, setOpen] = useState<string | null>(null)
  const [error, setError] = useState<ApiError | null>(null)
  const act = async (work: () => Promise<unknown>) => {
    setError(null)
    try { await work(); list.reload() } catch (err) { setError(asApiError(err)) }
  }
  return (
    <section>
      <h1>Content monitors</h1>
      <p>A content monitor checks one page every few minutes and fires when its rule matches a change.</p>
      <CreateContentMonitor onCreated={list.reload} />
      <h2>Your content monitors</h2>
      {error && <ErrorBox error={error} />}
      {list.error && <ErrorBox error={list.error} retry={list.reload} />}
      {list.loading && !list.data && <Loading what="content monitors" />}
      {list.data && list.data.items.length === 0 && <Empty>No content monitors yet.</Empty>}
      {list.data?.items.map((m) => (
        <article class="card" key={m.id}>
          <h3 class="url">{m.name}</h3>
          <p><StatusBadge status={m.status} /> every {m.frequencyMinutes} min with {m.backend}, rule {describe(m.rule)}</p>
          <p><small>Last run {when(m.lastRunAt)}, next {when(m.nextRunAt)}, last change {when(m.lastChangeAt)}{m.consecutiveFailures > 0 && `, ${m.consecutiveFailures} failures in a row`}</small></p>
          {m.lastChangeSummary && <p class="summary">{m.lastChangeSummary}</p>}
          <p class="actions">
            <button type="button" onClick={() => void act(() => call('POST', `/content-monitors/${m.id}/runs`, { body: { force: true } }))}>Run now</button>
            {m.status === 'active'
              ? <button type="button" onClick={() => void act(() => call('PATCH', `/content-monitors/${m.id}`, { body: { status: 'paused' } }))}>Pause</button>
              : <button type="button" onClick={() => void act(() => call('PATCH', `/content-monitors/${m.id}`, { body: { status: 'active' } }))}>Activate</button>}
            <button type="button" aria-expanded={open === m.id} onClick={() => setOpen(open === m.id ? null : m.id)}>{open === m.id ? 'Hide runs' : 'Runs'}</button>
          </p>
          {open === m.id && <ContentRuns monitorId={m.id} />}
        </article>
      ))}
    </section>
  )
}

const ContentRuns = ({ monitorId }: { monitorId: string }) => {
  const runs = useLoad(() => call<{ runs: ContentRun[] }>('GET', `/content-monitors/${monitorId}/runs?limit=20`), [monitorId])
  const going = runs.data?.runs.some((r) => r.status === 'pending' || r.status === 'running') ?? false
  useEffect(() => {
    if (!going) return
    const timer = setTimeout(runs.reload, 1000)
    return () => clearTimeout(timer)
  }, [runs.data])
  if (runs.error) return <ErrorBox error={runs.error} retry={runs.reload} />
  if (!runs.data) return <Loading what="runs" />
  if (runs.data.runs.length === 0) return <Empty>No runs yet.</Empty>
  return (
    <div class="table-wrap">
      <table>
        <thead><tr><th scope="col">Scheduled</th><th scope="col">Status</th><th scope="col">HTTP</th><th scope="col">Change</th></tr></thead>
        <tbody>
          {runs.data.runs.map((r) => (
            <tr key={r.id}>
              <td>{when(r.scheduledAt)}</td>
              <td><StatusBadge status={r.status} />{r.errorCode && <small> {r.errorCode}</small>}</td>
              <td>{r.statusCode ?? '—'}</td>
              <td>{r.changeDetected ? (r.changeSummary ?? 'changed') : '—'}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}

const CreateContentMonitor = ({ onCreated }: { onCreated: () => void }) => {
  const [url, setUrl] = useState('')
  const [name, setName] = useState('')
  const [backend, setBackend] = useState('httpx')
  const [minutes, setMinutes] = useState('60')
  const [rule, setRule] = useState('any_change')
  const [needle, setNeedle] = useState('')
  const [error, setError] = useState<ApiError | null>(null)
  const [busy, setBusy] = useState(false)
  const needsNeedle = rule === 'text_appeared' || rule === 'text_disappeared'
  const submit = async (e: Event) => {
    e.preventDefault()
    setBusy(true); setError(null)
    const body = {
      url: url.trim(), backend, frequencyMinutes: Number(minutes), ...(name.trim() ? { name: name.trim() } : {}),
      rule: { type: rule, config: needsNeedle ? { needle } : {} },
    }
    try {
      await call('POST', '/content-monitors', { body })
      setUrl(''); setName(''); setNeedle('')
      onCreated()
    } catch (err) { setError(asApiError(err)) } finally { setBusy(false) }
  }
  return (
    <>
      <h2>Add a content monitor</h2>
      {error && <ErrorBox error={error} />}
      <form onSubmit={submit} class="stack">
        <Field id="cm-url" label="Page URL"><input id="cm-url" inputMode="url" value={url} onInput={(e) => setUrl(e.currentTarget.value)} /></Field>
        <Field id="cm-name" label="Name" hint="Optional; the URL when empty"><input id="cm-name" value={name} aria-describedby="cm-name-hint" onInput={(e) => setName(e.currentTarget.value)} /></Field>
        <Field id="cm-backend" label="Backend">
          <select id="cm-backend" value={backend} onChange={(e) => setBackend(e.currentTarget.value)}><option value="httpx">httpx (light)</option><option value="playwright">playwright (standard)</option><option value="scrapling">scrapling (stealth)</option></select>
        </Field>
        <Field id="cm-minutes" label="Every (minutes)" hint="5 to 1440"><input id="cm-minutes" inputMode="numeric" value={minutes} aria-describedby="cm-minutes-hint" onInput={(e) => setMinutes(e.currentTarget.value)} /></Field>
        <Field id="cm-rule" label="Rule">
          <select id="cm-rule" value={rule} onChange={(e) => setRule(e.currentTarget.value)}>{RULES.map((r) => <option key={r} value={r}>{r}</option>)}</select>
        </Field>
        {needsNeedle && <Field id="cm-needle" label="Text"><input id="cm-needle" value={needle} onInput={(e) => setNeedle(e.currentTarget.value)} /></Field>}
        <button type="submit" disabled={busy}>{busy ? 'Adding…' : 'Add content monitor'}</button>
      </form>
    </>
  )
}
