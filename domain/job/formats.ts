import { fieldError } from '../errors.js'
import type { Errors } from '../validation.js'
import type { JobType } from './spec.js'

/**
 * The outputs a job can be asked for by name (`formats`, as Firecrawl's users know them). A format is not a second
 * pipeline: each one is an artifact the engines already make, selected through its artifact option, and the result
 * route (GET /v1/jobs/{id}/result) reads that artifact back inline.
 */
export const FORMATS = ['markdown', 'html', 'rawHtml', 'text', 'links', 'metadata', 'screenshot', 'screenshot@fullPage', 'json', 'pdf'] as const
export type Format = (typeof FORMATS)[number]

/** The artifact options a format needs (true), beside the artifact it reads. */
export type FormatOption =
  | 'include_reader' | 'include_html' | 'include_response_body' | 'include_text' | 'include_links' | 'include_page_metadata'
  | 'include_screenshot' | 'full_page_screenshot' | 'include_pdf'

/** How a format's artifact is put inline in the result: as text, as its JSON value, or as a download link (binary). */
export type InlineAs = 'text' | 'json' | 'link'

export interface FormatDefinition {
  readonly artifact_type: string
  readonly options: readonly FormatOption[]
  readonly inline: InlineAs
  /** Tiers that can make it; the others answer 422 `format_not_supported_by_tier`. */
  readonly tiers: readonly JobType[]
}

const EVERY_TIER: readonly JobType[] = ['light', 'standard', 'stealth']
const BROWSER_TIERS: readonly JobType[] = ['standard', 'stealth']

export const FORMAT_DEFINITIONS: { readonly [F in Format]: FormatDefinition } = {
  markdown: { artifact_type: 'reader', options: ['include_reader'], inline: 'text', tiers: EVERY_TIER },
  html: { artifact_type: 'html', options: ['include_html'], inline: 'text', tiers: EVERY_TIER },
  rawHtml: { artifact_type: 'response_body', options: ['include_response_body'], inline: 'text', tiers: EVERY_TIER },
  text: { artifact_type: 'text', options: ['include_text'], inline: 'text', tiers: EVERY_TIER },
  links: { artifact_type: 'links', options: ['include_links'], inline: 'json', tiers: EVERY_TIER },
  metadata: { artifact_type: 'page_metadata', options: ['include_page_metadata'], inline: 'json', tiers: EVERY_TIER },
  screenshot: { artifact_type: 'screenshot', options: ['include_screenshot'], inline: 'link', tiers: BROWSER_TIERS },
  'screenshot@fullPage': { artifact_type: 'screenshot', options: ['include_screenshot', 'full_page_screenshot'], inline: 'link', tiers: BROWSER_TIERS },
  json: { artifact_type: 'response_body', options: ['include_response_body'], inline: 'json', tiers: EVERY_TIER },
  pdf: { artifact_type: 'pdf', options: ['include_pdf'], inline: 'link', tiers: BROWSER_TIERS },
}

/**
 * Checks `formats` of a job request: a non-empty list of distinct known formats the tier can make, none of which
 * needs an artifact option the request turned off. Answers the formats (undefined when absent or invalid) and
 * records every problem in `errors`.
 */
export const validateFormats = (
  errors: Errors, v: unknown, tier: JobType | undefined, explicitOptions: Readonly<Record<string, unknown>>, headless: boolean,
): Format[] | undefined => {
  if (v === undefined) return undefined
  if (!Array.isArray(v) || v.length === 0) {
    errors.push(fieldError('formats', 'invalid_formats', `formats must be a non-empty list of ${FORMATS.join(', ')}`))
    return undefined
  }
  const before = errors.length
  const formats: Format[] = []
  v.forEach((raw, i) => {
    const at = `formats[${i}]`
    if (typeof raw !== 'string' || !(FORMATS as readonly string[]).includes(raw)) {
      return void errors.push(fieldError(at, 'unknown_format', `${at} must be one of ${FORMATS.join(', ')}`))
    }
    const format = raw as Format
    if (formats.includes(format)) return void errors.push(fieldError(at, 'duplicate_format', `${at}: ${format} is listed twice`))
    formats.push(format)
    const definition = FORMAT_DEFINITIONS[format]
    if (tier && !definition.tiers.includes(tier)) {
      return void errors.push(fieldError(at, 'format_not_supported_by_tier', `${format} needs a tier of ${definition.tiers.join(', ')}; ${tier} cannot make it`))
    }
    const turnedOff = definition.options.find((option) => explicitOptions[option] === false)
    if (turnedOff) return void errors.push(fieldError(at, 'format_conflict', `${format} needs artifact_options.${turnedOff}, which the request sets to false`))
    if (format === 'pdf' && !headless) errors.push(fieldError(at, 'format_conflict', 'pdf is printed by a headless browser only: leave headless at true'))
  })
  // One job makes one screenshot: of the viewport or of the whole page.
  if (formats.includes('screenshot') && formats.includes('screenshot@fullPage')) {
    errors.push(fieldError(`formats[${v.indexOf('screenshot@fullPage')}]`, 'format_conflict', 'screenshot and screenshot@fullPage cannot both be asked for: a job makes one screenshot'))
  }
  return errors.length === before ? formats : undefined
}

/** The artifact options the formats turn on. */
export const optionsOfFormats = (formats: readonly Format[]): ReadonlySet<FormatOption> =>
  new Set(formats.flatMap((format) => FORMAT_DEFINITIONS[format].options))
