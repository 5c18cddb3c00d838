import type { FastifyInstance, FastifyRequest } from 'fastify'
import { currentTime } from '../../commands/clock.js'
import { unsubscribeRecipient } from '../../commands/detection.js'
import { Forbidden } from '../../domain/errors.js'
import { historyStart } from '../../domain/monitor/plan-rules.js'
import { PLANS, type PlanName } from '../../domain/plans.js'
import { getMonitorChange, listMonitorChanges, monitorChangeDiff, type MonitorChangeDoc } from '../../projections/monitor-changes.js'
import { principalOf, requireApiKey } from '../auth.js'
import type { RouteContext } from '../context.js'
import { requestMetadata } from '../event-metadata.js'
import { errors, pagingProperties, security } from './route-helpers.js'

const changeSchema = {
  type: 'object',
  properties: {
    change_id: { type: 'string' },
    monitor_id: { type: 'string' },
    run_id: { type: 'string' },
    job_id: { type: 'string' },
    old_fingerprint: { type: 'string' },
    new_fingerprint: { type: 'string' },
    change_ratio: { type: ['number', 'null'], description: '(inserted + deleted tokens) / max(old tokens, new tokens) of the diff, capped at 1.' },
    has_diff: { type: 'boolean' },
    summary: { type: 'string', description: 'Absent when no summary could be made in time, or summaries are off for the organization.' },
    notified_channels: { type: 'array', items: { type: 'string', enum: ['webhook', 'email', 'digest'] }, description: 'Empty when the change fell within cooldown_seconds.' },
    detected_at: { type: 'string', format: 'date-time' },
  },
} as const

const changeView = (doc: MonitorChangeDoc) => ({
  change_id: doc.change_id, monitor_id: doc.monitor_id, run_id: doc.run_id, job_id: doc.job_id,
  old_fingerprint: doc.old_fingerprint, new_fingerprint: doc.new_fingerprint, change_ratio: doc.change_ratio, has_diff: doc.has_diff,
  ...(doc.summary !== undefined ? { summary: doc.summary } : {}), notified_channels: doc.notified_channels, detected_at: doc.detected_at,
})

const monitorParams = { type: 'object', required: ['monitor_id'], properties: { monitor_id: { type: 'string', maxLength: 64 } } } as const
const changeParams = {
  type: 'object', required: ['monitor_id', 'change_id'],
  properties: { monitor_id: { type: 'string', maxLength: 64 }, change_id: { type: 'string', maxLength: 64 } },
} as const
const unsubscribeQuery = {
  type: 'object', required: ['recipient', 'token'], additionalProperties: false,
  properties: { recipient: { type: 'string', maxLength: 320 }, token: { type: 'string', maxLength: 128 } },
} as const

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)

