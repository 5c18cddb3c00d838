import { execFile } from 'node:child_process'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'
import t from 'tap'
import { verificationLink } from '../helpers/mail.js'
import { startService, tempDataDir } from '../helpers/service.js'

/**
 * Fuzzes every operation of /openapi.json with schemathesis (installed by .ci/run into .services/schemathesis) in all
 * its phases (examples, coverage, fuzzing, stateful along the document's links), authenticated with an all-scope key
 * and a verified user's bearer token of throwaway ones, with every check docs/http-conformance.md lists: no server
 * error, only declared statuses, headers, content types and bodies, out-of-schema requests refused, undeclared methods
 * 405 with a true Allow, and created resources readable until deleted.
 */
// Every phase over every operation takes about 6 minutes on a quiet machine, 12 on a busy one.
t.setTimeout(1_500_000)
const CHECKS = [
  'not_a_server_error', 'status_code_conformance', 'content_type_conformance', 'response_headers_conformance', 'response_schema_conformance',
  'negative_data_rejection', 'unsupported_method', 'allow_header_conformance', 'use_after_free', 'ensure_resource_availability',
  // Not positive_data_acceptance: many bodies have rules across fields no JSON schema can say (docs/http-conformance.md).
]

const candidates = [process.env.SCHEMATHESIS_BIN, join(process.cwd(), '.services/schemathesis/bin/st')].filter((p): p is string => !!p)
const st = candidates.find((p) => existsSync(p))
if (!st) {
  if (process.env.REQUIRE_SERVICES || process.env.REQUIRE_SCHEMATHESIS) t.fail(`schemathesis is not installed (looked at ${candidates.join(', ')}; .ci/run installs it)`)
  else t.plan(0, 'schemathesis is not installed (.ci/run installs it); set SCHEMATHESIS_BIN to run this test')
} else {
  // No fetcher (jobs stay queued, nothing leaves the machine) and no DNS: every submitted host name is unresolvable.
  // Queued jobs never end, so a result long poll always waits its whole `wait`: at most 1 s here.
  const dataDir = tempDataDir('schemathesis')
  const svc = await startService({ roles: ['api', 'projector', 'mailer'], dns: {}, dataDir, env: { RESULT_WAIT_MAX_SECONDS: '1' } })
  t.teardown(() => svc.close())

  const org = await svc.createOrg('enterprise')
  const email = `fuzz-${Date.now()}@example.com`
  const password = 'correct horse battery staple'
  if ((await svc.api('POST', '/register', { body: { email, password } })).status !== 202) throw new Error('registration failed')
  const link = await verificationLink(svc.dataDir, email)
  await svc.api('GET', `${link.pathname}${link.search}`)
  const token = await svc.api('POST', '/token', { body: { email, password } })
  if (token.status !== 200) throw new Error(`token failed: ${token.text}`)

  t.test('schemathesis finds no server error, no undeclared status and no body outside its schema', async (t) => {
    const args = [
      'run', `${svc.base}/openapi.json`, '--url', svc.base,
      '--header', `X-API-Key: ${org.key}`, '--header', `Authorization: Bearer ${token.body.access_token}`,
      '--checks', CHECKS.join(','), '--phases', 'examples,coverage,fuzzing,stateful',
      '--max-examples', process.env.SCHEMATHESIS_MAX_EXAMPLES ?? '30', '--seed', '1', '--workers', '2',
      '--request-timeout', '20', '--no-color', '--report', 'ndjson', '--report-dir', join(dataDir, 'schemathesis-report'),
    ]
    const result = await promisify(execFile)(st, args, { timeout: 1_200_000, maxBuffer: 64 * 1024 * 1024 }).then(
      (ok) => ({ code: 0, output: ok.stdout + ok.stderr }),
      (failed: { code?: number; stdout?: string; stderr?: string }) => ({ code: failed.code ?? -1, output: `${failed.stdout ?? ''}${failed.stderr ?? ''}` }),
    )
    // The report from the failures (or, when there are none, the summary) on: the progress lines before it are noise.
    const plain = result.output.replace(/\x1b\[[0-9;]*[A-Za-z]/g, '')
    const from = [' FAILURES ', ' ERRORS ', ' WARNINGS ', ' SUMMARY '].map((h) => plain.indexOf(h)).find((i) => i >= 0) ?? Math.max(0, plain.length - 20_000)
    t.equal(result.code, 0, `schemathesis (exit code ${result.code}):\n${plain.slice(from, from + 40_000)}`)
  })
}
