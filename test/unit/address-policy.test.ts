import t from 'tap'
import {
  checkResolvedTarget,
  checkTargetUrl,
  forbiddenAddressReason,
  forbiddenHostReason,
  forbiddenPortReason,
  hostToResolve,
  isAllowlisted,
  normalizeHost,
  parseAllowlist,
} from '../../domain/address-policy.js'

const none = parseAllowlist(undefined)

// Each forbidden class in the notations an attacker would try; the WHATWG parser folds them all to one address.
const notations: Record<string, { reason: string; urls: string[] }> = {
  loopback: {
    reason: 'loopback',
    urls: [
      'http://127.0.0.1/',
      'http://2130706433/',
      'http://0177.0.0.1/',
      'http://0x7f.0.0.1/',
      'http://0x7f000001/',
      'http://127.1/',
      'http://127.0.1/',
      'http://127.255.255.254:8080/',
      'http://017700000001/',
      'http://127.0.0.1./',
    ],
  },
  private: {
    reason: 'private',
    urls: ['http://10.0.0.1/', 'http://167772161/', 'http://012.0.0.1/', 'http://0xa.0.0.1/', 'http://10.1/', 'http://172.16.5.4/', 'http://192.168.1.1/', 'http://3232235777/', 'http://0xc0.0xa8.1.1/'],
  },
  link_local: {
    reason: 'link_local',
    urls: ['http://169.254.1.1/', 'http://2851995905/', 'http://0251.0376.1.1/', 'http://0xa9.0xfe.1.1/', 'http://169.254.257/'],
  },
  multicast: { reason: 'multicast', urls: ['http://224.0.0.1/', 'http://3758096385/', 'http://0340.0.0.1/', 'http://0xe0.0.0.1/', 'http://239.1/'] },
  unspecified: { reason: 'unspecified', urls: ['http://0.0.0.0/', 'http://0/', 'http://00/', 'http://0x0/', 'http://0.1.2.3/'] },
  cgnat: { reason: 'cgnat', urls: ['http://100.64.0.1/', 'http://1681915905/', 'http://0144.0100.0.1/', 'http://0x64.0x40.0.1/', 'http://100.127.255.255/'] },
  cloud_metadata: {
    reason: 'cloud_metadata',
    urls: [
      'http://169.254.169.254/latest/meta-data/',
      'http://2852039166/',
      'http://0251.0376.0251.0376/',
      'http://0xa9.0xfe.0xa9.0xfe/',
      'http://0xa9fea9fe/',
      'http://169.254.43518/',
      'http://[fd00:ec2::254]/',
      'http://100.100.100.200/',
      'http://168.63.129.16/',
    ],
  },
  broadcast: { reason: 'broadcast', urls: ['http://255.255.255.255/', 'http://4294967295/', 'http://0xffffffff/'] },
  reserved: {
    reason: 'reserved',
    urls: ['http://198.18.0.1/', 'http://198.19.255.255/', 'http://240.0.0.1/', 'http://192.0.2.10/', 'http://203.0.113.5/', 'http://[2001:db8::1]/', 'http://[::8.8.8.8]/'],
  },
}

t.test('forbidden IPv4 classes in decimal, octal, hex and short notation', async (t) => {
  for (const [name, { reason, urls }] of Object.entries(notations)) {
    for (const url of urls) {
      const result = checkTargetUrl(url, none)
      t.match(result, { ok: false, code: 'unsafe_target_url' }, `${name}: ${url}`)
      if (!result.ok) t.match(result.message, reason, `${url} names ${reason}`)
    }
  }
})

t.test('IPv4-mapped and embedding IPv6 forms', async (t) => {
  const mapped = [
    '[::ffff:127.0.0.1]',
    '[::ffff:7f00:1]',
    '[0:0:0:0:0:ffff:7f00:1]',
    '[::ffff:10.0.0.1]',
    '[::ffff:169.254.169.254]',
    '[::ffff:a9fe:a9fe]',
    '[::ffff:100.64.0.1]',
    '[::ffff:0.0.0.0]',
    '[::ffff:224.0.0.1]',
  ]
  for (const host of mapped) {
    t.match(checkTargetUrl(`http://${host}/`, none), { ok: false, code: 'unsafe_target_url' }, host)
    t.equal(forbiddenAddressReason(host), 'ipv4_mapped_forbidden', host)
  }
  t.equal(forbiddenAddressReason('::ffff:8.8.8.8'), null, 'mapped public v4 is public')
  t.equal(forbiddenAddressReason('::127.0.0.1'), 'ipv4_embedded_forbidden', 'IPv4-compatible loopback')
  t.equal(forbiddenAddressReason('64:ff9b::127.0.0.1'), 'ipv4_embedded_forbidden', 'NAT64 loopback')
  t.equal(forbiddenAddressReason('64:ff9b::a9fe:a9fe'), 'ipv4_embedded_forbidden', 'NAT64 metadata')
  t.equal(forbiddenAddressReason('64:ff9b::8.8.8.8'), null, 'NAT64 of a public v4')
  t.equal(forbiddenAddressReason('64:ff9b:1::1'), 'private', 'local-use NAT64')
  t.equal(forbiddenAddressReason('2002:7f00:1::1'), 'ipv4_embedded_forbidden', '6to4 of loopback')
  t.equal(forbiddenAddressReason('2002:a9fe:a9fe::'), 'ipv4_embedded_forbidden', '6to4 of metadata')
  t.equal(forbiddenAddressReason('2002:808:808::1'), null, '6to4 of a public v4')
  t.equal(forbiddenAddressReason('2001:0:4136:e378:8000:63bf:3fff:fdd2'), 'reserved', 'Teredo')
})

