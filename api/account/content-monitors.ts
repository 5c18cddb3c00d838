import type { FastifyInstance } from 'fastify'
import { createContentMonitor, requestContentMonitorRun, updateContentMonitor } from '../../commands/content-monitors.js'
import { ValidationFailed } from '../../domain/errors.js'
import { MAX_ACTIVE_CONTENT_MONITORS, AUTO_DISABLE_AFTER_FAILURES } from '../../domain/content-monitor/limits.js'
import { validateContentMonitor, validateContentMonitorChanges } from '../../domain/content-monitor/request.js'
import { MONITOR_STATUSES } from '../../domain/content-monitor/events.js'
import { SCRAPE_BACKENDS } from '../../domain/scrape/events.js'
import type { PlanName } from '../../domain/plans.js'
import { CONTENT_MONITOR_SORTS, getContentMonitor, getRun, listContentMonitors, recentRuns, type ContentMonitorListQuery } from '../../projections/content-monitor-queries.js'
import { CONTENT_MONITOR_RUNS, CONTENT_MONITORS, type ContentMonitorDoc, type ContentMonitorRunDoc } from '../../projections/content-monitors.js'
import { getOrg } from '../../projections/org-queries.js'
import { waitForPosition } from '../../projections/read-your-writes.js'
import { requestMetadata } from '../event-metadata.js'
import type { AccountContext } from './context.js'
import { CreateMonitorBody, MonitorItemSchema, MonitorSchema, PatchMonitorBody, RunSchema } from './content-monitor-schemas.js'
import { accountPaging, pageOf } from './scrape-schemas.js'
import { accountSecurity, EmailNotVerified, MalformedBody, NotAuthenticated, SEARCH_TEXT_MAX_LENGTH, ValidationErrorBody } from './schemas.js'
import { userOf, type Sessions } from './session.js'

const itemOf = (doc: ContentMonitorDoc) => ({
  id: doc.monitor_id, name: doc.name, url: doc.url, backend: doc.backend, status: doc.status, frequencyMinutes: doc.frequency_minutes,
  rule: doc.rule, nextRunAt: doc.next_run_at, lastRunAt: doc.last_run_at, lastChangeAt: doc.last_change_at,
  lastChangeSummary: doc.last_change_summary, lastSnapshot: doc.last_snapshot, consecutiveFailures: doc.consecutive_failures,
  createdAt: doc.created_at, updatedAt: doc.updated_at,
})
const monitorOf = (doc: ContentMonitorDoc) => ({ ...itemOf(doc), lastErrorCode: doc.last_error_code, lastErrorMessage: doc.last_error_message })
const runOf = (doc: ContentMonitorRunDoc) => ({
  id: doc.run_id, monitorId: doc.monitor_id, status: doc.status, changeDetected: doc.change_detected, changeSummary: doc.change_summary,
  scrapeId: doc.started_at !== null ? doc.run_id : null, statusCode: doc.status_code, errorCode: doc.error_code, errorMessage: doc.error_message,
  scheduledAt: doc.scheduled_at, startedAt: doc.started_at, completedAt: doc.completed_at, snapshotBefore: doc.snapshot_before, snapshotAfter: doc.snapshot_after,
})

const NotFoundBody = { type: 'object', required: ['detail'], properties: { detail: { type: 'string', enum: ['content_monitor_not_found'] } } } as const
const LimitBody = {
  ...ValidationErrorBody,
  description: `\`detail: monitor_limit_reached\`: the user already has ${MAX_ACTIVE_CONTENT_MONITORS} active monitors; otherwise \`validation_error\` with one entry per failing field.`,
  properties: { ...ValidationErrorBody.properties, detail: { type: 'string', enum: ['validation_error', 'monitor_limit_reached'] } },
} as const
const idParams = { type: 'object', required: ['id'], properties: { id: { type: 'string', maxLength: 64 } } } as const
const pathErrors = { 401: NotAuthenticated, 404: NotFoundBody } as const
const CODES = 'missing_url, invalid_url, unsafe_url, missing_backend, invalid_backend, missing_frequencyMinutes, invalid_frequencyMinutes (5-1440), '
  + 'missing_rule, invalid_rule, missing_rule_type, invalid_rule_type, invalid_rule_config, missing_needle, needle_too_long (512), invalid_needle, '
  + 'invalid_caseSensitive, invalid_name, invalid_status, unknown_field'

