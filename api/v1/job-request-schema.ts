import { DEFAULT_MAX_RESULTS, HOOK_TYPES, MAX_HOOK_ID_LENGTH, MAX_HOOKS, MAX_MAX_RESULTS } from '../../domain/extraction.js'
import {
  ACTION_TYPES, BROWSER_EXTENSIONS, DEFAULT_RETRY_POLICY, HTTP_METHODS, JOB_TYPES, MAX_ACTIONS, MAX_IDEMPOTENCY_TOKEN_LENGTH, MAX_RETRY_STATUSES,
  MAX_TAG_LENGTH, MAX_TAGS, MAX_TARGET_URL_LENGTH, MAX_USER_AGENT_LENGTH, OS_NAMES, REQUIRED_FIELDS, WAIT_UNTIL,
} from '../../domain/job/spec.js'
import { MAX_HEADER_VALUE_LENGTH, MAX_HEADERS } from '../../domain/validation.js'
import { FORMATS } from '../../domain/job/formats.js'
import { INLINE_FORMAT_MAX_BYTES } from '../../domain/job/inline-formats.js'

const bool = (description: string, dflt = false) => ({ type: 'boolean', default: dflt, description })

/**
 * Documentation of POST /v1/jobs. Validation itself is done by domain/job/spec.ts, which answers 422 with a code per field;
 * this schema is never used to reject or alter a body.
 */