t.test('IPv6 literals', async (t) => {
  const cases: [string, string][] = [
    ['[::1]', 'loopback'],
    ['[0:0:0:0:0:0:0:1]', 'loopback'],
    ['[::]', 'unspecified'],
    ['[fe80::1]', 'link_local'],
    ['[febf::1]', 'link_local'],
    ['[fc00::1]', 'private'],
    ['[fd12:3456::1]', 'private'],
    ['[fec0::1]', 'private'],
    ['[ff02::1]', 'multicast'],
    ['[fd00:ec2::254]', 'cloud_metadata'],
    ['[100::1]', 'reserved'],
    ['[4000::1]', 'reserved'],
  ]
  for (const [host, reason] of cases) {
    t.equal(forbiddenAddressReason(host), reason, host)
    const result = checkTargetUrl(`https://${host}:8443/x`, none)
    t.match(result, { ok: false, code: 'unsafe_target_url' }, `url with ${host}`)
  }
  t.equal(forbiddenAddressReason('fe80::1%eth0'), 'link_local', 'zone id')
  t.equal(forbiddenAddressReason('2606:4700:4700::1111'), null, 'public v6')
  t.equal(forbiddenAddressReason('not-an-ip'), 'not_an_ip')
})

t.test('schemes other than http and https are invalid', async (t) => {
  for (const url of [
    'file:///etc/passwd',
    'ftp://example.com/',
    'gopher://example.com:70/_GET',
    'javascript:alert(1)',
    'data:text/html,hi',
    'ws://example.com/',
    'dict://127.0.0.1:11211/',
    'http:example.com',
  ]) {
    const result = checkTargetUrl(url, none)
    if (url === 'http:example.com') {
      // WHATWG treats this as http://example.com/ for special schemes; it must then be judged on its host.
      t.match(result, { ok: true }, url)
      continue
    }
    t.match(result, { ok: false, code: 'invalid_target_url' }, url)
  }
  for (const url of ['', 'example.com', '/relative/path', 'http://', 'https://exa mple.com/', 'http://[::1/']) {
    t.match(checkTargetUrl(url, none), { ok: false, code: 'invalid_target_url' }, JSON.stringify(url))
  }
})

t.test('credentials in the URL are unsafe', async (t) => {
  for (const url of ['http://user:pass@example.com/', 'https://user@example.com/', 'http://:secret@example.com/', 'http://example.com@127.0.0.1/']) {
    t.match(checkTargetUrl(url, none), { ok: false, code: 'unsafe_target_url' }, url)
  }
})

t.test('local and internal host names are unsafe', async (t) => {
  for (const url of [
    'http://localhost/',
    'http://LOCALHOST:3000/',
    'http://localhost./',
    'http://api.localhost/',
    'http://printer.local/',
    'http://metadata.google.internal/computeMetadata/v1/',
    'http://ip-10-0-0-1.ec2.internal/',
    'http://metadata/',
    'http://instance-data/',
    'http://router.lan/',
    'http://nas.home.arpa/',
    'http://db.localdomain/',
    'http://1.0.0.127.in-addr.arpa/',
  ]) {
    t.match(checkTargetUrl(url, none), { ok: false, code: 'unsafe_target_url' }, url)
  }
  t.equal(forbiddenHostReason('LocalHost.'), 'localhost')
  t.equal(forbiddenHostReason('metadata.google.internal'), 'internal_hostname')
  t.equal(forbiddenHostReason('redis'), 'single_label_hostname')
  t.equal(forbiddenHostReason('0x7f.1'), 'loopback', 'non-canonical literal is folded first')
  t.equal(forbiddenHostReason('bad host'), 'invalid_host')
})

t.test('bad ports are unsafe', async (t) => {
  t.match(checkTargetUrl('http://example.com:25/', none), { ok: false, code: 'unsafe_target_url' })
  t.match(checkTargetUrl('http://example.com:6379/', none), { ok: true }, 'redis port on a public host is not a Fetch bad port')
  t.equal(forbiddenPortReason(0), 'bad_port')
  t.equal(forbiddenPortReason(22), 'bad_port')
  t.equal(forbiddenPortReason(65536), 'bad_port')
  t.equal(forbiddenPortReason(8080), null)
})

