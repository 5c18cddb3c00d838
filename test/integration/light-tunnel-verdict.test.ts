import t from 'tap'
import { parseAllowlist } from '../../domain/address-policy.js'
import { validateJobSpec } from '../../domain/job/spec.js'
import { startEgressGateway } from '../../fetchers/egress/index.js'
import { makeLightEngine } from '../../fetchers/light/engine.js'

// The gateway's own resolver: one name leads to loopback (as after DNS rebinding), every other name does not resolve.
const gateway = await startEgressGateway({
  allowlist: parseAllowlist(''),
  resolver: async (name) => (name === 'rebound.example.com' ? [{ address: '127.0.0.1', family: 4 }] : []),
})
const engine = makeLightEngine({ proxyUrl: gateway.url, allowlist: parseAllowlist(''), extraCaFile: null })
t.teardown(async () => { await engine.close(); await gateway.close() })

const run = async (target_url: string) => {
  const checked = validateJobSpec({ job_type: 'light', target_url, retry_policy: { max_attempts: 1 } }, { allowlist: parseAllowlist(''), isTimeZone: () => true })
  if (!checked.ok) throw new Error(JSON.stringify(checked))
  return engine.run({ job_id: 'tunnel-verdict', org_id: 'org-tunnel-verdict', spec: checked.spec, signal: new AbortController().signal })
}

t.test('an HTTPS target the gateway refuses at CONNECT fails with egress_denied, not a network error', async (t) => {
  const outcome = await run('https://rebound.example.com/')
  t.equal(outcome.ok, false)
  if (!outcome.ok) t.equal(outcome.failure_reason, 'egress_denied', outcome.message)
})

t.test('an HTTPS target the gateway cannot resolve fails with network_error', async (t) => {
  const outcome = await run('https://unresolved.example.com/')
  t.equal(outcome.ok, false)
  if (!outcome.ok) {
    t.equal(outcome.failure_reason, 'network_error')
    t.match(outcome.message, /could not be resolved or reached/)
  }
})
