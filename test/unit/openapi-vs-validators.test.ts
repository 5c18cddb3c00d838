import t from 'tap'
import { servedOpenApi } from '../helpers/openapi-document.js'
import { Either } from 'effect'
import { JOB_REQUEST_FIELDS, validateJobSpec } from '../../domain/job/spec.js'
import { boundKeyRequest } from '../../domain/org/key-bounds.js'
import { validateKeyRequest } from '../../domain/org/key-request.js'
import { SCOPES } from '../../domain/scopes.js'

/**
 * The OpenAPI body schemas document what the domain validators do (they never validate bodies themselves):
 * field names, enums, defaults and bounds must agree, or clients generated from the document break.
 */
const { doc, close } = await servedOpenApi()
t.teardown(close)

const TIERS = ['light', 'standard', 'stealth'] as const
const jobSchema = doc.components.schemas.JobRequest
const checkJob = (body: Record<string, unknown>) => validateJobSpec(body, { allowlist: new Set(), isTimeZone: () => true })
const jobErrorsOn = (field: string, body: Record<string, unknown>) => {
  const checked = checkJob(body)
  return checked.ok ? [] : checked.errors.filter((e) => e.field === field || e.field.startsWith(`${field}.`) || e.field.startsWith(`${field}[`))
}
/** Tiers on which a field with this value is accepted. */
const tiersAccepting = (field: string, value: unknown) =>
  TIERS.filter((job_type) => jobErrorsOn(field, { job_type, target_url: 'https://example.com/', [field]: value, ...(field === 'body' ? { method: 'POST' } : {}) }).length === 0)

t.test('job request: the documented fields are exactly the validated ones', async (t) => {
  t.same(Object.keys(jobSchema.properties).sort(), [...JOB_REQUEST_FIELDS].sort())
  t.same(jobSchema.required, ['job_type', 'target_url'])
  const unknown = checkJob({ job_type: 'light', target_url: 'https://example.com/', zzz: 1 })
  t.ok(!unknown.ok && unknown.errors.some((e) => e.code === 'unknown_field'))
  t.equal(jobSchema.additionalProperties, false)
})

t.test('job request: every documented enum value is accepted, others are refused', async (t) => {
  for (const [field, property] of Object.entries<any>(jobSchema.properties)) {
    if (!property.enum || field === 'job_type') continue
    for (const value of property.enum) t.ok(tiersAccepting(field, value).length > 0, `${field}=${value} is accepted on some tier`)
    t.same(tiersAccepting(field, 'not-a-value'), [], `${field}=not-a-value is refused`)
  }
  for (const job_type of jobSchema.properties.job_type.enum) t.ok(checkJob({ job_type, target_url: 'https://example.com/' }).ok, job_type)
  const hookTypes = jobSchema.properties.extraction.properties.hooks.items.properties.type.enum
  t.ok(hookTypes.length > 0)
  const retryMethods = jobSchema.properties.retry_policy.properties.retry_methods.items.enum
  t.ok(tiersAccepting('retry_policy', { retry_methods: retryMethods }).includes('light'))
  t.same(tiersAccepting('retry_policy', { retry_methods: ['FETCH'] }), [])
})

t.test('job request: documented defaults are the ones applied', async (t) => {
  for (const job_type of ['light', 'standard'] as const) {
    const checked = checkJob({ job_type, target_url: 'https://example.com/' })
    if (!checked.ok) throw new Error('minimal body refused')
    const spec = checked.spec as unknown as Record<string, any>
    for (const [field, property] of Object.entries<any>(jobSchema.properties)) {
      if ('default' in property) t.same(spec[field], property.default, `${job_type}: ${field} defaults to ${JSON.stringify(property.default)}`)
      for (const [sub, nested] of Object.entries<any>(property.properties ?? {})) {
        if ('default' in nested && field !== 'extraction') t.same(spec[field][sub], nested.default, `${job_type}: ${field}.${sub}`)
      }
    }
  }
})

