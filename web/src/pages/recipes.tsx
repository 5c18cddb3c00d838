import { useEffect, useState } from 'preact/hooks'
import { ApiError, v1, type Job, type Page } from '../api'
import { asApiError, Empty, ErrorBox, Field, Loading, StatusBadge, useLoad, when } from '../ui'

interface Health { readonly state: string; readonly last_test_at: string | null; readonly last_outcome: string | null; readonly site_refusal: string | null }
interface RecipeSummary {
  readonly slug: string; readonly title: string; readonly category: string; readonly status: string; readonly disabled: boolean
  readonly health: Health; readonly contract: number; readonly engine: string; readonly credits_per_unit: number; readonly billing_unit: string
}
interface JsonSchema {
  readonly type?: string | readonly string[]; readonly properties?: Record<string, JsonSchema>; readonly required?: readonly string[]
  readonly enum?: readonly unknown[]; readonly description?: string; readonly default?: unknown; readonly items?: JsonSchema
}
interface Contract { readonly contract: number; readonly input_schema: JsonSchema; readonly example: { readonly input?: Record<string, unknown> } | null }
interface RecipeDetail extends RecipeSummary { readonly attribution: string | null; readonly contracts: readonly Contract[] }
interface RunResult {
  readonly status: string; readonly recipe?: { readonly outcome: string | null }; readonly captured_at?: string | null; readonly output?: unknown
  readonly credits_charged?: number | null; readonly outcome_detail?: string | null; readonly failure_reason?: string | null
}

const healthBadge = (health: Health) => `${health.state}${health.site_refusal ? ` (${health.site_refusal})` : ''}`

