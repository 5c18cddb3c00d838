import { changeOrgPlan } from '../../commands/org-settings.js'
import { createApiKey, DEFAULT_KEY_LIMITS } from '../../commands/orgs.js'
import { SCOPES } from '../../domain/scopes.js'
import { signUp } from './account.js'
import { waitFor, type Service } from './service.js'

const metadata = { correlation_id: 'test', causation_id: null, actor: 'test' }

/**
 * A tenant of both APIs: a verified user, the organization registration gave them (moved to `plan` by the operator
 * command), a v1 key of it with every scope and a generous request rate, and the user's session cookie.
 */
export const tenant = async (svc: Service, plan = 'pro') => {
  const user = await signUp(svc)
  const first = await svc.api('POST', '/api-keys', { headers: user.bearer, body: { name: 'first' } })
  if (first.status !== 201) throw new Error(`POST /api-keys answered ${first.status}`)
  const orgId = first.body.org_id as string
  await svc.run(changeOrgPlan({ org_id: orgId, plan, now: new Date().toISOString(), metadata }))
  // The key is made after the plan changed, so no principal of the old plan is remembered for it.
  const key = await svc.run(createApiKey({ org_id: orgId, name: 'test', scopes: SCOPES, limits: { ...DEFAULT_KEY_LIMITS, rate_limit_rpm: 100_000 }, expires_at: null, metadata }))
  await waitFor(async () => (await svc.api('GET', '/v1/org', { key: key.secret })).body?.plan === plan)
  return { user, orgId, key: key.secret, keyId: key.key_id, session: await user.session() }
}

export type Tenant = Awaited<ReturnType<typeof tenant>>
