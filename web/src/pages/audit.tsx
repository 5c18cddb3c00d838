import { useState } from 'preact/hooks'
import { v1 } from '../api'
import { Empty, ErrorBox, Loading, useLoad, when } from '../ui'

interface AuditEntry { readonly event_id: string; readonly type: string; readonly stream: string; readonly occurred_at: string; readonly actor: string; readonly correlation_id: string; readonly detail?: unknown }

export const Audit = () => {
  const [page, setPage] = useState(1)
  const log = useLoad(() => v1<{ items: AuditEntry[]; total: number; page: number; per_page: number }>('GET', `/v1/audit-log?page=${page}&per_page=50`), [page])
  const pages = log.data ? Math.max(1, Math.ceil(log.data.total / log.data.per_page)) : 1
  return (
    <section>
      <h1>Audit log</h1>
      {log.error && <ErrorBox error={log.error} retry={log.reload} />}
      {log.loading && !log.data && <Loading what="the audit log" />}
      {log.data && log.data.items.length === 0 && <Empty>Nothing recorded yet.</Empty>}
      {log.data && log.data.items.length > 0 && (
        <>
          <div class="table-wrap">
            <table>
              <thead><tr><th scope="col">When</th><th scope="col">Event</th><th scope="col">Actor</th><th scope="col">Correlation id</th></tr></thead>
              <tbody>
                {log.data.items.map((entry) => (
                  <tr key={entry.event_id}>
                    <td>{when(entry.occurred_at)}</td><td><b>{entry.type}</b><br /><small>{entry.stream}</small></td>
                    <td>{entry.actor}</td><td><code>{entry.correlation_id}</code></td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <nav class="pager" aria-label="Pages">
            <button type="button" disabled={page <= 1} onClick={() => setPage(page - 1)}>Previous</button>
            <span>Page {page} of {pages} ({log.data.total} entries)</span>
            <button type="button" disabled={page >= pages} onClick={() => setPage(page + 1)}>Next</button>
          </nav>
        </>
      )}
    </section>
  )
}
