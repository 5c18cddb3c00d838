/**
 * bench:fairness case `webhook-slow-endpoints`: the hostile organization has 12 endpoints on a receiver that answers
 * after 60 s and floods them with pings; the victim's delivery latency (ping to arrival at its own fast receiver) is
 * measured alone first, then beside the flood, and printed with its ratio (the bench's job figures come on top).
 */
import { startReceiver } from '../../test/helpers/webhook-receiver.js'
import { percentile } from '../stats.js'
import type { FairnessCase, FairnessSetup } from './case.js'

const HOLD_MS = 60_000
const ENDPOINTS = 12
const SAMPLES = 10

interface Setup extends FairnessSetup {
  readonly slow: Awaited<ReturnType<typeof startReceiver>>
  readonly fast: Awaited<ReturnType<typeof startReceiver>>
}

const call = async (base: string, key: string, method: string, path: string, body?: unknown) => {
  const res = await fetch(`${base}${path}`, {
    method, headers: { 'x-api-key': key, ...(body ? { 'content-type': 'application/json' } : {}) }, ...(body ? { body: JSON.stringify(body) } : {}),
  })
  const text = await res.text()
  if (res.status >= 300) throw new Error(`${method} ${path} answered ${res.status}: ${text}`)
  return text ? JSON.parse(text) as Record<string, unknown> : {}
}

/** Ping to arrival of the victim's deliveries, one after the other. */
const victimLatencies = async (base: string, key: string, endpointId: string, fast: Setup['fast']) => {
  const latencies: number[] = []
  for (let i = 0; i < SAMPLES; i++) {
    const before = fast.received.length
    const sent = Date.now()
    await call(base, key, 'POST', `/v1/webhook-endpoints/${endpointId}/test`)
    while (fast.received.length === before) await new Promise((r) => setTimeout(r, 5))
    latencies.push(fast.received[before]!.at - sent)
  }
  return latencies
}

const figures = (latencies: number[]) => `p50 ${percentile(latencies, 50).toFixed(0)} ms  p99 ${percentile(latencies, 99).toFixed(0)} ms`

export const fairnessCase: FairnessCase<Setup> = {
  name: 'webhook-slow-endpoints',
  setup: async () => {
    const slow = await startReceiver((_n, _received, res) => { setTimeout(() => { if (!res.destroyed) res.end('late') }, HOLD_MS).unref() })
    const fast = await startReceiver()
    return {
      slow, fast, allowlist: [slow.allowlistEntry, fast.allowlistEntry],
      // Deliveries wait for the slow answers rather than time out, as the finding's receivers did.
      env: { WEBHOOK_TIMEOUT_MS: String(HOLD_MS * 2) },
      close: async () => { await slow.close(); await fast.close() },
    }
  },
  hostile: async ({ base, hostileKey, victimKey, signal, setup }) => {
    if (!setup) throw new Error('the webhook case needs its receivers')
    const victimEndpoint = String((await call(base, victimKey, 'POST', '/v1/webhook-endpoints', { url: setup.fast.url, enabled_events: ['job.completed'] })).endpoint_id)
    const alone = await victimLatencies(base, victimKey, victimEndpoint, setup.fast)
    const endpoints: string[] = []
    for (let i = 0; i < ENDPOINTS; i++) {
      endpoints.push(String((await call(base, hostileKey, 'POST', '/v1/webhook-endpoints', { url: `${setup.slow.url}?endpoint=${i}`, enabled_events: ['job.completed'] })).endpoint_id))
    }
    const flood = (async () => {
      for (let round = 0; !signal.aborted; round++) {
        await Promise.all(endpoints.map((id) => call(base, hostileKey, 'POST', `/v1/webhook-endpoints/${id}/test`).catch(() => undefined)))
        await new Promise((r) => setTimeout(r, 50))
      }
    })()
    while (setup.slow.received.length < 8 && !signal.aborted) await new Promise((r) => setTimeout(r, 20))
    const beside = await victimLatencies(base, victimKey, victimEndpoint, setup.fast)
    console.log(`webhook-slow-endpoints  victim delivery alone ${figures(alone)}; beside ${ENDPOINTS} endpoints answering after ${HOLD_MS / 1000} s ${figures(beside)}`)
    console.log(`ratio: ${(percentile(beside, 99) / Math.max(1, percentile(alone, 99))).toFixed(2)}  (victim delivery p99 beside / alone; goal at most 1.5)`)
    await flood
  },
}
