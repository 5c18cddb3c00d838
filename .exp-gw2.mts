import { chromium } from 'playwright-core'
import { startEgressGateway } from './fetchers/egress/index.js'
import { parseAllowlist } from './domain/address-policy.js'
for (const [exe, extra, env] of [['/usr/lib/chromium/chromium', [], {}], ['/usr/bin/chromium', [], {}], ['/usr/bin/chromium', ['--disable-extensions', '--disable-default-apps', '--disable-features=OptimizationHints,MediaRouter,Translate,AutofillServerCommunication,CertificateTransparencyComponentUpdater'], {}], ['/usr/bin/chromium', [], { GOOGLE_API_KEY: 'no', GOOGLE_DEFAULT_CLIENT_ID: 'no', GOOGLE_DEFAULT_CLIENT_SECRET: 'no' }]] as const) {
  const seen: string[] = []
  const gw = await startEgressGateway({ allowlist: parseAllowlist(''), log: (e) => seen.push(`${e.host}:${e.port}`) })
  const flags = ['--no-sandbox','--disable-gpu','--disable-quic','--no-first-run','--disable-background-networking','--disable-component-update','--disable-sync','--disable-dev-shm-usage', `--proxy-server=${gw.url}`, '--proxy-bypass-list=<-loopback>', ...extra]
  const browser = await chromium.launch({ executablePath: exe, args: flags, env: { ...process.env, ...env } })
  const ctx = await browser.newContext(); const page = await ctx.newPage()
  await page.goto('about:blank'); await new Promise(r => setTimeout(r, 4000))
  await browser.close(); await gw.close()
  console.log(exe, extra.length, Object.keys(env).length, seen)
}
