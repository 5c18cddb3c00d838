import type { FastifyInstance } from 'fastify'
import { artifactBytes } from '../projections/artifact-queries.js'
import type { ApiContext } from './context.js'
import { errorBody } from './errors.js'

export const DOWNLOAD_PATH = '/artifacts/download'

/** Serves presigned artifact URLs of the local-folder blob store; the signature is the only credential. */
export const downloadRoutes = async (app: FastifyInstance, ctx: ApiContext) => {
  const verify = ctx.verifyDownload
  if (!verify) return
  app.get(DOWNLOAD_PATH, {
    schema: {
      tags: ['artifacts'], summary: 'Download an artifact through a presigned URL',
      description: 'The URL comes from GET /v1/jobs/{job_id}/artifacts/{artifact_id}; its signature is the only credential. Answers 403 `invalid_signature` when tampered with, 410 `url_expired` after expiry, 404 `artifact_not_found` when the artifact was purged, 422 `validation_failed` when a query parameter is missing or malformed.',
      querystring: {
        type: 'object', required: ['key', 'expires', 'name', 'sig'],
        properties: { key: { type: 'string' }, expires: { type: 'integer' }, name: { type: 'string' }, sig: { type: 'string' } },
      },
      response: {
        200: { description: 'The artifact bytes, with its own content type, as an attachment.', content: { '*/*': { schema: { type: 'string', format: 'binary' } } } },
        403: { $ref: 'ErrorBody#' }, 404: { $ref: 'ErrorBody#' }, 410: { $ref: 'ErrorBody#' },
      },
    },
  }, async (request, reply) => {
    const q = request.query as { key: string; expires: number; name: string; sig: string }
    const verdict = verify(q.key, q.expires, q.name, q.sig)
    if (!verdict.ok) {
      return verdict.reason === 'expired'
        ? reply.code(410).send(errorBody('url_expired', 'this download URL has expired; request a new one'))
        : reply.code(403).send(errorBody('invalid_signature', 'this download URL is not valid'))
    }
    const blob = await ctx.run(artifactBytes(q.key))
    if (!blob) return reply.code(404).send(errorBody('artifact_not_found', 'the artifact no longer exists'))
    return reply
      .header('content-type', blob.contentType)
      .header('content-disposition', `attachment; filename="${q.name.replace(/[^\w.-]/g, '_')}"`)
      .header('cache-control', 'private, no-store')
      .header('x-content-type-options', 'nosniff')
      .send(Buffer.from(blob.bytes))
  })
}
