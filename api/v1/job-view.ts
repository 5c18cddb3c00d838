import { recipeBlockOf, type JobDoc } from '../../projections/jobs.js'

/** The public job record: internal fields (blob keys, org id) and credentials never leave the service. */
export const jobView = (doc: JobDoc) => ({
  job_id: doc.job_id,
  status: doc.status,
  job_type: doc.job_type,
  target_url: doc.target_url,
  tags: doc.tags,
  idempotency_token: doc.idempotency_token,
  credit_weight: doc.credit_weight,
  credits_charged: doc.credits_charged ?? doc.recipe_run?.credits_charged ?? null,
  attempts: doc.attempts,
  failure_reason: doc.failure_reason,
  failure_message: doc.failure_message,
  created_at: doc.created_at,
  started_at: doc.started_at,
  finished_at: doc.finished_at,
  artifacts: doc.artifacts.map((a) => ({
    artifact_id: a.artifact_id, artifact_type: a.artifact_type, content_type: a.content_type, size: a.size, sha256: a.sha256, created_at: a.created_at,
  })),
  manifest: doc.manifest,
  ...recipeFields(doc),
})

/** Recipe runs: which recipe ran and how it ended; `output` for the outcomes that have one (SPEC 2.10 result object). */
const recipeFields = (doc: JobDoc) => {
  const block = recipeBlockOf(doc)
  if (!block) return {}
  const run = doc.recipe_run ?? null
  return {
    recipe: { slug: block.slug, contract: block.contract, impl: block.impl, outcome: run?.outcome ?? null },
    captured_at: run ? doc.finished_at : null,
    output: run?.output ?? null,
    // Signed when the result is read (GET /v1/jobs/{id}/result); an output over the inline size is only there.
    result_url: null,
    result_url_expires_at: null,
    pages_fetched: run?.pages ?? null,
    outcome_detail: run?.detail ?? null,
    matched_locators: run?.matched ?? null,
  }
}

