import { execFileSync } from 'node:child_process'
import { mkdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { chromium, type Page } from 'playwright-core'
import t from 'tap'
import { BASE_CHROMIUM_FLAGS } from '../../fetchers/browser/launch-flags.js'
import { startFixtureSite } from '../fixtures/site.js'
import { verificationLink } from '../helpers/mail.js'
import { startService } from '../helpers/service.js'

/** Screenshots of the main pages at both widths, for people to look at; gitignored. */
const SHOTS = join(process.cwd(), '.screenshots', 'dashboard')
mkdirSync(SHOTS, { recursive: true })
execFileSync(process.execPath, ['scripts/build-dashboard.mjs'], { stdio: 'inherit' })

const site = await startFixtureSite()
const svc = await startService({ allowlist: [`127.0.0.1:${site.port}`] })
// The page is opened on the service's PUBLIC_BASE_URL origin, as users do, so signed artifact links are same-origin.
const base = svc.config.publicBaseUrl
// The browser reaches the service directly (loopback, no proxy): it plays the user, not a scraping engine.
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: [...BASE_CHROMIUM_FLAGS] })
t.teardown(async () => { await browser.close(); await svc.close(); await site.close() })

const context = await browser.newContext({ viewport: { width: 1280, height: 900 } })
const page = await context.newPage()
const shot = async (p: Page, name: string) => { await p.screenshot({ path: join(SHOTS, `${name}-${p.viewportSize()!.width}.png`), fullPage: true }) }
const email = 'dash-user@example.com'
const password = 'correct horse battery staple'

t.test('sign up through the page, verify from the e-mail, sign in', async (t) => {
  await page.goto(`${base}/app`)
  await page.getByRole('heading', { name: 'Sign in' }).waitFor()
  await shot(page, 'signin')
  await page.getByRole('link', { name: 'Create one' }).click()
  await page.getByLabel('E-mail').fill(email)
  await page.getByLabel('Password').fill(password)
  await page.getByRole('button', { name: 'Create account' }).click()
  await page.getByRole('heading', { name: 'Check your e-mail' }).waitFor()

  const link = await verificationLink(svc.dataDir, email)
  await page.goto(`${base}/app/#/verify?token=${link.searchParams.get('token')}`)
  await page.getByText('Your e-mail address is verified').waitFor()
  await page.getByRole('link', { name: 'Sign in' }).click()
  await page.getByLabel('E-mail').fill(email)
  await page.getByLabel('Password').fill('wrong password entirely')
  await page.getByRole('button', { name: 'Sign in' }).click()
  t.match(await page.getByRole('alert').textContent(), /invalid_credentials/, 'a wrong password shows the API error')
  await page.getByLabel('Password').fill(password)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await page.getByText('No jobs yet').waitFor()
  await shot(page, 'jobs-empty')
  t.ok(await page.getByRole('navigation', { name: 'Main' }).isVisible())
})

