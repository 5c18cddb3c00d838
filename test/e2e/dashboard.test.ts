import { execFileSync } from 'node:child_process'
import { mkdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { chromium, type Page } from 'playwright-core'
import t, { type Test } from 'tap'
import { changeOrgPlan } from '../../commands/org-settings.js'
import { BASE_CHROMIUM_FLAGS } from '../../fetchers/browser/launch-flags.js'
import { startFixtureSite } from '../fixtures/site.js'
import { verificationLink } from '../helpers/mail.js'
import { fixturesOf } from '../helpers/recipe-fixtures.js'
import { startRecipeSite } from '../helpers/recipe-site.js'
import { startService, waitFor } from '../helpers/service.js'

/** Screenshots of the main pages at both widths, for people to look at; gitignored. */
const SHOTS = join(process.cwd(), '.screenshots', 'dashboard')
mkdirSync(SHOTS, { recursive: true })
execFileSync(process.execPath, ['scripts/build-dashboard.mjs'], { stdio: 'inherit' })

// A page whose price the monitor test changes between two runs.
let price = '129.99'
const pricePage = () => `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Pricing</title></head><body><h1>Pro plan</h1><p class="price">Price: $${price} per month</p><p>Cancel any time.</p></body></html>`
const site = await startFixtureSite({
  '/pricing': (_req, res) => { res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }); res.end(pricePage()) },
})
// The recipes' site (api.github.com for code-repo), answered locally from the recipe's own fixture.
const recipeSite = await startRecipeSite(['https://api.github.com'])
recipeSite.use(fixturesOf('code-repo').find((f) => f.name === 'ok')!)
const svc = await startService({ allowlist: [`127.0.0.1:${site.port}`, `127.0.0.1:${recipeSite.port}`], env: { RECIPE_ORIGIN_OVERRIDES: recipeSite.overrides } })
// The page is opened on the service's PUBLIC_BASE_URL origin, as users do, so signed artifact links are same-origin.
const base = svc.config.publicBaseUrl
// The browser reaches the service directly (loopback, no proxy): it plays the user, not a scraping engine.
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: [...BASE_CHROMIUM_FLAGS] })
t.teardown(async () => { await browser.close(); await svc.close(); await site.close(); await recipeSite.close() })

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

const noHorizontalScroll = async (t: Test, name: string) => {
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)
  t.ok(overflow <= 0, `${name}: no horizontal scrolling at ${page.viewportSize()!.width} px (${overflow})`)
}

t.test('scrapes, content monitors, recipes and retention through the pages', async (t) => {
  const nav = page.getByRole('navigation', { name: 'Main' })
  await nav.getByRole('link', { name: 'Scrapes' }).click()
  await page.getByText('No scrapes yet.').waitFor()
  await page.getByLabel('Page URL').fill(`${site.origin}/page`)
  await page.getByRole('button', { name: 'Scrape' }).click()
  await page.getByRole('heading', { name: 'Result' }).waitFor({ timeout: 30_000 })
  t.match(await page.locator('.card pre.code').textContent(), /<h1 id="title">Widget<\/h1>/, 'the scraped HTML is shown')
  await page.getByRole('cell', { name: `${site.origin}/page` }).waitFor()
  await shot(page, 'scrapes')

  await nav.getByRole('link', { name: 'Content monitors' }).click()
  await page.getByText('No content monitors yet.').waitFor()
  await page.getByLabel('Page URL').fill(`${site.origin}/page`)
  await page.getByLabel('Every (minutes)').fill('1')
  await page.getByRole('button', { name: 'Add content monitor' }).click()
  t.match(await page.getByRole('alert').textContent(), /invalid_frequencyMinutes/, 'the API\'s field code is shown')
  await page.getByLabel('Every (minutes)').fill('60')
  await page.getByRole('button', { name: 'Add content monitor' }).click()
  await page.getByRole('heading', { name: `${site.origin}/page` }).waitFor()
  await page.getByRole('button', { name: 'Run now' }).click()
  await page.getByRole('button', { name: 'Runs' }).click()
  await page.locator('.card table tbody tr').first().waitFor()
  await shot(page, 'content-monitors')

  await nav.getByRole('link', { name: 'Recipes' }).click()
  await page.getByRole('heading', { name: 'Recipes' }).waitFor()
  await page.getByRole('link', { name: 'Code repository', exact: true }).click()
  await page.getByRole('button', { name: 'Run recipe' }).waitFor()
  t.same([await page.getByLabel('owner').inputValue(), await page.getByLabel('repo').inputValue()], ['octocat', 'Hello-World'], 'the form is built from the input schema, prefilled with the example')
  await page.getByLabel('repo').fill('')
  await page.getByRole('button', { name: 'Run recipe' }).click()
  t.match(await page.getByRole('alert').textContent(), /invalid_recipe_input/, 'the API\'s input check answers')
  await page.getByLabel('repo').fill('Hello-World')
  await page.getByRole('button', { name: 'Run recipe' }).click()
  await page.getByRole('heading', { name: 'Output' }).waitFor({ timeout: 30_000 })
  t.match(await page.locator('.card .badge').textContent(), /^ok$/, 'the run\'s outcome')
  t.match(await page.locator('.card pre.code').textContent(), /"full_name": "octocat\/Hello-World"/, 'the output')
  await page.getByRole('cell', { name: 'ok', exact: true }).waitFor()
  t.equal(await page.locator('table tbody tr').count(), 1, 'the run is listed under recent runs (the refused one made no job)')
  await shot(page, 'recipe')

  await nav.getByRole('link', { name: 'Retention' }).click()
  await page.getByText('Jobs and their artifacts are purged').waitFor()
  await page.getByLabel('Justification').fill('audit 7')
  await page.getByLabel('Job id').fill(jobId)
  await page.getByRole('button', { name: 'Place hold' }).click()
  t.match(await page.getByRole('alert').textContent(), /legal_holds_not_in_plan/, 'a plan without legal holds says so')
  await shot(page, 'retention')
})

