import { createHmac, timingSafeEqual } from 'node:crypto'

/**
 * The token of an unsubscribe link: an HMAC of (monitor, recipient) under the service's signing secret, so a link
 * works without logging in and cannot be forged for another address or monitor. It does not expire: an old e-mail's
 * link must still work.
 */
export const unsubscribeToken = (secret: string, monitorId: string, recipient: string): string =>
  createHmac('sha256', secret).update(`unsubscribe\n${monitorId}\n${recipient.toLowerCase()}`).digest('base64url')

export const validUnsubscribeToken = (secret: string, monitorId: string, recipient: string, token: string): boolean => {
  const expected = Buffer.from(unsubscribeToken(secret, monitorId, recipient))
  const given = Buffer.from(token)
  return given.length === expected.length && timingSafeEqual(given, expected)
}

export const unsubscribeLink = (publicBaseUrl: string, secret: string, monitorId: string, recipient: string): string =>
  `${publicBaseUrl}/v1/monitors/${encodeURIComponent(monitorId)}/unsubscribe?recipient=${encodeURIComponent(recipient)}&token=${unsubscribeToken(secret, monitorId, recipient)}`
