import t from 'tap'
import { startService } from '../helpers/service.js'

// Default settings: 5 login attempts per minute per client address, /login and /token together.
const svc = await startService()
t.teardown(() => svc.close())

t.test('the sixth login attempt within a minute answers 429 too_many_attempts with Retry-After', async (t) => {
  const email = `limit-${Date.now()}@example.com`
  t.equal((await svc.api('POST', '/register', { body: { email, password: 'correct horse' } })).status, 202, 'registration is not limited')
  const attempts = [
    await svc.api('POST', '/login', { body: { email, password: 'wrong one!' } }),
    await svc.api('POST', '/login', { body: { email, password: 'correct horse' } }),
    await svc.api('POST', '/token', { body: { email, password: 'wrong one!' } }),
    await svc.api('POST', '/login', { body: { email } }),
    await svc.api('POST', '/token', { body: { email, password: 'correct horse' } }),
  ]
  t.same(attempts.map((a) => a.status), [401, 200, 401, 422, 200], 'five attempts of any outcome are answered')

  const sixth = await svc.api('POST', '/login', { body: { email, password: 'correct horse' } })
  t.equal(sixth.status, 429)
  t.same(sixth.body, { detail: 'too_many_attempts' })
  const retryAfter = Number(sixth.headers.get('retry-after'))
  t.ok(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60, `Retry-After is 1-60 seconds (${retryAfter})`)
  t.equal(sixth.headers.get('x-ratelimit-limit'), '5')
  t.equal(sixth.headers.get('x-ratelimit-remaining'), '0')
  t.equal(sixth.headers.get('set-cookie'), null, 'no session for a throttled attempt')

  const token = await svc.api('POST', '/token', { body: { email, password: 'correct horse' } })
  t.equal(token.status, 429, '/token shares the budget, so alternating does not double it')
  t.same(token.body, { detail: 'too_many_attempts' })
  t.equal((await svc.api('GET', '/me')).status, 401, 'other routes are not limited')
})