t.test('a monitor: created on the page, run twice across a content change, its diff shown inline and side by side', async (t) => {
  // Sign-up gives a free organization, whose plan has no monitors: the operator moves the signed-up user's own
  // organization to Business (`cli org set --plan`), and the dashboard goes on with its own key.
  const tabKey = (JSON.parse((await page.evaluate(() => sessionStorage.getItem('scrapeworks.dashboard.key')))!) as { api_key: string }).api_key
  const org = await svc.api('GET', '/v1/org', { key: tabKey })
  t.equal(org.body.plan, 'free', 'the signed-up organization starts free')
  await svc.run(changeOrgPlan({ org_id: org.body.org_id, plan: 'business', now: new Date().toISOString(), metadata: { correlation_id: 'test', causation_id: null, actor: 'operator' } }))
  await waitFor(async () => (await svc.api('GET', '/v1/org', { key: tabKey })).body.plan === 'business')
  await page.goto(`${base}/app/#/monitors`)
  await page.getByText('No monitors yet').waitFor()
  await page.getByLabel('Name').fill('Pricing page')
  await page.getByLabel('Page URL').fill(`${site.origin}/pricing`)
  await page.getByLabel('Schedule (cron)').fill('* * * * *')
  await page.getByRole('button', { name: 'Create monitor' }).click()
  t.match(await page.getByRole('alert').textContent(), /interval_below_plan_minimum/, 'the plan\'s minimum interval is the API\'s message')
  // Yearly, so only "Run now" runs it during the test.
  await page.getByLabel('Schedule (cron)').fill('0 0 1 1 *')
  await page.getByLabel('Time zone').fill('UTC')
  await page.getByRole('button', { name: 'Create monitor' }).click()
  await page.getByRole('heading', { name: 'Pricing page' }).waitFor()
  await page.getByText('No change recorded yet.').waitFor()

  const delivered = page.locator('table tbody tr .badge-delivered')
  await page.getByRole('button', { name: 'Run now' }).click()
  await delivered.first().waitFor({ timeout: 30_000 })
  await page.waitForFunction(() => document.querySelector('.facts')?.textContent?.includes('health ok'), undefined, { timeout: 15_000 })
  t.equal(await page.locator('article.card').count(), 0, 'the first run is the baseline: no change')
  await shot(page, 'monitor-baseline')

  price = '119.99'
  await page.getByRole('button', { name: 'Run now' }).click()
  await page.locator('article.card').first().waitFor({ timeout: 30_000 })
  t.equal(await delivered.count(), 2, 'two delivered runs')
  t.equal(await page.locator('article.card').count(), 1, 'one change')
  t.match(await page.locator('article.card .summary').textContent(), /129\.99.*119\.99/, 'the change\'s summary names both prices')
  await page.locator('article.card summary', { hasText: 'Diff' }).click()
  const inline = page.locator('pre.diff-inline')
  await inline.waitFor()
  t.match(await inline.locator('.del').first().textContent(), /-Price: \$129\.99 per month/, 'the removed line')
  t.match(await inline.locator('.ins').first().textContent(), /\+Price: \$119\.99 per month/, 'the added line')
  await shot(page, 'monitor-diff')
  await page.getByRole('button', { name: 'Side by side' }).click()
  const row = page.locator('table.diff-side tbody tr').first()
  t.same([await row.locator('td.del').textContent(), await row.locator('td.ins').textContent()], ['Price: $129.99 per month', 'Price: $119.99 per month'], 'before and after on one row')
  await shot(page, 'monitor-diff-side')
  await page.setViewportSize({ width: 390, height: 844 })
  await shot(page, 'monitor-diff-side')
  await noHorizontalScroll(t, 'monitor')
  await page.setViewportSize({ width: 1280, height: 900 })
  await page.getByRole('link', { name: '← Monitors' }).click()
  await page.getByRole('link', { name: 'Pricing page' }).waitFor()
  await shot(page, 'monitors')
})

