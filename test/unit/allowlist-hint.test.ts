import t from 'tap'
import { checkTargetUrl, parseAllowlist } from '../../domain/address-policy.js'

t.test('a refused localhost target names the loopback entry of the allowlist on its port', async (t) => {
  const refused = checkTargetUrl('http://localhost:8090/', parseAllowlist('127.0.0.1:8090'))
  t.match(refused, { ok: false, code: 'unsafe_target_url' })
  t.match(!refused.ok && refused.message, 'the allowlist has 127.0.0.1:8090: use that address in target_url, or add localhost:8090 to SSRF_ALLOWLIST')
  const v6 = checkTargetUrl('http://localhost:8090/', parseAllowlist('[::1]:8090'))
  t.match(!v6.ok && v6.message, /the allowlist has \[::1\]:8090/)
  const otherPort = checkTargetUrl('http://localhost:8091/', parseAllowlist('127.0.0.1:8090'))
  t.equal(!otherPort.ok && otherPort.message, 'target_url points to a non-public destination (localhost)', 'no hint without an entry on that port')
  t.match(checkTargetUrl('http://localhost:8090/', parseAllowlist('localhost:8090')), { ok: true }, 'the name itself can be allowlisted')
})