/** The recipe catalogue (GET /v1/recipes) with health; a recipe's page runs it with a form built from its input schema. */
export const Recipes = () => {
  const list = useLoad(() => v1<{ items: RecipeSummary[] }>('GET', '/v1/recipes'), [])
  return (
    <section>
      <h1>Recipes</h1>
      <p>Ready-made extractions for known sites: give the input, get structured output.</p>
      {list.error && <ErrorBox error={list.error} retry={list.reload} />}
      {list.loading && !list.data && <Loading what="recipes" />}
      {list.data && list.data.items.length === 0 && <Empty>No recipe is available on your plan.</Empty>}
      {list.data && list.data.items.length > 0 && (
        <div class="table-wrap">
          <table>
            <thead><tr><th scope="col">Recipe</th><th scope="col">Category</th><th scope="col">Health</th><th scope="col">Cost</th></tr></thead>
            <tbody>
              {list.data.items.map((r) => (
                <tr key={r.slug}>
                  <td><a href={`#/recipes/${r.slug}`}>{r.title}</a><br /><small><code>{r.slug}</code> · {r.status}{r.disabled && ' · disabled'}</small></td>
                  <td>{r.category}</td>
                  <td><StatusBadge status={healthBadge(r.health)} /><br /><small>tested {when(r.health.last_test_at)}</small></td>
                  <td>{r.credits_per_unit} credits per {r.billing_unit} ({r.engine})</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  )
}

/** Text fields for strings and numbers, a checkbox for booleans, a list for enums; the API checks the input against the schema. */
const inputValue = (schema: JsonSchema, raw: string | boolean): unknown => {
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type
  if (type === 'boolean') return raw === true
  if (type === 'integer' || type === 'number') return raw === '' ? undefined : Number(raw)
  if (type === 'array' || type === 'object') { try { return JSON.parse(String(raw)) } catch { return raw } }
  return raw === '' ? undefined : raw
}

export const RecipeDetail = ({ slug }: { slug: string }) => {
  const recipe = useLoad(() => v1<RecipeDetail>('GET', `/v1/recipes/${slug}`), [slug])
  // null until the user edits a field: the form shows the contract's example from its first render, never empty.
  const [edited, setValues] = useState<Record<string, string | boolean> | null>(null)
  const [error, setError] = useState<ApiError | null>(null)
  const [busy, setBusy] = useState(false)
  const [jobId, setJobId] = useState<string | null>(null)
  const [finished, setFinished] = useState(0)
  const contract = recipe.data?.contracts.find((c) => c.contract === recipe.data!.contract)
  useEffect(() => { setValues(null) }, [contract?.contract, slug])
  const values = edited ?? Object.fromEntries(Object.entries(contract?.example?.input ?? {})
    .map(([k, v]) => [k, typeof v === 'boolean' ? v : typeof v === 'object' ? JSON.stringify(v) : String(v)]))
  if (recipe.error) return <ErrorBox error={recipe.error} retry={recipe.reload} />
  if (!recipe.data || !contract) return <Loading what="the recipe" />
  const r = recipe.data
  const fields = Object.entries(contract.input_schema.properties ?? {})
  const required = new Set(contract.input_schema.required ?? [])
  const run = async (e: Event) => {
    e.preventDefault()
    setBusy(true); setError(null); setJobId(null)
    const input = Object.fromEntries(fields.map(([name, schema]) => [name, inputValue(schema, values[name] ?? '')]).filter(([, v]) => v !== undefined))
    try {
      setJobId((await v1<{ job_id: string }>('POST', `/v1/recipes/${slug}/runs`, { input })).job_id)
    } catch (err) { setError(asApiError(err)) } finally { setBusy(false) }
  }
  return (
    <section>
      <p><a href="#/recipes">← Recipes</a></p>
      <h1>{r.title}</h1>
      <dl class="facts">
        <dt>Health</dt><dd><StatusBadge status={healthBadge(r.health)} /> last outcome {r.health.last_outcome ?? '—'}, tested {when(r.health.last_test_at)}</dd>
        <dt>Contract</dt><dd>{r.contract} ({r.engine}, {r.credits_per_unit} credits per {r.billing_unit})</dd>
        {r.attribution && <><dt>Attribution</dt><dd>{r.attribution}</dd></>}
      </dl>
      <h2>Run it</h2>
      {error && <ErrorBox error={error} />}
      <form onSubmit={run} class="stack">
        {fields.map(([name, schema]) => {
          const id = `recipe-${name}`
          const type = Array.isArray(schema.type) ? schema.type[0] : schema.type
          const label = `${name}${required.has(name) ? '' : ' (optional)'}`
          if (type === 'boolean') {
            return (
              <div class="field checkbox" key={name}>
                <input id={id} type="checkbox" checked={values[name] === true} onChange={(e) => setValues({ ...values, [name]: e.currentTarget.checked })} />
                <label for={id}>{label}</label>
              </div>
            )
          }
          return (
            <Field key={name} id={id} label={label} {...(schema.description ? { hint: schema.description } : {})}>
              {schema.enum
                ? <select id={id} value={String(values[name] ?? '')} onChange={(e) => setValues({ ...values, [name]: e.currentTarget.value })}>
                    {!required.has(name) && <option value="">—</option>}
                    {schema.enum.map((v) => <option key={String(v)} value={String(v)}>{String(v)}</option>)}
                  </select>
                : <input id={id} value={String(values[name] ?? '')} aria-invalid={error?.details.some((d) => d.field?.includes(name)) ?? false}
                    {...(schema.description ? { 'aria-describedby': `${id}-hint` } : {})} onInput={(e) => setValues({ ...values, [name]: e.currentTarget.value })} />}
            </Field>
          )
        })}
        <button type="submit" disabled={busy || r.disabled}>{busy ? 'Starting…' : 'Run recipe'}</button>
      </form>
      {jobId && <RecipeOutput key={jobId} jobId={jobId} onDone={() => setFinished(finished + 1)} />}
      <h2>Recent runs</h2>
      <RecentRuns slug={slug} refresh={`${jobId}:${finished}`} />
    </section>
  )
}

const RecipeOutput = ({ jobId, onDone }: { jobId: string; onDone: () => void }) => {
  const [result, setResult] = useState<RunResult | null>(null)
  const [error, setError] = useState<ApiError | null>(null)
  useEffect(() => {
    let stopped = false
    const poll = async () => {
      try {
        const answer = await v1<RunResult>('GET', `/v1/jobs/${jobId}/result`)
        if (!stopped) { setResult(answer); onDone() }
      } catch (err) {
        const failed = asApiError(err)
        if (failed.status === 409 && !stopped) { setTimeout(() => void poll(), 1000); return }
        if (!stopped) setError(failed)
      }
    }
    void poll()
    return () => { stopped = true }
  }, [jobId])
  if (error) return <ErrorBox error={error} />
  if (!result) return <p role="status">Running… (<a href={`#/jobs/${jobId}`}>the job</a>)</p>
  return (
    <div class="card" role="status">
      <h2>Output</h2>
      <p><StatusBadge status={result.recipe?.outcome ?? result.status} /> captured {when(result.captured_at ?? null)}, {result.credits_charged ?? 0} credits · <a href={`#/jobs/${jobId}`}>the job</a></p>
      {(result.outcome_detail ?? result.failure_reason) && <p class="error">{result.outcome_detail ?? result.failure_reason}</p>}
      <pre class="code">{JSON.stringify(result.output ?? null, null, 2)}</pre>
    </div>
  )
}

type RecipeJob = Job & { readonly recipe?: { readonly slug: string; readonly outcome: string | null } }
const RECENT_JOBS = 100

/** This recipe's runs among the organization's latest jobs (the jobs list has no recipe filter). */
const RecentRuns = ({ slug, refresh }: { slug: string; refresh: string }) => {
  const jobs = useLoad(() => v1<Page<RecipeJob>>('GET', `/v1/jobs?per_page=${RECENT_JOBS}`), [slug, refresh])
  if (jobs.error) return <ErrorBox error={jobs.error} retry={jobs.reload} />
  if (!jobs.data) return <Loading what="runs" />
  const runs = jobs.data.items.filter((job) => job.recipe?.slug === slug)
  if (runs.length === 0) return <Empty>No run of this recipe among your latest {RECENT_JOBS} jobs.</Empty>
  return (
    <div class="table-wrap">
      <table>
        <thead><tr><th scope="col">Requested</th><th scope="col">Status</th><th scope="col">Outcome</th></tr></thead>
        <tbody>
          {runs.map((job) => (
            <tr key={job.job_id}>
              <td><a href={`#/jobs/${job.job_id}`}>{when(job.created_at)}</a></td>
              <td><StatusBadge status={job.status} /></td>
              <td>{job.recipe?.outcome ?? '—'}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}
