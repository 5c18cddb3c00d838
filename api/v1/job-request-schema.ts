import { ACTION_TYPES, BROWSER_EXTENSIONS, HTTP_METHODS, JOB_TYPES, OS_NAMES, WAIT_UNTIL } from '../../domain/job/spec.js'

const bool = (description: string, dflt = false) => ({ type: 'boolean', default: dflt, description })

/**
 * Documentation of POST /v1/jobs. Validation itself is done by domain/job/spec.ts, which answers 422 with a code per field;
 * this schema is never used to reject or alter a body.
 */
export const JobRequestSchema = {
  $id: 'JobRequest',
  type: 'object',
  required: ['job_type', 'target_url'],
  description: 'Unknown fields answer 422 `unknown_field`. Fields of another tier answer 422 `invalid_<field>_tier` (nothing is silently dropped).',
  properties: {
    job_type: { type: 'string', enum: JOB_TYPES, description: 'light: HTTP with TLS impersonation; standard: Chromium; stealth: hardened browser. Codes: `missing_job_type`, `invalid_job_type`.' },
    target_url: { type: 'string', format: 'uri', description: 'Absolute http(s) URL. Codes: `missing_target_url`, `invalid_target_url`, `unsafe_target_url` (credentials in the URL, or a loopback, private, link-local, CGNAT, multicast or metadata address in any notation).' },
    timeout_ms: { type: 'integer', minimum: 1000, maximum: 300000, default: 30000, description: 'Budget for the whole job. Code: `invalid_timeout_ms`.' },
    tags: { type: 'array', maxItems: 50, items: { type: 'string', maxLength: 64 }, default: [], description: 'Labels for filtering (GET /v1/jobs?tag=). Code: `invalid_tags`.' },
    idempotency_token: { type: 'string', maxLength: 255, description: 'Same token from the same organization returns the original job. Code: `invalid_idempotency_token`.' },
    headers: { type: 'object', additionalProperties: { type: 'string' }, description: 'Request headers sent to the target. Code: `invalid_headers`.' },
    user_agent: { type: 'string', description: 'Overrides User-Agent (light and standard). Codes: `invalid_user_agent`, `invalid_user_agent_tier` on stealth.' },
    method: { type: 'string', enum: HTTP_METHODS, default: 'GET', description: 'light only. Code: `invalid_method`.' },
    body: { type: ['string', 'null'], description: 'light only, for POST, PUT, PATCH. Code: `invalid_body`.' },
    follow_redirects: { type: 'boolean', default: true, description: 'light only. Each hop is checked against the SSRF policy.' },
    max_redirects: { type: 'integer', minimum: 0, maximum: 20, default: 10, description: 'light only. Code: `invalid_max_redirects`.' },
    retry_policy: {
      type: 'object',
      description: 'light only. Code: `invalid_retry_policy`. Retries happen on the listed statuses and on network errors, with exponential backoff inside timeout_ms.',
      properties: {
        max_attempts: { type: 'integer', minimum: 1, maximum: 10, default: 1, description: 'Includes the first attempt.' },
        retry_on_status: { type: 'array', items: { type: 'integer' }, default: [408, 425, 429, 500, 502, 503, 504] },
        retry_methods: { type: 'array', items: { type: 'string', enum: HTTP_METHODS }, default: ['GET', 'HEAD', 'PUT', 'DELETE'] },
      },
    },
    headless: { type: 'boolean', default: true, description: 'browser tiers.' },
    browser: { type: 'string', description: 'Set by the tier (`chromium` on standard, `stealth` on stealth); any other value answers `invalid_browser`.' },
    wait_until: { type: 'string', enum: WAIT_UNTIL, default: 'load', description: 'browser tiers. Code: `invalid_wait_until`.' },
    navigation_timeout_ms: { type: 'integer', minimum: 1000, maximum: 300000, default: 30000, description: 'browser tiers. Code: `invalid_navigation_timeout_ms`.' },
    viewport: {
      type: 'object', description: 'standard only. Codes: `invalid_viewport_width`, `invalid_viewport_height`, `invalid_viewport_tier`.',
      properties: { width: { type: 'integer', minimum: 320, maximum: 7680 }, height: { type: 'integer', minimum: 240, maximum: 4320 } },
    },
    locale: { type: 'string', description: 'standard only, BCP-47. Codes: `invalid_locale`, `invalid_locale_tier`.' },
    timezone_id: { type: 'string', description: 'standard only, IANA name. Codes: `invalid_timezone_id`, `invalid_timezone_id_tier`.' },
    actions: {
      type: 'array', maxItems: 50, description: 'browser tiers, run in order after load. Codes: `invalid_actions`, `invalid_action_type`, `invalid_action_selector`, `invalid_action_value`, `invalid_scroll_direction`, `invalid_action_timeout_ms`, `invalid_actions_tier`.',
      items: {
        type: 'object', properties: {
          type: { type: 'string', enum: ACTION_TYPES }, selector: { type: 'string' }, value: { type: 'string' },
          direction: { type: 'string', enum: ['down'] }, timeout_ms: { type: 'integer', minimum: 0, maximum: 60000 },
        },
      },
    },
    os_name: { type: 'string', enum: OS_NAMES, description: 'stealth only. Code: `invalid_os_name`.' },
    browser_extensions: { type: 'array', items: { type: 'string', enum: BROWSER_EXTENSIONS }, description: 'stealth only. Code: `invalid_browser_extensions`.' },
    proxy: {
      type: 'object', description: 'stealth only (`invalid_proxy_tier` elsewhere). Chained behind the egress gateway. Codes: `invalid_proxy_server`, `unsafe_proxy_server`.',
      properties: { server: { type: 'string' }, username: { type: 'string' }, password: { type: 'string' }, bypass: { type: 'string' } },
    },
    artifact_options: {
      type: 'object', description: 'Unknown options answer `unknown_field`; browser-only options set to true on light answer `invalid_<option>_tier`.',
      properties: {
        include_html: bool('Save the final HTML (artifact_type `html`).', true),
        include_response_body: bool('Save the raw response body (`response_body`).'),
        include_extraction: bool('Run extraction hooks and save their JSON (`json`). Defaults to true when extraction.hooks are sent.'),
        include_screenshot: bool('browser: PNG (`screenshot`).'),
        include_har: bool('browser: network trace without bodies (`har`).'),
        include_reader: bool('browser: article as Markdown (`reader`).'),
        include_links: bool('browser: every a href (`links`).'),
        include_text: bool('browser: visible text (`text`).'),
        include_page_metadata: bool('browser: title, description, canonical, Open Graph, Twitter, JSON-LD (`page_metadata`).'),
        include_console: bool('browser: console logs (`console`).'),
        block_images: bool('browser.'), block_styles: bool('browser; alias block_stylesheets.'), block_media: bool('browser.'), block_fonts: bool('browser.'),
        no_scroll: bool('browser: do not scroll to trigger lazy content before capture.'),
      },
    },
    extraction: {
      type: 'object', description: 'Extraction hooks (up to 25); see the extraction section of the README for hook fields, transforms and 422 codes.',
      properties: { hooks: { type: 'array', maxItems: 25, items: { type: 'object', additionalProperties: true } } },
    },
  },
} as const