/** Content monitors (SPEC 2.5, 3.3): a page checked every N minutes against one rule. */
export const contentMonitorRoutes = async (app: FastifyInstance, account: AccountContext, sessions: Sessions) => {
  const { ssrfAllowlist } = account.settings
  const fresh = async (orgId: string, monitorId: string, position: number) => {
    await account.run(waitForPosition(CONTENT_MONITORS, monitorId, position))
    return account.run(getContentMonitor(orgId, monitorId))
  }

  app.post('/content-monitors', {
    preHandler: sessions.requireVerifiedUser,
    schema: {
      tags: ['account'], summary: 'Create a content monitor', security: accountSecurity, body: CreateMonitorBody,
      description: `Created \`active\` with \`nextRunAt\` one period ahead; \`name\` defaults to the URL. At most ${MAX_ACTIVE_CONTENT_MONITORS} active monitors per user (422 \`monitor_limit_reached\`). 422 codes: ${CODES}.`,
      response: { 201: MonitorSchema, 400: MalformedBody, 401: NotAuthenticated, 403: EmailNotVerified, 422: LimitBody },
    },
  }, async (request, reply) => {
    const user = userOf(request)
    const checked = validateContentMonitor(request.body, ssrfAllowlist)
    if (!checked.ok) throw new ValidationFailed({ errors: checked.errors })
    const created = await account.run(createContentMonitor({ user_id: user.user_id, org_id: user.org_id, fields: checked.value, metadata: requestMetadata(request, `user:${user.user_id}`) }))
    return reply.code(201).send(monitorOf(await fresh(user.org_id, created.monitor_id, created.position)))
  })

  app.get('/content-monitors', {
    preHandler: sessions.requireUser,
    schema: {
      tags: ['account'], summary: "List the content monitors of the user's organization", security: accountSecurity,
      description: 'With scheduling (`nextRunAt`, `lastRunAt`) and the last snapshot. `q` matches a substring of the name or URL (case-insensitive). Newest first by default; a page past the end answers no items.',
      querystring: {
        type: 'object', additionalProperties: false,
        properties: {
          status: { type: 'string', enum: MONITOR_STATUSES }, backend: { type: 'string', enum: SCRAPE_BACKENDS }, q: { type: 'string', maxLength: SEARCH_TEXT_MAX_LENGTH },
          sort: { type: 'string', enum: Object.keys(CONTENT_MONITOR_SORTS), default: 'createdAt' }, ...accountPaging(20),
        },
      },
      response: { 200: pageOf(MonitorItemSchema), 401: NotAuthenticated, 422: ValidationErrorBody },
    },
  }, async (request) => {
    const query = request.query as ContentMonitorListQuery
    const { items, total } = await account.run(listContentMonitors(userOf(request).org_id, query))
    return { items: items.map(itemOf), total, page: query.page, perPage: query.perPage, pageCount: Math.ceil(total / query.perPage) }
  })

  app.get('/content-monitors/:id', {
    preHandler: sessions.requireUser,
    schema: {
      tags: ['account'], summary: 'Get a content monitor', security: accountSecurity, params: idParams,
      description: "With `lastErrorCode` and `lastErrorMessage` of the last failed run. Every user of the organization sees and changes its monitors; another organization's is 404.",
      response: { 200: MonitorSchema, ...pathErrors, 422: ValidationErrorBody },
    },
  }, async (request) => monitorOf(await account.run(getContentMonitor(userOf(request).org_id, (request.params as { id: string }).id))))

  app.patch('/content-monitors/:id', {
    preHandler: sessions.requireVerifiedUser,
    schema: {
      tags: ['account'], summary: 'Change a content monitor', security: accountSecurity, params: idParams, body: PatchMonitorBody,
      description: `Any of \`name\`, \`frequencyMinutes\`, \`status\` (\`active\`, \`paused\`, \`disabled\`), \`rule\`. Becoming active again counts against the ${MAX_ACTIVE_CONTENT_MONITORS} active monitors (422 \`monitor_limit_reached\`) and starts the failure count over; a new rule starts from a new baseline. 422 codes as on create.`,
      response: { 200: MonitorSchema, 400: MalformedBody, ...pathErrors, 403: EmailNotVerified, 422: LimitBody },
    },
  }, async (request) => {
    const user = userOf(request)
    const { id } = request.params as { id: string }
    const checked = validateContentMonitorChanges(request.body)
    if (!checked.ok) throw new ValidationFailed({ errors: checked.errors })
    const updated = await account.run(updateContentMonitor(user.org_id, id, checked.value, requestMetadata(request, `user:${user.user_id}`)))
    return monitorOf(await fresh(user.org_id, id, updated.position))
  })

  app.get('/content-monitors/:id/runs', {
    preHandler: sessions.requireUser,
    schema: {
      tags: ['account'], summary: 'A content monitor and its recent runs', security: accountSecurity, params: idParams,
      querystring: { type: 'object', additionalProperties: false, properties: { limit: { type: 'integer', minimum: 1, maximum: 100, default: 20 } } },
      description: 'Runs newest (scheduled) first; `limit` 1-100 (default 20).',
      response: {
        200: { type: 'object', required: ['monitor', 'runs'], properties: { monitor: MonitorSchema, runs: { type: 'array', items: RunSchema } } },
        ...pathErrors, 422: ValidationErrorBody,
      },
    },
  }, async (request) => {
    const user = userOf(request)
    const { id } = request.params as { id: string }
    const monitor = await account.run(getContentMonitor(user.org_id, id))
    const runs = await account.run(recentRuns(id, (request.query as { limit: number }).limit))
    return { monitor: monitorOf(monitor), runs: runs.map(runOf) }
  })

  app.post('/content-monitors/:id/runs', {
    preHandler: sessions.requireVerifiedUser,
    schema: {
      tags: ['account'], summary: 'Ask for a run', security: accountSecurity, params: idParams,
      body: { type: 'object', properties: { force: { type: 'boolean', default: false } } },
      description: '`force: true` runs now (also a paused or disabled monitor); the run is `skipped` at no cost when the plan\'s limits refuse its job. '
        + 'Otherwise the run of the next scheduled instant is recorded `pending` (asking again answers the same run); 409 `monitor_not_active` for a '
        + `monitor that is not active. After ${AUTO_DISABLE_AFTER_FAILURES} consecutive failed runs a monitor is disabled and its owner e-mailed.`,
      response: { 201: RunSchema, 400: MalformedBody, ...pathErrors, 403: EmailNotVerified, 409: { type: 'object', required: ['detail'], properties: { detail: { type: 'string', enum: ['monitor_not_active'] } } }, 422: ValidationErrorBody },
    },
  }, async (request, reply) => {
    const user = userOf(request)
    const { id } = request.params as { id: string }
    const body = (request.body ?? {}) as Record<string, unknown>
    const extra = typeof body === 'object' && body !== null ? Object.keys(body).filter((k) => k !== 'force') : []
    if (typeof body !== 'object' || body === null || Array.isArray(body) || extra.length > 0 || (body.force !== undefined && typeof body.force !== 'boolean')) {
      throw new ValidationFailed({ errors: extra.length > 0
        ? extra.map((k) => ({ field: k, code: 'unknown_field', message: `${k} is not a known field` }))
        : [{ field: 'force', code: 'invalid_force', message: 'force must be a boolean' }] })
    }
    const org = await account.run(getOrg(user.org_id))
    const requested = await account.run(requestContentMonitorRun({
      org_id: user.org_id, monitor_id: id, force: body.force === true, plan: org.plan as PlanName, allowlist: ssrfAllowlist,
      metadata: requestMetadata(request, `user:${user.user_id}`),
    }))
    await account.run(waitForPosition(CONTENT_MONITOR_RUNS, requested.run_id, requested.position))
    const run = await account.run(getRun(requested.run_id))
    return reply.code(201).send(run ? runOf(run) : null)
  })
}