let jobId = ''
t.test('submit a light job, see the API validation message, then success and its HTML artifact', async (t) => {
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Submit' }).click()
  await page.getByLabel('Target URL').fill('not a url')
  await page.getByRole('button', { name: 'Submit job' }).click()
  const alert = page.getByRole('alert')
  await alert.waitFor()
  t.match(await alert.textContent(), /invalid_target_url/, 'the API\'s field code is shown')
  await shot(page, 'submit-error')
  await page.getByLabel('Target URL').fill(`${site.origin}/page`)
  await page.getByLabel('Tags').fill('smoke, dash')
  await page.getByRole('button', { name: 'Submit job' }).click()
  await page.waitForURL(/#\/jobs\/[0-9a-f-]{36}$/)
  jobId = page.url().split('/').at(-1)!
  await page.locator('.badge-succeeded').waitFor({ timeout: 30_000 })
  await page.getByRole('button', { name: 'View' }).first().click()
  await page.locator('pre.code', { hasText: 'Widget' }).first().waitFor()
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download html' }).click()])
  t.match(readFileSync(await download.path(), 'utf8'), /<h1 id="title">Widget<\/h1>/, 'the download is the HTML artifact')
  await shot(page, 'job')

  await page.getByRole('link', { name: '← Jobs' }).click()
  await page.getByLabel('Status').selectOption('failed')
  await page.getByText('No job matches these filters.').waitFor()
  await page.getByLabel('Status').selectOption('succeeded')
  await page.getByRole('link', { name: `${site.origin}/page` }).waitFor()
  await page.getByLabel('Tag').fill('nope')
  await page.getByLabel('Tag').press('Enter')
  await page.getByText('No job matches these filters.').waitFor()
  await page.getByLabel('Tag').fill('dash')
  await page.getByLabel('Tag').press('Tab')
  await page.getByRole('link', { name: `${site.origin}/page` }).waitFor()
  await shot(page, 'jobs')
  t.pass('filters by status and tag')
})

t.test('create a key: the secret is shown once and works; another organization\'s job is not found', async (t) => {
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'API keys' }).click()
  await page.getByLabel('Name').fill('ci key')
  await page.getByRole('button', { name: 'Create key' }).click()
  const secret = (await page.getByTestId('new-key-secret').textContent())!.trim()
  t.match(secret, /^sk_/)
  t.equal((await svc.api('GET', '/v1/jobs', { key: secret })).status, 200, 'the shown secret is a working key')
  await shot(page, 'keys-secret')
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Usage' }).click()
  await page.getByText('credits used').waitFor()
  await shot(page, 'usage')
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'API keys' }).click()
  await page.getByRole('cell', { name: 'ci key', exact: true }).waitFor()
  t.equal(await page.getByTestId('new-key-secret').count(), 0, 'the secret is gone once the page is left')
  t.notOk((await page.content()).includes(secret))

  const other = await svc.createOrg('pro')
  const foreign = await svc.api('POST', '/v1/jobs', { key: other.key, body: { job_type: 'light', target_url: `${site.origin}/page` } })
  await page.goto(`${base}/app/#/jobs/${foreign.body.job_id}`)
  t.match(await page.getByRole('alert').textContent(), /job_not_found/, 'another organization\'s job answers 404')
})

t.test('webhooks: add an endpoint (secret once), send a test event, see it in the delivery log; the audit log lists events', async (t) => {
  const nav = page.getByRole('navigation', { name: 'Main' })
  await nav.getByRole('link', { name: 'Webhooks' }).click()
  await page.getByText('No webhook endpoints yet.').waitFor()
  await page.getByLabel('URL').fill(`${site.origin}/echo`)
  await page.getByRole('button', { name: 'Add endpoint' }).click()
  t.match(await page.getByRole('alert').textContent(), /enabled_events/, 'the API\'s field error is shown')
  await page.locator('fieldset input[type=checkbox]').first().check()
  await page.getByRole('button', { name: 'Add endpoint' }).click()
  t.match(await page.locator('.secret-value').textContent(), /^whsec_/)
  await page.getByRole('button', { name: 'Send a test event' }).click()
  await page.getByText('Delivery log').click()
  await page.locator('details table tbody tr').first().waitFor()
  await shot(page, 'webhooks')
  await nav.getByRole('link', { name: 'Audit log' }).click()
  await page.getByRole('cell', { name: /JobRequested/ }).first().waitFor()
  await shot(page, 'audit')
})

t.test('the main pages at 390 px', async (t) => {
  await page.setViewportSize({ width: 390, height: 844 })
  for (const [hash, name, ready] of [['#/jobs', 'jobs', 'Jobs'], [`#/jobs/${jobId}`, 'job', 'Manifest'], ['#/submit', 'submit', 'Submit a job'], ['#/keys', 'keys', 'API keys'], ['#/usage', 'usage', 'Usage'], ['#/webhooks', 'webhooks', 'Webhooks'], ['#/audit', 'audit', 'Audit log']] as const) {
    await page.goto(`${base}/app/${hash}`)
    await page.getByRole('heading', { name: ready, exact: true }).waitFor()
    await page.waitForLoadState('networkidle')
    await shot(page, name)
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)
    t.ok(overflow <= 0, `${name}: no horizontal scrolling at 390 px (${overflow})`)
  }
  await page.setViewportSize({ width: 1280, height: 900 })
})

t.test('sign out revokes the dashboard\'s key and ends the session', async (t) => {
  const stored = await page.evaluate(() => sessionStorage.getItem('scrapeworks.dashboard.key'))
  const key = JSON.parse(stored!) as { api_key: string }
  t.equal((await svc.api('GET', '/v1/jobs', { key: key.api_key })).status, 200)
  await page.getByRole('button', { name: 'Sign out' }).click()
  await page.getByRole('heading', { name: 'Sign in' }).waitFor()
  t.equal((await svc.api('GET', '/v1/jobs', { key: key.api_key })).status, 401)
  await page.reload()
  await page.getByRole('heading', { name: 'Sign in' }).waitFor()
})
