import t from 'tap'
import { spawn } from 'node:child_process'

/**
 * Runs `npm run e2e:scale-out` (separate OS processes on Kafka, the MongoDB-protocol server and Azurite; rounds of
 * 100 jobs with one fetcher, with two, with one of them SIGKILLed midway, and with the survivor alone). Needs the
 * servers: fails under REQUIRE_SERVICES=1 when they are missing.
 */
const configured = ['KAFKA_BROKERS', 'MONGO_URL', 'AZURE_BLOB_CONNECTION_STRING'].every((k) => process.env[k])
if (!configured && process.env.REQUIRE_SERVICES === '1') t.fail('scale-out servers are not configured but REQUIRE_SERVICES=1')

t.test('scale-out processes: exactly one terminal state per job, Kafka in per-stream order, read models equal a replay', { skip: configured ? false : 'start scripts/services/start.sh and export .services/env', timeout: 900_000 }, async (t) => {
  const output = await new Promise<{ code: number | null; text: string }>((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/e2e-scale-out.ts'], { env: { ...process.env, E2E_JOBS: process.env.E2E_JOBS ?? '100' }, stdio: ['ignore', 'pipe', 'pipe'] })
    let text = ''
    child.stdout.on('data', (c: Buffer) => { text += c })
    child.stderr.on('data', (c: Buffer) => { text += c })
    child.on('exit', (code) => resolve({ code, text }))
  })
  t.equal(output.code, 0, output.text.slice(-2000))
  t.match(output.text, /e2e:scale-out OK/)
  t.match(output.text, /scale-out [\d.]+ jobs\/s vs embedded [\d.]+ jobs\/s \(ratio: [\d.]+\)/)
  t.match(output.text, /two fetchers [\d.]+ jobs\/s vs one fetcher [\d.]+ jobs\/s \(ratio: [\d.]+\)/)
  t.match(output.text, /the crash's survivor alone [\d.]+ jobs\/s vs one fresh fetcher [\d.]+ jobs\/s/)
})
