import type { FastifyInstance, FastifyRequest } from 'fastify'
import { currentTime } from '../../commands/clock.js'
import { createMonitor, deleteMonitor, loadOwnMonitor, pauseMonitor, resumeMonitor, runMonitorNow, updateMonitor } from '../../commands/monitors.js'
import { MissingFields, ValidationFailed } from '../../domain/errors.js'
import { validateMonitorCreate, validateMonitorUpdate } from '../../domain/monitor/request.js'
import { historyStart } from '../../domain/monitor/plan-rules.js'
import { PLANS, type PlanName } from '../../domain/plans.js'
import { isTimeZone } from '../../domain/schedule/schedule.js'
import { getMonitor, listMonitorRuns, listMonitors } from '../../projections/monitor-queries.js'
import { MONITORS } from '../../projections/monitors.js'
import { waitForPosition } from '../../projections/read-your-writes.js'
import { principalOf, requireApiKey } from '../auth.js'
import type { RouteContext } from '../context.js'
import { requestMetadata } from '../event-metadata.js'
import { monitorRunView, monitorView } from './monitor-view.js'
import { errors, pagingProperties, security } from './route-helpers.js'

const monitorParams = { type: 'object', required: ['monitor_id'], properties: { monitor_id: { type: 'string', maxLength: 64 } } } as const
const tags = ['monitors']