t.test('public targets are accepted', async (t) => {
  for (const url of [
    'http://example.com/',
    'https://example.com:8443/path?q=1#f',
    'https://EXAMPLE.com./',
    'http://93.184.215.14/',
    'http://1572395022/',
    'https://[2606:4700:4700::1111]/',
    'http://[::ffff:8.8.8.8]/',
    'https://bücher.example/',
    'http://172.32.0.1/',
    'http://100.128.0.1/',
    'http://198.20.0.1/',
    'http://169.255.0.1/',
  ]) {
    const result = checkTargetUrl(url, none)
    t.match(result, { ok: true }, url)
    if (result.ok) t.type(result.url, URL)
  }
})

t.test('allowlist admits exactly host:port', async (t) => {
  const allowlist = parseAllowlist(' 127.0.0.1:4010, [::1]:8080,Fixture.Test:80 ,')
  t.same([...allowlist].sort(), ['127.0.0.1:4010', '[::1]:8080', 'fixture.test:80'].sort())
  t.match(checkTargetUrl('http://127.0.0.1:4010/page', allowlist), { ok: true })
  t.match(checkTargetUrl('http://2130706433:4010/page', allowlist), { ok: true }, 'other notation of the same address')
  t.match(checkTargetUrl('http://127.0.0.1:4011/page', allowlist), { ok: false, code: 'unsafe_target_url' })
  t.match(checkTargetUrl('http://127.0.0.1/', allowlist), { ok: false, code: 'unsafe_target_url' }, 'effective port 80')
  t.match(checkTargetUrl('https://127.0.0.1:4010/', allowlist), { ok: true }, 'scheme is not part of the entry')
  t.match(checkTargetUrl('http://[::1]:8080/', allowlist), { ok: true })
  t.match(checkTargetUrl('http://[0:0::1]:8080/', allowlist), { ok: true })
  t.match(checkTargetUrl('http://fixture.test/', allowlist), { ok: true }, 'default port 80')
  t.match(checkTargetUrl('http://user:pw@127.0.0.1:4010/', allowlist), { ok: false, code: 'unsafe_target_url' }, 'credentials stay unsafe')
  t.match(checkTargetUrl('ftp://127.0.0.1:4010/', allowlist), { ok: false, code: 'invalid_target_url' })
  t.ok(isAllowlisted(allowlist, '::1', 8080), 'unbracketed v6 from a resolver')
  t.notOk(isAllowlisted(allowlist, '127.0.0.2', 4010))
  t.equal(parseAllowlist('').size, 0)
  t.throws(() => parseAllowlist('127.0.0.1'), /host:port/)
  t.throws(() => parseAllowlist('127.0.0.1:99999'), /host:port/)
  t.throws(() => parseAllowlist('::1:8080'), /host:port/)
  t.throws(() => parseAllowlist('a@b:80'), /host:port/)
})

t.test('normalizeHost folds notations and rejects smuggling', async (t) => {
  t.equal(normalizeHost('0x7F.1'), '127.0.0.1')
  t.equal(normalizeHost('::FFFF:127.0.0.1'), '[::ffff:7f00:1]')
  t.equal(normalizeHost('Example.COM.'), 'example.com')
  t.equal(normalizeHost('a@b'), null)
  t.equal(normalizeHost('a/b'), null)
  t.equal(normalizeHost('a?b'), null)
  t.equal(normalizeHost('a:80'), null)
})

t.test('checkResolvedTarget refuses a name only when every address it resolves to is forbidden', async (t) => {
  const allowlist = parseAllowlist('fixture.example.test:8080,127.0.0.2:80')
  const verdict = (url: string, addresses: readonly string[]) => checkResolvedTarget(new URL(url), addresses, allowlist)
  t.match(verdict('http://inward.example.test/', ['127.0.0.1']), { ok: false, code: 'unsafe_target_url' })
  t.match(verdict('http://inward.example.test/', ['10.0.0.1', '::1', '169.254.169.254']), { ok: false, code: 'unsafe_target_url' })
  t.match(verdict('http://mixed.example.test/', ['10.0.0.1', '93.184.216.34']), { ok: true }, 'one public address is enough (the gateway pins it)')
  t.match(verdict('http://unresolved.example.test/', []), { ok: true }, 'no answer: the gateway decides at connect time')
  t.match(verdict('http://fixture.example.test:8080/', ['127.0.0.1']), { ok: true }, 'an allowlisted name')
  t.match(verdict('http://pinned.example.test/', ['127.0.0.2']), { ok: true }, 'an allowlisted ip:port')
  t.equal(hostToResolve(new URL('http://93.184.216.34/'), allowlist), null, 'IP literals need no lookup')
  t.equal(hostToResolve(new URL('http://fixture.example.test:8080/'), allowlist), null, 'allowlisted names need no lookup')
  t.equal(hostToResolve(new URL('http://Name.Example.test/'), allowlist), 'name.example.test')
})