t.test('job request: documented integer bounds and list caps are the enforced ones', async (t) => {
  for (const [field, property] of Object.entries<any>(jobSchema.properties)) {
    if (property.type !== 'integer') continue
    const tiers = tiersAccepting(field, property.minimum)
    t.ok(tiers.length > 0, `${field} minimum accepted`)
    const tier = tiers[0]!
    const on = (value: number) => jobErrorsOn(field, { job_type: tier, target_url: 'https://example.com/', [field]: value }).length === 0
    t.ok(on(property.maximum), `${field}=${property.maximum} accepted`)
    t.notOk(on(property.maximum + 1), `${field}=${property.maximum + 1} refused`)
    t.notOk(on(property.minimum - 1), `${field}=${property.minimum - 1} refused`)
  }
  const tags = jobSchema.properties.tags
  t.same(tiersAccepting('tags', Array.from({ length: tags.maxItems }, (_, i) => `${i}`.padEnd(tags.items.maxLength, 'x'))), TIERS)
  t.same(tiersAccepting('tags', Array.from({ length: tags.maxItems + 1 }, (_, i) => `${i}`)), [])
  t.same(tiersAccepting('tags', ['x'.repeat(tags.items.maxLength + 1)]), [])
  const headers = jobSchema.properties.headers
  const headerSet = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`x-h${i}`, 'v']))
  t.ok(tiersAccepting('headers', headerSet(headers.maxProperties)).length > 0)
  t.same(tiersAccepting('headers', headerSet(headers.maxProperties + 1)), [])
  const statuses = jobSchema.properties.retry_policy.properties.retry_on_status
  t.ok(tiersAccepting('retry_policy', { retry_on_status: Array.from({ length: statuses.maxItems }, () => 503) }).includes('light'))
  t.same(tiersAccepting('retry_policy', { retry_on_status: Array.from({ length: statuses.maxItems + 1 }, () => 503) }), [])
  const actions = jobSchema.properties.actions
  t.ok(tiersAccepting('actions', Array.from({ length: actions.maxItems }, () => ({ type: 'scroll' }))).includes('standard'))
  t.same(tiersAccepting('actions', Array.from({ length: actions.maxItems + 1 }, () => ({ type: 'scroll' }))), [])
  const idToken = jobSchema.properties.idempotency_token
  t.same(tiersAccepting('idempotency_token', 'x'.repeat(idToken.maxLength)), TIERS)
  t.same(tiersAccepting('idempotency_token', 'x'.repeat(idToken.maxLength + 1)), [])
})

const keyBody = doc.paths['/v1/keys'].post.requestBody.content['application/json'].schema
const checkKey = (body: Record<string, unknown>) => validateKeyRequest(body, new Date())
const minimalKey = { name: 'k', scopes: ['jobs.read'] }

t.test('key request: documented fields, required fields, enums and defaults agree with the validator', async (t) => {
  const samples: Record<string, unknown> = {
    name: 'k', scopes: ['jobs.read'], rate_limit_rpm: 10, daily_quota: 10, max_concurrent_jobs: 1, enforcement_mode: 'observe',
    ip_allowlist: ['10.0.0.0/8'], expires_at: new Date(Date.now() + 86_400_000).toISOString(),
  }
  t.same(Object.keys(keyBody.properties).sort(), Object.keys(samples).sort(), 'every documented field has a sample here')
  t.ok(checkKey(samples).ok, 'every documented field is accepted')
  const unknown = checkKey({ ...minimalKey, zzz: 1 })
  t.ok(!unknown.ok && unknown.errors.some((e) => e.code === 'unknown_field'), 'an undocumented field is refused')
  for (const field of keyBody.required) {
    const { [field]: _, ...without } = minimalKey as Record<string, unknown>
    const checked = checkKey(without)
    t.ok(!checked.ok && checked.errors.some((e) => e.code === `missing_${field}`), `${field} is required`)
  }
  t.same([...keyBody.properties.scopes.items.enum].sort(), [...SCOPES].sort())
  for (const mode of keyBody.properties.enforcement_mode.enum) t.ok(checkKey({ ...minimalKey, enforcement_mode: mode }).ok, mode)
  t.notOk(checkKey({ ...minimalKey, enforcement_mode: 'loud' }).ok)
  const checked = checkKey(minimalKey)
  if (!checked.ok) throw new Error('minimal key refused')
  // Omitted limits take their defaults when the key is bounded; a creator without bounds (the CLI) gets the documented ones.
  const bounded = Either.getOrThrow(boundKeyRequest(null, checked.value))
  for (const [field, property] of Object.entries<any>(keyBody.properties)) {
    if ('default' in property) t.same((bounded.limits as Record<string, unknown>)[field], property.default, `${field} defaults to ${property.default}`)
    if (typeof property.minimum === 'number') t.notOk(checkKey({ ...minimalKey, [field]: property.minimum - 1 }).ok, `${field} below its minimum is refused`)
  }
})