export const JobRequestSchema = {
  $id: 'JobRequest',
  type: 'object',
  required: REQUIRED_FIELDS,
  additionalProperties: false,
  description: 'A body without `job_type` or `target_url` answers 400 `missing_job_type` / `missing_target_url`. Other problems answer 422 with the first failing field\'s code as `error.code` and every failing field in `details`. Unknown fields, at any depth, answer 422 `unknown_field` naming their path (e.g. `viewport.depth`, `actions[0].x`, `extraction.hooks[1].zzz`). Fields of another tier answer 422 `invalid_<field>_tier` (nothing is silently dropped). Strings that become a key, a header or a URL (target_url, idempotency_token, tags, headers, user_agent, hook_id, proxy credentials) must be valid Unicode without control characters.',
  properties: {
    job_type: { type: 'string', enum: JOB_TYPES, description: 'light: HTTP with TLS impersonation; standard: Chromium; stealth: hardened browser. Codes: `missing_job_type`, `invalid_job_type`.' },
    target_url: { type: 'string', format: 'uri', maxLength: MAX_TARGET_URL_LENGTH, description: 'Absolute http(s) URL. Codes: `missing_target_url`, `invalid_target_url`, `unsafe_target_url` (credentials in the URL, a loopback, private, link-local, CGNAT, multicast or metadata address in any notation, or a host name that resolves only to such addresses at submission; the egress gateway checks every connection again).' },
    timeout_ms: { type: 'integer', minimum: 1000, maximum: 300000, default: 30000, description: 'Budget for the whole job. Code: `invalid_timeout_ms`.' },
    tags: { type: 'array', maxItems: MAX_TAGS, items: { type: 'string', minLength: 1, maxLength: MAX_TAG_LENGTH }, default: [], description: `Free-form labels for filtering (GET /v1/jobs?tag=), e.g. \`env=prod\`, \`my tag\`, \`#promo\`: up to ${MAX_TAGS} tags of 1 to ${MAX_TAG_LENGTH} characters, no control characters. Code: \`invalid_tags\`.` },
    idempotency_token: { type: 'string', minLength: 1, maxLength: MAX_IDEMPOTENCY_TOKEN_LENGTH, description: 'Same token from the same organization returns the original job. Code: `invalid_idempotency_token`.' },
    headers: {
      type: 'object', maxProperties: MAX_HEADERS, additionalProperties: { type: 'string', maxLength: MAX_HEADER_VALUE_LENGTH },
      description: `Request headers sent to the target: at most ${MAX_HEADERS}; names are HTTP tokens, values at most ${MAX_HEADER_VALUE_LENGTH} characters of tab, printable ASCII or Latin-1 (no control characters or line breaks). Codes: \`invalid_headers\`, \`invalid_header_name\`, \`invalid_header_value\` (field \`headers.<name>\`).`,
    },
    user_agent: { type: 'string', maxLength: MAX_USER_AGENT_LENGTH, description: 'Overrides User-Agent (light and standard); a header value like those of `headers`. Codes: `invalid_user_agent`, `invalid_user_agent_tier` on stealth.' },
    method: { type: 'string', enum: HTTP_METHODS, default: 'GET', description: 'light only. Code: `invalid_method`.' },
    body: { type: ['string', 'null'], description: 'light only, for POST, PUT, PATCH. Code: `invalid_body`.' },
    follow_redirects: { type: 'boolean', default: true, description: 'light only. Each hop is checked against the SSRF policy.' },
    max_redirects: { type: 'integer', minimum: 0, maximum: 20, default: 10, description: 'light only. Code: `invalid_max_redirects`.' },
    retry_policy: {
      type: 'object', additionalProperties: false,
      description: 'light only. Code: `invalid_retry_policy`. Retries happen on the listed statuses and on network errors, with exponential backoff inside timeout_ms.',
      properties: {
        max_attempts: { type: 'integer', minimum: 1, maximum: 10, default: DEFAULT_RETRY_POLICY.max_attempts, description: 'Includes the first attempt.' },
        retry_on_status: { type: 'array', maxItems: MAX_RETRY_STATUSES, items: { type: 'integer', minimum: 100, maximum: 599 }, default: DEFAULT_RETRY_POLICY.retry_on_status },
        retry_methods: { type: 'array', maxItems: HTTP_METHODS.length, items: { type: 'string', enum: HTTP_METHODS }, default: DEFAULT_RETRY_POLICY.retry_methods },
      },
    },
    headless: { type: 'boolean', default: true, description: 'browser tiers.' },
    browser: { type: 'string', description: 'Set by the tier (`chromium` on standard, `stealth` on stealth); any other value answers `invalid_browser`.' },
    wait_until: { type: 'string', enum: WAIT_UNTIL, default: 'load', description: 'browser tiers. Code: `invalid_wait_until`.' },
    navigation_timeout_ms: { type: 'integer', minimum: 1000, maximum: 300000, default: 30000, description: 'browser tiers. Code: `invalid_navigation_timeout_ms`.' },
    viewport: {
      type: 'object', additionalProperties: false, required: ['width', 'height'], description: 'standard only. Codes: `invalid_viewport_width`, `invalid_viewport_height`, `invalid_viewport_tier`.',
      properties: { width: { type: 'integer', minimum: 320, maximum: 7680 }, height: { type: 'integer', minimum: 240, maximum: 4320 } },
    },
    locale: { type: 'string', description: 'standard only, BCP-47. Codes: `invalid_locale`, `invalid_locale_tier`.' },
    timezone_id: { type: 'string', description: 'standard only, IANA name. Codes: `invalid_timezone_id`, `invalid_timezone_id_tier`.' },
    actions: {
      type: 'array', maxItems: MAX_ACTIONS, description: 'browser tiers, run in order after load. Each action has the fields of its type only (click: selector; fill: selector, value; scroll: direction; wait: timeout_ms); others answer `unknown_field`. Codes: `invalid_actions`, `invalid_action_type`, `invalid_action_selector`, `invalid_action_value`, `invalid_scroll_direction`, `invalid_action_timeout_ms`, `invalid_actions_tier`.',
      items: {
        type: 'object', additionalProperties: false, required: ['type'], properties: {
          type: { type: 'string', enum: ACTION_TYPES }, selector: { type: 'string' }, value: { type: 'string' },
          direction: { type: 'string', enum: ['down'] }, timeout_ms: { type: 'integer', minimum: 0, maximum: 60000 },
        },
      },
    },
    os_name: { type: 'string', enum: OS_NAMES, description: 'stealth only. Code: `invalid_os_name`.' },
    browser_extensions: { type: 'array', maxItems: BROWSER_EXTENSIONS.length, items: { type: 'string', enum: BROWSER_EXTENSIONS }, description: 'stealth only. Code: `invalid_browser_extensions`.' },
    proxy: {
      type: 'object', additionalProperties: false, required: ['server'], description: 'stealth only (`invalid_proxy_tier` elsewhere). Chained behind the egress gateway. Codes: `invalid_proxy_server`, `unsafe_proxy_server`, `invalid_proxy_username`, `invalid_proxy_password`, `invalid_proxy_bypass`.',
      properties: { server: { type: 'string' }, username: { type: 'string', minLength: 1, maxLength: 256 }, password: { type: 'string', minLength: 1, maxLength: 256 }, bypass: { type: 'string', minLength: 1, maxLength: 1024 } },
    },
    formats: {
      type: 'array', minItems: 1, maxItems: FORMATS.length, uniqueItems: true, items: { type: 'string', enum: FORMATS },
      description: `What GET /v1/jobs/{job_id}/result carries inline, under \`formats\`. Each format is an artifact the job makes (it turns its artifact option on): \`markdown\` the main article as Markdown (\`reader\`; empty when the page has no article-like content), \`html\` the page's HTML (\`html\`: the rendered DOM on browser tiers, the HTML response on light), \`rawHtml\` the response body as received (\`response_body\`), \`text\` (\`text\`), \`links\` (\`links\`), \`metadata\` (\`page_metadata\`), \`json\` the response body parsed as JSON (\`response_body\`; null when it is not JSON), and on browser tiers \`screenshot\` (viewport), \`screenshot@fullPage\` (the whole page) and \`pdf\` (the page printed to PDF by headless Chromium, artifact \`pdf\`), which come as download links. On light, markdown, text, links and metadata are made from an HTML response (none for another content type). Text and JSON inline content is capped at ${INLINE_FORMAT_MAX_BYTES} bytes per format: past it the text is cut (JSON left out, null) and \`formats_truncated\` names the artifact holding all of it. Codes: \`invalid_formats\` (not a list, or empty), \`unknown_format\`, \`duplicate_format\`, \`format_not_supported_by_tier\` (screenshot, screenshot@fullPage or pdf on light), \`format_conflict\` (a format whose artifact option the request sets to false, screenshot with screenshot@fullPage, pdf with headless false); the field is \`formats[<index>]\`.`,
    },
    artifact_options: {
      type: 'object', additionalProperties: false, description: 'Unknown options answer `unknown_field`; browser-only options set to true on light answer `invalid_<option>_tier`. `formats` turn the options they need on.',
      properties: {
        include_html: bool('Save the final HTML (artifact_type `html`).', true),
        include_response_body: bool('Save the raw response body (`response_body`).'),
        include_extraction: bool('Run extraction hooks and save their JSON (`json`). Defaults to true when extraction.hooks are sent; true without hooks saves an empty result `{"hooks": []}`.'),
        include_screenshot: bool('browser: PNG (`screenshot`).'),
        full_page_screenshot: bool('browser: the screenshot holds the whole page, not the viewport.'),
        include_pdf: bool('browser, headless: the page printed to PDF (`pdf`, application/pdf).'),
        include_har: bool('browser: network trace without bodies (`har`).'),
        include_reader: bool('Article as Markdown (`reader`); on light from an HTML response.'),
        include_links: bool('Every a href, absolute (`links`); on light from an HTML response.'),
        include_text: bool('Visible text (`text`): as rendered on browser tiers, the text outside scripts, styles and templates of an HTML response on light.'),
        include_page_metadata: bool('Title, description, canonical, Open Graph, Twitter, JSON-LD (`page_metadata`); on light from an HTML response.'),
        include_console: bool('browser: console logs (`console`).'),
        block_images: bool('browser.'), block_styles: bool('browser; alias block_stylesheets.'), block_media: bool('browser.'), block_fonts: bool('browser.'),
        no_scroll: bool('browser: do not scroll to trigger lazy content before capture.'),
      },
    },
    extraction: {
      type: 'object', additionalProperties: false, required: ['hooks'],
      description: `Extraction hooks (up to ${MAX_HOOKS}); see the extraction section of the README for hook fields, transforms and 422 codes. Each hook has the fields of its type only; others answer \`unknown_field\`. \`hook_id\`: at most ${MAX_HOOK_ID_LENGTH} characters, no control characters (\`invalid_hook_id\`). Regex patterns run with RE2 semantics: one RE2 cannot run (backreferences, lookahead) answers 422 \`regex_unsupported\`. CSS selectors (\`selector\`, \`container\`, field selectors) over the caps (\`:has()\` inside \`:has()\`, more than 16 combinators, more than 32 alternatives) answer 422 \`selector_too_complex\` (docs/limits.md). Hooks run in a worker with a 15 s deadline: past it the job fails with \`extraction_timeout\`.`,
      properties: {
        hooks: {
          type: 'array', maxItems: MAX_HOOKS,
          items: {
            type: 'object', additionalProperties: false, required: ['hook_id', 'type'],
            properties: {
              hook_id: { type: 'string', minLength: 1, maxLength: MAX_HOOK_ID_LENGTH }, type: { type: 'string', enum: HOOK_TYPES },
              all_matches: { type: 'boolean', default: false }, max_results: { type: 'integer', minimum: 1, maximum: MAX_MAX_RESULTS, default: DEFAULT_MAX_RESULTS },
              selector: { type: 'string', description: 'css (`selector_too_complex` over the caps of docs/limits.md)' }, attribute: { type: 'string', description: 'css' },
              path: { type: 'string', description: 'xpath, jsonpath' }, pattern: { type: 'string', description: 'regex (RE2 semantics; `regex_unsupported` for backreferences or lookahead)' },
              group: { type: 'integer', minimum: 0, default: 0, description: 'regex' },
              container: { type: 'string', description: 'records' },
              fields: {
                type: 'object', description: 'records: field name to {selector, attribute, transform, required, default}',
                additionalProperties: {
                  type: 'object', additionalProperties: false, required: ['selector'],
                  properties: { selector: { type: 'string' }, attribute: { type: 'string' }, transform: { type: 'array', items: { type: 'string' } }, required: { type: 'boolean' }, default: {} },
                },
              },
            },
          },
        },
      },
    },
  },
} as const
