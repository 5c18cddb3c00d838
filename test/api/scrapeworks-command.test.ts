import { execFile } from 'node:child_process'
import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { startFixtureSite } from '../fixtures/site.js'
import { fixturesOf } from '../helpers/recipe-fixtures.js'
import { startRecipeSite } from '../helpers/recipe-site.js'
import { portNothingListensOn, startService } from '../helpers/service.js'

// The `scrapeworks` user command (client/), run as a user runs it, against the running service.

const ARTICLE = readFileSync(new URL('../fixtures/browser/app.html', import.meta.url), 'utf8')
const BIN = fileURLToPath(new URL('../../bin/scrapeworks.mjs', import.meta.url))
const site = await startFixtureSite({
  '/article': (_req, res) => { res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }); res.end(ARTICLE) },
})
// The shipped recipes, their site answered by the local recipe fixture site.
const recipeSite = await startRecipeSite(['https://api.github.com'])
const svc = await startService({ allowlist: [`127.0.0.1:${site.port}`, `127.0.0.1:${recipeSite.port}`], env: { RECIPE_ORIGIN_OVERRIDES: recipeSite.overrides } })
t.teardown(async () => { await svc.close(); await site.close(); await recipeSite.close() })
const { key } = await svc.createOrg('pro')

interface Run { readonly code: number; readonly stdout: string; readonly stderr: string }
const scrapeworks = (args: readonly string[], env: Record<string, string> = {}): Promise<Run> =>
  new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], {
      env: { PATH: process.env.PATH ?? '', SCRAPEWORKS_API_KEY: key, SCRAPEWORKS_URL: svc.base, ...env }, timeout: 120_000,
    }, (error, stdout, stderr) => resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr }))
  })
const lines = (text: string) => text.trim().split('\n')

