import { execFileSync } from 'node:child_process'
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { chromium } from 'playwright-core'
import t from 'tap'
import { BASE_CHROMIUM_FLAGS } from '../../fetchers/browser/launch-flags.js'
import { startFixtureSite } from '../fixtures/site.js'
import { runCli } from '../helpers/process.js'
import { startService } from '../helpers/service.js'

// The README's tour in a browser, on a team's server (REGISTRATION=closed): the owner `cli org create` made signs in at
// /app and sees the organization and the job submitted with the CLI's key.
const SHOTS = join(process.cwd(), '.screenshots', 'dashboard')
mkdirSync(SHOTS, { recursive: true })
execFileSync(process.execPath, ['scripts/build-dashboard.mjs'], { stdio: 'inherit' })
const site = await startFixtureSite({ '/': (_req, res) => { res.writeHead(200, { 'content-type': 'text/html' }); res.end('<h1>Demo shop</h1>') } })
const svc = await startService({ allowlist: [`127.0.0.1:${site.port}`], env: { REGISTRATION: 'closed' } })
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: [...BASE_CHROMIUM_FLAGS] })
t.teardown(async () => { await browser.close(); await svc.close(); await site.close() })

t.test('the CLI-made owner signs in, sees the organization id, the first-run commands, then the CLI key\'s job', async (t) => {
  const password = 'correct horse battery'
  const org = await runCli({ DATA_DIR: svc.dataDir }, ['org', 'create', '--name', 'Acme', '--plan', 'pro', '--owner-email', 'owner@example.com', '--owner-password', password])
  const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage()
  await page.goto(`${svc.config.publicBaseUrl}/`)
  await page.getByRole('heading', { name: 'Sign in' }).waitFor()
  t.match(page.url(), /\/app/, 'GET / led to the dashboard')
  await page.goto(`${svc.config.publicBaseUrl}/app#/signup`)
  await page.getByText('Sign-up is closed on this server: ask its operator for an account.').waitFor()
  t.equal(await page.locator('form').count(), 0, 'no sign-up form on a closed server')
  const asked = page.waitForResponse((r) => r.url().endsWith('/registration'))
  await page.getByRole('link', { name: 'Sign in' }).click()
  await page.getByRole('heading', { name: 'Sign in' }).waitFor()
  // The link would show once /registration has answered `open`: after its answer and a rendered frame, it is not there.
  t.same(await (await asked).json(), { registration: 'closed' })
  await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))))
  t.equal(await page.getByRole('link', { name: 'Create one' }).count(), 0, 'the sign-in page offers no sign-up')
  await page.getByLabel('E-mail').fill('owner@example.com')
  await page.getByLabel('Password').fill(password)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await page.getByText(org.org_id).waitFor()
  t.match(await page.getByLabel('Organization').textContent(), new RegExp(`Acme · organization ${org.org_id} · plan pro · 0 of 1,000,000 credits used`))
  await page.getByText('No jobs yet').waitFor()
  t.match(await page.locator('.first-run pre').textContent(), `curl -s -X POST ${svc.config.publicBaseUrl}/v1/jobs -H "X-API-Key: $KEY"`)
  t.ok(await page.getByRole('link', { name: 'API docs' }).isVisible(), 'the dashboard links /docs')
  await page.screenshot({ path: join(SHOTS, 'first-run-1280.png'), fullPage: true })
  await page.getByRole('button', { name: 'Create a key for these commands' }).click()
  await page.getByText('is in the commands below, shown only this once').waitFor()
  const commandKey = /^KEY=(sk_\S+)$/m.exec(await page.locator('.first-run pre').textContent() ?? '')?.[1]
  t.ok(commandKey, 'the commands hold a key of the user\'s own')
  t.equal((await svc.api('GET', '/v1/jobs', { key: commandKey! })).status, 200, 'which works as written')

  const submitted = await svc.api('POST', '/v1/jobs', { key: org.api_key, body: { job_type: 'light', target_url: `${site.origin}/`, tags: ['tour'] } })
  t.equal(submitted.status, 202)
  await page.getByRole('button', { name: 'Refresh' }).click()
  await page.getByRole('link', { name: `${site.origin}/` }).waitFor()
  t.pass('the job submitted with the CLI\'s key shows in the owner\'s dashboard')
})
