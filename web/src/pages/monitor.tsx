import { useEffect, useState } from 'preact/hooks'
import { ApiError, v1, type Monitor, type Page } from '../api'
import { DiffView } from '../diff'
import { asApiError, Empty, ErrorBox, Loading, StatusBadge, useLoad, when } from '../ui'

interface MonitorRun {
  readonly run_id: string; readonly trigger: string; readonly scheduled_for: string; readonly fired_at: string; readonly missed: number
  readonly status: string; readonly job_id: string | null; readonly detail: string | null; readonly finished_at: string | null
}
interface Change {
  readonly change_id: string; readonly run_id: string; readonly job_id: string; readonly change_ratio: number | null
  readonly has_diff: boolean; readonly summary?: string; readonly notified_channels: readonly string[]; readonly detected_at: string
}

/** Runs that have not ended yet: the page looks again while any is going. */
const UNFINISHED = new Set(['queued', 'pending', 'minted'])

export const MonitorDetail = ({ monitorId }: { monitorId: string }) => {
  const monitor = useLoad(() => v1<Monitor>('GET', `/v1/monitors/${monitorId}`), [monitorId])
  const runs = useLoad(() => v1<Page<MonitorRun>>('GET', `/v1/monitors/${monitorId}/runs?per_page=20`), [monitorId])
  const changes = useLoad(() => v1<Page<Change>>('GET', `/v1/monitors/${monitorId}/changes?per_page=20`), [monitorId])
  const [error, setError] = useState<ApiError | null>(null)
  const [notice, setNotice] = useState<string | null>(null)
  const going = runs.data?.items.some((r) => UNFINISHED.has(r.status)) ?? false
  const [settling, setSettling] = useState(0)
  // While a run is going, and a few seconds after the last one ended (the detector records a change after the run).
  useEffect(() => {
    if (!going && settling <= 0) return
    const timer = setTimeout(() => { runs.reload(); changes.reload(); monitor.reload(); setSettling(going ? 3 : settling - 1) }, 1000)
    return () => clearTimeout(timer)
  }, [runs.data, changes.data, going, settling])

  const act = async (label: string, work: () => Promise<unknown>) => {
    setError(null); setNotice(null)
    try {
      const answer = await work()
      const outcome = (answer as { outcome?: string } | null)?.outcome
      setNotice(outcome ? `${label}: ${outcome}` : label)
      monitor.reload(); runs.reload()
      setSettling(3)
    } catch (err) { setError(asApiError(err)) }
  }
  if (monitor.error) return <ErrorBox error={monitor.error} retry={monitor.reload} />
  if (!monitor.data) return <Loading what="the monitor" />
  const m = monitor.data
  return (
    <section>
      <p><a href="#/monitors">← Monitors</a></p>
      <h1>{m.name}</h1>
      <dl class="facts">
        <dt>Page</dt><dd>{m.target_url}</dd>
        <dt>Status</dt><dd><StatusBadge status={m.status} />{m.paused_reason && ` (${m.paused_reason}${m.paused_detail ? `: ${m.paused_detail}` : ''})`}</dd>
        <dt>Schedule</dt><dd><code>{m.cron}</code> in {m.timezone}; next {when(m.next_run_at)}</dd>
        <dt>Tier</dt><dd>{m.job_type}</dd>
        <dt>Detection</dt><dd>{m.detection.enabled ? `${m.detection.mode}${m.detection.selector ? ` ${m.detection.selector}` : ''}, health ${m.detection.health.status ?? 'not checked yet'}` : 'off'}</dd>
        <dt>Runs</dt><dd>{m.runs_fired} fired, {m.skipped_fires} skipped, {m.missed_fires} missed; failure streak {m.failure_streak}</dd>
      </dl>
      {error && <ErrorBox error={error} />}
      {notice && <p role="status">{notice}</p>}
      <p class="actions">
        <button type="button" onClick={() => void act('Run requested', () => v1('POST', `/v1/monitors/${m.id}/runs`))}>Run now</button>
        {m.status === 'active'
          ? <button type="button" onClick={() => void act('Paused', () => v1('POST', `/v1/monitors/${m.id}/pause`))}>Pause</button>
          : <button type="button" onClick={() => void act('Resumed', () => v1('POST', `/v1/monitors/${m.id}/resume`))}>Resume</button>}
        <button type="button" onClick={() => {
          if (confirm(`Delete the monitor ${m.name}?`)) void act('Deleted', async () => { await v1('DELETE', `/v1/monitors/${m.id}`); location.hash = '#/monitors' })
        }}>Delete</button>
      </p>

      <h2>Changes</h2>
      {changes.error && <ErrorBox error={changes.error} retry={changes.reload} />}
      {changes.loading && !changes.data && <Loading what="changes" />}
      {changes.data && changes.data.items.length === 0 && <Empty>No change recorded yet. The first delivered run is the baseline; later runs are compared with it.</Empty>}
      {changes.data?.items.map((c) => <ChangeCard key={c.change_id} monitorId={m.id} change={c} />)}

      <h2>Runs</h2>
      {runs.error && <ErrorBox error={runs.error} retry={runs.reload} />}
      {runs.loading && !runs.data && <Loading what="runs" />}
      {runs.data && runs.data.items.length === 0 && <Empty>No runs yet: the first one fires {when(m.next_run_at)}, or use “Run now”.</Empty>}
      {runs.data && runs.data.items.length > 0 && (
        <div class="table-wrap">
          <table>
            <thead><tr><th scope="col">Fired</th><th scope="col">Trigger</th><th scope="col">Status</th><th scope="col">Job</th></tr></thead>
            <tbody>
              {runs.data.items.map((r) => (
                <tr key={r.run_id}>
                  <td>{when(r.fired_at)}{r.missed > 0 && <small> (+{r.missed} missed)</small>}</td>
                  <td>{r.trigger}</td>
                  <td><StatusBadge status={r.status} />{r.detail && <small> {r.detail}</small>}</td>
                  <td>{r.job_id ? <a href={`#/jobs/${r.job_id}`}>open</a> : '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  )
}

const ChangeCard = ({ monitorId, change }: { monitorId: string; change: Change }) => {
  const [open, setOpen] = useState(false)
  return (
    <article class="card">
      <h3>{when(change.detected_at)}{change.change_ratio !== null && <small> · {(change.change_ratio * 100).toFixed(1)}% changed</small>}</h3>
      {change.summary && <p class="summary">{change.summary}</p>}
      <p><small>Notified: {change.notified_channels.length ? change.notified_channels.join(', ') : 'nobody (cooldown or no channel)'} · <a href={`#/jobs/${change.job_id}`}>the run's job</a></small></p>
      {change.has_diff && (
        <details onToggle={(e) => setOpen((e.currentTarget as HTMLDetailsElement).open)}>
          <summary>Diff</summary>
          {open && <ChangeDiff monitorId={monitorId} changeId={change.change_id} />}
        </details>
      )}
    </article>
  )
}

const ChangeDiff = ({ monitorId, changeId }: { monitorId: string; changeId: string }) => {
  const diff = useLoad(() => v1<string>('GET', `/v1/monitors/${monitorId}/changes/${changeId}/diff`), [changeId])
  if (diff.error) return <ErrorBox error={diff.error} retry={diff.reload} />
  if (diff.data === undefined) return <Loading what="the diff" />
  return <DiffView diff={String(diff.data)} />
}
