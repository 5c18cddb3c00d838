import { SCRAPE_BACKENDS } from '../../domain/scrape/events.js'
import { MAX_SCRAPE_TIMEOUT_SECONDS, SCRAPE_WAIT_UNTIL } from '../../domain/scrape/request.js'

const nullable = (type: string, description?: string) => ({ type: [type, 'null'], ...(description ? { description } : {}) })

/** OpenAPI of POST /scrapes (documentation only: the domain validates the body). */
export const ScrapeRequestBody = {
  type: 'object',
  required: ['url', 'backend'],
  properties: {
    url: { type: 'string', description: 'Absolute http(s) URL; private and reserved addresses are refused (422 unsafe_url).' },
    backend: { type: 'string', enum: SCRAPE_BACKENDS, description: '`httpx`: plain HTTP fetch (light tier, 1 credit); `playwright`: standard browser (5 credits); `scrapling`: stealth browser (30 credits).' },
    include_body: { type: 'boolean', default: true, description: 'Answer the page HTML in `html`. Alias `saveHtml`.' },
    saveHtml: { type: 'boolean', description: 'Alias of `include_body`.' },
    take_screenshot: { type: 'boolean', default: false, description: 'Answer a PNG screenshot in `screenshot` (playwright and scrapling only). Alias `takeScreenshot`.' },
    takeScreenshot: { type: 'boolean', description: 'Alias of `take_screenshot`.' },
    timeout: { type: 'number', exclusiveMinimum: 0, maximum: MAX_SCRAPE_TIMEOUT_SECONDS, default: 30, description: 'Seconds the fetch may take (at least 1 s for the engine); the request waits at most timeout + 15 s.' },
    wait_until: { type: 'string', enum: SCRAPE_WAIT_UNTIL, description: 'Browser backends: when navigation counts as done (default load). Ignored by httpx.' },
  },
} as const

export const ScrapeEnvelopeBody = {
  type: 'object',
  required: ['id', 'jobId', 'resultId', 'resultKey', 'status', 'ok', 'statusCode', 'headers', 'html', 'htmlKey', 'screenshot', 'screenshotKey', 'errorCode', 'errorMessage'],
  properties: {
    id: { type: 'string', format: 'uuid' },
    jobId: { type: 'string', format: 'uuid', description: 'The v1 job that fetched the page (same id; also listed by GET /v1/jobs of your organization).' },
    resultId: nullable('string', 'Artifact id of the page body, when include_body.'),
    resultKey: nullable('string', '`<jobId>/<artifactId>` of the page body, when include_body.'),
    status: { type: 'string', enum: ['succeeded', 'failed'] },
    ok: { type: 'boolean', description: 'true only when the scrape completed with a result (status succeeded).' },
    statusCode: nullable('integer', "The target's HTTP status (null when no answer came)."),
    headers: { type: ['object', 'null'], additionalProperties: true, description: "The target's response headers." },
    html: nullable('string', 'The page HTML (rendered DOM on browser backends; on httpx the body of a non-HTML answer as UTF-8); only with include_body.'),
    htmlKey: nullable('string', '`<jobId>/<artifactId>` of the HTML, when include_body.'),
    screenshot: nullable('string', 'A `data:image/png;base64,...` data URL, only with take_screenshot (GET /scrapes/{id} gives a short-lived signed `screenshotUrl` instead).'),
    screenshotKey: nullable('string', '`<jobId>/<artifactId>` of the screenshot.'),
    errorCode: nullable('string', 'On failure: the job\'s failure reason (`timeout`, `navigation_timeout`, `stealth_blocked`, `network_error`, `upstream_error`, `egress_denied`, ...), `timeout` on 504, `gateway_error` on 502.'),
    errorMessage: nullable('string'),
  },
} as const

const itemProperties = {
  id: { type: 'string', format: 'uuid' },
  url: { type: 'string' },
  backend: { type: 'string', enum: SCRAPE_BACKENDS },
  status: { type: 'string', enum: ['pending', 'succeeded', 'failed'], description: '`pending` until the job ends; `failed` also after a 504 (errorCode timeout), even when a late result came.' },
  statusCode: nullable('integer'),
  saveHtml: { type: 'boolean' },
  takeScreenshot: { type: 'boolean' },
  createdAt: { type: 'string', format: 'date-time' },
  completedAt: nullable('string'),
  screenshotUrl: nullable('string', 'Short-lived signed download URL (ARTIFACT_URL_TTL_SECONDS, default 300 s).'),
  errorCode: nullable('string'),
} as const

const ITEM_FIELDS = Object.keys(itemProperties)
export const ScrapeItemBody = { type: 'object', required: ITEM_FIELDS, properties: itemProperties } as const
export const ScrapeDetailBody = {
  type: 'object', required: [...ITEM_FIELDS, 'errorMessage'], properties: { ...itemProperties, errorMessage: nullable('string') },
} as const

/** The pagination envelope of the account API's lists. */
export const pageOf = (item: object) => ({
  type: 'object',
  required: ['items', 'total', 'page', 'perPage', 'pageCount'],
  properties: {
    items: { type: 'array', items: item },
    total: { type: 'integer' }, page: { type: 'integer' }, perPage: { type: 'integer' }, pageCount: { type: 'integer' },
  },
})

export const MAX_ACCOUNT_PAGE = 10_000
export const accountPaging = (defaultPerPage: number) => ({
  page: { type: 'integer', minimum: 1, maximum: MAX_ACCOUNT_PAGE, default: 1, description: `1 to ${MAX_ACCOUNT_PAGE} (a page past the end answers no items); outside answers 422 \`invalid_page\`.` },
  perPage: { type: 'integer', minimum: 1, maximum: 100, default: defaultPerPage, description: '1 to 100; outside answers 422 `invalid_perPage`.' },
  dir: { type: 'string', enum: ['asc', 'desc'], default: 'desc' },
}) as const
