import t from 'tap'
import { scenario } from '../helpers/given-when-then.js'
import { orgDecider, type OrgCommand } from '../../domain/org/decider.js'
import { OrgCreated, OrgIpAllowlistSet } from '../../domain/org/events.js'

const NOW = '2024-05-01T12:00:00.000Z'
const given = scenario(t, orgDecider)
const orgCreated = new OrgCreated({ org_id: 'o1', name: 'Acme', plan: 'pro', created_at: NOW })
const set = (ip_allowlist: string[], caller_ip?: string): OrgCommand => ({ _tag: 'SetOrgIpAllowlist', org_id: 'o1', ip_allowlist, caller_ip, now: NOW })
const recorded = (ip_allowlist: string[]) => [new OrgIpAllowlistSet({ org_id: 'o1', ip_allowlist, set_at: NOW })]

given([orgCreated]).when(set(['192.0.2.0/24'], '203.0.113.9'))
  .then({ _tag: 'ValidationFailed', errors: [{ field: 'ip_allowlist', code: 'allowlist_excludes_caller' }] }, 'a list without the caller is refused')
given([orgCreated]).when(set(['192.0.2.0/24', '203.0.113.0/24'], '203.0.113.9')).then(recorded(['192.0.2.0/24', '203.0.113.0/24']), 'a list with the caller is recorded')
given([orgCreated]).when(set(['127.0.0.1'], '::ffff:127.0.0.1')).then(recorded(['127.0.0.1']), 'an IPv4-mapped caller matches its IPv4 entry')
given([orgCreated]).when(set([], '203.0.113.9')).then(recorded([]), 'an empty list allows every address, the caller too')
given([orgCreated]).when(set(['192.0.2.0/24'])).then(recorded(['192.0.2.0/24']), 'operators (no caller address) set any list')
