import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { Effect } from 'effect'
import { SecretBox } from '../../domain/secret-box.js'
import { openProxyPassword } from '../../domain/job/spec-secrets.js'
import type { JobSpec } from '../../domain/job/spec.js'
import { STREAMS } from '../../domain/streams.js'
import { EventStore } from '../../ports/event-store.js'
import { startFixtureSite } from '../fixtures/site.js'
import { startService } from '../helpers/service.js'

const PASSWORD = 'pw-7f3a91-unique'

const site = await startFixtureSite()
const svc = await startService({ allowlist: [`127.0.0.1:${site.port}`, '127.0.0.1:3128'] })
t.teardown(async () => { await svc.close(); await site.close() })
const { key } = await svc.createOrg('pro')

const filesUnder = (dir: string): string[] => readdirSync(dir, { withFileTypes: true })
  .flatMap((e) => (e.isDirectory() ? filesUnder(join(dir, e.name)) : [join(dir, e.name)]))

t.test('a customer proxy password is sealed before it is recorded, and opens with the service key', async (t) => {
  const submitted = await svc.api('POST', '/v1/jobs', {
    key, body: { job_type: 'stealth', target_url: `${site.origin}/page`, proxy: { server: 'http://127.0.0.1:3128', username: 'cust', password: PASSWORD } },
  })
  t.equal(submitted.status, 202)
  t.notMatch(submitted.text, PASSWORD, 'the submission answer does not echo it')
  await svc.waitForResult(key, submitted.body.job_id)
  const events = await svc.run(Effect.flatMap(EventStore, (s) => s.readStream(STREAMS.job.stream(submitted.body.job_id))))
  const spec = events.find((e) => e.type === 'JobRequested')!.data.spec as JobSpec
  t.match(spec.proxy?.password, /^sealed:v1:/)
  t.equal(spec.proxy?.username, 'cust')
  t.equal(openProxyPassword(spec, new SecretBox(svc.config.signingSecret)), PASSWORD)
  t.throws(() => openProxyPassword(spec, new SecretBox('another secret')), /could not be opened/)
  const record = await svc.api('GET', `/v1/jobs/${submitted.body.job_id}`, { key })
  t.notMatch(record.text, PASSWORD)
  for (const file of filesUnder(svc.dataDir)) t.notOk(readFileSync(file).includes(PASSWORD), `${file} does not hold the password`)
})
