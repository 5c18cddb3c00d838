import t from 'tap'
import { unsubscribeLink } from '../../domain/detection/unsubscribe.js'
import { startService } from '../helpers/service.js'

const svc = await startService()
t.teardown(() => svc.close())

t.test('OpenAPI 3 document and docs UI are served', async (t) => {
  const doc = await svc.api('GET', '/openapi.json')
  t.equal(doc.status, 200)
  t.match(doc.body.openapi, /^3\./)
  for (const path of ['/v1/jobs', '/v1/jobs/{job_id}', '/v1/jobs/{job_id}/result', '/v1/jobs/{job_id}/artifacts/{artifact_id}', '/v1/keys', '/v1/usage', '/register', '/token', '/me']) {
    t.ok(doc.body.paths[path], `documents ${path}`)
  }
  const submit = doc.body.paths['/v1/jobs'].post
  t.ok(submit.responses['422'], 'documents the 422 answer')
  t.ok(doc.body.components.schemas.ErrorBody, 'documents the error body')
  t.ok(doc.body.components.schemas.JobRequest.properties.retry_policy, 'documents the job request fields')
  t.ok(doc.body.components.securitySchemes.apiKey)
  const ui = await fetch(`${svc.base}/docs/`)
  t.equal(ui.status, 200)
  t.match(await ui.text(), /swagger/i)
  t.equal((await svc.api('GET', '/healthz')).body.status, 'ok')
})

t.test('no page can be framed by another site: /docs and the unsubscribe page say so (issue 32)', async (t) => {
  const link = new URL(unsubscribeLink(svc.base, svc.config.signingSecret, 'mon_framed', 'reader@example.com'))
  for (const path of ['/docs', '/docs/', '/docs/static/index.html', `${link.pathname}${link.search}`, '/openapi.json']) {
    const answer = await fetch(`${svc.base}${path}`)
    t.equal(answer.status, 200, `${path} is served`)
    t.equal(answer.headers.get('x-frame-options'), 'DENY', `${path}: X-Frame-Options`)
    t.match(answer.headers.get('content-security-policy'), /frame-ancestors 'none'/, `${path}: CSP frame-ancestors`)
  }
})

t.test('unknown routes answer the error body', async (t) => {
  const answer = await svc.api('GET', '/v1/nothing-here')
  t.equal(answer.status, 404)
  t.equal(answer.body.error.code, 'route_not_found')
})
