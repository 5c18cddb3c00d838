import { useEffect, useState } from 'preact/hooks'
import { v1, type Artifact, type Job } from '../api'
import { asApiError, ErrorBox, Loading, StatusBadge, useLoad, when } from '../ui'

interface ArtifactLink { readonly url: string; readonly expires_at: string }

/** Signed download links are short-lived: each is asked for when it is needed. */
const linkOf = (jobId: string, artifact: Artifact) => v1<ArtifactLink>('GET', `/v1/jobs/${jobId}/artifacts/${artifact.artifact_id}`)

const Preview = ({ jobId, artifact }: { jobId: string; artifact: Artifact }) => {
  const [content, setContent] = useState<{ url?: string; text?: string; error?: string } | null>(null)
  useEffect(() => {
    linkOf(jobId, artifact).then(async (link) => {
      if (artifact.content_type.startsWith('image/')) return setContent({ url: link.url })
      const response = await fetch(link.url)
      const text = await response.text()
      setContent({ text: artifact.content_type.includes('json') ? JSON.stringify(JSON.parse(text), null, 2) : text })
    }).catch((e: unknown) => setContent({ error: asApiError(e).message }))
  }, [jobId, artifact.artifact_id])
  if (!content) return <Loading what={artifact.artifact_type} />
  if (content.error) return <p class="error" role="alert">{content.error}</p>
  if (content.url) return <img class="screenshot" src={content.url} alt={`Screenshot of the page (${artifact.artifact_type})`} />
  return <pre class="code">{content.text}</pre>
}

export const JobDetail = ({ jobId }: { jobId: string }) => {
  const job = useLoad(() => v1<Job>('GET', `/v1/jobs/${jobId}`), [jobId])
  const unfinished = job.data && (job.data.status === 'queued' || job.data.status === 'running')
  useEffect(() => {
    if (!unfinished) return
    const timer = setTimeout(job.reload, 1000)
    return () => clearTimeout(timer)
  }, [job.data])
  const [open, setOpen] = useState<string | null>(null)
  const download = async (artifact: Artifact) => {
    // The signed URL answers as an attachment: following it saves the file and leaves this page where it is.
    const link = await linkOf(jobId, artifact)
    location.assign(link.url)
  }
  if (job.error) return <ErrorBox error={job.error} retry={job.reload} />
  if (!job.data) return <Loading what="the job" />
  const j = job.data
  const screenshots = j.artifacts.filter((a) => a.content_type.startsWith('image/'))
  const extraction = j.artifacts.filter((a) => a.artifact_type === 'json')
  return (
    <section>
      <p><a href="#/jobs">← Jobs</a></p>
      <h1 class="url">{j.target_url}</h1>
      <dl class="facts">
        <dt>Status</dt><dd><StatusBadge status={j.status} />{unfinished && <span role="status"> (updating…)</span>}</dd>
        <dt>Tier</dt><dd>{j.job_type}</dd>
        <dt>Credits</dt><dd>{j.credit_weight}</dd>
        <dt>Created</dt><dd>{when(j.created_at)}</dd>
        <dt>Finished</dt><dd>{when(j.finished_at)}</dd>
        <dt>Tags</dt><dd>{j.tags.length ? j.tags.join(', ') : '—'}</dd>
        <dt>Job id</dt><dd><code>{j.job_id}</code></dd>
      </dl>
      {j.status === 'failed' && <div class="error" role="alert"><p><strong>{j.failure_message}</strong> <code>{j.failure_reason}</code></p></div>}
      {screenshots.map((a) => <figure key={a.artifact_id}><Preview jobId={j.job_id} artifact={a} /><figcaption>{a.artifact_type}</figcaption></figure>)}
      {extraction.map((a) => <div key={a.artifact_id}><h2>Extraction</h2><Preview jobId={j.job_id} artifact={a} /></div>)}
      <h2>Artifacts</h2>
      {j.artifacts.length === 0 ? <p class="empty">{unfinished ? 'Artifacts appear when the job finishes.' : 'This job stored no artifacts.'}</p> : (
        <div class="table-wrap">
          <table>
            <thead><tr><th scope="col">Type</th><th scope="col">Content type</th><th scope="col">Size</th><th scope="col">Actions</th></tr></thead>
            <tbody>
              {j.artifacts.map((a) => (
                <>
                  <tr key={a.artifact_id}>
                    <td>{a.artifact_type}</td><td>{a.content_type}</td><td>{a.size.toLocaleString()} B</td>
                    <td class="actions">
                      <button type="button" onClick={() => void download(a)} aria-label={`Download ${a.artifact_type}`}>Download</button>
                      <button type="button" aria-expanded={open === a.artifact_id} onClick={() => setOpen(open === a.artifact_id ? null : a.artifact_id)}>
                        {open === a.artifact_id ? 'Hide' : 'View'}
                      </button>
                    </td>
                  </tr>
                  {open === a.artifact_id && <tr><td colSpan={4}><Preview jobId={j.job_id} artifact={a} /></td></tr>}
                </>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <h2>Manifest</h2>
      {j.manifest ? <pre class="code">{JSON.stringify(j.manifest, null, 2)}</pre> : <p class="empty">The manifest is recorded when the job finishes.</p>}
    </section>
  )
}
