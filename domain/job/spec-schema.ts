import { Schema } from 'effect'
import { HOOK_TYPES, TRANSFORMS, type ExtractionSpec } from '../extraction.js'
import { RecipeRunSpec } from '../recipe/run-spec.js'
import { FORMATS } from './formats.js'
import { BROWSER_EXTENSIONS, HTTP_METHODS, JOB_TYPES, OS_NAMES, WAIT_UNTIL } from './spec.js'

/**
 * The structure of a validated job spec, as `JobRequested` records it. validateJobSpec (spec.ts) checks the rules
 * (ranges, tiers, URLs) and builds this shape; the schema checks the shape when an event is read back, and its
 * Type is the `JobSpec` type. Never edit a field of it: add optional ones (events already recorded must decode).
 */

const RecordField = Schema.Struct({
  selector: Schema.String,
  attribute: Schema.optional(Schema.String),
  transform: Schema.optional(Schema.Array(Schema.Literal(...TRANSFORMS))),
  required: Schema.optional(Schema.Boolean),
  default: Schema.optional(Schema.Unknown),
})

const ExtractionHook = Schema.Struct({
  hook_id: Schema.String,
  type: Schema.Literal(...HOOK_TYPES),
  selector: Schema.optional(Schema.String),
  attribute: Schema.optional(Schema.String),
  path: Schema.optional(Schema.String),
  pattern: Schema.optional(Schema.String),
  group: Schema.optional(Schema.Number),
  all_matches: Schema.Boolean,
  max_results: Schema.Number,
  container: Schema.optional(Schema.String),
  fields: Schema.optional(Schema.Record({ key: Schema.String, value: RecordField })),
})

/** Typed against the interface of extraction.ts, so the two cannot drift apart. */
export const ExtractionSpecSchema: Schema.Schema<ExtractionSpec> = Schema.Struct({ hooks: Schema.Array(ExtractionHook) })

export const RetryPolicy = Schema.Struct({
  max_attempts: Schema.Number,
  retry_on_status: Schema.Array(Schema.Number),
  retry_methods: Schema.Array(Schema.Literal(...HTTP_METHODS)),
})

export const Action = Schema.Union(
  Schema.Struct({ type: Schema.Literal('click'), selector: Schema.String }),
  Schema.Struct({ type: Schema.Literal('fill'), selector: Schema.String, value: Schema.String }),
  Schema.Struct({ type: Schema.Literal('scroll'), direction: Schema.Literal('down') }),
  Schema.Struct({ type: Schema.Literal('wait'), timeout_ms: Schema.Number }),
)

/** Artifact options, every one resolved to a boolean. */
export const ArtifactOptions = Schema.Struct({
  include_html: Schema.Boolean,
  include_response_body: Schema.Boolean,
  include_extraction: Schema.Boolean,
  include_screenshot: Schema.Boolean,
  include_har: Schema.Boolean,
  include_reader: Schema.Boolean,
  include_links: Schema.Boolean,
  include_text: Schema.Boolean,
  include_page_metadata: Schema.Boolean,
  include_console: Schema.Boolean,
  // Added with `formats`: absent (false) in jobs requested before.
  full_page_screenshot: Schema.optional(Schema.Boolean),
  include_pdf: Schema.optional(Schema.Boolean),
  block_images: Schema.Boolean,
  block_styles: Schema.Boolean,
  block_media: Schema.Boolean,
  block_fonts: Schema.Boolean,
  no_scroll: Schema.Boolean,
})

/** A customer proxy; `password` is sealed (spec-secrets.ts) before the spec is recorded. */
export const ProxySpec = Schema.Struct({
  server: Schema.String,
  username: Schema.optional(Schema.String),
  password: Schema.optional(Schema.String),
  bypass: Schema.optional(Schema.String),
})

/** A validated, normalized job submission: every default applied. */
export const JobSpec = Schema.Struct({
  job_type: Schema.Literal(...JOB_TYPES),
  target_url: Schema.String,
  timeout_ms: Schema.Number,
  tags: Schema.Array(Schema.String),
  idempotency_token: Schema.optional(Schema.String),
  /** The formats the result carries inline (formats.ts); absent when the request named none. */
  formats: Schema.optional(Schema.Array(Schema.Literal(...FORMATS))),
  artifact_options: ArtifactOptions,
  extraction: Schema.optional(ExtractionSpecSchema),
  actions: Schema.Array(Action),
  headers: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.String })),
  user_agent: Schema.optional(Schema.String),
  // light
  method: Schema.Literal(...HTTP_METHODS),
  body: Schema.optional(Schema.NullOr(Schema.String)),
  follow_redirects: Schema.Boolean,
  max_redirects: Schema.Number,
  retry_policy: RetryPolicy,
  // browser
  headless: Schema.Boolean,
  wait_until: Schema.Literal(...WAIT_UNTIL),
  navigation_timeout_ms: Schema.Number,
  viewport: Schema.optional(Schema.Struct({ width: Schema.Number, height: Schema.Number })),
  locale: Schema.optional(Schema.String),
  timezone_id: Schema.optional(Schema.String),
  // stealth
  os_name: Schema.optional(Schema.Literal(...OS_NAMES)),
  browser_extensions: Schema.Array(Schema.Literal(...BROWSER_EXTENSIONS)),
  proxy: Schema.optional(ProxySpec),
  // recipe runs (a job with a recipe block)
  recipe: Schema.optional(RecipeRunSpec),
})