export const monitorRoutes = async (app: FastifyInstance, ctx: RouteContext) => {
  const now = () => ctx.run(currentTime)
  const requestContext = async (request: FastifyRequest) => {
    const principal = principalOf(request)
    const plan = principal.plan as PlanName
    return { org_id: principal.org_id, planName: plan, plan: PLANS[plan], now: await now(), metadata: requestMetadata(request, `api_key:${principal.key_id}`) }
  }
  const jobContext = { allowlist: ctx.settings.ssrfAllowlist, isTimeZone }
  /** The monitor once the read model shows the command's position, so the answer and the next GET agree. */
  const answer = async (orgId: string, plan: PlanName, monitorId: string, position: number) => {
    const doc = await ctx.run(waitForPosition(MONITORS, monitorId, position))
    return monitorView(doc ?? await ctx.run(getMonitor(orgId, monitorId)), plan)
  }
  const monitorIdOf = (request: FastifyRequest) => (request.params as { monitor_id: string }).monitor_id

  app.post('/v1/monitors', {
    preHandler: requireApiKey(ctx, 'monitors.write'),
    schema: {
      tags, summary: 'Create a monitor', security,
      description: 'Creates a monitor that runs its job on a cron schedule. Answers 201 with the monitor. A body that is not JSON answers 400 `malformed_body`; without `name`, `cron`, `job_type` or `target_url`, 400 `missing_<field>`; invalid fields 422 with every failing field in `details`; plan rules 422 (`monitoring_not_in_plan`, `monitor_limit_reached`, `detection_not_in_plan`, `detection_limit_reached`, `interval_below_plan_minimum`, `job_type_not_in_plan`). A refused request creates nothing.',
      body: { $ref: 'MonitorRequest#' },
      response: { 201: { $ref: 'Monitor#' }, ...errors(400, 401, 403, 422) },
    },
  }, async (request, reply) => {
    const rc = await requestContext(request)
    const checked = validateMonitorCreate(request.body, jobContext)
    if (!checked.ok) throw checked.missing.length > 0 ? new MissingFields({ errors: checked.missing }) : new ValidationFailed({ errors: checked.errors })
    const created = await ctx.run(createMonitor(checked.fields, rc))
    return reply.code(201).send(await answer(rc.org_id, rc.planName, created.monitor_id, created.position))
  })

  app.get('/v1/monitors', {
    preHandler: requireApiKey(ctx, 'monitors.read'),
    schema: {
      tags, summary: 'List monitors', security, description: 'Newest first. Filter by `status` and `tag`.',
      querystring: {
        type: 'object', additionalProperties: false,
        properties: { status: { type: 'string', enum: ['active', 'paused'] }, tag: { type: 'string', maxLength: 64 }, ...pagingProperties(20) },
      },
      response: {
        200: {
          type: 'object',
          properties: {
            items: { type: 'array', items: { $ref: 'Monitor#' } },
            total: { type: 'integer' }, page: { type: 'integer' }, per_page: { type: 'integer' }, page_count: { type: 'integer' },
          },
        },
        ...errors(401, 403, 422),
      },
    },
  }, async (request) => {
    const principal = principalOf(request)
    const q = request.query as { status?: 'active' | 'paused'; tag?: string; page: number; per_page: number }
    const { items, total } = await ctx.run(listMonitors(principal.org_id, q))
    return { items: items.map((doc) => monitorView(doc, principal.plan as PlanName)), total, page: q.page, per_page: q.per_page, page_count: Math.ceil(total / q.per_page) }
  })

  app.get('/v1/monitors/:monitor_id', {
    preHandler: requireApiKey(ctx, 'monitors.read'),
    schema: { tags, summary: 'Get a monitor', security, params: monitorParams, response: { 200: { $ref: 'Monitor#' }, ...errors(401, 403, 404) } },
  }, async (request) => {
    const principal = principalOf(request)
    return monitorView(await ctx.run(getMonitor(principal.org_id, monitorIdOf(request))), principal.plan as PlanName)
  })

  app.patch('/v1/monitors/:monitor_id', {
    preHandler: requireApiKey(ctx, 'monitors.write'),
    schema: {
      tags, summary: 'Update a monitor', security, params: monitorParams,
      description: 'Changes the fields sent (see MonitorUpdate). A changed cron or timezone schedules from now on. Invalid fields and plan rules answer 422 and change nothing.',
      body: { $ref: 'MonitorUpdate#' },
      response: { 200: { $ref: 'Monitor#' }, ...errors(400, 401, 403, 404, 422) },
    },
  }, async (request) => {
    const rc = await requestContext(request)
    const monitorId = monitorIdOf(request)
    const current = await ctx.run(loadOwnMonitor(rc.org_id, monitorId))
    const checked = validateMonitorUpdate(request.body, current, jobContext)
    if (!checked.ok) throw new ValidationFailed({ errors: checked.errors })
    const updated = await ctx.run(updateMonitor(monitorId, checked.changes, rc))
    return answer(rc.org_id, rc.planName, monitorId, updated.position)
  })

  app.post('/v1/monitors/:monitor_id/pause', {
    preHandler: requireApiKey(ctx, 'monitors.write'),
    schema: { tags, summary: 'Pause a monitor', security, params: monitorParams, description: 'Stops firing (paused_reason `user`); pausing a paused monitor changes nothing.', response: { 200: { $ref: 'Monitor#' }, ...errors(401, 403, 404) } },
  }, async (request) => {
    const rc = await requestContext(request)
    const handled = await ctx.run(pauseMonitor(monitorIdOf(request), 'user', 'paused through the API', rc))
    return answer(rc.org_id, rc.planName, monitorIdOf(request), handled.position)
  })

  app.post('/v1/monitors/:monitor_id/resume', {
    preHandler: requireApiKey(ctx, 'monitors.write'),
    schema: {
      tags, summary: 'Resume a monitor', security, params: monitorParams,
      description: 'Fires again from now on (instants passed while paused are not caught up) and clears the failure streak. A monitor that no longer fits the plan answers 422 with the plan rule\'s code, or `monitor_limit_reached` / `detection_limit_reached` when the plan has no room for one more active monitor (after a downgrade).',
      response: { 200: { $ref: 'Monitor#' }, ...errors(401, 403, 404, 422) },
    },
  }, async (request) => {
    const rc = await requestContext(request)
    const handled = await ctx.run(resumeMonitor(monitorIdOf(request), rc))
    return answer(rc.org_id, rc.planName, monitorIdOf(request), handled.position)
  })

  app.delete('/v1/monitors/:monitor_id', {
    preHandler: requireApiKey(ctx, 'monitors.write'),
    schema: { tags, summary: 'Delete a monitor', security, params: monitorParams, description: 'Stops it for good and frees its place in the plan. Answers 204.', response: { 204: { type: 'null' }, ...errors(401, 403, 404) } },
  }, async (request, reply) => {
    const rc = await requestContext(request)
    const handled = await ctx.run(deleteMonitor(monitorIdOf(request), rc))
    await ctx.run(waitForPosition(MONITORS, monitorIdOf(request), handled.position))
    return reply.code(204).send()
  })

  app.get('/v1/monitors/:monitor_id/runs', {
    preHandler: requireApiKey(ctx, 'monitors.read'),
    schema: {
      tags, summary: 'List a monitor\'s runs', security, params: monitorParams, description: 'Run history, newest first: the runs fired within the plan\'s `history_days` (older ones are no longer listed).',
      querystring: { type: 'object', additionalProperties: false, properties: { ...pagingProperties(20) } },
      response: {
        200: {
          type: 'object',
          properties: {
            items: { type: 'array', items: { $ref: 'MonitorRun#' } },
            total: { type: 'integer' }, page: { type: 'integer' }, per_page: { type: 'integer' }, page_count: { type: 'integer' },
          },
        },
        ...errors(401, 403, 404, 422),
      },
    },
  }, async (request) => {
    const principal = principalOf(request)
    const q = request.query as { page: number; per_page: number }
    const since = historyStart(PLANS[principal.plan as PlanName], await now())
    const { items, total } = await ctx.run(listMonitorRuns(principal.org_id, monitorIdOf(request), since, q.page, q.per_page))
    return { items: items.map(monitorRunView), total, page: q.page, per_page: q.per_page, page_count: Math.ceil(total / q.per_page) }
  })

  app.post('/v1/monitors/:monitor_id/runs', {
    preHandler: requireApiKey(ctx, 'monitors.write'),
    schema: {
      tags, summary: 'Run a monitor now', security, params: monitorParams,
      description: 'Fires a run outside the schedule under the monitor\'s overlap policy. Answers 202 with `outcome`: `fired`, `queued` (buffer_one: starts when the running run ends), `skipped` (skip: a run is going) or `dropped` (buffer_one: one is already queued); `run_id` is null when no run was created. A paused monitor answers 409 `monitor_paused`.',
      response: {
        202: { type: 'object', properties: { run_id: { type: ['string', 'null'] }, outcome: { type: 'string', enum: ['fired', 'queued', 'skipped', 'dropped'] } } },
        ...errors(401, 403, 404, 409),
      },
    },
  }, async (request, reply) => {
    const rc = await requestContext(request)
    const fired = await ctx.run(runMonitorNow(monitorIdOf(request), rc))
    return reply.code(202).send({ run_id: fired.run_id, outcome: fired.outcome })
  })
}