export const JobViewSchema = {
  $id: 'Job',
  type: 'object',
  additionalProperties: true,
  properties: {
    job_id: { type: 'string', format: 'uuid' },
    status: { type: 'string', enum: ['queued', 'running', 'succeeded', 'failed'], description: '`queued` until a fetcher takes the job, `running` while it fetches, then `succeeded` or `failed`.' },
    job_type: { type: 'string', enum: ['light', 'standard', 'stealth'] },
    target_url: { type: 'string' },
    tags: { type: 'array', items: { type: 'string' } },
    idempotency_token: { type: ['string', 'null'] },
    credit_weight: { type: 'integer', description: 'Credits the job reserves while it runs (and costs at most): light 1, standard 5, stealth 30; a recipe run its reservation.' },
    credits_charged: { type: ['integer', 'null'], description: 'Credits the finished job was charged, as the credit ledger recorded it (0 when it cost nothing: a failed job, a monitor run the target blocked, an unbilled recipe outcome); null while it runs, and for jobs that ended before charges were recorded.' },
    attempts: { type: 'integer', description: 'How many times a fetcher started the job (more than 1 after a worker restart).' },
    failure_reason: { type: ['string', 'null'], description: 'On failed jobs: `timeout` (timeout_ms passed), `navigation_timeout` (browser navigation did not finish), `stealth_blocked` (target denied or challenged), `browser_crashed`, `browser_unavailable` (no browser binary), `action_failed` (the message names the action index), `proxy_error` (customer proxy refused or failed), `egress_denied` (SSRF policy), `unsafe_redirect`, `too_many_redirects`, `network_error`, `upstream_error` (target answered 5xx), `response_too_large` (25 MB after decoding), `content_encoding_error` (corrupt compressed body, or zstd inside a list of codings), `engine_error`, `engine_unavailable`, `tier_unavailable` (the tier cannot run on this deployment: the light tier without its HTTP client; the message names the fix), `job_interrupted` (its attempts were interrupted 3 times, or its interrupted attempt\'s deadline passed: not started again, docs/poison-jobs.md), `extraction_timeout` (the extraction hooks or the page views — `reader`, `page_metadata`, on light `text` and `links` — ran past their worker\'s hard deadline, 15 s / 10 s), `extraction_failed` (their worker died, e.g. at its memory cap; docs/limits.md). A recipe job fails with its run\'s outcome (`timeout`, `layout_changed`, ...); a recipe run whose page work passed its 15 s deadline is `timeout` with a message starting `extraction_timeout:`.' },
    failure_message: { type: ['string', 'null'] },
    created_at: { type: 'string', format: 'date-time' },
    started_at: { type: ['string', 'null'], format: 'date-time' },
    finished_at: { type: ['string', 'null'], format: 'date-time' },
    artifacts: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          artifact_id: { type: 'string' },
          artifact_type: { type: 'string', enum: ['html', 'response_body', 'screenshot', 'har', 'reader', 'links', 'text', 'page_metadata', 'console', 'json', 'pdf', 'recipe_output'] },
          content_type: { type: 'string' },
          size: { type: 'integer' },
          sha256: { type: 'string', description: 'Hex SHA-256 of the bytes, computed when the artifact was stored.' },
          created_at: { type: 'string', format: 'date-time' },
        },
      },
    },
    recipe: {
      type: 'object', description: 'Recipe runs only: the recipe, contract and implementation that ran and the outcome (SPEC 3.5; null until the run ended).',
      properties: { slug: { type: 'string' }, contract: { type: 'integer' }, impl: { type: 'integer' }, outcome: { type: ['string', 'null'] } },
    },
    captured_at: { type: ['string', 'null'], description: 'Recipe runs only: when the output was captured.' },
    output: { description: 'Recipe runs only: set for outcomes ok and ok_empty, shaped by the contract\'s output schema, when it is at most 256 KB as JSON; null otherwise.' },
    result_url: { type: ['string', 'null'], description: 'Recipe runs only: an output over 256 KB is not inline; GET /v1/jobs/{job_id}/result answers this short-lived signed URL of it (ARTIFACT_URL_TTL_SECONDS; ask again for a fresh one). Null otherwise.' },
    result_url_expires_at: { type: ['string', 'null'], format: 'date-time' },
    pages_fetched: { type: ['integer', 'null'] },
    outcome_detail: { type: ['string', 'null'], description: 'Recipe runs only: why the run ended as it did; for schema_invalid the first failing JSON pointer.' },
    matched_locators: { type: ['object', 'null'], additionalProperties: { type: 'integer' }, description: 'Recipe runs only: for each extracted field, which locator of its fallback chain matched (0 is the first).' },
    formats: {
      type: 'object', additionalProperties: true,
      description: 'GET /v1/jobs/{job_id}/result of a job submitted with `formats` only: each requested format, keyed by its name. markdown, html, rawHtml, text: a string; links: an array of URLs; metadata, json: a JSON value; screenshot, screenshot@fullPage, pdf: a download link object (artifact_id, content_type, size, sha256, url, expires_at). Null when the job did not make that artifact.',
    },
    formats_truncated: {
      type: 'object', description: 'With `formats`: the formats whose inline content is cut (text) or left out (JSON over the cap), each with the `artifact_id` and full `size` of the artifact that holds all of it.',
      additionalProperties: { type: 'object', properties: { artifact_id: { type: 'string' }, size: { type: 'integer' } } },
    },
    manifest: {
      type: ['object', 'null'],
      additionalProperties: true,
      description: 'What the engine observed: `http_status`, `response_headers`, `final_url`, `redirects`, `timing` (started_at, finished_at, duration_ms, ttfb_ms), `attempts`, `engine` and `egress` (`mode`: `managed`, or `custom` with `proxy_host`; never credentials). `http_status`, `response_headers`, `timing` and `egress` are present on every job, failed ones too (null when there is nothing to report, e.g. no response arrived).',
    },
  },
} as const
