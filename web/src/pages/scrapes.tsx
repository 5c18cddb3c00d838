import { useState } from 'preact/hooks'
import { ApiError, call, type AccountPage } from '../api'
import { asApiError, Empty, ErrorBox, Field, Loading, StatusBadge, useLoad, when } from '../ui'

interface ScrapeItem {
  readonly id: string; readonly url: string; readonly backend: string; readonly status: string; readonly statusCode: number | null
  readonly createdAt: string; readonly completedAt: string | null; readonly screenshotUrl: string | null; readonly errorCode: string | null
}
interface ScrapeAnswer {
  readonly id: string; readonly jobId: string; readonly ok: boolean; readonly status: string; readonly statusCode: number | null
  readonly html: string | null; readonly screenshot: string | null; readonly errorCode: string | null; readonly errorMessage: string | null
}

const HTML_PREVIEW = 4000

/** The account API's synchronous scrape (POST /scrapes answers the page) and the user's scrape history. */
export const Scrapes = () => {
  const list = useLoad(() => call<AccountPage<ScrapeItem>>('GET', '/scrapes?perPage=20'), [])
  const [url, setUrl] = useState('')
  const [backend, setBackend] = useState('httpx')
  const [screenshot, setScreenshot] = useState(false)
  const [answer, setAnswer] = useState<ScrapeAnswer | null>(null)
  const [error, setError] = useState<ApiError | null>(null)
  const [busy, setBusy] = useState(false)
  const submit = async (e: Event) => {
    e.preventDefault()
    setBusy(true); setError(null); setAnswer(null)
    try {
      setAnswer(await call<ScrapeAnswer>('POST', '/scrapes', { body: { url: url.trim(), backend, ...(screenshot ? { take_screenshot: true } : {}) } }))
    } catch (err) { setError(asApiError(err)) } finally { setBusy(false); list.reload() }
  }
  return (
    <section>
      <h1>Scrapes</h1>
      <p>Fetch one page now and see what came back; billed like a job of the backend's tier.</p>
      <form onSubmit={submit} class="stack">
        <Field id="scrape-url" label="Page URL"><input id="scrape-url" inputMode="url" value={url} onInput={(e) => setUrl(e.currentTarget.value)} /></Field>
        <Field id="scrape-backend" label="Backend">
          <select id="scrape-backend" value={backend} onChange={(e) => setBackend(e.currentTarget.value)}><option value="httpx">httpx (light, 1 credit)</option><option value="playwright">playwright (standard, 5)</option><option value="scrapling">scrapling (stealth, 30)</option></select>
        </Field>
        {backend !== 'httpx' && (
          <div class="field checkbox">
            <input id="scrape-screenshot" type="checkbox" checked={screenshot} onChange={(e) => setScreenshot(e.currentTarget.checked)} />
            <label for="scrape-screenshot">Take a screenshot</label>
          </div>
        )}
        <button type="submit" disabled={busy}>{busy ? 'Scraping…' : 'Scrape'}</button>
      </form>
      {error && <ErrorBox error={error} />}
      {answer && (
        <div class="card" role="status">
          <h2>Result</h2>
          <p><StatusBadge status={answer.status} /> HTTP {answer.statusCode ?? '—'} · <a href={`#/jobs/${answer.jobId}`}>the job</a></p>
          {answer.screenshot && <img class="screenshot" src={answer.screenshot} alt="Screenshot of the scraped page" />}
          {answer.html !== null && <pre class="code">{answer.html.length > HTML_PREVIEW ? `${answer.html.slice(0, HTML_PREVIEW)}…` : answer.html}</pre>}
        </div>
      )}
      <h2>History</h2>
      {list.error && <ErrorBox error={list.error} retry={list.reload} />}
      {list.loading && !list.data && <Loading what="scrapes" />}
      {list.data && list.data.items.length === 0 && <Empty>No scrapes yet.</Empty>}
      {list.data && list.data.items.length > 0 && (
        <div class="table-wrap">
          <table>
            <thead><tr><th scope="col">Page</th><th scope="col">Backend</th><th scope="col">Status</th><th scope="col">When</th></tr></thead>
            <tbody>
              {list.data.items.map((s) => (
                <tr key={s.id}>
                  <td class="url"><a href={`#/jobs/${s.id}`}>{s.url}</a>{s.screenshotUrl && <> · <a href={s.screenshotUrl}>screenshot</a></>}</td>
                  <td>{s.backend}</td>
                  <td><StatusBadge status={s.status} /> {s.statusCode ?? ''}{s.errorCode && <small> {s.errorCode}</small>}</td>
                  <td>{when(s.createdAt)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  )
}
