import { useEffect, useState } from 'preact/hooks'
import { ApiError, v1 } from '../api'
import { asApiError, Empty, ErrorBox, Field, Loading, StatusBadge, useLoad, when } from '../ui'

interface Policy {
  readonly retention_days: number; readonly legal_hold_enabled: boolean; readonly max_retention_days: number
  readonly retention_adjustable: boolean; readonly policy_version: number; readonly updated_at: string | null
}
interface Hold {
  readonly hold_id: string; readonly scope_type: string; readonly scope_ref: string; readonly status: string; readonly justification: string
  readonly placed_at: string; readonly placed_by: string; readonly released_at: string | null; readonly release_justification: string | null
}

/** The organization's retention policy (how long jobs are kept) and its legal holds (what is kept regardless). */
export const Retention = () => {
  const policy = useLoad(() => v1<Policy>('GET', '/v1/org/retention-policy'), [])
  const holds = useLoad(() => v1<{ items: Hold[]; total: number }>('GET', '/v1/org/retention-holds?per_page=100'), [])
  const [days, setDays] = useState('')
  const [holdsOn, setHoldsOn] = useState(false)
  const [error, setError] = useState<ApiError | null>(null)
  const [notice, setNotice] = useState<string | null>(null)
  useEffect(() => {
    if (!policy.data) return
    setDays(String(policy.data.retention_days)); setHoldsOn(policy.data.legal_hold_enabled)
  }, [policy.data])
  const act = async (done: string, work: () => Promise<unknown>) => {
    setError(null); setNotice(null)
    try { await work(); setNotice(done); policy.reload(); holds.reload() } catch (err) { setError(asApiError(err)) }
  }
  const save = (e: Event) => {
    e.preventDefault()
    void act('Policy saved.', () => v1('PUT', '/v1/org/retention-policy', { retention_days: Number(days), legal_hold_enabled: holdsOn }))
  }
  return (
    <section>
      <h1>Retention</h1>
      {error && <ErrorBox error={error} />}
      {notice && <p role="status">{notice}</p>}
      <h2>Policy</h2>
      {policy.error && <ErrorBox error={policy.error} retry={policy.reload} />}
      {policy.loading && !policy.data && <Loading what="the retention policy" />}
      {policy.data && (
        <>
          <p>Jobs and their artifacts are purged <b>{policy.data.retention_days} days</b> after they were requested (your plan allows up to {policy.data.max_retention_days}{policy.data.retention_adjustable ? '' : ', and does not let it change'}). Version {policy.data.policy_version}{policy.data.updated_at && `, changed ${when(policy.data.updated_at)}`}.</p>
          <form onSubmit={save} class="stack">
            <Field id="retention-days" label="Keep jobs for (days)">
              <input id="retention-days" inputMode="numeric" value={days} onInput={(e) => setDays(e.currentTarget.value)} />
            </Field>
            <div class="field checkbox">
              <input id="retention-holds" type="checkbox" checked={holdsOn} onChange={(e) => setHoldsOn(e.currentTarget.checked)} />
              <label for="retention-holds">Allow legal holds</label>
            </div>
            <button type="submit">Save policy</button>
          </form>
        </>
      )}
      <h2>Legal holds</h2>
      <PlaceHold onPlace={(body) => void act('Hold placed.', () => v1('POST', '/v1/org/retention-holds', body))} />
      {holds.error && <ErrorBox error={holds.error} retry={holds.reload} />}
      {holds.loading && !holds.data && <Loading what="legal holds" />}
      {holds.data && holds.data.items.length === 0 && <Empty>No legal holds.</Empty>}
      {holds.data && holds.data.items.length > 0 && (
        <div class="table-wrap">
          <table>
            <thead><tr><th scope="col">Scope</th><th scope="col">Justification</th><th scope="col">Status</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
            <tbody>
              {holds.data.items.map((h) => (
                <tr key={h.hold_id}>
                  <td class="url">{h.scope_type}<br /><small><code>{h.scope_ref}</code></small></td>
                  <td>{h.justification}{h.release_justification && <><br /><small>released: {h.release_justification}</small></>}</td>
                  <td><StatusBadge status={h.status} /><br /><small>{when(h.placed_at)}{h.released_at && ` – ${when(h.released_at)}`}</small></td>
                  <td>{h.status === 'active' && <button type="button" onClick={() => {
                    const why = prompt('Why is this hold released?')
                    if (why !== null) void act('Hold released.', () => v1('POST', `/v1/org/retention-holds/${h.hold_id}/release`, { justification: why }))
                  }}>Release</button>}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  )
}

const PlaceHold = ({ onPlace }: { onPlace: (body: Record<string, string>) => void }) => {
  const [scope, setScope] = useState('job')
  const [ref, setRef] = useState('')
  const [why, setWhy] = useState('')
  return (
    <form class="stack" onSubmit={(e) => { e.preventDefault(); onPlace({ scope_type: scope, ...(scope === 'org' ? {} : { scope_ref: ref.trim() }), justification: why }) }}>
      <Field id="hold-scope" label="Hold">
        <select id="hold-scope" value={scope} onChange={(e) => setScope(e.currentTarget.value)}>
          <option value="job">one job</option><option value="artifact">one artifact</option><option value="org">the whole organization</option>
        </select>
      </Field>
      {scope !== 'org' && <Field id="hold-ref" label={scope === 'job' ? 'Job id' : 'Artifact id'}><input id="hold-ref" value={ref} onInput={(e) => setRef(e.currentTarget.value)} /></Field>}
      <Field id="hold-why" label="Justification"><input id="hold-why" value={why} onInput={(e) => setWhy(e.currentTarget.value)} /></Field>
      <button type="submit">Place hold</button>
    </form>
  )
}