t.test('scrape prints the markdown of a page, with progress on stderr', async (t) => {
  const run = await scrapeworks(['scrape', `${site.origin}/article`, '--format', 'markdown'])
  t.equal(run.code, 0, run.stderr)
  t.match(run.stdout, /^# Fixture headline\n/)
  t.match(run.stdout, `[the guide](${site.origin}/docs/guide)`)
  t.match(run.stderr, /^job [0-9a-f-]{36} submitted \(light\)$/m)
  t.match(run.stderr, /^job [0-9a-f-]{36} succeeded$/m)
})

t.test('scrape -o writes the result to a file; --extract prints the values by name', async (t) => {
  const file = join(mkdtempSync(join(tmpdir(), 'sw-cli-')), 'links.json')
  const written = await scrapeworks(['scrape', `${site.origin}/article`, '--format', 'links', '-o', file])
  t.equal(written.code, 0, written.stderr)
  t.equal(written.stdout, '', 'nothing on stdout')
  t.same(JSON.parse(readFileSync(file, 'utf8')), [`${site.origin}/about`, 'https://example.org/elsewhere', `${site.origin}/article#top`, `${site.origin}/docs/guide`])
  t.match(written.stderr, `bytes to ${file}`)

  const extracted = await scrapeworks(['scrape', `${site.origin}/page`, '--extract', 'title=h1#title', '--extract', 'price=.price'])
  t.equal(extracted.code, 0, extracted.stderr)
  t.same(JSON.parse(extracted.stdout), { title: 'Widget', price: '€19.99' })

  const json = await scrapeworks(['scrape', `${site.origin}/json`, '--format', 'json'])
  t.same(JSON.parse(json.stdout), { items: [{ id: 1, name: 'a' }, { id: 2, name: 'b' }] })
})

t.test('jobs list, get and result read the jobs through the API', async (t) => {
  const submitted = await svc.api('POST', '/v1/jobs', { key, body: { job_type: 'light', target_url: `${site.origin}/page`, formats: ['text'] } })
  const jobId = submitted.body.job_id
  const result = await scrapeworks(['jobs', 'result', jobId])
  t.equal(result.code, 0, result.stderr)
  t.match(JSON.parse(result.stdout), { job_id: jobId, status: 'succeeded', formats: { text: /Widget/ } })
  const got = await scrapeworks(['jobs', 'get', jobId])
  t.match(JSON.parse(got.stdout), { job_id: jobId, status: 'succeeded', job_type: 'light' })
  const listed = await scrapeworks(['jobs', 'list', '--status', 'succeeded'])
  t.equal(listed.code, 0, listed.stderr)
  t.ok(lines(listed.stdout).some((line) => line.startsWith(`${jobId}\tsucceeded\tlight\t`)), listed.stdout)
  const missing = await scrapeworks(['jobs', 'get', '00000000-0000-4000-8000-000000000000'])
  t.equal(missing.code, 1)
  t.match(missing.stderr, /^error: 404 job_not_found: /)
})

t.test('monitors create, list and runs', async (t) => {
  const created = await scrapeworks(['monitors', 'create', '--name', 'cli', '--cron', '0 * * * *', '--url', `${site.origin}/page`])
  t.equal(created.code, 0, created.stderr)
  const monitor = JSON.parse(created.stdout)
  t.match(monitor, { name: 'cli', cron: '0 * * * *', status: 'active', job_type: 'light' })
  const listed = await scrapeworks(['monitors', 'list'])
  t.ok(lines(listed.stdout).some((line) => line.startsWith(`${monitor.id}\tactive\t0 * * * *\tcli\t`)), listed.stdout)
  const runs = await scrapeworks(['monitors', 'runs', monitor.id, '--json'])
  t.equal(runs.code, 0, runs.stderr)
  t.same(JSON.parse(runs.stdout), [], 'no run fired yet')
})

t.test('recipes list and run, with the run\'s input from --input', async (t) => {
  const listed = await scrapeworks(['recipes', 'list'])
  t.equal(listed.code, 0, listed.stderr)
  t.ok(lines(listed.stdout).some((line) => line.startsWith('code-repo\t')), listed.stdout)
  const ok = fixturesOf('code-repo').find((f) => f.name === 'ok')!
  recipeSite.use(ok)
  const run = await scrapeworks(['recipes', 'run', 'code-repo', '--input', 'owner=octocat', '--input', 'repo=Hello-World'])
  t.equal(run.code, 0, run.stderr)
  t.same(JSON.parse(run.stdout), ok.expect.output)
  t.match(run.stderr, /^job [0-9a-f-]{36} submitted \(recipe code-repo\)$/m)
  const bad = await scrapeworks(['recipes', 'run', 'code-repo', '--input', 'owner'])
  t.equal(bad.code, 2)
  t.match(bad.stderr, 'takes NAME=VALUE')
})

t.test('a wrong key is one line and exit code 3', async (t) => {
  const run = await scrapeworks(['jobs', 'list'], { SCRAPEWORKS_API_KEY: 'sw_wrong' })
  t.equal(run.code, 3)
  t.equal(lines(run.stderr).length, 1, run.stderr)
  t.match(run.stderr, /^error: the API key was refused \(401 \w+\): .*check SCRAPEWORKS_API_KEY$/m)
})

t.test('a rate-limited key says how long to wait, exit code 4', async (t) => {
  const created = await svc.api('POST', '/v1/keys', { key, body: { name: 'slow', scopes: ['jobs.read'], rate_limit_rpm: 1 } })
  t.equal(created.status, 201, created.text)
  const slow = { SCRAPEWORKS_API_KEY: created.body.api_key }
  t.equal((await scrapeworks(['jobs', 'list'], slow)).code, 0)
  const limited = await scrapeworks(['jobs', 'list'], slow)
  t.equal(limited.code, 4)
  t.match(limited.stderr, /^error: rate limited \(429 rate_limit_exceeded\): .*; retry in \d+ s\n$/)
})

t.test('bad usage and an unreachable service are one line each', async (t) => {
  const format = await scrapeworks(['scrape', `${site.origin}/page`, '--format', 'docx'])
  t.equal(format.code, 2)
  t.match(format.stderr, /^error: --format must be one of markdown, html, text, json, links/)
  const noKey = await scrapeworks(['jobs', 'list'], { SCRAPEWORKS_API_KEY: '' })
  t.equal(noKey.code, 2)
  t.match(noKey.stderr, 'SCRAPEWORKS_API_KEY is not set')
  const refused = await scrapeworks(['scrape', 'https://example.com/', '--tier', 'light', '--format', 'markdown'], { SCRAPEWORKS_URL: `http://127.0.0.1:${await portNothingListensOn()}` })
  t.equal(refused.code, 1)
  t.match(refused.stderr, /^error: cannot reach http:\/\/127\.0\.0\.1:\d+ \(ECONNREFUSED\)/)
  const rejected = await scrapeworks(['scrape', 'http://10.0.0.1/'])
  t.equal(rejected.code, 1)
  t.match(rejected.stderr, /^error: 422 unsafe_target_url: target_url: /)
  const help = await scrapeworks(['--help'])
  t.equal(help.code, 0)
  t.match(help.stdout, 'scrape URL [--tier light|standard|stealth]')
})
