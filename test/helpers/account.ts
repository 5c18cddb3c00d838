import { addUser } from '../../commands/users.js'
import { findUserByEmail } from '../../projections/user-queries.js'
import { verificationLink } from './mail.js'
import { waitFor, type Service } from './service.js'

const PASSWORD = 'correct horse battery'
let counter = 0

/**
 * A registered user of the account API, verified unless `verified: false` (work needs a verified address), and the
 * headers that authenticate them (bearer token, or the session cookie).
 */
export const signUp = async (svc: Service, options: { readonly verified?: boolean } = {}) => {
  const email = `user${++counter}-${process.pid}-${Date.now()}@example.com`
  const registered = await svc.api('POST', '/register', { body: { email, password: PASSWORD } })
  if (registered.status !== 202) throw new Error(`register answered ${registered.status}`)
  if (options.verified ?? true) {
    const link = await verificationLink(svc.dataDir, email)
    const verified = await svc.api('GET', `${link.pathname}${link.search}`)
    if (verified.status !== 200) throw new Error(`verify answered ${verified.status}`)
  }
  const token = await svc.api('POST', '/token', { body: { email, password: PASSWORD } })
  if (token.status !== 200) throw new Error(`token answered ${token.status}`)
  const bearer = { authorization: `Bearer ${token.body.access_token as string}` }
  return {
    email,
    userId: token.body.user.id as string,
    bearer,
    /** Logs in and answers the session cookie header. */
    session: async () => {
      const login = await svc.api('POST', '/login', { body: { email, password: PASSWORD } })
      return { cookie: login.headers.get('set-cookie')!.split(';')[0]! }
    },
  }
}

/**
 * A colleague the operator added to `user`'s organization (`cli user create`: verified, a member), and the bearer
 * header that authenticates them.
 */
export const colleagueOf = async (svc: Service, user: { readonly email: string }) => {
  const { org_id } = (await svc.run(findUserByEmail(user.email)))!
  const credentials = { email: `colleague${++counter}-${process.pid}-${Date.now()}@example.com`, password: PASSWORD }
  await svc.run(addUser({ credentials, org_id, role: 'member', metadata: { correlation_id: 'test', causation_id: null, actor: 'cli' } }))
  let token = await svc.api('POST', '/token', { body: credentials })
  await waitFor(async () => (token = await svc.api('POST', '/token', { body: credentials })).status === 200)
  return { email: credentials.email, orgId: org_id, bearer: { authorization: `Bearer ${token.body.access_token as string}` } }
}
