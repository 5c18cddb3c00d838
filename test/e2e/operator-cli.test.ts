import { existsSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { runCli, runCliRaw, spawnService } from '../helpers/process.js'
import { tempDataDir, waitFor } from '../helpers/service.js'

// The operator's first hour: the CLI on the data folder of a running service (REGISTRATION=closed), as the README does.
const dataDir = tempDataDir('operator')
const env = { DATA_DIR: dataDir }
const password = 'correct horse battery'
const svc = await spawnService({ ...env, REGISTRATION: 'closed', LOG_LEVEL: 'info' })
t.teardown(() => { svc.child.kill('SIGTERM') })

t.test('--help and bad input touch nothing: no data folder, no signing secret (exit 0 and 2)', async (t) => {
  const fresh = join(mkdtempSync(join(tmpdir(), 'cli-help-')), 'data')
  const help = await runCliRaw({ DATA_DIR: fresh }, ['--help'])
  t.equal(help.code, 0)
  t.match(help.stdout, /user create --email E --password PW --org ORG_ID/)
  const cases = [
    ['org', 'create', '--name', 'X', '--plan', 'gold'],
    ['org', 'create', '--name', 'X', '--owner-email', 'ada@example.com'],
    ['user', 'create', '--email', 'ada@example.com', '--password', 'short', '--org', 'o', '--role', 'member'],
    ['user', 'create', '--email', 'ada@example.com', '--password', password, '--org', 'o', '--role', 'king'],
    ['key', 'create', '--org', 'o', '--scopes', 'jobs.create,jobs.fly'],
    ['org', 'list', '--colour', 'red'],
    [],
  ]
  // Nothing here writes, so they run side by side.
  const answers = await Promise.all(cases.map((args) => runCliRaw({ DATA_DIR: fresh }, args)))
  cases.forEach((args, i) => {
    t.equal(answers[i]!.code, 2, `${args.join(' ') || '(nothing)'} exits 2`)
    t.match(answers[i]!.stderr, /^error: [^\n]+\n$/, 'one line')
    t.equal(answers[i]!.stdout, '')
  })
  t.notOk(existsSync(fresh), 'the data folder was not even created (so no signing secret in it)')
})


let org = { org_id: '', api_key: '', key_id: '' }
t.test('org create with an owner: the owner signs in at once and sees the organization; the key submits jobs', async (t) => {
  const created = await runCliRaw(env, ['org', 'create', '--name', 'Acme', '--plan', 'pro', '--owner-email', 'Owner@Example.com', '--owner-password', password, '--json'])
  t.equal(created.code, 0, created.stderr)
  t.match(created.stderr, `using data folder ${dataDir}`, 'the CLI names the data it uses')
  org = JSON.parse(created.stdout)
  t.match(org, { name: 'Acme', plan: 'pro', owner_email: 'owner@example.com', api_key: /^sk_/ })
  const login = await fetch(`${svc.base}/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'owner@example.com', password }) })
  t.equal(login.status, 200)
  t.match(await login.json(), { user: { email: 'owner@example.com', isVerified: true } }, 'verified without an e-mail')
  const token = await (await fetch(`${svc.base}/token`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'owner@example.com', password }) })).json() as { access_token: string }
  const dashboardKey = await fetch(`${svc.base}/api-keys`, { method: 'POST', headers: { authorization: `Bearer ${token.access_token}`, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'dash' }) })
  t.equal(dashboardKey.status, 201, 'the owner may create keys (a verified user)')
  const { api_key: ownerKey } = await dashboardKey.json() as { api_key: string }
  const org0 = await fetch(`${svc.base}/v1/org`, { headers: { 'x-api-key': ownerKey } })
  t.match(await org0.json(), { org_id: org.org_id }, "the owner's keys belong to the CLI's organization")
})

t.test('org list and org show: a table by default, JSON with --json', async (t) => {
  const table = await runCliRaw(env, ['org', 'list'])
  t.equal(table.code, 0)
  t.match(table.stdout, /^org_id\s+name\s+plan\s+created_at\n/, 'a header line')
  t.match(table.stdout, new RegExp(`${org.org_id}\\s+Acme\\s+pro\\s+`))
  t.match(await runCli(env, ['org', 'list']), [{ org_id: org.org_id, name: 'Acme', plan: 'pro' }])
  t.match(await runCli(env, ['org', 'show', '--org', org.org_id]), { org_id: org.org_id, plan: 'pro', active_keys: 2, users: 1 }, 'the default key and the owner\'s dashboard key')
  const missing = await runCliRaw(env, ['org', 'show', '--org', 'no-such-org'])
  t.equal(missing.code, 2)
  t.match(missing.stderr, /error: org no-such-org not found/)
})

t.test('key create, key list, key revoke: a revoked key answers 401', async (t) => {
  const key = await runCli(env, ['key', 'create', '--org', org.org_id, '--name', 'ci', '--scopes', 'jobs.create,jobs.read'])
  t.match(key, { org_id: org.org_id, name: 'ci', scopes: ['jobs.create', 'jobs.read'], api_key: /^sk_/ })
  const v1 = (secret: string) => fetch(`${svc.base}/v1/jobs`, { headers: { 'x-api-key': secret } })
  t.equal((await v1(key.api_key)).status, 200)
  const keys = await runCli(env, ['key', 'list', '--org', org.org_id])
  t.same(keys.map((k: { name: string }) => k.name).sort(), ['ci', 'dash', 'default'])
  t.notOk(JSON.stringify(keys).includes(key.api_key), 'a list never shows a secret')
  t.same(await runCli(env, ['key', 'revoke', '--org', org.org_id, '--key', key.key_id]), { org_id: org.org_id, key_id: key.key_id, revoked: true })
  for (let i = 0; i < 200 && (await v1(key.api_key)).status !== 401; i++) await new Promise((r) => setTimeout(r, 50))
  t.equal((await v1(key.api_key)).status, 401)
  const unknown = await runCliRaw(env, ['key', 'revoke', '--org', org.org_id, '--key', 'no-such-key'])
  t.equal(unknown.code, 2)
  t.match(unknown.stderr, /\nerror: api_key no-such-key not found\n$/)
})

t.test('user create and user list; a taken address or an unknown organization is refused (exit 2)', async (t) => {
  const user = await runCli(env, ['user', 'create', '--email', 'member@example.com', '--password', password, '--org', org.org_id])
  t.match(user, { email: 'member@example.com', org_id: org.org_id, role: 'member' })
  const users = await runCli(env, ['user', 'list', '--org', org.org_id])
  t.match(users, [{ email: 'owner@example.com', role: 'owner', is_verified: true }, { email: 'member@example.com', role: 'member', is_verified: true }])
  const taken = await runCliRaw(env, ['user', 'create', '--email', 'member@example.com', '--password', password, '--org', org.org_id])
  t.equal(taken.code, 2)
  t.match(taken.stderr, /email_already_used/)
  const orphan = await runCliRaw(env, ['user', 'create', '--email', 'nobody@example.com', '--password', password, '--org', 'no-such-org'])
  t.equal(orphan.code, 2)
  t.match(orphan.stderr, /org no-such-org not found/)
  const login = await fetch(`${svc.base}/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'nobody@example.com', password }) })
  t.equal(login.status, 401, 'the refused user was not recorded')
  t.equal((await runCli(env, ['user', 'list'])).length, 2)
})

