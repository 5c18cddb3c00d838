import { createHmac, timingSafeEqual } from 'node:crypto'
import { ScrapeworksError } from './errors.js'

/**
 * Standard Webhooks verification (the spec's "Verifying webhooks"): the signed content is
 * `${webhook-id}.${webhook-timestamp}.${body}`, signed with HMAC-SHA256 under the base64 key after `whsec_`; the
 * `webhook-signature` header lists `v1,<base64>` signatures separated by spaces (two while a rotated secret still
 * signs), and one match is enough. The timestamp must be within the tolerance of now, against replays.
 */
export const WEBHOOK_TOLERANCE_SECONDS = 5 * 60

/** The event a delivery carries (its body, parsed). */
export interface WebhookEvent {
  readonly event_id: string
  readonly type: string
  readonly created_at: string
  readonly data: Record<string, unknown>
}

type HeaderBag = Headers | Readonly<Record<string, string | readonly string[] | undefined>>

const headerOf = (headers: HeaderBag, name: string): string | undefined => {
  if (headers instanceof Headers) return headers.get(name) ?? undefined
  const entry = Object.entries(headers).find(([key]) => key.toLowerCase() === name)?.[1]
  return Array.isArray(entry) ? entry[0] : (entry as string | undefined)
}

const refuse = (message: string) => new ScrapeworksError(message, 0, 'invalid_webhook_signature')

/**
 * Checks a delivery's signature and timestamp and answers its event; throws a ScrapeworksError
 * (`invalid_webhook_signature`) when it was not signed with `secret`, is too old or too new, or lacks the headers.
 * `payload` must be the body exactly as received (the raw bytes or their UTF-8 text, not a re-serialized object).
 */
export const verifyWebhook = (
  payload: string | Uint8Array,
  headers: HeaderBag,
  secret: string,
  options: { readonly now?: Date; readonly toleranceSeconds?: number } = {},
): WebhookEvent => {
  const id = headerOf(headers, 'webhook-id')
  const timestamp = headerOf(headers, 'webhook-timestamp')
  const signatures = headerOf(headers, 'webhook-signature')
  if (!id || !timestamp || !signatures) throw refuse('missing webhook-id, webhook-timestamp or webhook-signature header')
  if (!/^\d+$/.test(timestamp)) throw refuse('webhook-timestamp is not a number of seconds')
  const seconds = Number(timestamp)
  const now = Math.floor((options.now ?? new Date()).getTime() / 1000)
  const tolerance = options.toleranceSeconds ?? WEBHOOK_TOLERANCE_SECONDS
  if (Math.abs(now - seconds) > tolerance) throw refuse(`webhook-timestamp is more than ${tolerance} s from now`)

  const key = Buffer.from(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret, 'base64')
  const body = typeof payload === 'string' ? payload : Buffer.from(payload).toString('utf8')
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest()
  const matches = signatures.split(' ').some((entry) => {
    const [version, signature] = entry.split(',', 2)
    if (version !== 'v1' || !signature) return false
    const given = Buffer.from(signature, 'base64')
    return given.length === expected.length && timingSafeEqual(given, expected)
  })
  if (!matches) throw refuse('no signature of the delivery matches the secret')
  return JSON.parse(body) as WebhookEvent
}