export const monitorChangeRoutes = async (app: FastifyInstance, ctx: RouteContext) => {
  /** The oldest change the organization's plan still shows (`history_days` before now). */
  const historySince = async (request: FastifyRequest) => historyStart(PLANS[principalOf(request).plan as PlanName], await ctx.run(currentTime))

  // One-click unsubscribe (RFC 8058) and the confirmation form post `List-Unsubscribe=One-Click` or nothing: the query says it all.
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, _body, done) => done(null, undefined))

  app.get('/v1/monitors/:monitor_id/changes', {
    preHandler: requireApiKey(ctx, 'monitors.read'),
    schema: {
      tags: ['monitors'], summary: 'List the changes a monitor recorded', security, params: monitorParams,
      description: 'Newest first: the changes detected within the plan\'s `history_days` (older ones are no longer listed, and answer 404 on their own). Another organization\'s monitor answers 404.',
      querystring: { type: 'object', additionalProperties: false, properties: { ...pagingProperties(20) } },
      response: {
        200: {
          type: 'object',
          properties: {
            items: { type: 'array', items: changeSchema },
            total: { type: 'integer' }, page: { type: 'integer' }, per_page: { type: 'integer' }, page_count: { type: 'integer' },
          },
        },
        ...errors(401, 403, 404, 422),
      },
    },
  }, async (request) => {
    const { monitor_id } = request.params as { monitor_id: string }
    const q = request.query as { page: number; per_page: number }
    const { items, total } = await ctx.run(listMonitorChanges(principalOf(request).org_id, monitor_id, await historySince(request), q.page, q.per_page))
    return { items: items.map(changeView), total, page: q.page, per_page: q.per_page, page_count: Math.ceil(total / q.per_page) }
  })

  app.get('/v1/monitors/:monitor_id/changes/:change_id', {
    preHandler: requireApiKey(ctx, 'monitors.read'),
    schema: { tags: ['monitors'], summary: 'Get a change record', description: 'A change older than the plan\'s `history_days` answers 404.', security, params: changeParams, response: { 200: changeSchema, ...errors(401, 403, 404) } },
  }, async (request) => {
    const { monitor_id, change_id } = request.params as { monitor_id: string; change_id: string }
    return changeView(await ctx.run(getMonitorChange(principalOf(request).org_id, monitor_id, change_id, await historySince(request))))
  })

  app.get('/v1/monitors/:monitor_id/changes/:change_id/diff', {
    preHandler: requireApiKey(ctx, 'monitors.read'),
    schema: {
      tags: ['monitors'], summary: 'Get the diff of a change', security, params: changeParams,
      description: 'Plain text, one line per changed line: `-` removed, `+` added. In json and extract modes each line is a field path and its value (`-$.price: 129.99`).',
      response: { 200: { description: 'The diff', content: { 'text/plain': { schema: { type: 'string' } } } }, ...errors(401, 403, 404) },
    },
  }, async (request, reply) => {
    const { monitor_id, change_id } = request.params as { monitor_id: string; change_id: string }
    const diff = await ctx.run(monitorChangeDiff(principalOf(request).org_id, monitor_id, change_id, await historySince(request)))
    return reply.type('text/plain; charset=utf-8').send(diff)
  })

  const checkToken = (monitorId: string, query: { recipient: string; token: string }) => {
    if (!ctx.verifyUnsubscribe?.(monitorId, query.recipient, query.token)) {
      throw new Forbidden({ code: 'invalid_unsubscribe_token', message: 'this unsubscribe link is not valid for this address and monitor' })
    }
  }

  app.get('/v1/monitors/:monitor_id/unsubscribe', {
    schema: {
      tags: ['monitors'], summary: 'Unsubscribe page of a change e-mail', params: monitorParams, querystring: unsubscribeQuery,
      description: 'The link in every change e-mail and digest. No API key: the signed `token` authorizes exactly this address for this monitor. Answers a page with a button that POSTs the same URL (a link prefetched by a mail scanner changes nothing); a wrong token answers 403 `invalid_unsubscribe_token`.',
      response: { 200: { description: 'Confirmation page', content: { 'text/html': { schema: { type: 'string' } } } }, ...errors(400, 403) },
    },
  }, async (request, reply) => {
    const { monitor_id } = request.params as { monitor_id: string }
    const query = request.query as { recipient: string; token: string }
    checkToken(monitor_id, query)
    return reply.type('text/html; charset=utf-8').send(`<!doctype html><html><body><form method="post">`
      + `<p>Stop change e-mails of this monitor to ${escapeHtml(query.recipient)}?</p><button type="submit">Unsubscribe</button></form></body></html>`)
  })

  app.post('/v1/monitors/:monitor_id/unsubscribe', {
    schema: {
      tags: ['monitors'], summary: 'Unsubscribe from a monitor\'s change e-mails', params: monitorParams, querystring: unsubscribeQuery,
      description: 'One-click unsubscribe (RFC 8058, the `List-Unsubscribe` header of change e-mails): records the unsubscription as an event; the address gets no more change e-mails or digests of this monitor. Idempotent. A wrong token answers 403 `invalid_unsubscribe_token`; a deleted-and-gone monitor 404.',
      response: { 200: { type: 'object', properties: { unsubscribed: { type: 'boolean' }, recipient: { type: 'string' } } }, ...errors(400, 403, 404) },
    },
  }, async (request) => {
    const { monitor_id } = request.params as { monitor_id: string }
    const query = request.query as { recipient: string; token: string }
    checkToken(monitor_id, query)
    const now = await ctx.run(currentTime)
    await ctx.run(unsubscribeRecipient({ monitor_id, recipient: query.recipient, now: now.toISOString(), metadata: requestMetadata(request, 'unsubscribe-link') }))
    return { unsubscribed: true, recipient: query.recipient }
  })
}