t.test('org set changes the plan, which the organization\'s keys see; key list and org set refuse an unknown organization (exit 2)', async (t) => {
  t.same(await runCli(env, ['org', 'set', '--org', org.org_id, '--plan', 'business']), { org_id: org.org_id, plan: 'business' })
  t.match(await runCli(env, ['org', 'show', '--org', org.org_id]), { plan: 'business' })
  await waitFor(async () => (await (await fetch(`${svc.base}/v1/org`, { headers: { 'x-api-key': org.api_key } })).json() as { plan: string }).plan === 'business')
  const cases: [string[], RegExp][] = [
    [['org', 'set', '--org', org.org_id, '--plan', 'gold'], /^error: --plan takes one of free, starter, pro, business, enterprise, got gold /],
    [['org', 'set', '--org', org.org_id], /^error: org set takes --plan/],
    [['org', 'set', '--org', 'no-such-org', '--plan', 'pro'], /\nerror: org no-such-org not found\n$/],
    [['key', 'list', '--org', 'no-such-org'], /\nerror: org no-such-org not found\n$/],
    [['key', 'create', '--org', 'no-such-org'], /\nerror: org no-such-org not found\n$/],
    [['user', 'list', '--org'], /^error: /],
  ]
  for (const [args, message] of cases) {
    const answer = await runCliRaw(env, args)
    t.equal(answer.code, 2, `${args.join(' ')} exits 2`)
    t.match(answer.stderr, message)
    t.equal(answer.stdout, '')
  }
  t.match(await runCli(env, ['org', 'show', '--org', org.org_id]), { plan: 'business', active_keys: 2 }, 'nothing was written')
})

t.test('REGISTRATION=closed: POST /register answers 403 registration_closed', async (t) => {
  const answer = await fetch(`${svc.base}/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'walk-in@example.com', password }) })
  t.equal(answer.status, 403)
  t.same(await answer.json(), { detail: 'registration_closed' })
  const policy = await fetch(`${svc.base}/registration`)
  t.same(await policy.json(), { registration: 'closed' }, 'GET /registration tells the dashboard to hide its sign-up')
})

t.test('GET / redirects to the dashboard', async (t) => {
  const answer = await fetch(`${svc.base}/`, { redirect: 'manual' })
  t.equal(answer.status, 302)
  t.equal(answer.headers.get('location'), '/app')
})

t.test('.env in the working directory names the data folder; a variable of the environment wins', async (t) => {
  const folder = mkdtempSync(join(tmpdir(), 'dotenv-'))
  writeFileSync(join(folder, '.env'), `# the operator's settings\nDATA_DIR=${dataDir}\n`)
  const fromFile = await runCliRaw({}, ['org', 'list', '--json'], folder)
  t.equal(fromFile.code, 0, fromFile.stderr)
  t.match(fromFile.stderr, `using data folder ${dataDir}`)
  t.match(JSON.parse(fromFile.stdout), [{ org_id: org.org_id }])
  const other = join(folder, 'other')
  const overridden = await runCliRaw({ DATA_DIR: other }, ['org', 'list', '--json'], folder)
  t.match(overridden.stderr, `using data folder ${other}`)
  t.same(JSON.parse(overridden.stdout), [])
})

t.test('org create without --plan takes DEFAULT_PLAN, as a sign-up does', async (t) => {
  const made = await runCli({ ...env, DEFAULT_PLAN: 'starter' }, ['org', 'create', '--name', 'Defaulted'])
  t.match(made, { name: 'Defaulted', plan: 'starter' })
  t.match(await runCli(env, ['org', 'show', '--org', made.org_id]), { plan: 'starter' })
  const refused = await runCliRaw({ ...env, DEFAULT_PLAN: 'gold' }, ['org', 'create', '--name', 'Gold'])
  t.equal(refused.code, 1, 'an unknown DEFAULT_PLAN is a configuration error, as at start')
  t.match(refused.stderr, /^error: DEFAULT_PLAN must be one of free, starter/)
})