t.test('the main pages at 390 px', async (t) => {
  await page.setViewportSize({ width: 390, height: 844 })
  const pages = [
    ['#/jobs', 'jobs', 'Jobs'], [`#/jobs/${jobId}`, 'job', 'Manifest'], ['#/submit', 'submit', 'Submit a job'], ['#/keys', 'keys', 'API keys'],
    ['#/usage', 'usage', 'Usage'], ['#/webhooks', 'webhooks', 'Webhooks'], ['#/audit', 'audit', 'Audit log'], ['#/monitors', 'monitors', 'Monitors'],
    ['#/content-monitors', 'content-monitors', 'Content monitors'], ['#/scrapes', 'scrapes', 'Scrapes'], ['#/recipes', 'recipes', 'Recipes'],
    ['#/retention', 'retention', 'Retention'],
  ] as const
  for (const [hash, name, ready] of pages) {
    await page.goto(`${base}/app/${hash}`)
    await page.getByRole('heading', { name: ready, exact: true }).waitFor()
    await page.waitForLoadState('networkidle')
    await shot(page, name)
    await noHorizontalScroll(t, name)
  }
  await page.setViewportSize({ width: 1280, height: 900 })
})

t.test('the tab replaces its one-hour key before it runs out, and a key that stopped working, revoking the old one', async (t) => {
  type Stored = { key_id: string; api_key: string; expires_at: string }
  const stored = async () => JSON.parse((await page.evaluate(() => sessionStorage.getItem('scrapeworks.dashboard.key')))!) as Stored
  const first = await stored()
  const lifetime = Date.parse(first.expires_at) - Date.now()
  t.ok(lifetime > 50 * 60_000 && lifetime <= 60 * 60_000, 'the key expires within the hour')
  // Five minutes left: the next v1 call gets a new key first.
  await page.evaluate((key) => { sessionStorage.setItem('scrapeworks.dashboard.key', JSON.stringify({ ...key, expires_at: new Date(Date.now() + 300_000).toISOString() })) }, first)
  await page.goto(`${base}/app/#/jobs`)
  await page.getByRole('link', { name: `${site.origin}/page` }).first().waitFor()
  const second = await stored()
  t.not(second.key_id, first.key_id, 'a new key')
  t.equal((await svc.api('GET', '/v1/jobs', { key: second.api_key })).status, 200)
  await waitFor(async () => (await svc.api('GET', '/v1/jobs', { key: first.api_key })).status === 401)
  t.pass('the replaced key is revoked')
  // A key the API refuses (here the revoked one, still within its stored expiry) is replaced and the call retried.
  await page.evaluate((key) => { sessionStorage.setItem('scrapeworks.dashboard.key', JSON.stringify(key)) }, { ...first, expires_at: second.expires_at })
  await page.goto(`${base}/app/#/usage`)
  await page.getByText('credits used').waitFor()
  const third = await stored()
  t.ok(third.key_id !== first.key_id && third.key_id !== second.key_id, 'a refused key is replaced')
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
