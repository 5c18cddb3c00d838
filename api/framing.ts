import type { FastifyInstance } from 'fastify'

/**
 * No page of the service may be framed by another site (clickjacking: the unsubscribe button, /docs, the dashboard):
 * every answer says so, in CSP (`frame-ancestors 'none'`) and in X-Frame-Options for older browsers. An answer with a
 * policy of its own (the dashboard's) keeps it; that policy forbids framing too.
 */
export const refuseFraming = (app: FastifyInstance) => {
  app.addHook('onSend', async (_request, reply) => {
    reply.header('x-frame-options', 'DENY')
    if (!reply.hasHeader('content-security-policy')) reply.header('content-security-policy', "frame-ancestors 'none'")
  })
}
