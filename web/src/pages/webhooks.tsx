import { useState } from 'preact/hooks'
import { SUBSCRIBABLE_KINDS } from '../../../domain/webhook/kinds'
import { ApiError, v1 } from '../api'
import { asApiError, Empty, ErrorBox, Field, Loading, StatusBadge, useLoad, when } from '../ui'

interface Endpoint {
  readonly endpoint_id: string; readonly url: string; readonly enabled_events: readonly string[]; readonly description: string | null
  readonly enabled: boolean; readonly disabled_reason: string | null; readonly disabled_message: string | null; readonly created_at: string
}
interface Attempt { readonly attempt: number; readonly attempted_at: string; readonly status_code: number | null; readonly latency_ms: number; readonly error: string | null; readonly outcome: string }
interface Delivery { readonly delivery_id: string; readonly type: string; readonly status: string; readonly next_attempt_at: string | null; readonly created_at: string; readonly attempts: readonly Attempt[] }

export const Webhooks = () => {
  const endpoints = useLoad(() => v1<{ items: Endpoint[] }>('GET', '/v1/webhook-endpoints'), [])
  const [url, setUrl] = useState('')
  const [kinds, setKinds] = useState<string[]>([])
  const [created, setCreated] = useState<{ url: string; secret: string } | null>(null)
  const [error, setError] = useState<ApiError | null>(null)
  const [busy, setBusy] = useState(false)
  const act = async (work: () => Promise<unknown>) => {
    setError(null)
    try { await work(); endpoints.reload() } catch (err) { setError(asApiError(err)) }
  }
  const create = async (e: Event) => {
    e.preventDefault()
    setBusy(true); setCreated(null)
    await act(async () => {
      const endpoint = await v1<Endpoint & { secret: string }>('POST', '/v1/webhook-endpoints', { url: url.trim(), enabled_events: kinds })
      setCreated({ url: endpoint.url, secret: endpoint.secret })
      setUrl(''); setKinds([])
    })
    setBusy(false)
  }
  return (
    <section>
      <h1>Webhooks</h1>
      {error && <ErrorBox error={error} />}
      {created && (
        <div class="secret" role="status">
          <p>The signing secret of <b>{created.url}</b> is shown <b>only this once</b>:</p>
          <p><code class="secret-value">{created.secret}</code><button type="button" onClick={() => setCreated(null)}>I have copied it</button></p>
        </div>
      )}
      <h2>Add an endpoint</h2>
      <form onSubmit={create} class="stack">
        <Field id="hook-url" label="URL"><input id="hook-url" inputMode="url" placeholder="https://example.com/hooks" value={url} onInput={(e) => setUrl(e.currentTarget.value)} /></Field>
        <fieldset>
          <legend>Events</legend>
          {SUBSCRIBABLE_KINDS.map((kind) => (
            <div class="field checkbox" key={kind}>
              <input id={`kind-${kind}`} type="checkbox" checked={kinds.includes(kind)} onChange={() => setKinds(kinds.includes(kind) ? kinds.filter((k) => k !== kind) : [...kinds, kind])} />
              <label for={`kind-${kind}`}>{kind}</label>
            </div>
          ))}
        </fieldset>
        <button type="submit" disabled={busy}>{busy ? 'Adding…' : 'Add endpoint'}</button>
      </form>
      <h2>Endpoints</h2>
      {endpoints.error && <ErrorBox error={endpoints.error} retry={endpoints.reload} />}
      {endpoints.loading && !endpoints.data && <Loading what="endpoints" />}
      {endpoints.data && endpoints.data.items.length === 0 && <Empty>No webhook endpoints yet.</Empty>}
      {endpoints.data?.items.map((endpoint) => (
        <article class="card" key={endpoint.endpoint_id}>
          <h3 class="url">{endpoint.url}</h3>
          <p>{endpoint.enabled ? <StatusBadge status="enabled" /> : <StatusBadge status={`disabled${endpoint.disabled_reason ? ` (${endpoint.disabled_reason})` : ''}`} />} {endpoint.enabled_events.join(', ')}</p>
          {endpoint.disabled_message && <p class="error">{endpoint.disabled_message}</p>}
          <p class="actions">
            <button type="button" onClick={() => void act(() => v1('PATCH', `/v1/webhook-endpoints/${endpoint.endpoint_id}`, { enabled: !endpoint.enabled }))}>{endpoint.enabled ? 'Disable' : 'Enable'}</button>
            <button type="button" onClick={() => void act(() => v1('POST', `/v1/webhook-endpoints/${endpoint.endpoint_id}/test`))}>Send a test event</button>
            <button type="button" onClick={() => { if (confirm(`Delete the endpoint ${endpoint.url}?`)) void act(() => v1('DELETE', `/v1/webhook-endpoints/${endpoint.endpoint_id}`)) }}>Delete</button>
          </p>
          <Deliveries endpointId={endpoint.endpoint_id} />
        </article>
      ))}
    </section>
  )
}

const Deliveries = ({ endpointId }: { endpointId: string }) => {
  const [open, setOpen] = useState(false)
  return (
    <details onToggle={(e) => setOpen((e.currentTarget as HTMLDetailsElement).open)}>
      <summary>Delivery log</summary>
      {open && <DeliveryLog endpointId={endpointId} />}
    </details>
  )
}

const DeliveryLog = ({ endpointId }: { endpointId: string }) => {
  const log = useLoad(() => v1<{ items: Delivery[] }>('GET', `/v1/webhook-endpoints/${endpointId}/deliveries`), [endpointId])
  if (log.error) return <ErrorBox error={log.error} retry={log.reload} />
  if (!log.data) return <Loading what="deliveries" />
  if (log.data.items.length === 0) return <Empty>No deliveries yet.</Empty>
  return (
    <div class="table-wrap">
      <table>
        <thead><tr><th scope="col">Event</th><th scope="col">Status</th><th scope="col">Attempts</th><th scope="col">Created</th></tr></thead>
        <tbody>
          {log.data.items.map((d) => (
            <tr key={d.delivery_id}>
              <td>{d.type}</td>
              <td><StatusBadge status={d.status} />{d.next_attempt_at && <small> next {when(d.next_attempt_at)}</small>}</td>
              <td>{d.attempts.map((a) => <div key={a.attempt}>#{a.attempt} {a.outcome} {a.status_code ?? a.error ?? ''} ({a.latency_ms} ms)</div>)}</td>
              <td>{when(d.created_at)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}
