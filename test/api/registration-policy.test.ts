import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { loadConfig } from '../../infra/config.js'
import { findUserByEmail } from '../../projections/user-queries.js'
import { getOrg } from '../../projections/org-queries.js'
import { waitFor, startService } from '../helpers/service.js'

// Sign-ups on DEFAULT_PLAN, the mail they get without SMTP, and its link opened in a browser.
const svc = await startService({ env: { DEFAULT_PLAN: 'starter' } })
t.teardown(() => svc.close())
const password = 'correct horse battery'

const savedMail = async (to: string) => {
  const dir = join(svc.dataDir, 'outbox')
  let raw = ''
  await waitFor(() => {
    raw = readdirSync(dir).filter((f) => f.endsWith('.eml')).map((f) => readFileSync(join(dir, f), 'utf8')).find((m) => m.includes(`To: ${to}`)) ?? ''
    return raw !== ''
  })
  return raw
}

t.test('a sign-up gets an organization on DEFAULT_PLAN', async (t) => {
  t.same((await svc.api('GET', '/registration')).body, { registration: 'open' }, 'the policy the dashboard reads')
  t.equal((await svc.api('POST', '/register', { body: { email: 'starter@example.com', password } })).status, 202)
  const user = await svc.run(findUserByEmail('starter@example.com'))
  t.equal((await svc.run(getOrg(user!.org_id))).plan, 'starter')
})

t.test('the saved .eml is readable: its link works exactly as written, and a browser gets a page', async (t) => {
  t.equal((await svc.api('POST', '/register', { body: { email: 'reader@example.com', password } })).status, 202)
  const raw = await savedMail('reader@example.com')
  t.match(raw, /^Content-Transfer-Encoding: 7bit$/m, 'not quoted-printable')
  t.notMatch(raw, /=3D|=\n/, 'no quoted-printable escapes or soft line breaks')
  const written = raw.match(/^http\S+\/verify\?token=\S+$/m)
  t.ok(written, 'the link stands on a line of its own, whole')
  const link = new URL(written![0])
  const browser = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' }
  const opened = await svc.api('GET', `${link.pathname}${link.search}`, { headers: browser })
  t.equal(opened.status, 200)
  t.match(opened.headers.get('content-type'), /^text\/html/)
  t.match(opened.text, /E-mail address verified/)
  t.match(opened.text, /href="\/app"/, 'links to the dashboard')
  const again = await svc.api('GET', `${link.pathname}${link.search}`, { headers: browser })
  t.equal(again.status, 422)
  t.match(again.text, /This link does not work/, 'a used link says why, as a page')
  const api = await svc.api('GET', `${link.pathname}${link.search}`)
  t.same(api.body, { detail: 'invalid_or_expired_token' }, 'API clients keep the JSON answer')
  const missing = await svc.api('GET', '/verify', { headers: browser })
  t.equal(missing.status, 400)
  t.match(missing.text, /This link is incomplete/)
})

t.test('defaults: sign-up open, loopback only; unknown values are refused at start', async (t) => {
  const defaults = loadConfig({ DATA_DIR: svc.dataDir })
  t.equal(defaults.registration, 'open')
  t.equal(defaults.defaultPlan, 'free')
  t.equal(defaults.host, '127.0.0.1', 'the service listens on loopback unless HOST says otherwise')
  t.throws(() => loadConfig({ DATA_DIR: svc.dataDir, REGISTRATION: 'invite-only' }), /REGISTRATION must be one of open, closed, got invite-only/)
  t.throws(() => loadConfig({ DATA_DIR: svc.dataDir, DEFAULT_PLAN: 'gold' }), /DEFAULT_PLAN must be one of free, starter/)
})
