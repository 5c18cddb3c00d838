import { execFile } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import t from 'tap'
import { SDK_DIR } from '../../scripts/generate-sdk-types.js'
import { startFixtureSite } from '../fixtures/site.js'
import { startService } from '../helpers/service.js'

// `npm pack` of sdks/typescript gives a tarball that installs into a fresh project and works there: plain Node
// imports it by its name and calls the running service, and TypeScript finds its types.

const run = promisify(execFile)
const site = await startFixtureSite()
const svc = await startService({ allowlist: [`127.0.0.1:${site.port}`] })
t.teardown(async () => { await svc.close(); await site.close() })
const { key } = await svc.createOrg('pro')

const work = mkdtempSync(join(tmpdir(), 'sw-sdk-pack-'))
t.teardown(() => rmSync(work, { recursive: true, force: true }))
const npm = (args: readonly string[], cwd: string) => run('npm', [...args, '--no-audit', '--no-fund'], { cwd, timeout: 300_000 })

t.test('npm pack gives a tarball that installs in a fresh project and works there', async (t) => {
  const packed = JSON.parse((await npm(['pack', '--json', '--pack-destination', work], SDK_DIR)).stdout) as [{ filename: string; files: { path: string }[] }]
  const files = packed[0].files.map((f) => f.path)
  for (const file of ['package.json', 'dist/index.js', 'dist/index.d.ts', 'dist/schema.d.ts', 'src/client.ts', 'openapi.json']) t.ok(files.includes(file), file)
  t.notOk(files.some((f) => f.startsWith('node_modules/')), 'no dependencies bundled')

  const project = join(work, 'project')
  mkdirSync(project)
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'fresh', private: true, type: 'module' }))
  await npm(['install', '--offline', join(work, packed[0].filename)], project)

  writeFileSync(join(project, 'main.mjs'), `
    import { Scrapeworks, ScrapeworksError } from '@scrapeworks/sdk'
    const client = new Scrapeworks({ apiKey: process.env.KEY, baseUrl: process.env.BASE })
    const page = await client.scrape(process.env.URL, { formats: ['text', 'links'] })
    let refused
    try { await new Scrapeworks({ apiKey: 'sw_wrong', baseUrl: process.env.BASE }).jobs.list() } catch (error) {
      refused = { isScrapeworksError: error instanceof ScrapeworksError, status: error.status }
    }
    console.log(JSON.stringify({ status: page.status, text: page.text, links: page.links, refused }))
  `)
  const { stdout } = await run(process.execPath, ['main.mjs'], { cwd: project, env: { PATH: process.env.PATH ?? '', KEY: key, BASE: svc.base, URL: `${site.origin}/page` }, timeout: 120_000 })
  const answer = JSON.parse(stdout)
  t.match(answer, { status: 'succeeded', text: /Widget/, refused: { isScrapeworksError: true, status: 401 } })
  t.ok(Array.isArray(answer.links), 'links inline')

  // The package's types reach a TypeScript user: a call with a wrong option does not compile.
  writeFileSync(join(project, 'typed.ts'), `
    import { Scrapeworks, type ScrapeResult } from '@scrapeworks/sdk'
    const client = new Scrapeworks({ apiKey: 'k', baseUrl: 'http://127.0.0.1:8080' })
    export const ok: Promise<ScrapeResult> = client.scrape('https://example.com/', { tier: 'light', formats: ['markdown'] })
    // @ts-expect-error: not a format
    export const wrong = client.scrape('https://example.com/', { formats: ['docx'] })
  `)
  const tsc = join(SDK_DIR, 'node_modules/.bin/tsc')
  const checked = await run(tsc, ['--noEmit', '--strict', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--target', 'es2022',
    '--typeRoots', join(SDK_DIR, 'node_modules/@types'), '--types', 'node', 'typed.ts'], { cwd: project }).then(() => 'compiles', (error) => String(error.stdout))
  t.equal(checked, 'compiles')
})
